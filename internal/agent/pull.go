package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/pkg/client"
)

// pullLoop pulls at start, every PullInterval and after each handshake,
// backing off after failures.
func (s *Syncer) pullLoop(ctx context.Context) {
	t := time.NewTimer(0)
	defer t.Stop()
	failures := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.pullNow:
		}
		err := s.pull(ctx)
		drain(s.pullNow) // a handshake during this pull asked for the pull just done
		next := s.o.PullInterval
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			s.fail(ctx, opPull, err)
			failures++
			next = s.retryDelay(failures, err, refused(err))
		} else {
			failures = 0
		}
		t.Reset(next)
	}
}

// pull fetches the package if it changed (resuming a cut download), checks
// and decodes it, swaps it in and hands it to OnPackage.
func (s *Syncer) pull(ctx context.Context) error {
	s.pullMu.Lock()
	defer s.pullMu.Unlock()
	s.setBusy(1)
	defer s.setBusy(-1)
	err := s.download(ctx)
	if errors.Is(err, client.ErrPackageChanged) {
		// The partial copy belongs to an older package: start over.
		s.log.InfoContext(ctx, "the package changed on the portal during the download: starting it over")
		if err := s.db.ResetDownload(ctx); err != nil {
			return fmt.Errorf("drop the partial download: %w", err)
		}
		err = s.download(ctx)
	}
	if err == nil {
		s.succeed(ctx, opPull)
	}
	return err
}

// download runs one download: from the start with If-None-Match when there
// is no partial copy, else resuming after it with Range and If-Range.
func (s *Syncer) download(ctx context.Context) error {
	cur, err := s.db.PackageInfo()
	if err != nil && !errors.Is(err, localdb.ErrNoPackage) {
		return fmt.Errorf("read the package held: %w", err)
	}
	dl, found, err := s.db.Download()
	if err != nil {
		return fmt.Errorf("read the download in progress: %w", err)
	}
	resume := found && dl.Received > 0
	capture := new(respCapture)
	w := &downloadWriter{db: s.db, capture: capture}
	opts := &client.DownloadOptions{}
	if resume {
		opts.Offset, opts.IfRange = dl.Received, dl.ETag
		w.started, w.off = true, dl.Received
		s.log.InfoContext(ctx, "resuming the package download", "received", dl.Received, "size", dl.Size, "version", dl.Version)
	} else {
		s.mu.Lock()
		broken := s.localBroken
		s.mu.Unlock()
		if !broken {
			opts.IfNoneMatch = cur.ChecksumSHA256
		}
	}

	var d *client.PackageDownload
	err = s.call(ctx, opPull, 0, func(cctx context.Context, c *client.Client) error {
		dctx, cancel := context.WithCancelCause(context.WithValue(cctx, captureKey{}, capture))
		defer cancel(nil)
		watchdog := time.AfterFunc(downloadStall, func() { cancel(errDownloadStalled) })
		defer watchdog.Stop()
		w.ctx, w.progress = dctx, func() { watchdog.Reset(downloadStall) }
		var err error
		d, _, err = c.Exam.Sync.DownloadPackage(dctx, s.cfg.ServerCode, w, opts)
		if err != nil && errors.Is(context.Cause(dctx), errDownloadStalled) {
			err = fmt.Errorf("%w: %w", errDownloadStalled, err)
		}
		return err
	})
	// Keep what arrived, even when the transfer was cut: the next pull
	// resumes after it.
	if ferr := w.flush(context.WithoutCancel(ctx)); ferr != nil && err == nil {
		err = fmt.Errorf("store the downloaded bytes: %w", ferr)
	}
	switch {
	case errors.Is(err, client.ErrChecksumMismatch):
		return s.refusePackage(ctx, err)
	case err != nil && resume && refused(err):
		// The portal will not serve this range (416 for a copy longer than
		// the package, say): start over next time.
		if rerr := s.db.ResetDownload(context.WithoutCancel(ctx)); rerr != nil {
			s.log.ErrorContext(ctx, "drop the partial download", "err", rerr)
		}
		return fmt.Errorf("resume the package download: %w", err)
	case err != nil:
		return fmt.Errorf("download the package: %w", err)
	case d.NotModified():
		s.log.DebugContext(ctx, "the exam package is up to date", "checksum", cur.ChecksumSHA256)
		return nil
	case !d.Complete():
		return fmt.Errorf("download the package: incomplete (%d+%d of %d bytes)", d.Offset, d.Written, d.Size)
	}
	return s.install(ctx)
}

