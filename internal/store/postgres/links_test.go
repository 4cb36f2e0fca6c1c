package postgres

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/store/pgtest"
)

// TestLinksRateLimitShared checks that two portal instances (two stores on
// one database) hitting one key concurrently share one exact, capped counter,
// and that a later window removes the earlier one.
func TestLinksRateLimitShared(t *testing.T) {
	url := pgtest.NewDatabase(t)
	stores := []*Store{mustOpenURL(t, url), mustOpenURL(t, url)}
	ctx := t.Context()
	w := t0.Truncate(time.Minute)
	const limit, workers, hits = 50, 8, 10
	var (
		mu      sync.Mutex
		allowed int
		wg      sync.WaitGroup
		errs    = make(chan error, workers)
	)
	for i := range workers {
		wg.Go(func() {
			st := stores[i%len(stores)]
			for range hits {
				n, err := st.HitRateLimit(ctx, "user:1", w, limit)
				if err != nil {
					errs <- err
					return
				}
				if n > limit+1 {
					errs <- fmt.Errorf("count %d over the cap %d", n, limit+1)
					return
				}
				if n <= limit {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if allowed != limit {
		t.Fatalf("%d requests allowed, want exactly %d", allowed, limit)
	}
	n, err := stores[0].HitRateLimit(ctx, "user:1", w.Add(time.Minute), limit)
	mustOK(t, "HitRateLimit", err)
	if n != 1 {
		t.Fatalf("next window's count = %d, want 1", n)
	}
	var rows int
	mustOK(t, "count", stores[0].pool.QueryRow(ctx, `SELECT count(*) FROM links_rate_limits WHERE key = 'user:1'`).Scan(&rows))
	if rows != 1 {
		t.Fatalf("%d windows kept for the key, want 1", rows)
	}
}

// TestLinksAliasRace checks that of concurrent creations of one alias on one
// domain exactly one succeeds and the others get ErrAliasTaken.
func TestLinksAliasRace(t *testing.T) {
	st := mustOpen(t)
	ctx := t.Context()
	u, err := st.CreateLinkUser(ctx, links.User{Email: "ana@example.com", Username: "ana", RegisteredAt: t0}, "hash-ana")
	mustOK(t, "CreateLinkUser", err)
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, errs[i] = st.CreateLink(ctx, links.ShortLink{UserID: u.ID, Alias: "same", LongURL: "https://example.com",
				CreatedAt: t0, UpdatedAt: t0})
		})
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, links.ErrAliasTaken):
			t.Fatalf("CreateLink: %v, want nil or ErrAliasTaken", err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d concurrent creations of one alias succeeded, want 1", ok)
	}
}
