package client_test

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/seedhq/portal/pkg/client"
)

const chunk = 64 << 10

// encOptions varies the test encrypter within what the format allows.
type encOptions struct {
	// emptyFinal: when the plaintext fills its last chunk exactly, seal
	// that chunk as a middle one and end with an empty final chunk
	// (instead of sealing the full chunk as the final one).
	emptyFinal bool
	// shift is log2 of the chunk size; 16 when 0.
	shift byte
}

// encryptPackage is a test-only AES-256-GCM-STREAM encrypter written from
// docs/api/exam.md: a 16-byte header ("EXPK", 0x01, log2 chunk size, 0x00
// 0x00, 8-byte nonce prefix), then each plaintext chunk sealed with
// AES-256-GCM under nonce prefix | uint32 BE index, with the header as
// additional data, plus a final 0x01 byte for the last chunk.
func encryptPackage(t testing.TB, key []byte, prefix [8]byte, plain []byte, o encOptions) []byte {
	t.Helper()
	if o.shift == 0 {
		o.shift = 16
	}
	size := 1 << o.shift
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	header := append([]byte("EXPK"), 0x01, o.shift, 0x00, 0x00)
	header = append(header, prefix[:]...)

	var pieces [][]byte
	for off := 0; off < len(plain); off += size {
		pieces = append(pieces, plain[off:min(off+size, len(plain))])
	}
	if len(pieces) == 0 || (o.emptyFinal && len(plain)%size == 0) {
		pieces = append(pieces, nil)
	}
	out := append([]byte(nil), header...)
	for i, p := range pieces {
		nonce := make([]byte, 12)
		copy(nonce, prefix[:])
		binary.BigEndian.PutUint32(nonce[8:], uint32(i))
		aad := header
		if i == len(pieces)-1 {
			aad = append(append([]byte(nil), header...), 0x01)
		}
		out = aead.Seal(out, nonce, p, aad)
	}
	return out
}

func newKey(t testing.TB) []byte {
	t.Helper()
	k := make([]byte, 32)
	rand.Read(k)
	return k
}

func randPrefix() (p [8]byte) {
	rand.Read(p[:])
	return p
}

// decryptAll reads the whole decrypter, returning what it gave and the
// error that ended it (nil for io.EOF).
func decryptAll(t testing.TB, key []byte, r io.Reader) ([]byte, error) {
	t.Helper()
	d, err := client.NewPackageDecrypter(key, r)
	if err != nil {
		t.Fatal(err)
	}
	return io.ReadAll(d)
}

func TestPackageDecrypterRoundTrip(t *testing.T) {
	key := newKey(t)
	sizes := []int{0, 1, 100, chunk - 1, chunk, chunk + 1, 2 * chunk, 3*chunk + 100, 4 * chunk}
	for _, n := range sizes {
		plain := make([]byte, n)
		rand.Read(plain)
		for _, o := range []encOptions{{}, {emptyFinal: true}} {
			t.Run(fmt.Sprintf("%d bytes emptyFinal=%v", n, o.emptyFinal), func(t *testing.T) {
				sealed := encryptPackage(t, key, randPrefix(), plain, o)
				got, err := decryptAll(t, key, bytes.NewReader(sealed))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, plain) {
					t.Fatalf("got %d bytes, want %d", len(got), n)
				}
				// Reads of one byte, from a source giving one byte at a time,
				// behave as io.Reader says.
				d, _ := client.NewPackageDecrypter(key, iotest.OneByteReader(bytes.NewReader(sealed)))
				if n <= 2*chunk {
					if err := iotest.TestReader(d, plain); err != nil {
						t.Fatal(err)
					}
				}
				// The sealed size is what the format says.
				chunks := (n + chunk - 1) / chunk
				if n == 0 || (o.emptyFinal && n%chunk == 0) {
					chunks++
				}
				if want := 16 + n + 16*chunks; len(sealed) != want {
					t.Errorf("sealed %d bytes, want %d", len(sealed), want)
				}
			})
		}
	}
}

