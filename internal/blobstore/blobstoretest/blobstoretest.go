// Package blobstoretest is the one conformance suite of blobstore.Store.
// Every implementation runs Run against fresh, empty stores of its own, so
// that a behaviour only one of them gets right shows up as a failing test of
// the others.
//
// The suite pins every rule written in the doc comments of blobstore.Store,
// plus a few readings of them that every store must share:
//
//   - Info.LastModified is in UTC; the suite checks it lies within a minute
//     of the put (a store's clock may be another machine's).
//   - Stat, Open, OpenRange and List give one blob the same Size and ETag.
//   - A failed Put of a key that holds a blob keeps that blob.
//   - An error of Put's reader is returned (errors.Is finds it) and is not
//     ErrUnavailable: a client's cut upload is not the store's failure.
//   - A Put whose ctx ends returns an error that wraps ctx's, and leaves no
//     blob or the whole blob (never a part).
package blobstoretest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/blobstore"
)

// Options tune the suite to a store.
type Options struct {
	// LargeSize is the size of the suite's large blob, above the size at
	// which the store changes how it writes (S3: the multipart upload's
	// part size; a store of chunks: several chunks). Default 3 MiB.
	LargeSize int64
}

// Run runs the conformance suite, each test as a subtest with a fresh, empty
// store from open. open should register the store's cleanup with t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) blobstore.Store, opts Options) {
	t.Helper()
	if opts.LargeSize == 0 {
		opts.LargeSize = 3 << 20
	}
	for _, tc := range suite {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, open(t), opts) })
	}
}

type test struct {
	name string
	run  func(t *testing.T, s blobstore.Store, o Options)
}

var suite = []test{
	{"Ping", testPing},
	{"PutOpen", testPutOpen},
	{"Empty", testEmpty},
	{"NotFound", testNotFound},
	{"Ranges", testRanges},
	{"InvalidRanges", testInvalidRanges},
	{"Reader", testReader},
	{"PutAgain", testPutAgain},
	{"PutShort", testPutShort},
	{"PutLong", testPutLong},
	{"PutReaderFails", testPutReaderFails},
	{"PutFailKeepsBlob", testPutFailKeepsBlob},
	{"PutCanceled", testPutCanceled},
	{"Delete", testDelete},
	{"List", testList},
	{"ListBreak", testListBreak},
	{"InvalidKeys", testInvalidKeys},
	{"Concurrent", testConcurrent},
	{"Large", testLarge},
	{"LargeReaderFails", testLargeReaderFails},
}

// Data returns n pseudo-random bytes drawn from seed: the same for the same
// seed and n.
func Data(seed uint64, n int64) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{byte(seed), byte(seed >> 8), byte(seed >> 16), byte(seed >> 24)})
	r.Read(b)
	return b
}

// MustPut puts b under key, failing the test on an error.
func MustPut(t testing.TB, s blobstore.Store, key string, b []byte) {
	t.Helper()
	if err := s.Put(context.Background(), key, onlyReader{bytes.NewReader(b)}, int64(len(b))); err != nil {
		t.Fatalf("Put(%q, %d bytes): %v", key, len(b), err)
	}
}

