package agent

import (
	"context"
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
// after the bytes held, and installs it.
func (s *Syncer) fetchOne(ctx context.Context, m client.PackageMedia, key []byte) error {
	f, err := os.OpenFile(s.o.Media.PartPath(m.SHA256), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	err = s.call(ctx, 0, func(cctx context.Context, c *client.Client) error {
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
