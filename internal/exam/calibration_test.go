package exam_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/irt"
)

// lsatCounts are LSAT's 1,000 students by response pattern (00000 to
// 11111, the fifth question varying fastest; R's ltm::LSAT).
var lsatCounts = []int{3, 6, 2, 11, 1, 1, 3, 4, 1, 8, 0, 16, 0, 3, 2, 15, 10, 29, 14, 81, 3, 28, 15, 80, 16, 56, 21, 173, 11, 61, 28, 298}

// TestCalibrate takes LSAT through the store: 1,000 students answer five
// choice questions as LSAT's examinees did, beside an essay still being
// graded and a question every student got right. The Rasch calibration of
// the stored answers is ltm's (Rizopoulos 2006): the essay is skipped as
// pending, the question everybody got right is left out with the reason.
func TestCalibrate(t *testing.T) {
	ctx := context.Background()
	svc, store := newBoltService(t)
	start := time.Now().UTC().Add(time.Hour)
	opts := []exam.Option{{ID: "a", Text: "benar"}, {ID: "b", Text: "salah"}}
	qs := []exam.Question{}
	for j := range 5 {
		qs = append(qs, exam.Question{ID: fmt.Sprint("q", j+1), Type: exam.SingleChoice, Text: fmt.Sprint("Soal ", j+1), Options: opts, Answer: []string{"a"}, Points: 2})
	}
	qs = append(qs, exam.Question{ID: "essay", Type: exam.Essay, Text: "Jelaskan", Points: 4},
		exam.Question{ID: "easy", Type: exam.SingleChoice, Text: "1 + 1 = 2?", Options: opts, Answer: []string{"a"}, Points: 1})
	e, err := svc.CreateExam(ctx, exam.ExamInput{
		Title: "LSAT", Subject: "Logika", NPSNs: []string{"20100001"},
		StartsAt: start, EndsAt: start.Add(2 * time.Hour), DurationMinutes: 60, Questions: qs,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Calibrate(ctx, e.ID, "3pl"); !errors.Is(err, exam.ErrUnknownModel) {
		t.Fatalf("3pl: %v", err)
	}
	empty, err := svc.Calibrate(ctx, e.ID, irt.Rasch)
	if err != nil || empty.Calibration != nil || empty.Note == "" || empty.NoteCode != exam.NoteTooFewStudents || empty.Students != 0 {
		t.Fatalf("before any answer: %+v, %v", empty, err)
	}

	takeLSAT(t, store, e, 0, []string{"q1", "q2", "q3", "q4", "q5"}, func(member string, at time.Time) []exam.Answer {
		return []exam.Answer{{ExamID: e.ID, MemberID: member, QuestionID: "essay", Answer: "Karena...", AnsweredAt: at, ServerCode: "LAB-01"},
			{ExamID: e.ID, MemberID: member, QuestionID: "easy", Answer: "a", AnsweredAt: at, ServerCode: "LAB-01"}}
	})

	res, err := svc.Calibrate(ctx, e.ID, irt.Rasch)
	if err != nil {
		t.Fatal(err)
	}
	if res.Students != 1000 || res.Calibration == nil || len(res.Questions) != 6 {
		t.Fatalf("calibration: %d students, %d questions %+v, skipped %v, note %q", res.Students, len(res.Questions), res.Questions, res.Skipped, res.Note)
	}
	if want := "[{6 essay 1000}]"; fmt.Sprint(res.Skipped) != want {
		t.Errorf("skipped %v, want %s", res.Skipped, want)
	}
	ltm := []float64{-3.6153, -1.3224, -0.3176, -1.7301, -2.7802}
	if it := res.Calibration.Items[5]; it.Calibrated || it.Reason != irt.ReasonAllRight || res.Questions[5].Number != 7 {
		t.Errorf("the question everybody got right: %+v, number %d", it, res.Questions[5].Number)
	}
	for j, it := range res.Calibration.Items[:5] {
		if math.Abs(it.Difficulty-ltm[j]) > 0.0005 || math.Abs(it.Discrimination-0.7551) > 0.0005 {
			t.Errorf("question %d: b %.4f a %.4f, ltm %.4f 0.7551", j+1, it.Difficulty, it.Discrimination, ltm[j])
		}
		if res.Questions[j].Number != j+1 || res.Questions[j].Question.ID != fmt.Sprint("q", j+1) {
			t.Errorf("question %d is %+v", j, res.Questions[j])
		}
	}
}

// gatedStore holds every ListAnswers until release is closed, counting
// the calls, and counts the calls of LockCalibration.
type gatedStore struct {
	exam.Store
	calls   atomic.Int32
	locks   atomic.Int32
	release chan struct{}
}

func (g *gatedStore) LockCalibration(ctx context.Context, examID, model string) (func(), error) {
	g.locks.Add(1)
	return g.Store.LockCalibration(ctx, examID, model)
}

func (g *gatedStore) ListAnswers(ctx context.Context, q exam.AnswerQuery) ([]exam.Answer, error) {
	g.calls.Add(1)
	<-g.release
	return g.Store.ListAnswers(ctx, q)
}

// TestCalibrateShared: a second call for the same exam and model while the
// first runs waits for it and gets its result, and the answers are read
// once; another model is a fit of its own; a third calibration waits until
// one of the two running ends.
func TestCalibrateShared(t *testing.T) {
	_, store := newBoltService(t)
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		g := &gatedStore{Store: store, release: make(chan struct{})}
		svc, err := exam.NewService(ctx, g, exam.Config{Blobs: store.Blobs()}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now().UTC().Add(time.Hour)
		e, err := svc.CreateExam(ctx, exam.ExamInput{Title: "Logika", NPSNs: []string{"20100001"}, StartsAt: start, EndsAt: start.Add(time.Hour),
			DurationMinutes: 60, Questions: []exam.Question{{ID: "q1", Type: exam.TrueFalse, Text: "1 = 1", Answer: []string{"true"}, Points: 1}}})
		if err != nil {
			t.Fatal(err)
		}
		other, err := svc.CreateExam(ctx, exam.ExamInput{Title: "Logika 2", NPSNs: []string{"20100001"}, StartsAt: start, EndsAt: start.Add(time.Hour),
			DurationMinutes: 60, Questions: []exam.Question{{ID: "q1", Type: exam.TrueFalse, Text: "1 = 1", Answer: []string{"true"}, Points: 1}}})
		if err != nil {
			t.Fatal(err)
		}
		results := make([]exam.ItemCalibration, 4)
		var wg sync.WaitGroup
		run := func(i int, model irt.Model) {
			examID := e.ID
			if i == 3 {
				examID = other.ID
			}
			wg.Go(func() {
				r, err := svc.Calibrate(ctx, examID, model)
				if err != nil {
					t.Error(err)
				}
				results[i] = r
			})
		}
		run(0, irt.Rasch)
		synctest.Wait() // the first fit waits on the store
		if n := g.calls.Load(); n != 1 {
			t.Fatalf("%d reads before the second call", n)
		}
		run(1, irt.Rasch)
		synctest.Wait() // the second waits for the first's result, or reads
		if n := g.calls.Load(); n != 1 {
			t.Fatalf("the second call read the answers itself: %d reads", n)
		}
		run(2, irt.TwoPL)
		synctest.Wait()
		if n := g.calls.Load(); n != 2 {
			t.Fatalf("another model: %d reads, want its own", n)
		}
		// Two calibrations run: a third, of another exam, waits its turn.
		run(3, irt.Rasch)
		synctest.Wait()
		if n := g.calls.Load(); n != 2 {
			t.Fatalf("a third calibration did not wait for a slot: %d reads", n)
		}
		close(g.release)
		wg.Wait()
		if results[0].Model != irt.Rasch || results[1].Model != irt.Rasch || results[0].Note == "" || results[1].Note != results[0].Note ||
			results[2].Model != irt.TwoPL || results[3].ExamID != other.ID || results[3].Note == "" {
			t.Fatalf("results: %+v", results)
		}
	})
}

// takeLSAT imports LSAT's 1,000 students (cohort numbers them apart from
// other cohorts) and stores their answers to questions, five choice questions whose key is
// "a", by LSAT's response patterns, and each student's more answers (nil
// for none).
func takeLSAT(t *testing.T, store exam.Store, e exam.Exam, cohort int, questions []string,
	more func(member string, at time.Time) []exam.Answer) {
	t.Helper()
	ctx := context.Background()
	// Into the store: the service's import would hash every student's
	// exam password (PBKDF2), which these tests do not use.
	var rows []exam.Member
	var patterns []int
	now := time.Now().UTC()
	for p, n := range lsatCounts {
		for range n {
			i := cohort*1000 + len(rows)
			rows = append(rows, exam.Member{ID: fmt.Sprintf("lsat-%05d", i), NPSN: "20100001", Nama: fmt.Sprint("Siswa ", i), Role: "student",
				NISN: fmt.Sprintf("%010d", i+1), Username: fmt.Sprint("siswa", i), Kelas: "XII", ExamPasswordHash: "unused",
				CreatedAt: now, UpdatedAt: now})
			patterns = append(patterns, p)
		}
	}
	res, err := store.ImportMembers(ctx, rows)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Action != exam.ImportCreated {
			t.Fatalf("member not imported: %+v", r)
		}
	}
	at := e.StartsAt.Add(10 * time.Minute)
	for b := 0; b < len(rows); b += 250 {
		var as []exam.Answer
		for i := b; i < min(b+250, len(rows)); i++ {
			for j, q := range questions {
				v := "b"
				if patterns[i]>>(4-j)&1 == 1 {
					v = "a"
				}
				as = append(as, exam.Answer{ExamID: e.ID, MemberID: rows[i].ID, QuestionID: q, Answer: v, AnsweredAt: at, ServerCode: "LAB-01"})
			}
			if more != nil {
				as = append(as, more(rows[i].ID, at)...)
			}
		}
		if _, err := store.SaveAnswers(ctx, exam.AnswerBatch{SyncID: fmt.Sprint("sync-", cohort, "-", b), ServerCode: "LAB-01", NPSN: "20100001",
			Checksum: fmt.Sprintf("%064d", cohort*1000+b), Answers: as, ReceivedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestKeepCalibrationAnchorsLaterExams: the parameters kept from one exam's
// calibration stay with its questions, and a later exam that reuses three
// of them beside two new ones is calibrated on their scale. The later exam
// is taken by the same students, so on that scale the population is still
// standard normal and the two new questions get the parameters the first
// exam's calibration gave the questions they replace (ltm's LSAT figures).
func TestKeepCalibrationAnchorsLaterExams(t *testing.T) {
	ctx := context.Background()
	svc, store := newBoltService(t)
	start := time.Now().UTC().Add(time.Hour)
	opts := []exam.Option{{ID: "a", Text: "benar"}, {ID: "b", Text: "salah"}}
	choice := func(id string) exam.Question {
		return exam.Question{ID: id, Type: exam.SingleChoice, Text: "Soal " + id, Options: opts, Answer: []string{"a"}, Points: 1}
	}
	first, err := svc.CreateExam(ctx, exam.ExamInput{Title: "LSAT 2025", NPSNs: []string{"20100001"}, StartsAt: start,
		EndsAt: start.Add(time.Hour), DurationMinutes: 60,
		Questions: []exam.Question{choice("q1"), choice("q2"), choice("q3"), choice("q4"), choice("q5")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.KeepCalibration(ctx, first.ID, irt.Rasch); !errors.Is(err, exam.ErrNotCalibrated) {
		t.Fatalf("keeping the calibration of an exam without answers: %v, want NOT_CALIBRATED", err)
	}
	takeLSAT(t, store, first, 1, []string{"q1", "q2", "q3", "q4", "q5"}, nil)
	res, kept, err := svc.KeepCalibration(ctx, first.ID, irt.Rasch)
	if err != nil || kept != 5 || res.Calibration.Anchored != 0 {
		t.Fatalf("KeepCalibration: kept %d, %+v, %v", kept, res.Calibration, err)
	}
	stored, err := svc.GetExam(ctx, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	ltm := []float64{-3.6153, -1.3224, -0.3176, -1.7301, -2.7802}
	for j, q := range stored.Questions {
		p := q.Calibrated
		if p == nil || p.Model != irt.Rasch || p.ExamID != first.ID || p.Students != 1000 || p.DifficultySE == nil ||
			math.Abs(p.Difficulty-ltm[j]) > 0.0005 || math.Abs(p.Discrimination-0.7551) > 0.0005 {
			t.Fatalf("question %s kept %+v", q.ID, p)
		}
	}
	// Calibrating the first exam again refits it: its own parameters are
	// no anchors.
	if again, err := svc.Calibrate(ctx, first.ID, irt.Rasch); err != nil || again.Calibration.Anchored != 0 {
		t.Fatalf("the first exam again: %+v, %v", again.Calibration, err)
	}

	// The later exam: q1 to q3 with their kept parameters, two new ones.
	later, err := svc.CreateExam(ctx, exam.ExamInput{Title: "LSAT 2026", NPSNs: []string{"20100001"}, StartsAt: start,
		EndsAt: start.Add(time.Hour), DurationMinutes: 60,
		Questions: []exam.Question{stored.Questions[0], stored.Questions[1], stored.Questions[2], choice("n4"), choice("n5")}})
	if err != nil {
		t.Fatal(err)
	}
	takeLSAT(t, store, later, 2, []string{"q1", "q2", "q3", "n4", "n5"}, nil)
	cal, err := svc.Calibrate(ctx, later.ID, irt.Rasch)
	if err != nil {
		t.Fatal(err)
	}
	c := cal.Calibration
	if c == nil || c.Anchored != 3 || math.Abs(c.Mean) > 1e-3 || math.Abs(c.SD-1) > 1e-3 {
		t.Fatalf("the later exam: %+v", c)
	}
	for j, it := range c.Items {
		if it.Anchored != (j < 3) || math.Abs(it.Difficulty-ltm[j]) > 0.001 || math.Abs(it.Discrimination-0.7551) > 0.001 {
			t.Errorf("later question %d: anchored %v, b %.4f a %.4f; want b %.4f a 0.7551", j+1, it.Anchored, it.Difficulty, it.Discrimination, ltm[j])
		}
	}
	// A 2PL calibration has no 2PL anchors: nothing is anchored.
	if two, err := svc.Calibrate(ctx, later.ID, irt.TwoPL); err != nil || two.Calibration == nil || two.Calibration.Anchored != 0 {
		t.Fatalf("2PL of the later exam: %+v, %v", two, err)
	}
}

// TestItemParametersText: the one-line form the bank formats carry reads
// back what it writes, in any field order, and refuses what cannot be
// parameters, saying why.
func TestItemParametersText(t *testing.T) {
	se := 0.0612
	p := exam.ItemParameters{Model: irt.TwoPL, Difficulty: -0.7512, Discrimination: 1.2034, DifficultySE: &se, Students: 812,
		ExamID: "01JEXAM", CalibratedAt: time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)}
	s := p.String()
	if want := "2pl b=-0.7512 a=1.2034 b_se=0.0612 n=812 exam=01JEXAM at=2026-11-29T10:00:00Z"; s != want {
		t.Fatalf("String = %q, want %q", s, want)
	}
	for _, in := range []string{s, "n=812; a=1.2034; exam=01JEXAM; b=-0.7512; at=2026-11-29T10:00:00Z; b_se=0.0612; 2PL"} {
		got, err := exam.ParseItemParameters(in)
		if err != nil || !reflect.DeepEqual(*got, p) {
			t.Errorf("ParseItemParameters(%q) = %+v, %v", in, got, err)
		}
	}
	for in, why := range map[string]string{
		"":                         "empty",
		"3pl b=0 a=1":              "model",
		"2pl b=0":                  "required",
		"2pl b=x a=1":              "not a number",
		"2pl b=0 a=0":              "discrimination",
		"2pl b=0 a=11":             "discrimination",
		"2pl b=NaN a=1":            "difficulty",
		"2pl b=99 a=1":             "difficulty",
		"2pl b=0 a=1 b_se=-1":      "standard error",
		"2pl b=0 a=1 n=1.5":        "whole number",
		"2pl b=0 a=1 at=yesterday": "RFC 3339",
		"2pl b=0 a=1 c=0.2":        "unknown key",
		"2pl b=0 b=1 a=1":          "repeats",
		"rasch 2pl b=0 a=1":        "repeats",
	} {
		if _, err := exam.ParseItemParameters(in); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("ParseItemParameters(%q) = %v, want an error naming %q", in, err, why)
		}
	}
}
