package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/seedhq/portal/pkg/client"
)

// A package of format 3 ships each exam's questions and stimuli as blobs
// (content sealed once for every school). labagent keeps their sealed
// bytes in its state file and assembles the exams from them each time it
// loads the package.

// contentFetchers is how many content blobs are fetched at once.
const contentFetchers = 8

// contentBlobs lists the question and stimulus blobs of p, each once.
func contentBlobs(p *client.Package) []client.PackageBlob {
	var out []client.PackageBlob
	seen := map[string]bool{}
	for _, e := range p.Exams {
		for _, b := range append(append([]client.PackageBlob(nil), e.QuestionBlobs...), e.StimulusBlobs...) {
			if !seen[b.Name] {
				seen[b.Name] = true
				out = append(out, b)
			}
		}
	}
	return out
}

// fetchContent downloads the content blobs of p that the state file does
// not hold, checks each against its name (bytes that are not the blob are
// fetched again, up to blobAttempts times, never kept) and stores them.
func (s *Syncer) fetchContent(ctx context.Context, p *client.Package) error {
	var missing []client.PackageBlob
	for _, b := range contentBlobs(p) {
		if !s.db.HasContentBlob(b.Name) {
			missing = append(missing, b)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	// Blobs are small: fetch several at once, so that an exam of many
	// questions does not wait for one round trip per question in turn.
	got := make(map[string][]byte, len(missing))
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	next := make(chan client.PackageBlob)
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range min(contentFetchers, len(missing)) {
		wg.Go(func() {
			for b := range next {
				data, err := s.fetchContentBlob(fctx, b)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("blob %s: %w", b.Name[:12], err)
					cancel()
				}
				if err == nil {
					got[b.Name] = data
				}
				mu.Unlock()
			}
		})
	}
feed:
	for _, b := range missing {
		select {
		case next <- b:
		case <-fctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.db.PutContentBlobs(context.WithoutCancel(ctx), got); err != nil {
		return fmt.Errorf("store the exam content: %w", err)
	}
	s.log.InfoContext(ctx, "exam content fetched", "blobs", len(got))
	return nil
}

// fetchContentBlob downloads the content blob b whole.
func (s *Syncer) fetchContentBlob(ctx context.Context, b client.PackageBlob) ([]byte, error) {
	for attempt := 1; ; attempt++ {
		var buf bytes.Buffer
		err := s.call(ctx, opContent, 0, func(cctx context.Context, c *client.Client) error {
			buf.Reset()
			d, _, err := c.Exam.Sync.DownloadBlob(cctx, &b, &buf, nil)
			switch {
			case err != nil:
				return err
			case !d.Verified:
				return fmt.Errorf("incomplete (%d of %d bytes)", d.Written, d.Size)
			}
			return nil
		})
		if err == nil {
			return buf.Bytes(), nil
		}
		if !errors.Is(err, client.ErrChecksumMismatch) || attempt == blobAttempts {
			return nil, err
		}
		s.log.WarnContext(ctx, "an exam content blob arrived altered: fetching it again", "blob", b.Name[:12], "attempt", attempt, "err", err)
	}
}

// assemble fills the questions and stimuli of p's exams from their
// content blobs, held in the state file.
func (s *Syncer) assemble(p *client.Package) error {
	for i := range p.Exams {
		e := &p.Exams[i]
		for _, b := range e.QuestionBlobs {
			var q client.PackageQuestion
			if err := s.openContent(b, &q); err != nil {
				return fmt.Errorf("exam %s: question: %w", e.ID, err)
			}
			e.Questions = append(e.Questions, q)
		}
		for _, b := range e.StimulusBlobs {
			var st client.Stimulus
			if err := s.openContent(b, &st); err != nil {
				return fmt.Errorf("exam %s: stimulus: %w", e.ID, err)
			}
			e.Stimuli = append(e.Stimuli, st)
		}
	}
	return nil
}

// openContent opens the held content blob b into v.
func (s *Syncer) openContent(b client.PackageBlob, v any) error {
	sealed, err := s.db.ContentBlob(b.Name)
	if err != nil {
		return err
	}
	return client.OpenContentBlob(b, sealed, v)
}

// pruneContent removes the content blobs that p no longer shows.
func (s *Syncer) pruneContent(ctx context.Context, p *client.Package) {
	keep := map[string]bool{}
	for _, b := range contentBlobs(p) {
		keep[b.Name] = true
	}
	if err := s.db.PruneContentBlobs(context.WithoutCancel(ctx), keep); err != nil {
		s.log.WarnContext(ctx, "remove unused exam content", "err", err)
	}
}
