package labwire

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"
	"testing/iotest"
)

func testPackageKey(b byte) []byte { return bytes.Repeat([]byte{b}, PackageKeySize) }

var testNoncePrefix = [8]byte{1, 2, 3, 4, 5, 6, 7, 8}

// pseudoRandom returns n deterministic bytes.
func pseudoRandom(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// mustEncryptPackage encrypts plain, writing it in pieces of the given size
// (0: in one Write).
func mustEncryptPackage(tb testing.TB, key, plain []byte, piece int) []byte {
	tb.Helper()
	var out bytes.Buffer
	enc, err := NewPackageEncrypter(&out, key, testNoncePrefix)
	if err != nil {
		tb.Fatal(err)
	}
	if piece <= 0 {
		piece = max(len(plain), 1)
	}
	for p := plain; len(p) > 0; {
		k := min(piece, len(p))
		n, err := enc.Write(p[:k])
		if err != nil || n != k {
			tb.Fatalf("Write = %d, %v", n, err)
		}
		p = p[k:]
	}
	if err := enc.Close(); err != nil {
		tb.Fatal(err)
	}
	return out.Bytes()
}

func decryptPackage(key, sealed []byte) ([]byte, error) {
	dec, err := NewPackageDecrypter(bytes.NewReader(sealed), key)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(dec)
}

// expectedSealedSize is the size of the encryption of n plaintext bytes.
func expectedSealedSize(n int) int {
	chunks := n/packageChunkSize + 1 // full chunks plus the final (possibly empty) one
	return packageHeaderSize + n + chunks*packageTagSize
}

func TestPackageRoundTrip(t *testing.T) {
	key := testPackageKey(0x42)
	sizes := []int{0, 1, 15, 16, 17, 65535, 65536, 65537, 2*65536 - 1, 3 * 65536, 3*65536 + 100, 5<<20 + 12345}
	for _, size := range sizes {
		plain := pseudoRandom(size, uint64(size))
		for _, piece := range []int{0, 1000, 65536, 70000} {
			if piece == 1000 && size > 1<<20 {
				continue
			}
			t.Run(fmt.Sprintf("size=%d/piece=%d", size, piece), func(t *testing.T) {
				sealed := mustEncryptPackage(t, key, plain, piece)
				if len(sealed) != expectedSealedSize(size) {
					t.Fatalf("sealed size = %d, want %d", len(sealed), expectedSealedSize(size))
				}
				got, err := decryptPackage(key, sealed)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, plain) {
					t.Fatalf("round trip differs (got %d bytes, want %d)", len(got), len(plain))
				}
				// Reading one byte at a time, and through a reader that
				// returns short reads, gives the same plaintext.
				dec, err := NewPackageDecrypter(iotest.HalfReader(bytes.NewReader(sealed)), key)
				if err != nil {
					t.Fatal(err)
				}
				got, err = io.ReadAll(iotest.OneByteReader(dec))
				if err != nil || !bytes.Equal(got, plain) {
					t.Fatalf("short reads: %d bytes, %v", len(got), err)
				}
			})
		}
	}
}

func TestPackageEncryptionIsDeterministicPerPrefix(t *testing.T) {
	key := testPackageKey(1)
	plain := pseudoRandom(100000, 1)
	a := mustEncryptPackage(t, key, plain, 0)
	b := mustEncryptPackage(t, key, plain, 333)
	if !bytes.Equal(a, b) {
		t.Fatal("the same plaintext, key and prefix gave different bytes with different write sizes")
	}
}

