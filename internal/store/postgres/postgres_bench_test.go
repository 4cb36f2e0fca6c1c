package postgres

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
)

// benchAnswers returns 1,000 answers of exam e, member ids prefixed by p.
func benchAnswers(e, p string, at time.Time) []exam.Answer {
	as := make([]exam.Answer, 1000)
	for i := range as {
		as[i] = exam.Answer{ExamID: e, MemberID: fmt.Sprintf("%s-m%03d", p, i/40), QuestionID: fmt.Sprintf("q%02d", i%40),
			Answer: "a,c", AnsweredAt: at, ServerCode: "LAB-A", SyncID: "s-" + p}
	}
	return as
}

// BenchmarkSaveAnswers1000 pushes 1,000 new answers per operation.
func BenchmarkSaveAnswers1000(b *testing.B) {
	benchSaveAnswers(b, func(i int) []exam.Answer { return benchAnswers("e1", fmt.Sprint(i), t0) })
}

// BenchmarkSaveAnswers1000Update pushes 1,000 newer answers over existing ones.
func BenchmarkSaveAnswers1000Update(b *testing.B) {
	benchSaveAnswers(b, func(i int) []exam.Answer {
		return benchAnswers("e1", "same", t0.Add(time.Duration(i)*time.Second))
	})
}

// BenchmarkSaveAnswers1000Revisions pushes 960 new answers followed by 40
// newer answers to questions of the previous push (a lab's revisions): the
// case where the first-time insert fails at its end.
func BenchmarkSaveAnswers1000Revisions(b *testing.B) {
	benchSaveAnswers(b, func(i int) []exam.Answer {
		as := benchAnswers("e1", fmt.Sprint(i), t0.Add(time.Duration(i)*time.Second))[:960]
		return append(as, benchAnswers("e1", fmt.Sprint(i-1), t0.Add(time.Duration(i)*time.Second))[:40]...)
	})
}

// benchSaveAnswers saves the i-th batch of answers per operation, each push
// with its own sync id and checksum.
func benchSaveAnswers(b *testing.B, batch func(i int) []exam.Answer) {
	st := mustOpen(b)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		p := fmt.Sprint(i)
		if _, err := st.SaveAnswers(ctx, exam.AnswerBatch{SyncID: "s-" + p, ServerCode: "LAB-A", NPSN: "20100001",
			Checksum: "c-" + p, Answers: batch(i), ReceivedAt: t0}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCopyAnswers1000 is the baseline: a plain COPY of the same rows.
func BenchmarkCopyAnswers1000(b *testing.B) {
	st := mustOpen(b)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		if err := st.CopyAnswers(ctx, benchAnswers("e1", fmt.Sprint(i), t0)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpsertMonitors upserts the monitors of 500 servers from 4
// parallel goroutines, one per statement and in groups of 100 (the groups
// the heartbeat writer makes under load); rows/s is the figure to compare.
func BenchmarkUpsertMonitors(b *testing.B) {
	st := mustOpen(b)
	ctx := context.Background()
	for _, group := range []int{1, 100} {
		b.Run(fmt.Sprint("group=", group), func(b *testing.B) {
			var n atomic.Int64
			b.SetParallelism(4)
			b.RunParallel(func(pb *testing.PB) {
				ms := make([]exam.Monitor, group)
				for pb.Next() {
					i := n.Add(1)
					for j := range ms {
						ms[j] = exam.Monitor{ID: fmt.Sprint(i, "-", j), ServerCode: fmt.Sprintf("LAB-%03d", (int(i)*group+j)%500),
							NPSN: "20100001", Status: exam.StatusOnline, ConnectedStudents: j % 40, LastPingAt: t0, UpdatedAt: t0}
					}
					if err := st.UpsertMonitors(ctx, ms); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N*group)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkImportMembers10000 imports 10,000 new members per operation.
func BenchmarkImportMembers10000(b *testing.B) {
	st := mustOpen(b)
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		ms := make([]exam.Member, 10_000)
		for j := range ms {
			k := fmt.Sprintf("%d-%05d", i, j)
			ms[j] = exam.Member{ID: "id" + k, NPSN: "20100001", Nama: "Siswa " + k, Role: exam.RoleStudent,
				Username: "u" + k, Email: k + "@x.id", NISN: k, CreatedAt: t0, UpdatedAt: t0}
		}
		if _, err := st.ImportMembers(ctx, ms); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPackageReadersMemory reads a 200 MB package with 20 concurrent
// readers and checks the heap stays far below 150 MB.
func TestPackageReadersMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("slow, and the race detector inflates memory: run without -race and -short")
	}
	st := mustOpen(t)
	const size = 200 << 20
	data := randomBytes(size)
	meta := exam.PackageMeta{NPSN: "20100001", Version: "v", Checksum: sum(data), Size: size, GeneratedAt: t0}
	start := time.Now()
	mustOK(t, "SavePackage", st.SavePackage(t.Context(), meta, bytes.NewReader(data)))
	t.Logf("saved 200 MB in %s", time.Since(start))
	data = nil
	runtime.GC()

	var peak atomic.Uint64
	done := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	start = time.Now()
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			r, err := st.OpenPackage(t.Context(), meta)
			if err != nil {
				t.Error(err)
				return
			}
			defer r.Close()
			n, err := io.Copy(io.Discard, r)
			if err != nil || n != size {
				t.Errorf("read %d bytes, err %v", n, err)
			}
		})
	}
	wg.Wait()
	close(done)
	sampler.Wait()
	t.Logf("20 readers of 200 MB in %s, peak heap in use %d MB", time.Since(start), peak.Load()>>20)
	if peak.Load() > 100<<20 {
		t.Fatalf("peak heap in use %d MB, want far below 150 MB", peak.Load()>>20)
	}
}
