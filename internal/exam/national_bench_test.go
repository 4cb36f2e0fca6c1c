package exam_test

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/irt"
	"github.com/seedhq/portal/internal/sortid"
	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/internal/store/postgres"
	"github.com/seedhq/portal/internal/store/postgres/postgrestest"
)

// BenchmarkNationalPostgres is the national exam through the store: one
// exam of 40 choice questions taken by PORTAL_BENCH_STUDENTS students
// (default 1,000,000) of 100 per school, their answers in PostgreSQL, and
// the classical analysis of the whole country and of one school, the 2PL
// calibration, and the calibration asked of two portals at once (one fit,
// shared). It runs when PORTAL_BENCH_NATIONAL=1, once:
//
//	PORTAL_BENCH_NATIONAL=1 go test -run '^$' -bench NationalPostgres -benchtime 1x -timeout 2h ./internal/exam
//
// The members and answers are loaded with COPY (as a restore would), in
// the order lab servers push them: schools interleaved, 25 students at a
// time. Each figure is one run's wall time, with the peak of the Go heap
// during it (sampled every 50 ms) and the process's peak resident memory.
func BenchmarkNationalPostgres(b *testing.B) {
	if os.Getenv("PORTAL_BENCH_NATIONAL") != "1" {
		b.Skip("set PORTAL_BENCH_NATIONAL=1 to load a national exam into PostgreSQL (about 10 GB, several minutes)")
	}
	students := 1000000
	if v := os.Getenv("PORTAL_BENCH_STUDENTS"); v != "" {
		var err error
		if students, err = strconv.Atoi(v); err != nil || students < 200 {
			b.Fatalf("PORTAL_BENCH_STUDENTS=%q: a number of at least 200", v)
		}
	}
	ctx := context.Background()
	url := pgtest.NewDatabase(b)
	open := func() (*postgres.Store, *exam.Service) {
		st := postgrestest.OpenURL(b, url)
		svc, err := exam.NewService(ctx, st, exam.Config{Blobs: st.Blobs()}, slog.New(slog.DiscardHandler))
		if err != nil {
			b.Fatal(err)
		}
		return st, svc
	}
	_, svc := open()
	start := time.Now()
	e, school := loadNational(b, svc, url, students)
	b.Logf("%d students, %d schools, their answers loaded in %s", students, students/100, time.Since(start).Round(time.Second))

	measure := func(name string, op func(b *testing.B)) {
		b.Run(name, func(b *testing.B) {
			for range b.N {
				runtime.GC()
				peak := samplePeakHeap()
				op(b)
				b.ReportMetric(float64(peak())/(1<<20), "MB-heap-peak")
				var ru syscall.Rusage
				if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
					b.ReportMetric(float64(ru.Maxrss)/1024, "MB-rss-peak")
				}
			}
		})
	}
	measure("AnalysisCountry", func(b *testing.B) {
		res, err := svc.ItemAnalysis(ctx, e.ID, exam.AnalysisFilter{})
		if err != nil || res.Report.Students < students*9/10 {
			b.Fatalf("the country's analysis: %d students, %v", res.Report.Students, err)
		}
	})
	measure("AnalysisSchool", func(b *testing.B) {
		res, err := svc.ItemAnalysis(ctx, e.ID, exam.AnalysisFilter{NPSN: school})
		if err != nil || res.Report.Students < 90 || res.Report.Students > 100 {
			b.Fatalf("one school's analysis: %d students, %v", res.Report.Students, err)
		}
	})
	measure("Calibrate2PL", func(b *testing.B) {
		res, err := svc.Calibrate(ctx, e.ID, irt.TwoPL)
		if err != nil || res.Calibration == nil || !res.Calibration.Converged {
			b.Fatalf("the calibration: %+v, %v", res.Note, err)
		}
	})
	_, other := open()
	measure("Calibrate2PLTwoPortals", func(b *testing.B) {
		var wg sync.WaitGroup
		results := make([]exam.ItemCalibration, 2)
		for i, s := range []*exam.Service{svc, other} {
			wg.Go(func() {
				if i == 1 {
					time.Sleep(time.Second) // the second portal asks while the first fits
				}
				r, err := s.Calibrate(ctx, e.ID, irt.TwoPL)
				if err != nil {
					b.Error(err)
				}
				results[i] = r
			})
		}
		wg.Wait()
		if !results[0].FinishedAt.Equal(results[1].FinishedAt) || results[0].Calibration == nil {
			b.Fatalf("two portals: two fits (finished %v and %v)", results[0].FinishedAt, results[1].FinishedAt)
		}
	})
}