func TestPackageDecrypterOtherChunkSize(t *testing.T) {
	key := newKey(t)
	plain := bytes.Repeat([]byte("abcdefgh"), 1000) // 8000 bytes: two 4 KiB chunks
	got, err := decryptAll(t, key, bytes.NewReader(encryptPackage(t, key, randPrefix(), plain, encOptions{shift: 12})))
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("4 KiB chunks: %d bytes, %v", len(got), err)
	}
	for _, shift := range []byte{9, 21} {
		_, err := decryptAll(t, key, bytes.NewReader(encryptPackage(t, key, randPrefix(), []byte("x"), encOptions{shift: shift})))
		if !errors.Is(err, client.ErrPackageFormat) {
			t.Errorf("chunk shift %d: %v, want ErrPackageFormat", shift, err)
		}
	}
}

func TestPackageDecrypterKey(t *testing.T) {
	for _, n := range []int{0, 16, 24, 31, 33} {
		if _, err := client.NewPackageDecrypter(make([]byte, n), bytes.NewReader(nil)); err == nil {
			t.Errorf("%d-byte key: nil error", n)
		}
	}
	if _, err := client.NewPackageDecrypter(make([]byte, 32), nil); err == nil {
		t.Error("nil reader: nil error")
	}

	key := newKey(t)
	plain := make([]byte, 3*chunk)
	sealed := encryptPackage(t, key, randPrefix(), plain, encOptions{})
	got, err := decryptAll(t, newKey(t), bytes.NewReader(sealed))
	if !errors.Is(err, client.ErrPackageCorrupt) || len(got) != 0 {
		t.Fatalf("wrong key: %d bytes, %v; want ErrPackageCorrupt and nothing", len(got), err)
	}
}

func TestPackageDecrypterTampering(t *testing.T) {
	key := newKey(t)
	plain := make([]byte, 3*chunk+500)
	rand.Read(plain)
	sealed := encryptPackage(t, key, randPrefix(), plain, encOptions{})
	ct := chunk + 16

	cases := []struct {
		name   string
		at     int
		want   error
		before int // plaintext bytes that may come out first (whole chunks before the damage)
	}{
		{"magic", 0, client.ErrPackageFormat, 0},
		{"version", 4, client.ErrPackageFormat, 0},
		{"chunk size", 5, client.ErrPackageCorrupt, 0}, // 0x11: a size in range, so the header (AAD) check fails
		{"reserved", 6, client.ErrPackageFormat, 0},
		{"reserved 2", 7, client.ErrPackageFormat, 0},
		{"nonce prefix", 8, client.ErrPackageCorrupt, 0},
		{"first chunk", 16, client.ErrPackageCorrupt, 0},
		{"first tag", 16 + ct - 1, client.ErrPackageCorrupt, 0},
		{"second chunk", 16 + ct + 100, client.ErrPackageCorrupt, chunk},
		{"last chunk", len(sealed) - 20, client.ErrPackageCorrupt, 3 * chunk},
		{"last tag", len(sealed) - 1, client.ErrPackageCorrupt, 3 * chunk},
	}
	for _, tc := range cases {
		bad := append([]byte(nil), sealed...)
		bad[tc.at] ^= 0x01
		got, err := decryptAll(t, key, bytes.NewReader(bad))
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		if len(got) > tc.before || !bytes.Equal(got, plain[:len(got)]) {
			t.Errorf("%s: %d bytes came out, at most %d authentic ones allowed", tc.name, len(got), tc.before)
		}
	}

	// Swapped chunks.
	bad := append([]byte(nil), sealed...)
	copy(bad[16:16+ct], sealed[16+ct:16+2*ct])
	copy(bad[16+ct:16+2*ct], sealed[16:16+ct])
	if _, err := decryptAll(t, key, bytes.NewReader(bad)); !errors.Is(err, client.ErrPackageCorrupt) {
		t.Errorf("swapped chunks: %v", err)
	}
	// Data appended after the last chunk.
	for _, extra := range [][]byte{{0}, make([]byte, 100), make([]byte, ct)} {
		if _, err := decryptAll(t, key, bytes.NewReader(append(append([]byte(nil), sealed...), extra...))); err == nil {
			t.Errorf("%d bytes appended: nil error", len(extra))
		}
	}
	// The header of another package (other nonce prefix) on these chunks.
	other := encryptPackage(t, key, randPrefix(), plain, encOptions{})
	bad = append(append([]byte(nil), other[:16]...), sealed[16:]...)
	if _, err := decryptAll(t, key, bytes.NewReader(bad)); !errors.Is(err, client.ErrPackageCorrupt) {
		t.Errorf("other header: %v", err)
	}
}