// MustRead opens key (all of it, or a range when length is not 0) and
// reads it whole, failing the test on an error; it returns the bytes and
// the Info.
func MustRead(t testing.TB, s blobstore.Store, key string, offset, length int64) ([]byte, blobstore.Info) {
	t.Helper()
	var (
		rc   io.ReadCloser
		info blobstore.Info
		err  error
	)
	if length == 0 {
		rc, info, err = s.Open(context.Background(), key)
	} else {
		rc, info, err = s.OpenRange(context.Background(), key, offset, length)
	}
	if err != nil {
		t.Fatalf("open %q [%d, %d]: %v", key, offset, length, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("read %q [%d, %d]: %v", key, offset, length, err)
	}
	if err := rc.Close(); err != nil {
		t.Fatalf("close %q: %v", key, err)
	}
	return b, info
}

// MustNotExist checks that key has no blob: Stat and Open say ErrNotFound.
func MustNotExist(t testing.TB, s blobstore.Store, key string) {
	t.Helper()
	if info, err := s.Stat(context.Background(), key); !errors.Is(err, blobstore.ErrNotFound) {
		t.Fatalf("Stat(%q) = %+v, %v; want ErrNotFound", key, info, err)
	}
	rc, _, err := s.Open(context.Background(), key)
	if !errors.Is(err, blobstore.ErrNotFound) {
		if rc != nil {
			rc.Close()
		}
		t.Fatalf("Open(%q) error = %v; want ErrNotFound", key, err)
	}
}

// MustBeWholeOrAbsent checks that key holds either no blob or data, whole:
// what a failed Put may leave.
func MustBeWholeOrAbsent(t testing.TB, s blobstore.Store, key string, data []byte) {
	t.Helper()
	// A store may finish a put it had every byte of after the client gave
	// up (a server completes the request it received whole): look twice,
	// the blob must be absent or whole each time.
	for i := range 2 {
		if i > 0 {
			time.Sleep(500 * time.Millisecond)
		}
		info, err := s.Stat(context.Background(), key)
		if errors.Is(err, blobstore.ErrNotFound) {
			continue
		}
		if err != nil {
			t.Fatalf("Stat(%q): %v", key, err)
		}
		if info.Size != int64(len(data)) {
			t.Fatalf("Stat(%q) = %+v; want no blob, or the whole blob of %d bytes", key, info, len(data))
		}
		if got, _ := MustRead(t, s, key, 0, 0); !bytes.Equal(got, data) {
			t.Fatalf("%q holds %d other bytes; want no blob, or the whole blob", key, len(got))
		}
	}
}

// MustList returns every Info that List(prefix) yields, failing the test
// on an error.
func MustList(t testing.TB, s blobstore.Store, prefix string) []blobstore.Info {
	t.Helper()
	var out []blobstore.Info
	for info, err := range s.List(context.Background(), prefix) {
		if err != nil {
			t.Fatalf("List(%q): %v", prefix, err)
		}
		out = append(out, info)
	}
	return out
}

// onlyReader hides every method of its reader but Read (a bytes.Reader's
// Seek and ReadAt), as a request body would.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// failReader yields n bytes of r, then err.
type failReader struct {
	r   io.Reader
	n   int64
	err error
}

func (f *failReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, f.err
	}
	if int64(len(p)) > f.n {
		p = p[:f.n]
	}
	n, err := f.r.Read(p)
	f.n -= int64(n)
	return n, err
}

// checkInfo checks what every Info of a blob just put must say.
func checkInfo(t *testing.T, what string, info blobstore.Info, key string, size int64, before time.Time) {
	t.Helper()
	if info.Key != key || info.Size != size {
		t.Errorf("%s: key %q size %d; want %q, %d", what, info.Key, info.Size, key, size)
	}
	if info.ETag == "" || info.ETag[0] == '"' {
		t.Errorf("%s: ETag %q; want a non-empty one without quotes", what, info.ETag)
	}
	if info.LastModified.Location() != time.UTC {
		t.Errorf("%s: LastModified %v not in UTC", what, info.LastModified)
	}
	if lm := info.LastModified; lm.Before(before.Add(-time.Minute)) || lm.After(time.Now().Add(time.Minute)) {
		t.Errorf("%s: LastModified %v; want within a minute of the put at %v", what, lm, before)
	}
}

var ctx = context.Background()

func testPing(t *testing.T, s blobstore.Store, _ Options) {
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}

func testPutOpen(t *testing.T, s blobstore.Store, _ Options) {
	before := time.Now()
	data := Data(1, 100_000)
	MustPut(t, s, "media/ab/cd", data)

	got, info := MustRead(t, s, "media/ab/cd", 0, 0)
	if !bytes.Equal(got, data) {
		t.Fatalf("Open read %d bytes, not the %d put", len(got), len(data))
	}
	checkInfo(t, "Open", info, "media/ab/cd", int64(len(data)), before)

	st, err := s.Stat(ctx, "media/ab/cd")
	if err != nil {
		t.Fatalf("Stat: %v", err)
	}
	checkInfo(t, "Stat", st, "media/ab/cd", int64(len(data)), before)
	if st.ETag != info.ETag || !st.LastModified.Equal(info.LastModified) {
		t.Errorf("Stat %+v and Open %+v disagree", st, info)
	}
	list := MustList(t, s, "")
	if len(list) != 1 {
		t.Fatalf("List: %+v; want the one blob", list)
	}
	checkInfo(t, "List", list[0], "media/ab/cd", int64(len(data)), before)
	if list[0].ETag != st.ETag {
		t.Errorf("List ETag %q, Stat's %q", list[0].ETag, st.ETag)
	}
}

