package labwire

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
)

// nopReadSeeker is an io.ReadSeekCloser over bytes.
type nopReadSeeker struct{ *bytes.Reader }

func (nopReadSeeker) Close() error { return nil }

// TestSealedReader pins the lazily sealed media bytes to the streaming
// encrypter's, read whole and from any offset, and that they decrypt.
func TestSealedReader(t *testing.T) {
	key := testPackageKey(7)
	for _, n := range []int{1, packageChunkSize - 1, packageChunkSize, packageChunkSize + 1, 3*packageChunkSize + 77} {
		plain := make([]byte, n)
		rng := rand.New(rand.NewPCG(uint64(n), 2))
		for i := range plain {
			plain[i] = byte(rng.Uint32())
		}
		var want bytes.Buffer
		enc, err := NewPackageEncrypter(&want, key, testNoncePrefix)
		if err != nil {
			t.Fatal(err)
		}
		enc.Write(plain)
		if err := enc.Close(); err != nil {
			t.Fatal(err)
		}
		if int64(want.Len()) != SealedSize(int64(n)) {
			t.Fatalf("%d bytes: SealedSize = %d, the encrypter wrote %d", n, SealedSize(int64(n)), want.Len())
		}
		r, err := NewSealedReader(nopReadSeeker{bytes.NewReader(plain)}, int64(n), key, testNoncePrefix)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%d bytes: sealed reader differs from the encrypter (err %v)", n, err)
		}
		for range 20 {
			off := rng.Int64N(int64(want.Len()))
			if _, err := r.Seek(off, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			part := make([]byte, min(int64(want.Len())-off, 1+rng.Int64N(100000)))
			if _, err := io.ReadFull(r, part); err != nil || !bytes.Equal(part, want.Bytes()[off:off+int64(len(part))]) {
				t.Fatalf("%d bytes: read at %d differs (err %v)", n, off, err)
			}
		}
		dec, err := NewPackageDecrypter(bytes.NewReader(got), key)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := io.ReadAll(dec); err != nil || !bytes.Equal(back, plain) {
			t.Fatalf("%d bytes: decrypting the sealed reader's bytes: %v", n, err)
		}
	}
}
