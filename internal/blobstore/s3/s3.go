// Package s3 is a blobstore.Store on S3-compatible object storage (AWS S3,
// MinIO, Ceph RGW, Cloudflare R2, Google Cloud Storage's XML API with HMAC
// keys, Versity's gateway), through github.com/minio/minio-go/v7.
//
// A blob is one object, named by the Config's prefix and the blob's key. A
// blob up to the part size is sent in one PUT; a larger one is sent as a
// multipart upload of parts of that size, one part in memory at a time. S3
// makes an object visible only once its PUT or its multipart upload
// completes, so a failed put leaves nothing visible; a multipart upload
// that fails is aborted, and one that could not be aborted (the server went
// away) holds invisible parts until AbortStaleUploads or the bucket's
// lifecycle rule (AbortIncompleteMultipartUpload) removes them.
package s3

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/seedhq/portal/internal/blobstore"
)

var _ blobstore.Store = (*Store)(nil)

// Store is a blobstore.Store in one bucket of S3-compatible storage.
type Store struct {
	core     minio.Core
	bucket   string
	prefix   string
	partSize int64
}

// Open returns the Store of the URL rawURL (ParseURL), with its credentials
// from the environment or the URL's credentials file. It does not contact
// the server: call Ping to check the bucket and the credentials.
func Open(rawURL string) (*Store, error) {
	cfg, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	return New(cfg)
}

// New returns the Store of cfg, completing its credentials from the
// environment (Config.AccessKey). It does not contact the server.
func New(cfg Config) (*Store, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if err := cfg.credentials(os.Getenv); err != nil {
		return nil, err
	}
	if cfg.Endpoint == "" {
		cfg.Endpoint = DefaultEndpoint
	}
	if cfg.PartSize == 0 {
		cfg.PartSize = DefaultPartSize
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.ResponseTimeout == 0 {
		cfg.ResponseTimeout = DefaultResponseTimeout
	}
	transport, err := newTransport(cfg)
	if err != nil {
		return nil, err
	}
	lookup := minio.BucketLookupAuto
	if cfg.PathStyle {
		lookup = minio.BucketLookupPath
	}
	client, err := minio.New(cfg.Endpoint, &minio.Options{
		Creds:        credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, cfg.SessionToken),
		Secure:       !cfg.PlainHTTP,
		Transport:    expectContinue{transport},
		Region:       cfg.Region,
		BucketLookup: lookup,
		MaxRetries:   cfg.MaxRetries,
	})
	if err != nil {
		return nil, fmt.Errorf("blobstore s3: endpoint %q: %w", cfg.Endpoint, err)
	}
	return &Store{core: minio.Core{Client: client}, bucket: cfg.Bucket, prefix: cfg.Prefix, partSize: cfg.PartSize}, nil
}

// newTransport is the HTTP transport of a Store: bounded connecting and
// waiting for responses, keep-alive connections for a server's load.
func newTransport(cfg Config) (*http.Transport, error) {
	dialer := &net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}
	t := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dialer.DialContext,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   cfg.ConnectTimeout,
		ResponseHeaderTimeout: cfg.ResponseTimeout,
		ExpectContinueTimeout: time.Second,
		// Blobs are stored compressed or encrypted already; a gzip
		// response would also change the lengths a range reader expects.
		DisableCompression: true,
		TLSClientConfig:    &tls.Config{MinVersion: tls.VersionTLS12},
	}
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("blobstore s3: ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("blobstore s3: ca_file %s: no PEM certificate", cfg.CAFile)
		}
		t.TLSClientConfig.RootCAs = pool
	}
	return t, nil
}

// expectContinue asks the server to accept a large PUT's headers before
// its body is sent (Expect: 100-continue): a server that refuses the PUT (no
// bucket, wrong credentials) answers at once and the answer is read, where
// it would otherwise close the connection under a body still being sent,
// and the client would see a reset connection instead of the answer.
type expectContinue struct{ rt http.RoundTripper }

// expectContinueSize is the size of a body from which a PUT waits for 100
// Continue (at most the transport's ExpectContinueTimeout, when the server
// ignores the header).
const expectContinueSize = 64 << 10

