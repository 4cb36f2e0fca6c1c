//go:build loadtest

package loadtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/testkit/s3server"
	"github.com/seedhq/portal/pkg/client"
)

// ---- the simulated lab servers ----

// morningLab is the lab servers' side: HTTP transports that count the
// bytes read from the portals and from the cache (on the TCP connections:
// headers included), and the check of each package.
type morningLab struct {
	f           *fleet
	cacheBase   string
	portal      *http.Client // format 3 labagents: X-Package-Formats "1, 2, 3" (pkg/client's)
	portalOld   *http.Client // format 2 labagents: "1, 2"
	cache       *http.Client
	portalBytes atomic.Int64
	cacheBytes  atomic.Int64
	mu          sync.Mutex
	blobs       map[string]bool
}

func newMorningLab(f *fleet, cacheBase string, conns int) *morningLab {
	l := &morningLab{f: f, cacheBase: cacheBase, blobs: map[string]bool{}}
	transport := func(n *atomic.Int64) *http.Transport {
		d := &net.Dialer{Timeout: 10 * time.Second}
		return &http.Transport{
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				c, err := d.DialContext(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				return &countingConn{Conn: c, n: n}, nil
			},
			MaxIdleConns: 2 * conns, MaxIdleConnsPerHost: conns, IdleConnTimeout: time.Minute,
			DisableCompression: true, ReadBufferSize: 64 << 10, WriteBufferSize: 16 << 10,
		}
	}
	pt := transport(&l.portalBytes)
	l.portal = &http.Client{Transport: pt}
	l.portalOld = &http.Client{Transport: formatsTransport{base: pt, formats: "1, 2"}}
	l.cache = &http.Client{Transport: transport(&l.cacheBytes)}
	return l
}

// countingConn counts the bytes read from a connection.
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// formatsTransport names older package formats, as a labagent of the
// release before format 3 does.
type formatsTransport struct {
	base    http.RoundTripper
	formats string
}

func (t formatsTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get(exam.PackageFormatsHeader) != "" {
		r = r.Clone(r.Context())
		r.Header.Set(exam.PackageFormatsHeader, t.formats)
	}
	return t.base.RoundTrip(r)
}

// client is a pkg/client Client on the next portal in turn (a round-robin
// balancer), for a labagent reading up to format.
func (l *morningLab) client(format int, token string) *client.Client {
	hc := l.portal
	if format < exam.BlobsPackageFormat {
		hc = l.portalOld
	}
	c, err := client.NewClient(l.f.base(), client.WithHTTPClient(hc))
	if err != nil {
		panic(err)
	}
	if token != "" {
		c.SetToken(token)
	}
	return c
}

func (l *morningLab) blobNames() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for b := range l.blobs {
		out = append(out, b)
	}
	return out
}