// install checks the completed download against the checksum and size the
// portal announced, decrypts and decodes it, swaps it in and hands it to
// OnPackage. A package failing a check is refused: the old one stays.
func (s *Syncer) install(ctx context.Context) error {
	dl, found, err := s.db.Download()
	if err != nil {
		return fmt.Errorf("read the download: %w", err)
	}
	if !found {
		return errors.New("the completed download is not recorded")
	}
	data, err := s.db.DownloadedBytes()
	if err != nil {
		return fmt.Errorf("read the downloaded package: %w", err)
	}
	sum := sha256.Sum256(data)
	switch {
	case dl.Size > 0 && int64(len(data)) != dl.Size:
		return s.refusePackage(ctx, fmt.Errorf("%d bytes, the portal announced %d", len(data), dl.Size))
	case !strings.EqualFold(hex.EncodeToString(sum[:]), dl.ChecksumSHA256):
		return s.refusePackage(ctx, fmt.Errorf("SHA-256 %x, the portal announced %s", sum, dl.ChecksumSHA256))
	}
	key, err := LoadPackageKey(s.db, s.cfg)
	if err != nil {
		return fmt.Errorf("open the new package: %w", err) // kept: retried after the next handshake
	}
	p, err := decodePackage(data, key, dl.Version)
	if err != nil {
		return s.refusePackage(ctx, fmt.Errorf("cannot be decrypted or decoded: %w", err))
	}
	// The package is swapped in only with every question, stimulus, image
	// and audio it shows: the completed download stays recorded meanwhile,
	// and the next pull installs it without moving it again.
	if err := s.fetchContent(ctx, p); err != nil {
		return fmt.Errorf("fetch the exam content: %w", err)
	}
	if err := s.assemble(p); err != nil {
		return s.refusePackage(ctx, fmt.Errorf("its exam content does not open: %w", err))
	}
	if err := s.fetchMedia(ctx, p, key); err != nil {
		return fmt.Errorf("fetch the exam media: %w", err)
	}
	meta := localdb.PackageMeta{ChecksumSHA256: strings.ToLower(dl.ChecksumSHA256), Version: p.Version, Size: int64(len(data)), PulledAt: s.Now()}
	if err := s.db.SwapPackage(context.WithoutCancel(ctx), meta, data); err != nil {
		return fmt.Errorf("store the new package: %w", err)
	}
	s.mu.Lock()
	s.localBroken = false
	s.mu.Unlock()
	s.log.InfoContext(ctx, "new exam package", "version", meta.Version, "checksum", meta.ChecksumSHA256,
		"size", meta.Size, "exams", len(p.Exams), "students", len(p.Students))
	if s.o.OnPackage != nil {
		s.o.OnPackage(p, meta)
	}
	s.pruneMedia(ctx, p)
	s.pruneContent(ctx, p)
	return nil
}

// LoadLocalPackage decrypts and decodes the package held in localdb with
// the stored package key. It returns an error wrapping localdb.ErrNoPackage
// when none was pulled yet.
func (s *Syncer) LoadLocalPackage() (*client.Package, localdb.PackageMeta, error) {
	meta, data, err := s.db.Package()
	if err != nil {
		return nil, localdb.PackageMeta{}, fmt.Errorf("read the exam package: %w", err)
	}
	key, err := LoadPackageKey(s.db, s.cfg)
	if err != nil {
		return nil, meta, fmt.Errorf("open the exam package: %w", err)
	}
	p, err := decodePackage(data, key, meta.Version)
	if err != nil {
		return nil, meta, fmt.Errorf("open the exam package %s: %w", meta.Version, err)
	}
	if err := s.assemble(p); err != nil {
		return nil, meta, fmt.Errorf("open the exam package %s: %w", meta.Version, err)
	}
	return p, meta, nil
}

