package storetest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/seedhq/portal/internal/exam"
)

// mediaBytes returns n pseudo-random bytes and their SHA-256.
func mediaBytes(n int, seed uint64) ([]byte, string) {
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(seed, 1))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	sum := sha256.Sum256(b)
	return b, hex.EncodeToString(sum[:])
}

func testMedia(t *testing.T, s Store) {
	ctx := t.Context()
	// Sizes around the stores' chunk sizes (256 KiB, 1 MiB) and a small one.
	for i, n := range []int{1, 256 << 10, 1<<20 + 1, 5<<20 + 12345} {
		data, sha := mediaBytes(n, uint64(i))
		m := exam.Media{SHA256: sha, Type: "audio/mpeg", Kind: exam.MediaAudio, Size: int64(n), Name: "Listening 1.mp3", CreatedAt: at(0)}
		if err := s.SaveMedia(ctx, m, bytes.NewReader(data)); err != nil {
			t.Fatalf("SaveMedia(%d bytes): %v", n, err)
		}
		got, err := s.GetMedia(ctx, sha)
		if err != nil {
			t.Fatal(err)
		}
		check(t, "GetMedia", got, m)

		r, err := s.OpenMedia(ctx, sha)
		if err != nil {
			t.Fatal(err)
		}
		all, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(all, data) {
			t.Fatalf("OpenMedia read %d bytes (err %v), want the %d stored", len(all), err, n)
		}
		// Seeking reads from anywhere, across chunks.
		off := int64(n) * 3 / 4
		if _, err := r.Seek(off, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		tail, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(tail, data[off:]) {
			t.Fatalf("read after Seek(%d): %d bytes, %v", off, len(tail), err)
		}
		if end, err := r.Seek(0, io.SeekEnd); err != nil || end != int64(n) {
			t.Fatalf("Seek(0, End) = %d, %v; want %d", end, err, n)
		}
		r.Close()

		// The same bytes again keep the first record and need not be read.
		again := m
		again.Name, again.CreatedAt = "other.mp3", at(3600e9)
		if err := s.SaveMedia(ctx, again, failingReader{}); err != nil {
			t.Fatalf("SaveMedia of stored bytes: %v", err)
		}
		got, _ = s.GetMedia(ctx, sha)
		check(t, "GetMedia after a second save", got, m)
	}

	// Concurrent saves of the same new bytes store one record.
	data, sha := mediaBytes(700<<10, 99)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			errs[i] = s.SaveMedia(ctx, exam.Media{SHA256: sha, Type: "image/png", Kind: exam.MediaImage,
				Size: int64(len(data)), CreatedAt: at(0)}, bytes.NewReader(data))
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("concurrent SaveMedia: %v", err)
		}
	}
	r, err := s.OpenMedia(ctx, sha)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if all, _ := io.ReadAll(r); !bytes.Equal(all, data) {
		t.Fatal("concurrently saved media do not read back")
	}
}

