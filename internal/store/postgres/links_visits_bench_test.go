package postgres

import (
	"fmt"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
)

// BenchmarkSaveVisits8192 saves batches of 8,192 clicks of one link (the
// recorder's largest batch) and reports clicks/s: the writer's limit that
// the redirector's sustained rate is measured against. "one-visitor" is a
// burst from one client (wrk), "distinct" a crowd of different visitors.
func BenchmarkSaveVisits8192(b *testing.B) {
	for _, tc := range []struct {
		name    string
		visitor func(i int) string
	}{
		{"one-visitor", func(int) string { return "v" }},
		{"distinct", func(i int) string { return fmt.Sprintf("%022d", i) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			st := mustOpen(b)
			ctx := b.Context()
			u, err := st.CreateLinkUser(ctx, links.User{Email: "b@example.com", Username: "bench", RegisteredAt: t0}, "x")
			if err != nil {
				b.Fatal(err)
			}
			l, err := st.CreateLink(ctx, links.ShortLink{UserID: u.ID, Alias: "bench", LongURL: "https://example.org/", CreatedAt: t0, UpdatedAt: t0})
			if err != nil {
				b.Fatal(err)
			}
			batch := make([]visits.Visit, 8192)
			n := 0
			start := time.Now()
			for b.Loop() {
				for i := range batch {
					batch[i] = visits.Visit{Kind: visits.KindLink, ID: l.ID, At: t0.Add(time.Duration(n) * time.Millisecond),
						Visitor: tc.visitor(n), Country: "ID", Referrer: "t.co", Browser: "Chrome", OS: "Android"}
					n++
				}
				if err := st.SaveVisits(ctx, batch); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)/time.Since(start).Seconds(), "clicks/s")
		})
	}
}