func testEmpty(t *testing.T, s blobstore.Store, _ Options) {
	before := time.Now()
	MustPut(t, s, "empty", nil)
	got, info := MustRead(t, s, "empty", 0, 0)
	if len(got) != 0 {
		t.Fatalf("read %d bytes of an empty blob", len(got))
	}
	checkInfo(t, "Open", info, "empty", 0, before)
	rc, info, err := s.OpenRange(ctx, "empty", 0, -1)
	if !errors.Is(err, blobstore.ErrInvalidRange) {
		if rc != nil {
			rc.Close()
		}
		t.Fatalf("OpenRange(empty, 0, -1) error = %v; want ErrInvalidRange", err)
	}
	if info.Size != 0 || info.Key != "empty" {
		t.Errorf("OpenRange(empty, 0, -1) info %+v; want the empty blob's", info)
	}
}

func testNotFound(t *testing.T, s blobstore.Store, _ Options) {
	MustNotExist(t, s, "nothing/here")
	rc, _, err := s.OpenRange(ctx, "nothing/here", 0, 10)
	if !errors.Is(err, blobstore.ErrNotFound) {
		if rc != nil {
			rc.Close()
		}
		t.Fatalf("OpenRange of a missing key: %v; want ErrNotFound", err)
	}
	if err := s.Delete(ctx, "nothing/here"); err != nil {
		t.Fatalf("Delete of a missing key: %v; want nil", err)
	}
	if l := MustList(t, s, ""); len(l) != 0 {
		t.Fatalf("List of an empty store: %+v", l)
	}
}

func testRanges(t *testing.T, s blobstore.Store, _ Options) {
	data := Data(2, 10_000)
	size := int64(len(data))
	MustPut(t, s, "r", data)
	_, whole := MustRead(t, s, "r", 0, 0)
	for _, tc := range []struct {
		offset, length int64
		want           []byte
	}{
		{0, 1, data[:1]},
		{0, -1, data},
		{0, size, data},
		{1, -1, data[1:]},
		{123, 4567, data[123 : 123+4567]},
		{size - 1, 1, data[size-1:]},
		{size - 1, -1, data[size-1:]},
		{9000, 5000, data[9000:]}, // past the end: what there is
		{0, 1 << 40, data},
	} {
		got, info := MustRead(t, s, "r", tc.offset, tc.length)
		if !bytes.Equal(got, tc.want) {
			t.Errorf("OpenRange(%d, %d): %d bytes, want %d (the range's bytes)", tc.offset, tc.length, len(got), len(tc.want))
		}
		if info.Size != size || info.ETag != whole.ETag || info.Key != "r" {
			t.Errorf("OpenRange(%d, %d) info %+v; want the whole blob's %+v", tc.offset, tc.length, info, whole)
		}
	}
	// A range read in small reads, closed early.
	rc, _, err := s.OpenRange(ctx, "r", 100, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var p [7]byte
	if _, err := io.ReadFull(rc, p[:]); err != nil || !bytes.Equal(p[:], data[100:107]) {
		t.Errorf("first 7 bytes of [100, 1000): %x, %v", p, err)
	}
	if err := rc.Close(); err != nil {
		t.Errorf("close early: %v", err)
	}
}

// testReader serves a blob through blobstore.Reader and http.ServeContent,
// as the portal's blob route does: whole, one range, several ranges, a
// range past the end, and the reader seeking back.
func testReader(t *testing.T, s blobstore.Store, _ Options) {
	data := Data(9, 300_000)
	MustPut(t, s, "served", data)
	info, err := s.Stat(ctx, "served")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rd := blobstore.NewReader(r.Context(), s, info)
		defer rd.Close()
		http.ServeContent(w, r, "", time.Time{}, rd)
	}))
	defer srv.Close()
	get := func(rng string) (int, http.Header, []byte) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		if rng != "" {
			req.Header.Set("Range", rng)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("read %q: %v", rng, err)
		}
		return resp.StatusCode, resp.Header, b
	}
	if code, _, b := get(""); code != http.StatusOK || !bytes.Equal(b, data) {
		t.Errorf("whole: %d, %d bytes, want 200 and the blob's %d", code, len(b), len(data))
	}
	if code, h, b := get("bytes=1000-1999"); code != http.StatusPartialContent || !bytes.Equal(b, data[1000:2000]) ||
		h.Get("Content-Range") != fmt.Sprintf("bytes 1000-1999/%d", len(data)) {
		t.Errorf("one range: %d %q, %d bytes", code, h.Get("Content-Range"), len(b))
	}
	if code, _, b := get("bytes=-10"); code != http.StatusPartialContent || !bytes.Equal(b, data[len(data)-10:]) {
		t.Errorf("suffix range: %d, %d bytes", code, len(b))
	}
	code, h, b := get("bytes=200000-200009,5-9")
	if code != http.StatusPartialContent || !strings.HasPrefix(h.Get("Content-Type"), "multipart/byteranges") ||
		!bytes.Contains(b, data[200000:200010]) || !bytes.Contains(b, data[5:10]) {
		t.Errorf("two ranges (the second before the first): %d %q", code, h.Get("Content-Type"))
	}
	if code, _, _ := get(fmt.Sprintf("bytes=%d-", len(data))); code != http.StatusRequestedRangeNotSatisfiable {
		t.Errorf("range past the end: %d, want 416", code)
	}
	// A reader whose blob went away reports the store's error, not an
	// empty blob.
	if err := s.Delete(ctx, "served"); err != nil {
		t.Fatal(err)
	}
	rd := blobstore.NewReader(ctx, s, info)
	defer rd.Close()
	if _, err := io.ReadAll(rd); !errors.Is(err, blobstore.ErrNotFound) {
		t.Errorf("read of a deleted blob: %v, want ErrNotFound", err)
	}
}