// testMediaBlob: a media's blob is recorded once, found by its name, and
// neither another blob for it nor its name for another media is kept.
func testMediaBlob(t *testing.T, s Store) {
	ctx := t.Context()
	data, sha := mediaBytes(3000, 7)
	m := exam.Media{SHA256: sha, Type: "image/png", Kind: exam.MediaImage, Size: int64(len(data)), CreatedAt: at(0)}
	if err := s.SaveMedia(ctx, m, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	_, other := mediaBytes(3000, 8)
	name := strings.Repeat("ab", 32)
	if _, err := s.GetMediaByBlob(ctx, name); !errors.Is(err, exam.ErrNotFound) {
		t.Fatalf("GetMediaByBlob of a name no media has: %v, want ErrNotFound", err)
	}
	if err := s.SetMediaBlob(ctx, other, name, 3100); !errors.Is(err, exam.ErrNotFound) {
		t.Fatalf("SetMediaBlob of media not stored: %v, want ErrNotFound", err)
	}
	if err := s.SetMediaBlob(ctx, sha, name, 3100); err != nil {
		t.Fatalf("SetMediaBlob: %v", err)
	}
	want := m
	want.BlobName, want.BlobSize = name, 3100
	got, err := s.GetMedia(ctx, sha)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "GetMedia after SetMediaBlob", got, want)
	got, err = s.GetMediaByBlob(ctx, name)
	if err != nil {
		t.Fatalf("GetMediaByBlob: %v", err)
	}
	check(t, "GetMediaByBlob", got, want)
	// The same again is a no-op.
	if err := s.SetMediaBlob(ctx, sha, name, 3100); err != nil {
		t.Fatalf("SetMediaBlob again: %v", err)
	}
	// Another blob for the media is refused, and the first stays.
	if err := s.SetMediaBlob(ctx, sha, strings.Repeat("cd", 32), 3100); !errors.Is(err, exam.ErrBlobConflict) {
		t.Fatalf("SetMediaBlob of another blob: %v, want ErrBlobConflict", err)
	}
	if _, err := s.GetMediaByBlob(ctx, strings.Repeat("cd", 32)); !errors.Is(err, exam.ErrNotFound) {
		t.Fatalf("the refused blob name is found: %v", err)
	}
	// The name for another media is refused.
	data2, sha2 := mediaBytes(2000, 9)
	if err := s.SaveMedia(ctx, exam.Media{SHA256: sha2, Type: "image/png", Kind: exam.MediaImage,
		Size: int64(len(data2)), CreatedAt: at(0)}, bytes.NewReader(data2)); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMediaBlob(ctx, sha2, name, 2100); !errors.Is(err, exam.ErrBlobConflict) {
		t.Fatalf("SetMediaBlob of another media's name: %v, want ErrBlobConflict", err)
	}
	if got, _ := s.GetMedia(ctx, sha2); got.BlobName != "" {
		t.Fatalf("the refused blob was recorded: %+v", got)
	}
	if got, _ := s.GetMediaByBlob(ctx, name); got.SHA256 != sha {
		t.Fatalf("GetMediaByBlob after a refused SetMediaBlob = %s, want %s", got.SHA256, sha)
	}
}

// failingReader fails every read: a store that reads it has not skipped the
// bytes it holds already.
type failingReader struct{}

func (failingReader) Read([]byte) (int, error) {
	return 0, errors.New("read of a stored media's bytes")
}

func testMediaRefused(t *testing.T, s Store) {
	ctx := t.Context()
	data, sha := mediaBytes(300<<10, 7)
	m := exam.Media{SHA256: sha, Type: "image/jpeg", Kind: exam.MediaImage, Size: int64(len(data)), CreatedAt: at(0)}
	for _, tc := range []struct {
		name string
		m    exam.Media
		r    io.Reader
	}{
		{"short", m, bytes.NewReader(data[:len(data)-1])},
		{"long", m, io.MultiReader(bytes.NewReader(data), strings.NewReader("x"))},
		{"other bytes", m, bytes.NewReader(append([]byte{data[0] ^ 1}, data[1:]...))},
		{"failing reader", m, io.MultiReader(bytes.NewReader(data[:1000]), failingReader{})},
	} {
		if err := s.SaveMedia(ctx, tc.m, tc.r); err == nil {
			t.Fatalf("SaveMedia of %s bytes: no error", tc.name)
		}
		if _, err := s.GetMedia(ctx, sha); !errors.Is(err, exam.ErrNotFound) {
			t.Fatalf("after a refused SaveMedia (%s): GetMedia = %v, want ErrNotFound", tc.name, err)
		}
		if _, err := s.OpenMedia(ctx, sha); !errors.Is(err, exam.ErrNotFound) {
			t.Fatalf("after a refused SaveMedia (%s): OpenMedia = %v, want ErrNotFound", tc.name, err)
		}
	}
	// The right bytes after the refusals are stored whole.
	if err := s.SaveMedia(ctx, m, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	r, err := s.OpenMedia(ctx, sha)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if all, _ := io.ReadAll(r); !bytes.Equal(all, data) {
		t.Fatal("media saved after refusals do not read back")
	}
}