// TestPackageFormat decrypts by hand, following docs/api/exam.md only.
func TestPackageFormat(t *testing.T) {
	key := testPackageKey(9)
	for _, size := range []int{0, 10, 65536, 65536 + 10} {
		plain := pseudoRandom(size, 7)
		sealed := mustEncryptPackage(t, key, plain, 0)
		header := sealed[:16]
		want := append([]byte("EXPK\x01\x10\x00\x00"), testNoncePrefix[:]...)
		if !bytes.Equal(header, want) {
			t.Fatalf("header = %x, want %x", header, want)
		}
		block, _ := aes.NewCipher(key)
		gcm, _ := cipher.NewGCM(block)
		var got []byte
		rest := sealed[16:]
		for i := uint32(0); len(rest) > 0; i++ {
			n := min(len(rest), 65536+16)
			final := n == len(rest)
			nonce := binary.BigEndian.AppendUint32(append([]byte(nil), testNoncePrefix[:]...), i)
			aad := append([]byte(nil), header...)
			if final {
				aad = append(aad, 0x01)
			}
			p, err := gcm.Open(nil, nonce, rest[:n], aad)
			if err != nil {
				t.Fatalf("size %d: chunk %d (final %v): %v", size, i, final, err)
			}
			if final && len(p) != size%65536 {
				t.Fatalf("size %d: final chunk holds %d bytes, want %d", size, len(p), size%65536)
			}
			got = append(got, p...)
			rest = rest[n:]
		}
		if !bytes.Equal(got, plain) {
			t.Fatalf("size %d: hand decryption differs", size)
		}
	}
}

// TestPackageDecryptAcceptsFullFinalChunk: a writer that seals a full final
// chunk (rather than an empty one after it) is read too.
func TestPackageDecryptAcceptsFullFinalChunk(t *testing.T) {
	key := testPackageKey(3)
	plain := pseudoRandom(2*65536, 3)
	block, _ := aes.NewCipher(key)
	gcm, _ := cipher.NewGCM(block)
	header := append([]byte("EXPK\x01\x10\x00\x00"), testNoncePrefix[:]...)
	sealed := append([]byte(nil), header...)
	for i := range 2 {
		nonce := binary.BigEndian.AppendUint32(append([]byte(nil), testNoncePrefix[:]...), uint32(i))
		aad := append([]byte(nil), header...)
		if i == 1 {
			aad = append(aad, 1)
		}
		sealed = gcm.Seal(sealed, nonce, plain[i*65536:(i+1)*65536], aad)
	}
	got, err := decryptPackage(key, sealed)
	if err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("got %d bytes, %v", len(got), err)
	}
}

func TestPackageDecryptRejects(t *testing.T) {
	key := testPackageKey(5)
	plain := pseudoRandom(3*65536+500, 5)
	sealed := mustEncryptPackage(t, key, plain, 0)
	exact := mustEncryptPackage(t, key, plain[:2*65536], 0)
	empty := mustEncryptPackage(t, key, nil, 0)
	chunkEnd := func(i int) int { return packageHeaderSize + i*packageSealedChunk }

	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	cases := map[string][]byte{
		"empty input":                 {},
		"header only":                 sealed[:packageHeaderSize],
		"short header":                sealed[:10],
		"truncated after chunk 1":     sealed[:chunkEnd(1)],
		"truncated after chunk 3":     sealed[:chunkEnd(3)],
		"truncated inside chunk 2":    sealed[:chunkEnd(2)-100],
		"truncated last byte":         sealed[:len(sealed)-1],
		"exact: empty final dropped":  exact[:len(exact)-packageTagSize],
		"empty: final chunk dropped":  empty[:packageHeaderSize],
		"appended byte":               cat(sealed, []byte{0}),
		"appended chunk":              cat(sealed, sealed[chunkEnd(0):chunkEnd(1)]),
		"appended empty final":        cat(exact, empty[packageHeaderSize:]),
		"chunks swapped":              cat(sealed[:chunkEnd(0)], sealed[chunkEnd(1):chunkEnd(2)], sealed[chunkEnd(0):chunkEnd(1)], sealed[chunkEnd(2):]),
		"chunk dropped":               cat(sealed[:chunkEnd(1)], sealed[chunkEnd(2):]),
		"chunk duplicated":            cat(sealed[:chunkEnd(2)], sealed[chunkEnd(1):]),
		"bad magic":                   cat([]byte("EXPX"), sealed[4:]),
		"bad version":                 cat(sealed[:4], []byte{2}, sealed[5:]),
		"bad chunk size":              cat(sealed[:5], []byte{0x11}, sealed[6:]),
		"reserved byte set":           cat(sealed[:6], []byte{1}, sealed[7:]),
		"other nonce prefix":          cat(sealed[:8], []byte{9, 9, 9, 9, 9, 9, 9, 9}, sealed[16:]),
		"empty package, tag tampered": cat(empty[:len(empty)-1], []byte{empty[len(empty)-1] ^ 1}),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := decryptPackage(key, data)
			if !errors.Is(err, ErrPackageInvalid) {
				t.Fatalf("err = %v (read %d bytes), want ErrPackageInvalid", err, len(got))
			}
		})
	}

	t.Run("wrong key", func(t *testing.T) {
		for _, s := range [][]byte{sealed, exact, empty} {
			if _, err := decryptPackage(testPackageKey(6), s); !errors.Is(err, ErrPackageInvalid) {
				t.Fatalf("err = %v, want ErrPackageInvalid", err)
			}
		}
	})
}

