package localdb_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent/localdb"
)

// BenchmarkSaveAnswer40 is a class of 40 students saving back to back
// straight into the state file, every save fsync'd and no HTTP: the storage
// path alone, under labagent's save latency over the LAN. It reports saves
// per second and the p50 and p99 latency of a save; the target is p99-ms
// under 5 (docs/benchmarks.md).
func BenchmarkSaveAnswer40(b *testing.B) {
	const students, questions = 40, 50
	db, err := localdb.Open(filepath.Join(b.TempDir(), localdb.FileName), localdb.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := b.Context()
	// Ids as long as the portal's UUIDs, so that keys and pages are the
	// size they are in a lab.
	id := func(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }
	exam := id(0)
	for s := range students {
		if _, err := db.StartAttempt(ctx, localdb.Attempt{ExamID: exam, MemberID: id(s + 1), StartedAt: t0, Deadline: t0.Add(24 * time.Hour)}); err != nil {
			b.Fatal(err)
		}
	}
	lat := make([][]time.Duration, students)
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for s := range students {
		wg.Go(func() {
			for i := s; i < b.N; i += students {
				q := fmt.Sprintf("q%02d", (i/students)%questions)
				began := time.Now()
				if _, err := db.SaveAnswer(ctx, exam, id(s+1), q, "abcd"[i%4:i%4+1], t0.Add(time.Minute)); err != nil {
					b.Error(err)
					return
				}
				lat[s] = append(lat[s], time.Since(began))
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	all := slices.Concat(lat...)
	slices.Sort(all)
	ms := func(p float64) float64 { return float64(all[int(float64(len(all)-1)*p)].Microseconds()) / 1000 }
	b.ReportMetric(float64(len(all))/took.Seconds(), "saves/s")
	b.ReportMetric(ms(0.50), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
}
