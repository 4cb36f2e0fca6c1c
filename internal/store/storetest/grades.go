package storetest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/identity"
)

// grade returns version v of the grade of (exam-1, memberID, q3).
func grade(memberID string, v int, points float64, graderID string, graded time.Time) exam.Grade {
	return exam.Grade{ExamID: "exam-1", MemberID: memberID, QuestionID: "q3", Points: points,
		Comment: "komentar v" + string(rune('0'+v)), GraderID: graderID, GradedAt: graded, Version: v}
}

// gradingFixture stores two graders and two exams.
func gradingFixture(t *testing.T, s Store) {
	t.Helper()
	MustCreateUser(t, s, user("g-1", "guru.satu", identity.RoleGrader, at(0)))
	MustCreateUser(t, s, user("g-2", "guru.dua", identity.RoleGrader, at(0)))
	MustCreateExam(t, s, newExam("exam-1", at(24*time.Hour), npsnA))
	MustCreateExam(t, s, newExam("exam-2", at(48*time.Hour), npsnA))
}

func testGrades(t *testing.T, s Store) {
	ctx := t.Context()
	gradingFixture(t, s)
	_, err := s.GetGrade(ctx, "exam-1", "m-ani", "q3")
	wantErr(t, "GetGrade of an ungraded answer", err, exam.ErrNotFound)
	hist, err := s.GradeHistory(ctx, "exam-1", "m-ani", "q3")
	mustOK(t, "GradeHistory", err)
	if len(hist) != 0 {
		t.Fatalf("GradeHistory of an ungraded answer = %v", hist)
	}

	v1 := grade("m-ani", 1, 7.5, "g-1", at(time.Hour))
	mustOK(t, "SaveGrade v1", s.SaveGrade(ctx, v1))
	got, err := s.GetGrade(ctx, "exam-1", "m-ani", "q3")
	mustOK(t, "GetGrade", err)
	check(t, "GetGrade after v1", got, v1)

	// A second grader read version 1 too; the first saves version 2, the
	// second's version 2 is refused and changes nothing.
	v2 := grade("m-ani", 2, 9.25, "g-1", at(2*time.Hour))
	mustOK(t, "SaveGrade v2", s.SaveGrade(ctx, v2))
	stale := grade("m-ani", 2, 3, "g-2", at(3*time.Hour))
	wantErr(t, "SaveGrade of a stale version", s.SaveGrade(ctx, stale), exam.ErrGradeConflict)
	wantErr(t, "SaveGrade of a version 1 again", s.SaveGrade(ctx, grade("m-ani", 1, 3, "g-2", at(3*time.Hour))), exam.ErrGradeConflict)
	wantErr(t, "SaveGrade skipping a version", s.SaveGrade(ctx, grade("m-ani", 4, 3, "g-2", at(3*time.Hour))), exam.ErrGradeConflict)
	wantErr(t, "SaveGrade of version 2 without version 1", s.SaveGrade(ctx, grade("m-budi", 2, 3, "g-2", at(3*time.Hour))), exam.ErrGradeConflict)
	got, err = s.GetGrade(ctx, "exam-1", "m-ani", "q3")
	mustOK(t, "GetGrade", err)
	check(t, "GetGrade after the refused saves", got, v2)
	hist, err = s.GradeHistory(ctx, "exam-1", "m-ani", "q3")
	mustOK(t, "GradeHistory", err)
	check(t, "GradeHistory", hist, []exam.Grade{v1, v2})

	// Other answers: another member, another question, another exam.
	budi := grade("m-budi", 1, 0, "g-2", at(time.Hour))
	budi.Comment = ""
	q4 := grade("m-ani", 1, 2, "g-2", at(time.Hour))
	q4.QuestionID = "q4"
	other := grade("m-ani", 1, 5, "g-2", at(time.Hour))
	other.ExamID = "exam-2"
	for _, g := range []exam.Grade{budi, q4, other} {
		mustOK(t, "SaveGrade", s.SaveGrade(ctx, g))
	}
	gs, err := s.ListGrades(ctx, "exam-1", "")
	mustOK(t, "ListGrades", err)
	check(t, "ListGrades of exam-1", gs, []exam.Grade{v2, q4, budi})
	gs, err = s.ListGrades(ctx, "exam-1", "q3")
	mustOK(t, "ListGrades", err)
	check(t, "ListGrades of exam-1 q3", gs, []exam.Grade{v2, budi})
	gs, err = s.ListGrades(ctx, "exam-3", "")
	mustOK(t, "ListGrades", err)
	if len(gs) != 0 {
		t.Fatalf("ListGrades of an exam without grades = %v", gs)
	}
}

func testGradesConcurrent(t *testing.T, s Store) {
	gradingFixture(t, s)
	const n = 16
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			grader := "g-1"
			if i%2 == 1 {
				grader = "g-2"
			}
			errs[i] = s.SaveGrade(t.Context(), grade("m-ani", 1, float64(i), grader, at(time.Duration(i)*time.Second)))
		})
	}
	wg.Wait()
	won := -1
	for i, err := range errs {
		switch {
		case err == nil && won >= 0:
			t.Fatalf("saves %d and %d of version 1 both succeeded: one grade was lost", won, i)
		case err == nil:
			won = i
		case !errors.Is(err, exam.ErrGradeConflict):
			t.Fatalf("save %d: %v, want GRADE_CONFLICT", i, err)
		}
	}
	if won < 0 {
		t.Fatal("no save of version 1 succeeded")
	}
	got, err := s.GetGrade(t.Context(), "exam-1", "m-ani", "q3")
	mustOK(t, "GetGrade", err)
	if got.Points != float64(won) || got.Version != 1 {
		t.Fatalf("GetGrade = %+v, want the winner's (points %d, version 1)", got, won)
	}
}

func testGraderExams(t *testing.T, s Store) {
	ctx := t.Context()
	gradingFixture(t, s)
	ids, err := s.GraderExams(ctx, "g-1")
	mustOK(t, "GraderExams", err)
	if len(ids) != 0 {
		t.Fatalf("GraderExams before any assignment = %v", ids)
	}
	mustOK(t, "SetGraderExams", s.SetGraderExams(ctx, "g-1", []string{"exam-2", "exam-1"}))
	mustOK(t, "SetGraderExams", s.SetGraderExams(ctx, "g-2", []string{"exam-2"}))
	ids, err = s.GraderExams(ctx, "g-1")
	mustOK(t, "GraderExams", err)
	check(t, "GraderExams of g-1", ids, []string{"exam-1", "exam-2"})
	mustOK(t, "SetGraderExams", s.SetGraderExams(ctx, "g-1", []string{"exam-1"}))
	ids, err = s.GraderExams(ctx, "g-1")
	mustOK(t, "GraderExams", err)
	check(t, "GraderExams of g-1 replaced", ids, []string{"exam-1"})
	mustOK(t, "SetGraderExams", s.SetGraderExams(ctx, "g-1", nil))
	ids, err = s.GraderExams(ctx, "g-1")
	mustOK(t, "GraderExams", err)
	if len(ids) != 0 {
		t.Fatalf("GraderExams after removing every exam = %v", ids)
	}
	ids, err = s.GraderExams(ctx, "g-2")
	mustOK(t, "GraderExams", err)
	check(t, "GraderExams of g-2, untouched", ids, []string{"exam-2"})
}
