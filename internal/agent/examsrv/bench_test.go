package examsrv_test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent/localdb"
)

// BenchmarkSaves has 40 and 400 signed-in students save answers over HTTP
// as fast as they can, every save fsync'd before it is acknowledged (the
// production setting). It reports saves per second and the p50 and p99 save
// latency seen by the students. Targets (docs/benchmarks.md): p99 under 5 ms
// at 40 students, at least 10,000 saves/s at 400.
func BenchmarkSaves(b *testing.B) {
	for _, students := range []int{40, 400} {
		b.Run(fmt.Sprintf("students=%d", students), func(b *testing.B) {
			benchSaves(b, students)
		})
	}
}

func benchSaves(b *testing.B, students int) {
	clk := &clock{t: t0.Add(time.Minute)}
	l := newLabWith(b, filepath.Join(b.TempDir(), localdb.FileName), 0, clk, students, localdb.Options{})
	token := l.token()
	devices := make([]*browser, students)
	for i := range devices {
		d := l.browser()
		d.hc.Transport = &http.Transport{MaxIdleConnsPerHost: 1}
		d.mustOK("POST", "/api/student/login", map[string]string{"username": fmt.Sprintf("s%d", i+1), "password": fmt.Sprintf("PASS-%d", i+1), "token": token}, nil)
		d.mustOK("POST", "/api/student/exams/e1/start", nil, nil)
		devices[i] = d
	}
	options := []string{"a", "b", "c", "d"}
	var next atomic.Int64
	lat := make([][]time.Duration, students)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for i, d := range devices {
		wg.Go(func() {
			for {
				n := next.Add(1)
				if n > int64(b.N) {
					return
				}
				q := fmt.Sprintf("q%d", n%10+1)
				t := time.Now()
				if st, code := d.do("PUT", "/api/student/exams/e1/answers/"+q, map[string]string{"answer": options[n%4]}, nil); st != http.StatusOK {
					b.Errorf("save = %d %s", st, code)
					return
				}
				lat[i] = append(lat[i], time.Since(t))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	all := slices.Concat(lat...)
	if len(all) == 0 {
		return
	}
	slices.Sort(all)
	pct := func(p float64) float64 { return float64(all[int(float64(len(all)-1)*p)].Microseconds()) / 1000 }
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "saves/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	if n, err := l.db.Pending(); err != nil || n != len(all) {
		b.Fatalf("outbox holds %d saves, %d were acknowledged (%v)", n, len(all), err)
	}
}