func TestPackageDecrypterTruncation(t *testing.T) {
	key := newKey(t)
	ct := chunk + 16
	plain := make([]byte, 2*chunk+10)
	rand.Read(plain)
	sealed := encryptPackage(t, key, randPrefix(), plain, encOptions{})
	boundary := make([]byte, 2*chunk) // an exact multiple, with an empty final chunk
	rand.Read(boundary)
	sealedB := encryptPackage(t, key, randPrefix(), boundary, encOptions{emptyFinal: true})
	sealedF := encryptPackage(t, key, randPrefix(), boundary, encOptions{})

	cases := []struct {
		name   string
		in     []byte
		plain  []byte
		want   error
		before int
	}{
		{"empty input", nil, plain, client.ErrPackageTruncated, 0},
		{"part of the header", sealed[:10], plain, client.ErrPackageTruncated, 0},
		{"header only", sealed[:16], plain, client.ErrPackageTruncated, 0},
		{"after the first chunk", sealed[:16+ct], plain, client.ErrPackageTruncated, 0},
		{"after the second chunk", sealed[:16+2*ct], plain, client.ErrPackageTruncated, chunk},
		{"inside the last tag", sealed[:len(sealed)-1], plain, client.ErrPackageCorrupt, 2 * chunk},
		{"inside the first chunk", sealed[:16+1000], plain, client.ErrPackageCorrupt, 0},
		{"less than a tag left", sealed[:16+ct+5], plain, client.ErrPackageTruncated, chunk},
		{"empty final chunk dropped", sealedB[:len(sealedB)-16], boundary, client.ErrPackageTruncated, chunk},
		{"full final chunk dropped", sealedF[:len(sealedF)-ct], boundary, client.ErrPackageTruncated, 0},
	}
	for _, tc := range cases {
		got, err := decryptAll(t, key, bytes.NewReader(tc.in))
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		if len(got) > tc.before || !bytes.Equal(got, tc.plain[:len(got)]) {
			t.Errorf("%s: %d bytes came out, at most %d allowed", tc.name, len(got), tc.before)
		}
	}

	// Truncated at every chunk boundary of a longer package, never a
	// shorter plaintext with io.EOF.
	long := make([]byte, 5*chunk+3)
	sealedL := encryptPackage(t, key, randPrefix(), long, encOptions{})
	for cut := 16; cut < len(sealedL); cut += ct {
		if _, err := decryptAll(t, key, bytes.NewReader(sealedL[:cut])); err == nil {
			t.Errorf("cut at %d: nil error", cut)
		}
	}
}