// morning is one lab server's morning, as labagent's syncer does it: the
// handshake (its own server token and the school's package key), the
// envelope downloaded and checked against its announced SHA-256, decrypted
// and decoded, its plaintext version checked; then, for format 3, every
// question and stimulus blob (pkg/client's FetchContent: each checked
// against its name, decrypted, decoded) and every media blob through the
// cache (DownloadBlob checks the SHA-256 of the sealed bytes against the
// blob's name), decrypted with its content key and checked against the
// media's SHA-256 and size; for format 2, every media file encrypted for the
// school by the portal, decrypted with the package key and checked the
// same way.
func (l *morningLab) morning(ctx context.Context, s *morningSchool) (morningResult, error) {
	var r morningResult
	start := time.Now()
	v, _, err := l.client(s.format, "").Exam.Sync.VerifyServer(ctx, &client.VerifyServerRequest{
		ServerCode: s.code, NPSN: s.npsn, HardwareID: s.hw, LicenseToken: s.licence})
	if err != nil {
		return r, fmt.Errorf("handshake: %w", err)
	}
	var pkg bytes.Buffer
	d, _, err := l.client(s.format, v.AccessToken).Exam.Sync.DownloadPackage(ctx, s.code, &pkg, nil)
	if err != nil {
		return r, fmt.Errorf("package: %w", err)
	}
	if !d.Verified {
		return r, fmt.Errorf("package: not verified (status %d, %d of %d bytes)", d.Status, d.Written, d.Size)
	}
	r.envelope = d.Written
	p, err := client.DecodePackage(bytes.NewReader(pkg.Bytes()), v.PackageKey)
	if err != nil {
		return r, fmt.Errorf("package: %w", err)
	}
	if d.Version != "" && !strings.EqualFold(p.Version, d.Version) {
		return r, fmt.Errorf("package: plaintext version %s, the portal announced %s", p.Version, d.Version)
	}
	r.packageForm = p.Format
	if p.Format != s.format {
		return r, fmt.Errorf("package of format %d, want %d", p.Format, s.format)
	}
	if len(p.Exams) != 1 {
		return r, fmt.Errorf("package with %d exams, want 1", len(p.Exams))
	}
	bc, err := client.NewClient(l.cacheBase, client.WithHTTPClient(l.cache))
	if err != nil {
		return r, err
	}
	if p.Format == exam.BlobsPackageFormat {
		if err := bc.Exam.Sync.FetchContent(ctx, p); err != nil {
			return r, fmt.Errorf("content blobs: %w", err)
		}
		e := p.Exams[0]
		r.blobs = len(e.QuestionBlobs) + len(e.StimulusBlobs)
		l.mu.Lock()
		for _, b := range slices.Concat(e.QuestionBlobs, e.StimulusBlobs) {
			l.blobs[b.Name] = true
		}
		l.mu.Unlock()
	}
	e := p.Exams[0]
	r.questions = len(e.Questions)
	if r.questions != morningQuestions {
		return r, fmt.Errorf("%d questions, want %d", r.questions, morningQuestions)
	}
	if len(e.Media) != morningMediaFiles {
		return r, fmt.Errorf("%d media, want %d", len(e.Media), morningMediaFiles)
	}
	for i, m := range e.Media {
		var n int64
		if p.Format == exam.BlobsPackageFormat {
			if m.Blob == nil {
				return r, fmt.Errorf("media %s: no blob in a package of format 3", m.SHA256[:12])
			}
			check := verifyMedia
			if s.decrypt >= 0 && s.decrypt != i {
				check = verifyBlobOnly
			}
			n, err = check(m, m.Blob.Key, func(w io.Writer) (*client.PackageDownload, error) {
				d, _, err := bc.Exam.Sync.DownloadBlob(ctx, m.Blob, w, nil)
				if err == nil && !d.Verified {
					err = fmt.Errorf("blob not verified (status %d, %d of %d bytes)", d.Status, d.Written, d.Size)
				}
				return d, err
			})
			l.mu.Lock()
			l.blobs[m.Blob.Name] = true
			l.mu.Unlock()
			r.blobs++
		} else {
			c := l.client(s.format, v.AccessToken)
			n, err = verifyMedia(m, v.PackageKey, func(w io.Writer) (*client.PackageDownload, error) {
				d, _, err := c.Exam.Sync.DownloadMedia(ctx, s.code, m.SHA256, w, nil)
				if err == nil && !d.Complete() {
					err = fmt.Errorf("incomplete (status %d, %d of %d bytes)", d.Status, d.Written, d.Size)
				}
				return d, err
			})
		}
		if err != nil {
			return r, fmt.Errorf("media %s: %w", m.SHA256[:12], err)
		}
		r.media++
		r.mediaBytes += n
	}
	r.took = time.Since(start)
	return r, nil
}

// verifyMedia streams the encrypted bytes that download writes through
// the package decrypter with key and checks the plaintext against m's
// size and SHA-256: labagent's check (mediastore.Install), in memory
// instead of through a file. It returns the encrypted bytes read.
func verifyMedia(m client.PackageMedia, key []byte, download func(io.Writer) (*client.PackageDownload, error)) (int64, error) {
	pr, pw := io.Pipe()
	checked := make(chan error, 1)
	go func() {
		err := func() error {
			dec, err := client.NewPackageDecrypter(key, pr)
			if err != nil {
				return err
			}
			h := sha256.New()
			n, err := io.Copy(h, io.LimitReader(dec, m.Size+1))
			switch {
			case err != nil:
				return err
			case n != m.Size:
				return fmt.Errorf("%d bytes decrypted, the package says %d", n, m.Size)
			case hex.EncodeToString(h.Sum(nil)) != m.SHA256:
				return errors.New("the decrypted bytes' SHA-256 differs from the package's")
			}
			if rest, _ := io.Copy(io.Discard, pr); rest != 0 {
				return fmt.Errorf("%d bytes after the last chunk", rest)
			}
			return nil
		}()
		pr.CloseWithError(err)
		checked <- err
	}()
	d, err := download(pw)
	pw.CloseWithError(err)
	cerr := <-checked
	var n int64
	if d != nil {
		n = d.Written
	}
	if err != nil {
		return n, err
	}
	return n, cerr
}

// verifyBlobOnly has download write the blob's bytes, checked by
// DownloadBlob against the blob's name, without decrypting them.
func verifyBlobOnly(_ client.PackageMedia, _ []byte, download func(io.Writer) (*client.PackageDownload, error)) (int64, error) {
	d, err := download(io.Discard)
	if d == nil {
		return 0, err
	}
	return d.Written, err
}