func (e expectContinue) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPut && (req.ContentLength >= expectContinueSize || req.ContentLength < 0) && req.Header.Get("Expect") == "" {
		req = req.Clone(req.Context())
		req.Header.Set("Expect", "100-continue")
	}
	return e.rt.RoundTrip(req)
}

// Bucket returns the bucket's name.
func (s *Store) Bucket() string { return s.bucket }

// object is the object name of key.
func (s *Store) object(key string) string { return s.prefix + key }

// Put implements blobstore.Store.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	if err := blobstore.ValidKey(key); err != nil {
		return fmt.Errorf("blobstore s3: put: %w", err)
	}
	if size < 0 {
		return fmt.Errorf("blobstore s3: put %q: negative size %d", key, size)
	}
	// The caller's reader is read through src, which keeps its error: a
	// failing reader is the caller's fault, not the store's.
	src := &readErr{r: blobstore.ExactReader(r, size)}
	if size == 0 {
		// The client sends an empty blob without reading: read the end
		// (or the byte too many) here.
		if _, err := src.Read(make([]byte, 1)); err != io.EOF {
			return fmt.Errorf("blobstore s3: put %q: reading the blob: %w", key, err)
		}
	}
	// The Client's PutObject (not Core's single PUT): multipart above the
	// part size.
	_, err := s.core.Client.PutObject(ctx, s.bucket, s.object(key), src, size, minio.PutObjectOptions{
		ContentType: "application/octet-stream",
		PartSize:    uint64(s.partSize),
	})
	if err == nil {
		return nil
	}
	if src.err != nil && src.err != io.EOF {
		return fmt.Errorf("blobstore s3: put %q: reading the blob: %w", key, src.err)
	}
	err = s.fail(ctx, "put", key, err)
	if errors.Is(err, blobstore.ErrUnavailable) && ctx.Err() == nil {
		// A server that refuses a PUT (no bucket, wrong credentials) may
		// answer before reading the body and close the connection under
		// it: the client then sees the connection reset, not the answer.
		// Ask the server what is wrong, if anything.
		if perr := s.checkBucket(ctx); perr != nil && !errors.Is(perr, blobstore.ErrUnavailable) {
			return fmt.Errorf("blobstore s3: put %q: %w (the put failed with: %v)", key, perr, err)
		}
	}
	return err
}

// readErr is a reader that keeps the error its reader returned.
type readErr struct {
	r   io.Reader
	err error
}

func (r *readErr) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && r.err == nil {
		r.err = err
	}
	return n, err
}

// Open implements blobstore.Store.
func (s *Store) Open(ctx context.Context, key string) (io.ReadCloser, blobstore.Info, error) {
	return s.get(ctx, key, 0, -1, false)
}

// OpenRange implements blobstore.Store. Its reader is the body of one
// ranged GET (206).
func (s *Store) OpenRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, blobstore.Info, error) {
	if offset < 0 || length == 0 || length < -1 {
		return nil, blobstore.Info{}, fmt.Errorf("blobstore s3: open %q: %w: offset %d, length %d", key, blobstore.ErrInvalidRange, offset, length)
	}
	return s.get(ctx, key, offset, length, true)
}

// get opens key with one GET, of the range offset, length when ranged.
func (s *Store) get(ctx context.Context, key string, offset, length int64, ranged bool) (io.ReadCloser, blobstore.Info, error) {
	if err := blobstore.ValidKey(key); err != nil {
		return nil, blobstore.Info{}, fmt.Errorf("blobstore s3: open: %w", err)
	}
	var opts minio.GetObjectOptions
	if ranged {
		end := ""
		if length > 0 {
			end = strconv.FormatInt(offset+length-1, 10)
		}
		opts.Set("Range", fmt.Sprintf("bytes=%d-%s", offset, end))
	}
	body, oi, hdr, err := s.core.GetObject(ctx, s.bucket, s.object(key), opts)
	if err != nil {
		err = s.fail(ctx, "open", key, err)
		if errors.Is(err, blobstore.ErrInvalidRange) {
			// The range starts past the end: the blob's size goes in the
			// answer's Content-Range.
			info, serr := s.Stat(ctx, key)
			if serr != nil {
				return nil, blobstore.Info{}, serr
			}
			return nil, info, err
		}
		return nil, blobstore.Info{}, err
	}
	info := s.info(key, oi)
	n := oi.Size // the bytes of this response
	if cr := hdr.Get("Content-Range"); cr != "" {
		total, err := contentRangeTotal(cr)
		if err != nil {
			body.Close()
			return nil, blobstore.Info{}, fmt.Errorf("blobstore s3: open %q: %w", key, err)
		}
		info.Size = total
	} else if ranged {
		// The server sent the whole blob (200): keep the range of it.
		want, err := blobstore.CheckRange(oi.Size, offset, length)
		if err != nil {
			body.Close()
			return nil, info, fmt.Errorf("blobstore s3: open %q: %w", key, err)
		}
		if _, err := io.CopyN(io.Discard, body, offset); err != nil {
			body.Close()
			return nil, blobstore.Info{}, s.fail(ctx, "open", key, err)
		}
		n = want
	}
	return &reader{body: body, left: n, ctx: ctx, s: s, key: key}, info, nil
}