// samplePeakHeap samples the Go heap in use every 50 ms until the
// returned function is called, which returns the peak.
func samplePeakHeap() func() uint64 {
	var peak uint64
	done, stopped := make(chan struct{}), make(chan struct{})
	read := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapInuse)
	}
	go func() {
		defer close(stopped)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				read()
				return
			case <-t.C:
				read()
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-stopped
		return peak
	}
}

// loadNational creates the exam and loads its students and answers; it
// returns the exam and one school's NPSN.
func loadNational(b *testing.B, svc *exam.Service, url string, students int) (exam.Exam, string) {
	ctx := context.Background()
	startsAt := time.Now().UTC().Add(-3 * time.Hour)
	opts := []exam.Option{{ID: "a", Text: "A"}, {ID: "b", Text: "B"}, {ID: "c", Text: "C"}, {ID: "d", Text: "D"}}
	const items = 40
	var qs []exam.Question
	diff, disc := make([]float64, items), make([]float64, items)
	for j := range items {
		qs = append(qs, exam.Question{ID: fmt.Sprintf("q%02d", j+1), Type: exam.SingleChoice, Text: fmt.Sprint("Soal ", j+1),
			Options: opts, Answer: []string{"a"}, Points: 1})
		diff[j], disc[j] = -2.5+5*float64(j)/(items-1), 0.5+1.2*float64(j%7)/6
	}
	e, err := svc.CreateExam(ctx, exam.ExamInput{Title: "Ujian Nasional Matematika", NPSNs: []string{"30000000"}, StartsAt: startsAt,
		EndsAt: startsAt.Add(2 * time.Hour), DurationMinutes: 120, Questions: qs})
	if err != nil {
		b.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)

	ids, npsns, thetas := make([]string, students), make([]string, students), make([]float64, students)
	abilities := rand.New(rand.NewPCG(3, 5))
	for i := range ids {
		ids[i], npsns[i], thetas[i] = sortid.New(), fmt.Sprintf("3%07d", i/100), abilities.NormFloat64()
	}
	now := time.Now().UTC()
	i := 0
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"members"}, []string{"id", "npsn", "nama", "role", "dapodik_id", "nisn", "nip", "nik",
		"username", "email", "kelas", "academic_year_name", "google_email", "is_claimed", "exam_password_gen", "exam_password_hash",
		"created_at", "updated_at"}, pgx.CopyFromFunc(func() ([]any, error) {
		if i == students {
			return nil, nil
		}
		defer func() { i++ }()
		return []any{ids[i], npsns[i], fmt.Sprint("Siswa ", i), "student", "", fmt.Sprintf("%010d", i+1), "", "", "", "",
			"XII", "2026/2027", "", false, 0, "x", now, now}, nil
	})); err != nil {
		b.Fatalf("copy members: %v", err)
	}

	// The answers, in the order lab servers push them: blocks of 25
	// students of the schools, interleaved.
	rng := rand.New(rand.NewPCG(7, 11))
	blocks := rng.Perm((students + 24) / 25)
	next, cur, end, j := 0, 0, 0, items
	answeredAt := startsAt.Add(time.Hour)
	var row []any
	answers := func() ([]any, error) {
		for {
			if j == items { // the next student, or the next block's first
				if cur++; cur >= end {
					if next == len(blocks) {
						return nil, nil
					}
					cur = blocks[next] * 25
					end = min(cur+25, students)
					next++
				}
				j = 0
			}
			q := j
			j++
			if rng.Float64() < 0.05 {
				continue // left blank
			}
			answer := "a"
			if rng.Float64() >= 1/(1+math.Exp(-disc[q]*(thetas[cur]-diff[q]))) {
				answer = []string{"b", "c", "d"}[rng.IntN(3)]
			}
			row = append(row[:0], e.ID, ids[cur], qs[q].ID, answer, answeredAt, "LAB-"+npsns[cur], "sync-"+npsns[cur])
			return row, nil
		}
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"answers"}, []string{"exam_id", "member_id", "question_id", "answer", "answered_at", "server_code", "sync_id"},
		pgx.CopyFromFunc(answers))
	if err != nil {
		b.Fatalf("copy answers: %v", err)
	}
	if _, err := conn.Exec(ctx, `ANALYZE members; ANALYZE answers`); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d answers", n)
	return e, npsns[students/2]
}