// checkCacheRanges checks that the cache answers ranges of a cached blob
// from the cache, byte for byte: a plain Range, and labagent's resume
// (Range with If-Range the blob's name), whose answer it reports.
func checkCacheRanges(t *testing.T, l *morningLab, s *morningSchool) {
	t.Helper()
	names := l.blobNames()
	if len(names) == 0 || t.Failed() {
		return
	}
	// The largest blob: a media file.
	var name string
	var whole []byte
	for _, n := range names {
		b := cacheGet(t, l, n, nil)
		if len(b) > len(whole) {
			name, whole = n, b
		}
	}
	if sum := sha256.Sum256(whole); hex.EncodeToString(sum[:]) != name {
		t.Fatalf("cache: blob %s has SHA-256 %x", name[:12], sum)
	}
	from := int64(len(whole)) / 3
	to := min(from+99_999, int64(len(whole))-1)
	hdr := map[string]string{"Range": fmt.Sprintf("bytes=%d-%d", from, to)}
	resp, body := cacheDo(t, l, name, hdr)
	ok := resp.StatusCode == http.StatusPartialContent && bytes.Equal(body, whole[from:to+1])
	report("exam morning: Range through the cache", "nginx", fmt.Sprintf("%d, %s, %d bytes, X-Cache %s", resp.StatusCode,
		resp.Header.Get("Content-Range"), len(body), resp.Header.Get("X-Cache")), "206, the bytes of the blob", ptr(ok))
	if !ok {
		t.Errorf("Range %s of blob %s through the cache: %d, %d bytes, content matches: %v", hdr["Range"], name[:12],
			resp.StatusCode, len(body), bytes.Equal(body, whole[from:to+1]))
	}
	hdr["If-Range"] = `"` + name + `"`
	resp, body = cacheDo(t, l, name, hdr)
	resumes := resp.StatusCode == http.StatusPartialContent && bytes.Equal(body, whole[from:to+1])
	report("exam morning: labagent's resume through the cache (Range, If-Range: the blob's name)", "nginx",
		fmt.Sprintf("%d, %d bytes, ETag %s", resp.StatusCode, len(body), resp.Header.Get("ETag")), "206", ptr(resumes))
}

func cacheDo(t *testing.T, l *morningLab, name string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, l.cacheBase+"blobs/"+name, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := l.cache.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func cacheGet(t *testing.T, l *morningLab, name string, hdr map[string]string) []byte {
	t.Helper()
	resp, b := cacheDo(t, l, name, hdr)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s through the cache: %d", name[:12], resp.StatusCode)
	}
	return b
}

// checkAnonymousReads checks the bucket policy on the server: an object
// under the exam prefix is read without credentials, one elsewhere in the
// bucket is refused.
func checkAnonymousReads(t *testing.T, s3 *s3server.Server) {
	t.Helper()
	ctx := t.Context()
	c := s3.Client(t)
	for _, key := range []string{morningPrefix + "/exam/probe", morningPrefix + "/receipts/probe"} {
		if _, err := c.PutObject(ctx, morningBucket, key, strings.NewReader("probe"), 5, minio.PutObjectOptions{}); err != nil {
			t.Fatalf("put %s: %v", key, err)
		}
		resp, err := http.Get("http://" + s3.Addr + "/" + morningBucket + "/" + key)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := http.StatusOK
		if !strings.Contains(key, "/exam/") {
			want = http.StatusForbidden
		}
		if resp.StatusCode != want {
			t.Fatalf("anonymous GET of %s from the object store: %d, want %d", key, resp.StatusCode, want)
		}
		if err := c.RemoveObject(ctx, morningBucket, key, minio.RemoveObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// reportOriginETag reports the ETag the object store gives a blob: not its
// name (S3's is an MD5), hence the cache's own ETag (nginxConf).
func reportOriginETag(t *testing.T, s3 *s3server.Server, l *morningLab) {
	names := l.blobNames()
	if len(names) == 0 {
		return
	}
	resp, err := http.Head("http://" + s3.Addr + "/" + morningBucket + "/" + morningPrefix + "/exam/" + names[0])
	if err != nil {
		t.Error(err)
		return
	}
	resp.Body.Close()
	report("exam morning: the object store's ETag of a blob", "versitygw", fmt.Sprintf("%d, ETag %s for the blob %s…", resp.StatusCode,
		resp.Header.Get("ETag"), names[0][:12]), "-", nil)
}