func testInvalidRanges(t *testing.T, s blobstore.Store, _ Options) {
	data := Data(3, 1000)
	MustPut(t, s, "r", data)
	for _, tc := range []struct{ offset, length int64 }{
		{1000, 1}, {1000, -1}, {5000, 10}, {-1, 10}, {0, 0}, {10, -2},
	} {
		rc, info, err := s.OpenRange(ctx, "r", tc.offset, tc.length)
		if !errors.Is(err, blobstore.ErrInvalidRange) {
			if rc != nil {
				rc.Close()
			}
			t.Errorf("OpenRange(%d, %d) error = %v; want ErrInvalidRange", tc.offset, tc.length, err)
			continue
		}
		if tc.offset >= 1000 && info.Size != 1000 {
			t.Errorf("OpenRange(%d, %d) past the end: info %+v; want the blob's size for Content-Range", tc.offset, tc.length, info)
		}
	}
}

func testPutAgain(t *testing.T, s blobstore.Store, _ Options) {
	data := Data(4, 5000)
	MustPut(t, s, "k", data)
	MustPut(t, s, "k", data)
	got, _ := MustRead(t, s, "k", 0, 0)
	if !bytes.Equal(got, data) {
		t.Fatal("a blob put twice reads differently")
	}
	if l := MustList(t, s, ""); len(l) != 1 {
		t.Fatalf("List after two puts of one key: %+v", l)
	}
}

func testPutShort(t *testing.T, s blobstore.Store, _ Options) {
	data := Data(5, 1000)
	err := s.Put(ctx, "short", onlyReader{bytes.NewReader(data)}, 1001)
	if !errors.Is(err, blobstore.ErrSizeMismatch) {
		t.Fatalf("Put of 1000 bytes as 1001: %v; want ErrSizeMismatch", err)
	}
	MustNotExist(t, s, "short")
}

func testPutLong(t *testing.T, s blobstore.Store, _ Options) {
	data := Data(6, 1000)
	err := s.Put(ctx, "long", onlyReader{bytes.NewReader(data)}, 999)
	if !errors.Is(err, blobstore.ErrSizeMismatch) {
		t.Fatalf("Put of 1000 bytes as 999: %v; want ErrSizeMismatch", err)
	}
	MustNotExist(t, s, "long")
	err = s.Put(ctx, "long0", onlyReader{bytes.NewReader(data)}, 0)
	if !errors.Is(err, blobstore.ErrSizeMismatch) {
		t.Fatalf("Put of 1000 bytes as 0: %v; want ErrSizeMismatch", err)
	}
	MustNotExist(t, s, "long0")
}

var errCut = errors.New("blobstoretest: the upload was cut")

func testPutReaderFails(t *testing.T, s blobstore.Store, _ Options) {
	data := Data(7, 50_000)
	err := s.Put(ctx, "cut", &failReader{r: bytes.NewReader(data), n: 20_000, err: errCut}, int64(len(data)))
	if !errors.Is(err, errCut) {
		t.Fatalf("Put with a failing reader: %v; want its error", err)
	}
	if errors.Is(err, blobstore.ErrUnavailable) {
		t.Fatalf("Put with a failing reader: %v; the reader's failure is not ErrUnavailable", err)
	}
	MustNotExist(t, s, "cut")
}

