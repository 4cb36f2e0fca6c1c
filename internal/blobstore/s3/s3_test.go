package s3_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/blobstore/blobstoretest"
	"github.com/seedhq/portal/internal/blobstore/s3"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/faultproxy"
	"github.com/seedhq/portal/internal/testkit/s3server"
)

// partSize is the stores' part size in these tests: S3's smallest, so that
// a multipart upload needs only a few MiB.
const partSize = s3.MinPartSize

// newStore returns a store of bucket and prefix on srv with its root
// credentials, the part size partSize and two tries per request.
func newStore(t testing.TB, srv *s3server.Server, bucket, prefix string) *s3.Store {
	t.Helper()
	return newStoreKeys(t, srv, bucket, prefix, srv.AccessKey, srv.SecretKey)
}

// newStoreKeys is newStore with other credentials.
func newStoreKeys(t testing.TB, srv *s3server.Server, bucket, prefix, accessKey, secretKey string) *s3.Store {
	t.Helper()
	cfg, err := s3.ParseURL(srv.URL(bucket, prefix) + "&part_size=5MiB&max_retries=2")
	if err != nil {
		t.Fatal(err)
	}
	cfg.AccessKey, cfg.SecretKey = accessKey, secretKey
	st, err := s3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestConformance(t *testing.T) {
	t.Parallel()
	srv := s3server.Start(t)
	srv.CreateBucket(t, "conformance")
	var n atomic.Int64
	blobstoretest.Run(t, func(t *testing.T) blobstore.Store {
		// A fresh prefix is a fresh, empty store.
		return newStore(t, srv, "conformance", fmt.Sprintf("t%d/", n.Add(1)))
	}, blobstoretest.Options{LargeSize: 2*partSize + 12345})
}

var ctx = context.Background()

// TestRangeIsPartial checks that OpenRange asks the server for the range
// (a 206 answer) rather than reading the blob from its start.
func TestRangeIsPartial(t *testing.T) {
	t.Parallel()
	srv := s3server.Start(t)
	srv.CreateBucket(t, "blobs")
	st := newStore(t, srv, "blobs", "")
	data := blobstoretest.Data(1, 1<<20)
	blobstoretest.MustPut(t, st, "blob", data)
	if strings.Contains(srv.Output(), "| 206 |") {
		t.Fatal("a 206 in the server's log before any ranged read")
	}
	got, info := blobstoretest.MustRead(t, st, "blob", 500_000, 1000)
	if !bytes.Equal(got, data[500_000:501_000]) || info.Size != 1<<20 {
		t.Fatalf("range read %d bytes, info %+v", len(got), info)
	}
	// versitygw logs each request with its status, once answered.
	testkit.Eventually(t, time.Minute, "a 206 answer in versitygw's log", func() bool {
		return strings.Contains(srv.Output(), "| 206 |")
	})
}

// TestMultipart puts a blob above the part size: it is stored as a
// multipart upload (its ETag ends in -parts, as S3 makes them), nothing of
// the upload is left, and one that fails is aborted.
func TestMultipart(t *testing.T) {
	t.Parallel()
	srv := s3server.Start(t)
	srv.CreateBucket(t, "blobs")
	st := newStore(t, srv, "blobs", "p/")
	data := blobstoretest.Data(2, 2*partSize+1)
	blobstoretest.MustPut(t, st, "big", data)
	got, info := blobstoretest.MustRead(t, st, "big", 0, 0)
	if !bytes.Equal(got, data) {
		t.Fatal("the multipart blob reads other bytes")
	}
	if !strings.HasSuffix(info.ETag, "-3") {
		t.Errorf("ETag %q; want a multipart upload's of 3 parts", info.ETag)
	}
	if ups := srv.IncompleteUploads(t, "blobs"); len(ups) != 0 {
		t.Errorf("incomplete uploads after a put: %q", ups)
	}

	errCut := errors.New("cut")
	r := io.MultiReader(bytes.NewReader(data[:partSize+100]), errReader{errCut})
	if err := st.Put(ctx, "cut", r, int64(len(data))); !errors.Is(err, errCut) {
		t.Fatalf("Put failing in the second part: %v", err)
	}
	blobstoretest.MustNotExist(t, st, "cut")
	if ups := srv.IncompleteUploads(t, "blobs"); len(ups) != 0 {
		t.Errorf("a failed multipart upload was not aborted: %q", ups)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// TestWrongCredentials: a wrong secret or an unknown access key is
// ErrAccessDenied for every operation.
func TestWrongCredentials(t *testing.T) {
	t.Parallel()
	srv := s3server.Start(t)
	srv.CreateBucket(t, "blobs")
	blobstoretest.MustPut(t, newStore(t, srv, "blobs", ""), "k", []byte("hello"))
	for _, tc := range []struct{ name, access, secret string }{
		{"WrongSecret", srv.AccessKey, srv.SecretKey + "x"},
		{"UnknownKey", "nobody", srv.SecretKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkAll(t, newStoreKeys(t, srv, "blobs", "", tc.access, tc.secret), "k", blobstore.ErrAccessDenied)
		})
	}
}

// checkAll checks that every operation of st on key fails with want.
func checkAll(t *testing.T, st *s3.Store, key string, want error) {
	t.Helper()
	if err := st.Ping(ctx); !errors.Is(err, want) {
		t.Errorf("Ping: %v; want %v", err, want)
	}
	if err := st.Put(ctx, key+"-new", strings.NewReader("x"), 1); !errors.Is(err, want) {
		t.Errorf("Put: %v; want %v", err, want)
	}
	big := blobstoretest.Data(3, partSize+1)
	if err := st.Put(ctx, key+"-big", bytes.NewReader(big), int64(len(big))); !errors.Is(err, want) {
		t.Errorf("Put multipart: %v; want %v", err, want)
	}
	if _, err := st.Stat(ctx, key); !errors.Is(err, want) {
		t.Errorf("Stat: %v; want %v", err, want)
	}
	if rc, _, err := st.Open(ctx, key); !errors.Is(err, want) {
		if rc != nil {
			rc.Close()
		}
		t.Errorf("Open: %v; want %v", err, want)
	}
	if rc, _, err := st.OpenRange(ctx, key, 1, 2); !errors.Is(err, want) {
		if rc != nil {
			rc.Close()
		}
		t.Errorf("OpenRange: %v; want %v", err, want)
	}
	if err := st.Delete(ctx, key); !errors.Is(err, want) {
		t.Errorf("Delete: %v; want %v", err, want)
	}
	var lerr error
	for _, err := range st.List(ctx, "") {
		lerr = err
	}
	if !errors.Is(lerr, want) {
		t.Errorf("List: %v; want %v", lerr, want)
	}
}

// TestMissingBucket: a store on a bucket that was never made is
// ErrNoBucket for every operation.
func TestMissingBucket(t *testing.T) {
	t.Parallel()
	srv := s3server.Start(t)
	checkAll(t, newStore(t, srv, "never-made", ""), "k", blobstore.ErrNoBucket)
}

// TestBucketDisappears: the bucket is deleted while a store uses it (and
// holds a reader open): every later operation is ErrNoBucket.
func TestBucketDisappears(t *testing.T) {
	t.Parallel()
	srv := s3server.Start(t)
	srv.CreateBucket(t, "blobs")
	st := newStore(t, srv, "blobs", "x/")
	blobstoretest.MustPut(t, st, "k", []byte("hello"))
	blobstoretest.MustRead(t, st, "k", 0, 0)
	if err := st.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	srv.DeleteBucket(t, "blobs")
	checkAll(t, st, "k", blobstore.ErrNoBucket)
}

// TestServerDown: with the server gone every operation is ErrUnavailable,
// and the store works again once it is back.
func TestServerDown(t *testing.T) {
	t.Parallel()
	srv := s3server.Start(t)
	srv.CreateBucket(t, "blobs")
	st := newStore(t, srv, "blobs", "")
	blobstoretest.MustPut(t, st, "k", []byte("hello"))
	srv.Kill()
	checkAll(t, st, "k", blobstore.ErrUnavailable)
	srv.Restart()
	if got, _ := blobstoretest.MustRead(t, st, "k", 0, 0); string(got) != "hello" {
		t.Fatalf("after the restart: %q", got)
	}
}

// TestServer5xx: a server (or the balancer in front of it) answering 5xx is
// ErrUnavailable for every method. The answers come from a fault proxy in
// the server's place, which forwards nothing: versitygw has no way to fail
// on demand.
func TestServer5xx(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		status int
		body   string
	}{
		{"SlowDown", http.StatusServiceUnavailable,
			`<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`},
		{"BadGateway", http.StatusBadGateway, "<html>502 Bad Gateway</html>"},
		{"InternalError", http.StatusInternalServerError,
			`<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			proxy := faultproxy.New(t, "http://127.0.0.1:9") // never forwarded to
			proxy.Set(faultproxy.Fault{Kind: faultproxy.Respond, Status: tc.status, Body: []byte(tc.body),
				ContentType: "application/xml", RetryAfter: func(time.Time) string { return "1" }})
			cfg, err := s3.ParseURL(fmt.Sprintf("s3://blobs?endpoint=%s&region=%s&insecure=1&part_size=5MiB&max_retries=2",
				strings.TrimPrefix(proxy.URL, "http://"), s3server.Region))
			if err != nil {
				t.Fatal(err)
			}
			cfg.AccessKey, cfg.SecretKey = "access", "secret"
			st, err := s3.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			checkAll(t, st, "k", blobstore.ErrUnavailable)
		})
	}
}

// TestServerKilledMidRead: the server dies while a blob is read; the rest
// of the read fails with ErrUnavailable (not a short blob read as whole).
func TestServerKilledMidRead(t *testing.T) {
	t.Parallel()
	srv := s3server.Start(t)
	srv.CreateBucket(t, "blobs")
	st := newStore(t, srv, "blobs", "")
	// Far more than the socket buffers on both sides hold: the rest of
	// the blob is still at the server when it dies.
	const size = 48 << 20
	blobstoretest.MustPut(t, st, "big", blobstoretest.Data(4, size))
	for _, ranged := range []bool{false, true} {
		var (
			rc  io.ReadCloser
			err error
		)
		if ranged {
			rc, _, err = st.OpenRange(ctx, "big", 1000, -1)
		} else {
			rc, _, err = st.Open(ctx, "big")
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.CopyN(io.Discard, rc, 1<<20); err != nil {
			t.Fatal(err)
		}
		srv.Kill()
		n, err := io.Copy(io.Discard, rc)
		rc.Close()
		if !errors.Is(err, blobstore.ErrUnavailable) {
			t.Fatalf("ranged %v: reading on after the server died: %d bytes, %v; want ErrUnavailable", ranged, n, err)
		}
		t.Logf("ranged %v: read %d more bytes, then: %v", ranged, n, err)
		srv.Restart()
	}
}

// blockingReader yields r's bytes, but once n are read it closes reached
// and waits for resume before yielding more.
type blockingReader struct {
	r       io.Reader
	n       int64
	reached chan struct{}
	resume  chan struct{}
}

func (b *blockingReader) Read(p []byte) (int, error) {
	if b.n == 0 {
		close(b.reached)
		<-b.resume
		b.n = -1
	}
	if b.n > 0 && int64(len(p)) > b.n {
		p = p[:b.n]
	}
	n, err := b.r.Read(p)
	if b.n > 0 {
		b.n -= int64(n)
	}
	return n, err
}

// TestServerKilledMidPut: the server dies during a put, in one PUT and in a
// multipart upload. The put fails with ErrUnavailable; once the server is
// back there is no blob, no file in the bucket's directory, and the
// multipart upload the store could not abort is removed by
// AbortStaleUploads.
func TestServerKilledMidPut(t *testing.T) {
	t.Parallel()
	srv := s3server.Start(t)
	srv.CreateBucket(t, "blobs")
	st := newStore(t, srv, "blobs", "p/")
	for _, tc := range []struct {
		name       string
		size, stop int64
	}{
		{"OnePUT", partSize - 1, partSize / 2},
		{"Multipart", 3 * partSize, partSize + partSize/2},
	} {
		data := blobstoretest.Data(5, tc.size)
		r := &blockingReader{r: bytes.NewReader(data), n: tc.stop, reached: make(chan struct{}), resume: make(chan struct{})}
		done := make(chan error, 1)
		go func() { done <- st.Put(ctx, "k", r, tc.size) }()
		<-r.reached
		srv.Kill()
		close(r.resume)
		if err := <-done; !errors.Is(err, blobstore.ErrUnavailable) {
			t.Fatalf("%s: Put while the server died: %v; want ErrUnavailable", tc.name, err)
		}
		srv.Restart()
		blobstoretest.MustNotExist(t, st, "k")
		if files := srv.Files(t, "blobs"); len(files) != 0 {
			t.Fatalf("%s: files in the bucket's directory after the failed put: %q", tc.name, files)
		}
		n, err := st.AbortStaleUploads(ctx, 0)
		if err != nil {
			t.Fatalf("%s: AbortStaleUploads: %v", tc.name, err)
		}
		t.Logf("%s: AbortStaleUploads aborted %d upload(s)", tc.name, n)
		if ups := srv.IncompleteUploads(t, "blobs"); len(ups) != 0 {
			t.Fatalf("%s: incomplete uploads left: %q", tc.name, ups)
		}
		// The key can be put afterwards.
		blobstoretest.MustPut(t, st, "k", data)
		if err := st.Delete(ctx, "k"); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCredentialsFromEnvironment opens a store from its URL alone, with
// the credentials in the environment, then from a credentials file.
func TestCredentialsFromEnvironment(t *testing.T) {
	srv := s3server.Start(t)
	srv.CreateBucket(t, "blobs")
	for _, kv := range srv.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	st, err := s3.Open(srv.URL("blobs", "env/"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Ping(ctx); err != nil {
		t.Fatalf("Ping with the environment's credentials: %v", err)
	}

	file := filepath.Join(t.TempDir(), "credentials")
	content := fmt.Sprintf("[default]\naws_access_key_id = wrong\naws_secret_access_key = wrong\n\n# the store's\n[portal]\naws_access_key_id = %s\naws_secret_access_key = %s\n",
		srv.AccessKey, srv.SecretKey)
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_SECRET_ACCESS_KEY", "not-this-one")
	st, err = s3.Open(srv.URL("blobs", "file/") + "&credentials_file=" + file + "&profile=portal")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Ping(ctx); err != nil {
		t.Fatalf("Ping with the file's credentials: %v", err)
	}
	st, err = s3.Open(srv.URL("blobs", "file/") + "&credentials_file=" + file)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Ping(ctx); !errors.Is(err, blobstore.ErrAccessDenied) {
		t.Fatalf("Ping with the file's default profile (wrong keys): %v; want ErrAccessDenied", err)
	}
}