// TestPackageDecryptRejectsEveryTamperedByte flips one bit of each byte of a
// small package (and of sampled bytes of a large one).
func TestPackageDecryptRejectsEveryTamperedByte(t *testing.T) {
	key := testPackageKey(8)
	for _, size := range []int{0, 100, 65536, 2*65536 + 7} {
		sealed := mustEncryptPackage(t, key, pseudoRandom(size, 8), 0)
		step := 1
		if len(sealed) > 4096 {
			step = 61 // a prime, so offsets land all over the chunks and tags
		}
		for i := 0; i < len(sealed); i += step {
			for _, bit := range []byte{0x01, 0x80} {
				bad := bytes.Clone(sealed)
				bad[i] ^= bit
				if _, err := decryptPackage(key, bad); !errors.Is(err, ErrPackageInvalid) {
					t.Fatalf("size %d: flipping bit %#x of byte %d: err = %v", size, bit, i, err)
				}
			}
		}
	}
}

// TestPackageDecryptReleasesOnlyAuthenticatedChunks: damage in chunk 2 lets
// chunks 0 and 1 through, then fails, and keeps failing.
func TestPackageDecryptReleasesOnlyAuthenticatedChunks(t *testing.T) {
	key := testPackageKey(4)
	plain := pseudoRandom(3*65536+1, 4)
	sealed := mustEncryptPackage(t, key, plain, 0)
	sealed[packageHeaderSize+2*packageSealedChunk+10] ^= 1
	dec, err := NewPackageDecrypter(bytes.NewReader(sealed), key)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(dec)
	if !errors.Is(err, ErrPackageInvalid) || !bytes.Equal(got, plain[:2*65536]) {
		t.Fatalf("read %d bytes, err %v", len(got), err)
	}
	if n, err2 := dec.Read(make([]byte, 10)); n != 0 || !errors.Is(err2, ErrPackageInvalid) {
		t.Fatalf("after failure: %d, %v", n, err2)
	}
}