func testPutFailKeepsBlob(t *testing.T, s blobstore.Store, _ Options) {
	data := Data(8, 30_000)
	MustPut(t, s, "keep", data)
	// Content addressed: the same bytes, cut. The store may not even read
	// them; either way the stored blob stays.
	_ = s.Put(ctx, "keep", &failReader{r: bytes.NewReader(data), n: 10_000, err: errCut}, int64(len(data)))
	_ = s.Put(ctx, "keep", onlyReader{bytes.NewReader(data[:100])}, int64(len(data)))
	got, _ := MustRead(t, s, "keep", 0, 0)
	if !bytes.Equal(got, data) {
		t.Fatalf("after failed puts the blob reads %d bytes, not the %d stored", len(got), len(data))
	}
}

// cancelReader cancels its context once n bytes are read, and goes on.
type cancelReader struct {
	r      io.Reader
	n      int64
	cancel context.CancelFunc
}

func (c *cancelReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n -= int64(n)
	if c.n <= 0 {
		c.cancel()
	}
	return n, err
}

func testPutCanceled(t *testing.T, s blobstore.Store, o Options) {
	for _, size := range []int64{200_000, o.LargeSize} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			data := Data(9, size)
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			// A key per size: a blob the first put kept whole must not
			// stand in for the second's.
			key := fmt.Sprintf("canceled/%d", size)
			err := s.Put(cctx, key, &cancelReader{r: bytes.NewReader(data), n: size / 2, cancel: cancel}, size)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Put canceled half-way: %v; want an error wrapping context.Canceled", err)
			}
			// The reader goes on after the cancel: the store may have had
			// every byte before it saw the cancel, and then keeps the
			// whole blob. Never a part of it.
			MustBeWholeOrAbsent(t, s, key, data)
		})
	}
}

