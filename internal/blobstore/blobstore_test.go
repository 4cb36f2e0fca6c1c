package blobstore_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/seedhq/portal/internal/blobstore"
)

func TestValidKey(t *testing.T) {
	t.Parallel()
	seg := strings.Repeat("a", blobstore.MaxSegmentLen)
	for _, key := range []string{"a", "media/ab/cd.bin", "A-Z_0.9", seg, seg + "/" + seg[:blobstore.MaxKeyLen-blobstore.MaxSegmentLen-3] + "/b"} {
		if err := blobstore.ValidKey(key); err != nil {
			t.Errorf("ValidKey(%q): %v", key, err)
		}
	}
	for _, key := range []string{"", "/a", "a/", "a//b", ".", "..", "a/../b", "a/./b", "a b", "a\\b", "é", "a?b", seg + "a",
		strings.Repeat("a/", blobstore.MaxKeyLen/2) + "a"} {
		if err := blobstore.ValidKey(key); !errors.Is(err, blobstore.ErrInvalidKey) {
			t.Errorf("ValidKey(%q) = %v; want ErrInvalidKey", key, err)
		}
	}
}

func TestCheckRange(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ size, offset, length, want int64 }{
		{10, 0, -1, 10}, {10, 0, 10, 10}, {10, 0, 11, 10}, {10, 9, 1, 1}, {10, 9, -1, 1}, {10, 3, 4, 4},
	} {
		got, err := blobstore.CheckRange(tc.size, tc.offset, tc.length)
		if err != nil || got != tc.want {
			t.Errorf("CheckRange(%d, %d, %d) = %d, %v; want %d", tc.size, tc.offset, tc.length, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ size, offset, length int64 }{
		{10, 10, 1}, {10, 11, -1}, {0, 0, -1}, {10, -1, 1}, {10, 0, 0}, {10, 0, -2},
	} {
		if _, err := blobstore.CheckRange(tc.size, tc.offset, tc.length); !errors.Is(err, blobstore.ErrInvalidRange) {
			t.Errorf("CheckRange(%d, %d, %d) = %v; want ErrInvalidRange", tc.size, tc.offset, tc.length, err)
		}
	}
}

func TestExactReader(t *testing.T) {
	t.Parallel()
	data := []byte("0123456789")
	for _, tc := range []struct {
		name string
		r    io.Reader
		size int64
		ok   bool
	}{
		{"Exact", bytes.NewReader(data), 10, true},
		{"ExactOneByteReads", iotest.OneByteReader(bytes.NewReader(data)), 10, true},
		{"ExactDataErrEOF", iotest.DataErrReader(bytes.NewReader(data)), 10, true},
		{"Empty", bytes.NewReader(nil), 0, true},
		{"Short", bytes.NewReader(data), 11, false},
		{"Long", bytes.NewReader(data), 9, false},
		{"LongOneByteReads", iotest.OneByteReader(bytes.NewReader(data)), 9, false},
		{"LongFromEmpty", bytes.NewReader(data), 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := io.ReadAll(blobstore.ExactReader(tc.r, tc.size))
			if tc.ok {
				if err != nil || int64(len(got)) != tc.size {
					t.Fatalf("read %d bytes, %v; want %d", len(got), err, tc.size)
				}
				return
			}
			if !errors.Is(err, blobstore.ErrSizeMismatch) {
				t.Fatalf("read %d bytes, %v; want ErrSizeMismatch", len(got), err)
			}
			if int64(len(got)) >= tc.size && tc.size > 0 && len(data) > int(tc.size) {
				t.Fatalf("read all %d bytes before the error on a reader too long: its last bytes must not be handed over", len(got))
			}
		})
	}
	// The reader's own error comes through as it is.
	errCut := errors.New("cut")
	_, err := io.ReadAll(blobstore.ExactReader(io.MultiReader(bytes.NewReader(data), iotest.ErrReader(errCut)), 20))
	if !errors.Is(err, errCut) || errors.Is(err, blobstore.ErrSizeMismatch) {
		t.Fatalf("a failing reader: %v; want its error", err)
	}
}