func TestPackageDecrypterReadError(t *testing.T) {
	key := newKey(t)
	sealed := encryptPackage(t, key, randPrefix(), make([]byte, 2*chunk), encOptions{})
	boom := errors.New("connection reset")
	r := io.MultiReader(bytes.NewReader(sealed[:16+chunk]), iotest.ErrReader(boom))
	_, err := decryptAll(t, key, r)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the reader's", err)
	}
	// The error is sticky.
	d, _ := client.NewPackageDecrypter(key, iotest.ErrReader(boom))
	buf := make([]byte, 10)
	for range 2 {
		if n, err := d.Read(buf); n != 0 || !errors.Is(err, boom) {
			t.Fatalf("Read = %d, %v", n, err)
		}
	}
	if n, err := d.Read(nil); n != 0 || !errors.Is(err, boom) {
		t.Fatalf("Read(nil) = %d, %v", n, err)
	}
}

func TestDecodePackage(t *testing.T) {
	key := newKey(t)
	want := client.Package{Format: 1, NPSN: "20100001", SchoolName: "SMA 1", GeneratedAt: t0,
		Students: []client.PackageStudent{{ID: "m1", Username: "ani", Nama: "Ani", Kelas: "XII-1", NISN: "001",
			PasswordHash: "pbkdf2-sha256$4096$c2FsdA$aGFzaA"}},
		Exams: []client.PackageExam{{ID: "e1", Title: "Math", Subject: "math", StartsAt: t0, EndsAt: t1, DurationMinutes: 90,
			Questions: []client.PackageQuestion{{ID: "q1", Type: client.SingleChoice, Text: strings.Repeat("long text ", 20000),
				Options: []client.QuestionOption{{ID: "a", Text: "2"}}, Points: 1}}}},
	}
	plain, _ := json.Marshal(want)
	sum := sha256.Sum256(plain)
	want.Version = hex.EncodeToString(sum[:])

	for _, o := range []encOptions{{}, {emptyFinal: true}} {
		got, err := client.DecodePackage(bytes.NewReader(encryptPackage(t, key, randPrefix(), plain, o)), key)
		if err != nil {
			t.Fatal(err)
		}
		if got.Version != want.Version || got.NPSN != want.NPSN || len(got.Exams) != 1 ||
			got.Exams[0].Questions[0].Text != want.Exams[0].Questions[0].Text || got.Students[0] != want.Students[0] {
			t.Errorf("decoded %+v", got)
		}
	}

	// A plaintext that fills its chunks exactly, so the JSON value ends
	// before the empty final chunk: that chunk is still read and checked.
	padded := append(append([]byte(nil), plain...), bytes.Repeat([]byte(" "), (len(plain)/chunk+1)*chunk-len(plain))...)
	sealed := encryptPackage(t, key, randPrefix(), padded, encOptions{emptyFinal: true})
	if _, err := client.DecodePackage(bytes.NewReader(sealed), key); err != nil {
		t.Fatalf("padded to the chunk boundary: %v", err)
	}
	bad := append([]byte(nil), sealed...)
	bad[len(bad)-1] ^= 1 // the empty final chunk's tag
	if _, err := client.DecodePackage(bytes.NewReader(bad), key); !errors.Is(err, client.ErrPackageCorrupt) {
		t.Errorf("tampered empty final chunk: %v", err)
	}
	if _, err := client.DecodePackage(bytes.NewReader(sealed[:len(sealed)-16]), key); !errors.Is(err, client.ErrPackageTruncated) {
		t.Errorf("empty final chunk dropped: %v", err)
	}

	trailing := append(append([]byte(nil), plain...), []byte(` {"x":1}`)...)
	if _, err := client.DecodePackage(bytes.NewReader(encryptPackage(t, key, randPrefix(), trailing, encOptions{})), key); err == nil {
		t.Error("data after the JSON value: nil error")
	}
	if _, err := client.DecodePackage(bytes.NewReader(encryptPackage(t, key, randPrefix(), []byte("not json"), encOptions{})), key); err == nil {
		t.Error("plaintext not JSON: nil error")
	}
	if _, err := client.DecodePackage(bytes.NewReader(nil), make([]byte, 5)); err == nil {
		t.Error("short key: nil error")
	}
}