// decodePackage decrypts and decodes data and checks its plaintext version
// when one was announced.
func decodePackage(data, key []byte, version string) (*client.Package, error) {
	p, err := client.DecodePackage(bytes.NewReader(data), key)
	if err != nil {
		return nil, err
	}
	if version != "" && !strings.EqualFold(p.Version, version) {
		return nil, fmt.Errorf("plaintext version %s, the portal announced %s", p.Version, version)
	}
	return p, nil
}

// Errors of the pull.
var (
	// errPackageRefused marks a downloaded package that failed its checks.
	errPackageRefused = errors.New("package refused")
	// errDownloadStalled is the cause of a download cancelled for
	// receiving nothing for downloadStall.
	errDownloadStalled = errors.New("the download stalled")
)

// refusePackage drops a downloaded package that failed a check, keeping the
// package held, and returns the error to record.
func (s *Syncer) refusePackage(ctx context.Context, cause error) error {
	if err := s.db.ResetDownload(context.WithoutCancel(ctx)); err != nil {
		s.log.ErrorContext(ctx, "drop the refused download", "err", err)
	}
	return fmt.Errorf("%w: %w (the package held is kept)", errPackageRefused, cause)
}

// captureKey is the context key of a respCapture.
type captureKey struct{}

// respCapture receives the status and headers of the response to the
// request whose context holds it.
type respCapture struct {
	status        int
	header        http.Header
	contentLength int64
}

// captureTransport fills the respCapture of a request's context. RoundTrip
// runs on the goroutine of the caller, before the body is read.
type captureTransport struct{ base http.RoundTripper }

func (t *captureTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if c, ok := r.Context().Value(captureKey{}).(*respCapture); ok && resp != nil {
		c.status, c.header, c.contentLength = resp.StatusCode, resp.Header.Clone(), resp.ContentLength
	}
	return resp, err
}

// downloadWriter streams a package download into localdb: the download is
// recorded (StartDownload) before its first byte, then the bytes are
// appended every downloadChunk bytes and at the end (flush).
type downloadWriter struct {
	ctx      context.Context
	db       *localdb.DB
	capture  *respCapture
	progress func()
	started  bool
	off      int64 // bytes stored
	buf      []byte
}

func (w *downloadWriter) Write(p []byte) (int, error) {
	if !w.started {
		if err := w.start(); err != nil {
			return 0, err
		}
	}
	w.progress()
	n := len(p)
	for len(p) > 0 {
		if w.buf == nil {
			w.buf = make([]byte, 0, downloadChunk)
		}
		k := min(len(p), downloadChunk-len(w.buf))
		w.buf = append(w.buf, p[:k]...)
		p = p[k:]
		if len(w.buf) == downloadChunk {
			if err := w.flush(w.ctx); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

// start records a new download from the headers of the portal's 200.
func (w *downloadWriter) start() error {
	c := w.capture
	if c.status != http.StatusOK || c.header == nil {
		return fmt.Errorf("package bytes in an answer with status %d", c.status)
	}
	dl := localdb.Download{
		ETag:           c.header.Get("ETag"),
		ChecksumSHA256: strings.ToLower(c.header.Get("X-Checksum-SHA256")),
		Version:        c.header.Get("X-Package-Version"),
		Size:           max(c.contentLength, 0), // 0: unknown
	}
	if dl.ChecksumSHA256 == "" {
		dl.ChecksumSHA256 = strings.ToLower(strings.Trim(strings.TrimPrefix(dl.ETag, "W/"), `"`))
	}
	if dl.ChecksumSHA256 == "" {
		return errors.New("the portal announced no package checksum")
	}
	if dl.ETag == "" {
		dl.ETag = `"` + dl.ChecksumSHA256 + `"`
	}
	if err := w.db.StartDownload(w.ctx, dl); err != nil {
		return fmt.Errorf("record the download: %w", err)
	}
	w.started, w.off = true, 0
	return nil
}

// flush appends the buffered bytes to the download.
func (w *downloadWriter) flush(ctx context.Context) error {
	if len(w.buf) == 0 || !w.started {
		return nil
	}
	if err := w.db.AppendDownload(ctx, w.off, w.buf); err != nil {
		return err
	}
	w.off += int64(len(w.buf))
	w.buf = w.buf[:0]
	return nil
}