func TestPackageIOErrors(t *testing.T) {
	key := testPackageKey(2)
	boom := errors.New("boom")
	sealed := mustEncryptPackage(t, key, pseudoRandom(70000, 2), 0)

	// A reader error is returned as is, not as corruption.
	dec, err := NewPackageDecrypter(io.MultiReader(bytes.NewReader(sealed[:1000]), iotest.ErrReader(boom)), key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(dec); !errors.Is(err, boom) || errors.Is(err, ErrPackageInvalid) {
		t.Fatalf("err = %v, want boom", err)
	}
	dec, err = NewPackageDecrypter(iotest.ErrReader(boom), key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(dec); !errors.Is(err, boom) || errors.Is(err, ErrPackageInvalid) {
		t.Fatalf("header read: err = %v, want boom", err)
	}

	// A writer error is sticky.
	enc, err := NewPackageEncrypter(errWriter{boom}, key, testNoncePrefix)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := enc.Write(make([]byte, 2*65536)); !errors.Is(err, boom) {
		t.Fatalf("Write err = %v", err)
	}
	if _, err := enc.Write([]byte{1}); !errors.Is(err, boom) {
		t.Fatalf("second Write err = %v", err)
	}
	if err := enc.Close(); !errors.Is(err, boom) {
		t.Fatalf("Close err = %v", err)
	}

	// Write after Close fails; Close twice is harmless.
	var out bytes.Buffer
	enc, _ = NewPackageEncrypter(&out, key, testNoncePrefix)
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := enc.Write([]byte("x")); err == nil {
		t.Fatal("Write after Close succeeded")
	}
	if out.Len() != packageHeaderSize+packageTagSize {
		t.Fatalf("empty package is %d bytes", out.Len())
	}
}

func TestPackageKeySize(t *testing.T) {
	for _, n := range []int{0, 16, 24, 31, 33} {
		if _, err := NewPackageEncrypter(io.Discard, make([]byte, n), testNoncePrefix); err == nil {
			t.Errorf("encrypter accepted a %d-byte key", n)
		}
		if _, err := NewPackageDecrypter(bytes.NewReader(nil), make([]byte, n)); err == nil {
			t.Errorf("decrypter accepted a %d-byte key", n)
		}
	}
}

// TestPackageStreamingMemory checks that encrypting and decrypting a 64 MiB
// package through a pipe allocates about a chunk or two, not the package size.
func TestPackageStreamingMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	key := testPackageKey(7)
	const size = 64 << 20
	want := sha256.New()
	if _, err := io.Copy(want, io.LimitReader(zeroReader{}, size)); err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	encBuf, decBuf := make([]byte, 32<<10), make([]byte, 32<<10)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	pr, pw := io.Pipe()
	go func() {
		enc, err := NewPackageEncrypter(pw, key, testNoncePrefix)
		if err == nil {
			_, err = io.CopyBuffer(enc, io.LimitReader(zeroReader{}, size), encBuf)
		}
		if err == nil {
			err = enc.Close()
		}
		pw.CloseWithError(err)
	}()
	dec, err := NewPackageDecrypter(pr, key)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.CopyBuffer(h, dec, decBuf)
	runtime.ReadMemStats(&after)
	if err != nil || n != size {
		t.Fatalf("copied %d, %v", n, err)
	}
	if !bytes.Equal(h.Sum(nil), want.Sum(nil)) {
		t.Fatal("digest differs")
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Fatalf("a %d MiB package allocated %d bytes; want about one chunk", size>>20, alloc)
	}
}

func TestPackageAllocations(t *testing.T) {
	key := testPackageKey(7)
	chunk := make([]byte, 65536)
	enc, err := NewPackageEncrypter(io.Discard, key, testNoncePrefix)
	if err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(100, func() { enc.Write(chunk) }); a > 0 {
		t.Errorf("Write allocates %v times per chunk", a)
	}
	sealed := mustEncryptPackage(t, key, make([]byte, 200*65536), 0)
	r := bytes.NewReader(sealed)
	dec, err := NewPackageDecrypter(r, key)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 65536)
	if a := testing.AllocsPerRun(100, func() { io.ReadFull(dec, buf) }); a > 0 {
		t.Errorf("Read allocates %v times per chunk", a)
	}
}

type errWriter struct{ err error }

func (w errWriter) Write([]byte) (int, error) { return 0, w.err }

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func BenchmarkPackageEncrypt(b *testing.B) {
	key := testPackageKey(1)
	data := pseudoRandom(4<<20, 1)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		enc, err := NewPackageEncrypter(io.Discard, key, testNoncePrefix)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := enc.Write(data); err != nil {
			b.Fatal(err)
		}
		if err := enc.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPackageDecrypt(b *testing.B) {
	key := testPackageKey(1)
	data := pseudoRandom(4<<20, 1)
	sealed := mustEncryptPackage(b, key, data, 0)
	buf := make([]byte, 32<<10)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		dec, err := NewPackageDecrypter(bytes.NewReader(sealed), key)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.CopyBuffer(io.Discard, dec, buf); err != nil {
			b.Fatal(err)
		}
	}
}
