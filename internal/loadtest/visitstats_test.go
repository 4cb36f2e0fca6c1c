//go:build loadtest

package loadtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/internal/store/postgres"
)

// Sizes of the statistics run.
const (
	statsBatch   = 8192      // visits per SaveVisits: the recorder's largest batch
	statsCalls   = 1000      // VisitStats calls timed at each size
	statsDays    = 30        // the visits are spread over this many UTC days
	statsVisitor = 2_000_000 // distinct visitors drawn from
	statsTarget  = 50 * time.Millisecond
)

// statsSizes are the numbers of clicks of the link at which VisitStats is timed.
var statsSizes = []int{1_000_000, 10_000_000}

// visitStore is what the statistics run needs of a store.
type visitStore interface {
	links.Store
	Close() error
}

// TestVisitStatsLoad loads 10,000,000 clicks of one link through the
// store's SaveVisits (the recording path after the recorder's enrichment),
// times VisitStats (what GET /api/url/{id} reads) at 1,000,000 and
// 10,000,000 clicks, and measures the storage per click before and after
// pruning the raw visits (link-visit-retention). Target: p99 < 50 ms.
func TestVisitStatsLoad(t *testing.T) {
	if os.Getenv("PORTAL_LOADTEST") == "0" {
		t.Skip("PORTAL_LOADTEST=0")
	}
	defer printSummary()
	t.Run("bolt", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "portal.db")
		s, err := bolt.Open(path, bolt.WithNoSync())
		if err != nil {
			t.Fatal(err)
		}
		runVisitStats(t, "bolt", s, func() int64 {
			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			return st.Size()
		})
	})
	t.Run("postgres", func(t *testing.T) {
		ctx := t.Context()
		url := pgtest.NewDatabase(t)
		s, err := postgres.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(context.Background()) })
		runVisitStats(t, "postgres", s, func() int64 {
			// VACUUM makes the space of pruned rows free for reuse (the
			// steady state with autovacuum) and updates the free space map.
			var n int64
			if _, err := conn.Exec(ctx, `VACUUM links_visits, links_visit_uniques, links_visit_rollups`); err != nil {
				t.Fatal(err)
			}
			if err := conn.QueryRow(ctx, `SELECT pg_total_relation_size('links_visits')
				+ pg_total_relation_size('links_visit_uniques') + pg_total_relation_size('links_visit_rollups')`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		})
	})
}

func runVisitStats(t *testing.T, kind string, s visitStore, size func() int64) {
	t.Cleanup(func() { s.Close() })
	ctx := t.Context()
	u, err := s.CreateLinkUser(ctx, links.User{Email: "stats@example.com", Username: "stats", Plan: "pro", RegisteredAt: t0}, "x")
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.CreateLink(ctx, links.ShortLink{UserID: u.ID, Alias: "campaign", LongURL: "https://example.org/",
		CreatedAt: t0, UpdatedAt: t0})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	countries := []string{"", "ID", "US", "SG", "MY", "JP", "DE", "GB", "IN", "BR", "AU", "NL", "FR", "PH", "TH", "VN"}
	browsers := []string{"", "Chrome", "Safari", "Firefox", "Edge", "Instagram App", "Facebook App", "Opera", "Other"}
	oses := []string{"", "Android", "iOS", "Windows", "macOS", "Linux"}
	socials := []string{"", "", "", "", visits.SocialFacebook, visits.SocialTwitter, visits.SocialInstagram}
	referrers := make([]string, 300)
	for i := range referrers {
		referrers[i] = fmt.Sprintf("site%d.example", i)
	}
	referrers[0] = ""
	total := statsSizes[len(statsSizes)-1]
	span := statsDays * 24 * time.Hour
	loaded := 0
	var loadTime time.Duration
	batch := make([]visits.Visit, 0, statsBatch)
	for _, want := range statsSizes {
		start := time.Now()
		for loaded < want {
			batch = batch[:0]
			for range min(statsBatch, want-loaded) {
				v := visits.Visit{Kind: visits.KindLink, ID: l.ID,
					At:       t0.Add(time.Duration(int64(span) / int64(total) * int64(loaded))),
					Visitor:  fmt.Sprintf("%022x", rng.IntN(statsVisitor)),
					Country:  countries[rng.IntN(len(countries))],
					Referrer: referrers[rng.IntN(len(referrers))],
					Browser:  browsers[rng.IntN(len(browsers))],
					OS:       oses[rng.IntN(len(oses))],
					Social:   socials[rng.IntN(len(socials))],
					Bot:      rng.IntN(20) == 0,
				}
				batch = append(batch, v)
				loaded++
			}
			if err := s.SaveVisits(ctx, batch); err != nil {
				t.Fatal(err)
			}
		}
		loadTime += time.Since(start)
		report(fmt.Sprintf("clicks saved through SaveVisits (batches of %d), up to %d", statsBatch, want), kind,
			fmt.Sprintf("%.0f clicks/s", float64(want)/loadTime.Seconds()), "-", nil)

		lat := make([]time.Duration, statsCalls)
		var st visits.Stats
		for i := range lat {
			t1 := time.Now()
			if st, err = s.VisitStats(ctx, u.ID, visits.KindLink, l.ID); err != nil {
				t.Fatal(err)
			}
			lat[i] = time.Since(t1)
		}
		if st.Clicks+st.Bots != want {
			t.Fatalf("VisitStats: %d clicks + %d bots, want %d visits", st.Clicks, st.Bots, want)
		}
		slices.Sort(lat)
		p99 := lat[len(lat)*99/100]
		report(fmt.Sprintf("link statistics (VisitStats) at %d clicks", want), kind,
			fmt.Sprintf("p50 %s, p99 %s, max %s (%d calls)", ms(lat[len(lat)/2]), ms(p99), ms(lat[len(lat)-1]), statsCalls),
			"p99 < 50 ms", ptr(p99 < statsTarget))
		report(fmt.Sprintf("storage of the visits at %d clicks", want), kind,
			fmt.Sprintf("%d MB, %.0f bytes per click", size()>>20, float64(size())/float64(want)), "-", nil)
	}

	// The retention: every raw visit pruned, and the seen visitors of
	// every day but the last two.
	before := size()
	t1 := time.Now()
	end := t0.Add(span)
	n, err := s.PruneVisits(context.WithoutCancel(ctx), end, visits.VisitorsBefore(end))
	if err != nil {
		t.Fatal(err)
	}
	report("pruning every raw visit", kind, fmt.Sprintf("%d visits in %s (%.0f/s); size %d MB before, %d MB after",
		n, time.Since(t1).Round(time.Millisecond), float64(n)/time.Since(t1).Seconds(), before>>20, size()>>20), "-", nil)
	st, err := s.VisitStats(ctx, u.ID, visits.KindLink, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st.Clicks+st.Bots != total {
		t.Fatalf("VisitStats after pruning: %d clicks + %d bots, want %d", st.Clicks, st.Bots, total)
	}
}

// ms formats d in milliseconds with two decimals.
func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/1e6) }