// contentRangeTotal reads the complete length of "bytes first-last/total".
func contentRangeTotal(cr string) (int64, error) {
	_, total, ok := strings.Cut(cr, "/")
	n, err := strconv.ParseInt(total, 10, 64)
	if !ok || !strings.HasPrefix(cr, "bytes ") || err != nil || n < 0 {
		return 0, fmt.Errorf("unexpected Content-Range %q", cr)
	}
	return n, nil
}

// reader is a blob's body: it reads left bytes, and its errors say
// whether the store failed (blobstore.ErrUnavailable) or ctx ended.
type reader struct {
	body io.ReadCloser
	left int64
	ctx  context.Context
	s    *Store
	key  string
}

func (r *reader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n, err := r.body.Read(p)
	r.left -= int64(n)
	switch {
	case err == io.EOF && r.left > 0:
		err = io.ErrUnexpectedEOF
	case err == io.EOF || err == nil:
		return n, nil
	}
	return n, r.s.fail(r.ctx, "read", r.key, err)
}

func (r *reader) Close() error { return r.body.Close() }

// Stat implements blobstore.Store.
func (s *Store) Stat(ctx context.Context, key string) (blobstore.Info, error) {
	if err := blobstore.ValidKey(key); err != nil {
		return blobstore.Info{}, fmt.Errorf("blobstore s3: stat: %w", err)
	}
	oi, err := s.core.StatObject(ctx, s.bucket, s.object(key), minio.StatObjectOptions{})
	if err != nil {
		err = s.fail(ctx, "stat", key, err)
		if errors.Is(err, blobstore.ErrNotFound) {
			// A HEAD's 404 has no body to tell a missing object from a
			// missing bucket: ask.
			if perr := s.checkBucket(ctx); perr != nil {
				return blobstore.Info{}, fmt.Errorf("blobstore s3: stat %q: %w", key, perr)
			}
		}
		return blobstore.Info{}, err
	}
	return s.info(key, oi), nil
}

// info is the blobstore.Info of key's object.
func (s *Store) info(key string, oi minio.ObjectInfo) blobstore.Info {
	return blobstore.Info{Key: key, Size: oi.Size, ETag: strings.Trim(oi.ETag, `"`), LastModified: oi.LastModified.UTC()}
}

// Delete implements blobstore.Store.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := blobstore.ValidKey(key); err != nil {
		return fmt.Errorf("blobstore s3: delete: %w", err)
	}
	err := s.core.RemoveObject(ctx, s.bucket, s.object(key), minio.RemoveObjectOptions{})
	if err == nil {
		return nil
	}
	if err = s.fail(ctx, "delete", key, err); errors.Is(err, blobstore.ErrNotFound) {
		return nil
	}
	return err
}

// List implements blobstore.Store. It reads ListObjectsV2 pages of up to
// 1,000 objects.
func (s *Store) List(ctx context.Context, prefix string) iter.Seq2[blobstore.Info, error] {
	return func(yield func(blobstore.Info, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel() // stops the client's listing when the loop breaks
		for oi := range s.core.ListObjectsIter(ctx, s.bucket, minio.ListObjectsOptions{Prefix: s.object(prefix), Recursive: true}) {
			if oi.Err != nil {
				yield(blobstore.Info{}, s.fail(ctx, "list", prefix, oi.Err))
				return
			}
			key := strings.TrimPrefix(oi.Key, s.prefix)
			if strings.HasSuffix(key, "/") {
				continue // a "directory" object some servers show, not a blob
			}
			if !yield(s.info(key, oi), nil) {
				return
			}
		}
	}
}

// Ping implements blobstore.Store: it lists one object of the bucket, which
// checks the server, the credentials and the bucket at once.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.checkBucket(ctx); err != nil {
		return fmt.Errorf("blobstore s3: ping bucket %q: %w", s.bucket, err)
	}
	return nil
}