func testDelete(t *testing.T, s blobstore.Store, _ Options) {
	MustPut(t, s, "d/1", Data(10, 10))
	MustPut(t, s, "d/2", Data(11, 10))
	if err := s.Delete(ctx, "d/1"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	MustNotExist(t, s, "d/1")
	if err := s.Delete(ctx, "d/1"); err != nil {
		t.Fatalf("Delete again: %v; want nil", err)
	}
	if l := MustList(t, s, ""); len(l) != 1 || l[0].Key != "d/2" {
		t.Fatalf("List after Delete: %+v; want d/2 alone", l)
	}
	MustRead(t, s, "d/2", 0, 0)
}

func testList(t *testing.T, s blobstore.Store, _ Options) {
	// No key is another's directory (a/1 and a/1/x): ValidKey.
	keys := []string{"a/2", "a/10", "b/1", "a/1", "a-b", "ab/x", "a/1x", "a/3/x", "Z", "a/_"}
	sizes := map[string]int64{}
	for i, k := range keys {
		sizes[k] = int64(i * 7)
		MustPut(t, s, k, Data(uint64(i), int64(i*7)))
	}
	names := func(l []blobstore.Info) []string {
		var out []string
		for _, i := range l {
			out = append(out, i.Key)
			if i.Size != sizes[i.Key] || i.ETag == "" || i.LastModified.IsZero() {
				t.Errorf("List: %+v; want size %d, an ETag and a time", i, sizes[i.Key])
			}
		}
		return out
	}
	all := slices.Clone(keys)
	slices.Sort(all) // byte-wise
	for _, tc := range []struct {
		prefix string
		want   []string
	}{
		{"", all},
		{"a/", []string{"a/1", "a/10", "a/1x", "a/2", "a/3/x", "a/_"}},
		{"a/1", []string{"a/1", "a/10", "a/1x"}},
		{"a/3/", []string{"a/3/x"}},
		{"a", []string{"a-b", "a/1", "a/10", "a/1x", "a/2", "a/3/x", "a/_", "ab/x"}},
		{"c", nil},
	} {
		if got := names(MustList(t, s, tc.prefix)); !slices.Equal(got, tc.want) {
			t.Errorf("List(%q) = %q; want %q", tc.prefix, got, tc.want)
		}
	}
}

func testListBreak(t *testing.T, s blobstore.Store, _ Options) {
	for i := range 5 {
		MustPut(t, s, fmt.Sprintf("k%d", i), Data(uint64(i), 1))
	}
	n := 0
	for info, err := range s.List(ctx, "") {
		if err != nil {
			t.Fatal(err)
		}
		if info.Key != fmt.Sprintf("k%d", n) {
			t.Fatalf("List yielded %q at %d", info.Key, n)
		}
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Fatalf("List yielded %d before the break", n)
	}
}

func testInvalidKeys(t *testing.T, s blobstore.Store, _ Options) {
	seg := strings.Repeat("k", blobstore.MaxSegmentLen)
	long := seg + "/" + seg[:blobstore.MaxKeyLen-blobstore.MaxSegmentLen-3] + "/k" // MaxKeyLen bytes
	for _, key := range []string{"", "/a", "a/", "a//b", "../a", "a/./b", "a b", "a\x00", "é", long + "k", seg + "k"} {
		if err := s.Put(ctx, key, bytes.NewReader(nil), 0); !errors.Is(err, blobstore.ErrInvalidKey) {
			t.Errorf("Put(%q): %v; want ErrInvalidKey", key, err)
		}
		if _, err := s.Stat(ctx, key); !errors.Is(err, blobstore.ErrInvalidKey) {
			t.Errorf("Stat(%q): %v; want ErrInvalidKey", key, err)
		}
		if rc, _, err := s.Open(ctx, key); !errors.Is(err, blobstore.ErrInvalidKey) {
			if rc != nil {
				rc.Close()
			}
			t.Errorf("Open(%q): %v; want ErrInvalidKey", key, err)
		}
		if err := s.Delete(ctx, key); !errors.Is(err, blobstore.ErrInvalidKey) {
			t.Errorf("Delete(%q): %v; want ErrInvalidKey", key, err)
		}
	}
	MustPut(t, s, long, []byte("x"))
	MustRead(t, s, long, 0, 0)
}

func testConcurrent(t *testing.T, s blobstore.Store, _ Options) {
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Go(func() {
			data := Data(uint64(i), 30_000)
			key := fmt.Sprintf("c/%d", i)
			if err := s.Put(ctx, key, onlyReader{bytes.NewReader(data)}, int64(len(data))); err != nil {
				errs <- err
				return
			}
			// The same key from another goroutine at once.
			if err := s.Put(ctx, "c/same", onlyReader{bytes.NewReader(Data(99, 20_000))}, 20_000); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent Put: %v", err)
	}
	for i := range n {
		if got, _ := MustRead(t, s, fmt.Sprintf("c/%d", i), 0, 0); !bytes.Equal(got, Data(uint64(i), 30_000)) {
			t.Errorf("c/%d reads other bytes", i)
		}
	}
	if got, _ := MustRead(t, s, "c/same", 0, 0); !bytes.Equal(got, Data(99, 20_000)) {
		t.Error("c/same reads other bytes")
	}
}

func testLarge(t *testing.T, s blobstore.Store, o Options) {
	before := time.Now()
	data := Data(12, o.LargeSize)
	MustPut(t, s, "large", data)
	got, info := MustRead(t, s, "large", 0, 0)
	if sha256.Sum256(got) != sha256.Sum256(data) {
		t.Fatalf("the large blob reads %d other bytes", len(got))
	}
	checkInfo(t, "Open", info, "large", o.LargeSize, before)
	// Ranges across the middle and at the end.
	mid := o.LargeSize / 2
	if got, _ := MustRead(t, s, "large", mid-1000, 2000); !bytes.Equal(got, data[mid-1000:mid+1000]) {
		t.Error("a range across the middle reads other bytes")
	}
	if got, _ := MustRead(t, s, "large", o.LargeSize-10, -1); !bytes.Equal(got, data[o.LargeSize-10:]) {
		t.Error("the last 10 bytes read otherwise")
	}
}

func testLargeReaderFails(t *testing.T, s blobstore.Store, o Options) {
	data := Data(13, o.LargeSize)
	err := s.Put(ctx, "large-cut", &failReader{r: bytes.NewReader(data), n: o.LargeSize - 1000, err: errCut}, o.LargeSize)
	if !errors.Is(err, errCut) {
		t.Fatalf("Put of a large blob with a failing reader: %v; want its error", err)
	}
	MustNotExist(t, s, "large-cut")
	if l := MustList(t, s, ""); len(l) != 0 {
		t.Fatalf("List after a failed large put: %+v", l)
	}
}
