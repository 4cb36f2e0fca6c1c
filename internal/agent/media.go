package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/seedhq/portal/pkg/client"
)

// packageMedia lists the media of p's exams, each once.
func packageMedia(p *client.Package) []client.PackageMedia {
	var out []client.PackageMedia
	seen := map[string]bool{}
	for _, e := range p.Exams {
		for _, m := range e.Media {
			if !seen[m.SHA256] {
				seen[m.SHA256] = true
				out = append(out, m)
			}
		}
	}
	return out
}

// fetchMedia downloads the media of p that the media directory does not
// hold yet, one at a time, each resumed where an earlier pull was cut.
func (s *Syncer) fetchMedia(ctx context.Context, p *client.Package, key []byte) error {
	missing := 0
	for _, m := range packageMedia(p) {
		if s.o.Media == nil {
			return errors.New("the package has images or audio but labagent has no media directory")
		}
		if s.o.Media.Has(m.SHA256, m.Size) {
			continue
		}
		missing++
		if err := s.fetchOne(ctx, m, key); err != nil {
			return fmt.Errorf("media %s (%s, %d bytes): %w", m.SHA256[:12], m.Type, m.Size, err)
		}
	}
	if missing > 0 {
		s.log.InfoContext(ctx, "exam media fetched", "files", missing)
	}
	return nil
}

// fetchOne downloads the encrypted media m to its partial file, resuming
// after the bytes held, and installs it: its blob when the package names
// one (format 3), else the file encrypted for the school.
func (s *Syncer) fetchOne(ctx context.Context, m client.PackageMedia, key []byte) error {
	if m.Blob != nil {
		return s.fetchBlob(ctx, m)
	}
	f, err := os.OpenFile(s.o.Media.PartPath(m.SHA256), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	err = s.call(ctx, opMedia, 0, func(cctx context.Context, c *client.Client) error {
		for restarted := false; ; restarted = true {
			off, err := f.Seek(0, io.SeekEnd)
			if err != nil {
				return err
			}
			dctx, cancel := context.WithCancelCause(cctx)
			watchdog := time.AfterFunc(downloadStall, func() { cancel(errDownloadStalled) })
			w := progressWriter{w: f, progress: func() { watchdog.Reset(downloadStall) }}
			d, _, err := c.Exam.Sync.DownloadMedia(dctx, s.cfg.ServerCode, m.SHA256, w, &client.DownloadOptions{Offset: off})
			watchdog.Stop()
			if err != nil && errors.Is(context.Cause(dctx), errDownloadStalled) {
				err = fmt.Errorf("%w: %w", errDownloadStalled, err)
			}
			cancel(nil)
			switch {
			case (errors.Is(err, client.ErrPackageChanged) || d != nil && d.Status == http.StatusRequestedRangeNotSatisfiable && err != nil) && !restarted:
				// The bytes held are not a prefix of these: start over.
				if err := f.Truncate(0); err != nil {
					return err
				}
				continue
			case err != nil:
				return err
			case !d.Complete():
				return fmt.Errorf("incomplete (%d+%d of %d bytes)", d.Offset, d.Written, d.Size)
			}
			return nil
		}
	})
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	f.Close()
	return s.o.Media.Install(m, key)
}

// blobAttempts is how many times a blob whose bytes do not match its name
// is fetched again from the start in one pull.
const blobAttempts = 3

// errBlobMismatch marks a blob download whose bytes are not the blob named.
var errBlobMismatch = errors.New("the downloaded bytes do not match the blob's name")

// fetchBlob downloads the blob of m (content sealed once for every school)
// to m's partial file, resuming after the bytes held, checks the SHA-256 of
// the whole against the blob's name (a mismatch is discarded and fetched
// again, never kept), and installs it with the blob's content key.
func (s *Syncer) fetchBlob(ctx context.Context, m client.PackageMedia) error {
	b := m.Blob
	f, err := os.OpenFile(s.o.Media.PartPath(m.SHA256), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	for attempt := 1; ; attempt++ {
		err := s.call(ctx, opMedia, 0, func(cctx context.Context, c *client.Client) error {
			return s.downloadBlob(cctx, c, b, f)
		})
		if err == nil {
			break
		}
		if !errors.Is(err, errBlobMismatch) {
			return fmt.Errorf("blob %s: %w", b.Name[:12], err)
		}
		// Never keep bytes that are not the blob: start over.
		if terr := f.Truncate(0); terr != nil {
			return terr
		}
		s.log.WarnContext(ctx, "a media blob arrived altered: fetching it again", "blob", b.Name[:12], "attempt", attempt, "err", err)
		if attempt == blobAttempts {
			return fmt.Errorf("blob %s: %w", b.Name[:12], err)
		}
	}
	if err := f.Sync(); err != nil {
		return err
	}
	f.Close()
	return s.o.Media.Install(m, b.Key)
}

// downloadBlob brings f, a partial copy of the blob b, to the whole blob
// and checks it against b's name: the bytes held are hashed, the rest is
// fetched after them and hashed as it arrives. The resume sends no
// If-Range: a blob's bytes never change under its name, and the whole is
// checked against the name, so whatever ETag a cache or an object store
// in front gives it (an MD5), the range is answered.
func (s *Syncer) downloadBlob(ctx context.Context, c *client.Client, b *client.PackageBlob, f *os.File) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	h := sha256.New()
	off, err := io.Copy(h, f)
	if err != nil {
		return err
	}
	if off > b.Size {
		return fmt.Errorf("%w: %d bytes held, the blob has %d", errBlobMismatch, off, b.Size)
	}
	if off < b.Size {
		dctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		watchdog := time.AfterFunc(downloadStall, func() { cancel(errDownloadStalled) })
		w := progressWriter{w: io.MultiWriter(f, h), progress: func() { watchdog.Reset(downloadStall) }}
		d, _, err := c.Exam.Sync.DownloadBlob(dctx, b, w, &client.DownloadOptions{Offset: off})
		watchdog.Stop()
		if err != nil && errors.Is(context.Cause(dctx), errDownloadStalled) {
			err = fmt.Errorf("%w: %w", errDownloadStalled, err)
		}
		switch {
		case errors.Is(err, client.ErrPackageChanged), errors.Is(err, client.ErrChecksumMismatch):
			// The whole blob, altered; or the whole blob answered to a
			// Range, the bytes held then being suspect.
			return fmt.Errorf("%w: %w", errBlobMismatch, err)
		case err != nil:
			return err
		case !d.Complete():
			return fmt.Errorf("incomplete (%d+%d of %d bytes)", d.Offset, d.Written, d.Size)
		case d.Size != b.Size:
			return fmt.Errorf("%w: %d bytes, the package says %d", errBlobMismatch, d.Size, b.Size)
		}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != b.Name {
		return fmt.Errorf("%w: SHA-256 %s", errBlobMismatch, got)
	}
	return nil
}

// progressWriter calls progress after every write to w.
type progressWriter struct {
	w        io.Writer
	progress func()
}

func (p progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.progress()
	return n, err
}

// pruneMedia removes the media that p no longer shows.
func (s *Syncer) pruneMedia(ctx context.Context, p *client.Package) {
	if s.o.Media == nil {
		return
	}
	keep := map[string]bool{}
	for _, m := range packageMedia(p) {
		keep[m.SHA256] = true
	}
	if err := s.o.Media.Prune(keep); err != nil {
		s.log.WarnContext(ctx, "remove unused media", "err", err)
	}
}