// checkBucket lists one object: nil when the bucket exists and the
// credentials may list it, else the mapped error.
func (s *Store) checkBucket(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for oi := range s.core.ListObjectsIter(ctx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix, MaxKeys: 1}) {
		if oi.Err != nil {
			return s.kind(ctx, oi.Err)
		}
		break
	}
	return nil
}

// AbortStaleUploads aborts the multipart uploads under the Store's prefix
// begun before olderThan ago, the parts of puts that failed and could not be
// aborted then (the server was down), and returns how many it aborted. A put
// in progress is younger than olderThan when olderThan is longer than the
// longest put (a day, as a lifecycle rule would).
func (s *Store) AbortStaleUploads(ctx context.Context, olderThan time.Duration) (int, error) {
	cutoff := time.Now().Add(-olderThan)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n := 0
	for up := range s.core.ListIncompleteUploads(ctx, s.bucket, s.prefix, true) {
		if up.Err != nil {
			return n, s.fail(ctx, "list uploads", s.prefix, up.Err)
		}
		if !up.Initiated.Before(cutoff) {
			continue
		}
		if err := s.core.AbortMultipartUpload(ctx, s.bucket, up.Key, up.UploadID); err != nil {
			return n, s.fail(ctx, "abort upload of", up.Key, err)
		}
		n++
	}
	return n, nil
}

// fail wraps err of op on key with the blobstore error it means.
func (s *Store) fail(ctx context.Context, op, key string, err error) error {
	return fmt.Errorf("blobstore s3: %s %q: %w", op, key, s.kind(ctx, err))
}

// kind returns err wrapped with the blobstore error it means, if any.
func (s *Store) kind(ctx context.Context, err error) error {
	var er minio.ErrorResponse
	if errors.As(err, &er) {
		if k := errorKind(er); k != nil {
			return fmt.Errorf("%w: %w", k, err)
		}
		return err
	}
	if errors.Is(err, blobstore.ErrSizeMismatch) {
		return err
	}
	if ctx.Err() != nil {
		// The caller gave up (a client went away, a deadline passed): not
		// the store's failure.
		return fmt.Errorf("%w (%w)", err, ctx.Err())
	}
	// Not an S3 answer: the connection could not be made or broke, or a
	// timeout passed.
	return fmt.Errorf("%w: %w", blobstore.ErrUnavailable, err)
}

// errorKind maps an S3 error response to a blobstore error.
func errorKind(er minio.ErrorResponse) error {
	switch er.Code {
	case "NoSuchKey", "NotFound":
		return blobstore.ErrNotFound
	case "NoSuchBucket":
		return blobstore.ErrNoBucket
	case "InvalidRange":
		return blobstore.ErrInvalidRange
	case "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "ExpiredToken",
		"TokenRefreshRequired", "AccountProblem", "AllAccessDisabled", "InvalidSecurity",
		"XAdminUserNotFound": // versitygw's answer (404) to an unknown access key
		return blobstore.ErrAccessDenied
	case "SlowDown", "ServiceUnavailable", "InternalError", "RequestTimeout", "Throttling":
		return blobstore.ErrUnavailable
	}
	switch {
	case er.StatusCode >= 500 || er.StatusCode == http.StatusTooManyRequests || er.StatusCode == http.StatusRequestTimeout:
		return blobstore.ErrUnavailable
	case er.StatusCode == http.StatusForbidden || er.StatusCode == http.StatusUnauthorized:
		return blobstore.ErrAccessDenied
	case er.StatusCode == http.StatusRequestedRangeNotSatisfiable:
		return blobstore.ErrInvalidRange
	case er.StatusCode == http.StatusNotFound:
		return blobstore.ErrNotFound
	}
	return nil
}
