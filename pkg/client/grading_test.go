package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/password"
	"github.com/seedhq/portal/pkg/client"
)

// gradingPortal starts a real portal over st with an exam whose essay q2 is
// worth 10 points and two students' answers to it, stored as a push would;
// it returns the portal's address, the operator's client and the exam id.
func gradingPortal(t *testing.T, ctx context.Context, st exam.Store) (base string, op *client.Client, examID string) {
	t.Helper()
	base, svc := newRealPortal(t, st)
	start := time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC)
	e, err := svc.CreateExam(ctx, exam.ExamInput{Title: "Bahasa", NPSNs: []string{itNPSN}, StartsAt: start,
		EndsAt: start.Add(2 * time.Hour), DurationMinutes: 60, Questions: []exam.Question{
			{ID: "q1", Type: exam.TrueFalse, Text: "Benar?", Answer: []string{"true"}},
			{ID: "q2", Type: exam.Essay, Text: "Tulis pantun", Points: 10, Rubric: "sampiran dan isi"},
		}})
	must(t, "create exam", err)
	_, err = st.SaveAnswers(ctx, exam.AnswerBatch{SyncID: "sync-1", ServerCode: "LAB-1", NPSN: itNPSN, Checksum: "c1",
		ReceivedAt: start, Answers: []exam.Answer{
			{ExamID: e.ID, MemberID: "m-1", QuestionID: "q1", Answer: "true", AnsweredAt: start},
			{ExamID: e.ID, MemberID: "m-1", QuestionID: "q2", Answer: "Ada ubi ada talas", AnsweredAt: start},
			{ExamID: e.ID, MemberID: "m-2", QuestionID: "q2", Answer: "Buah mangga", AnsweredAt: start},
		}})
	must(t, "save answers", err)
	op, err = client.NewClient(base)
	must(t, "new client", err)
	login, _, err := op.Exam.Auth.Login(ctx, itAdminUser, itAdminPassword)
	must(t, "login", err)
	op.SetToken(login.Token)
	return base, op, e.ID
}

// TestGradingClient drives graders and grading through the client against
// a real portal on both stores: a grader grades anonymously, a stale save
// is a *GradeConflictError with the grade that won, results change.
func TestGradingClient(t *testing.T) {
	old := password.Cost
	password.Cost = 4
	t.Cleanup(func() { password.Cost = old })
	for _, so := range itStores {
		t.Run(so.name, func(t *testing.T) {
			ctx := t.Context()
			base, op, examID := gradingPortal(t, ctx, so.open(t))

			g, _, err := op.Exam.Admin.CreateGrader(ctx, client.GraderRequest{Username: "guru.satu", Password: "rahasia-guru"})
			must(t, "create grader", err)
			if g.Role != "GRADER" || len(g.ExamIDs) != 0 {
				t.Fatalf("grader = %+v", g)
			}
			_, _, err = op.Exam.Admin.CreateGrader(ctx, client.GraderRequest{Username: "x", Password: "short"})
			if !errors.Is(err, &client.Error{Code: client.CodeValidationFailed}) {
				t.Fatalf("bad grader: %v, want VALIDATION_FAILED", err)
			}
			g, _, err = op.Exam.Admin.SetGraderExams(ctx, g.ID, []string{examID})
			must(t, "assign", err)
			if len(g.ExamIDs) != 1 || g.ExamIDs[0] != examID {
				t.Fatalf("assigned grader = %+v", g)
			}
			gs, _, err := op.Exam.Admin.ListGraders(ctx)
			must(t, "list graders", err)
			if len(gs) != 1 || gs[0].Username != "guru.satu" {
				t.Fatalf("graders = %+v", gs)
			}

			guru, err := client.NewClient(base)
			must(t, "new client", err)
			login, _, err := guru.Exam.Auth.Login(ctx, "guru.satu", "rahasia-guru")
			must(t, "grader login", err)
			guru.SetToken(login.Token)
			_, _, err = guru.Exam.Admin.ListGraders(ctx)
			if !errors.Is(err, &client.Error{Code: client.CodeGraderForbidden}) || !errors.Is(err, client.ErrForbidden) {
				t.Fatalf("a grader listing graders: %v, want 403 GRADER_FORBIDDEN", err)
			}

			exams, _, err := guru.Exam.Grading.Exams(ctx)
			must(t, "grading exams", err)
			if len(exams) != 1 || exams[0].ID != examID {
				t.Fatalf("grader's exams = %+v", exams)
			}
			p, _, err := guru.Exam.Grading.Progress(ctx, examID)
			must(t, "progress", err)
			if p.Answers != 2 || p.ToGrade != 2 || len(p.Questions) != 1 || p.Questions[0].Rubric != "sampiran dan isi" {
				t.Fatalf("progress = %+v", p)
			}
			as, _, err := guru.Exam.Grading.ListAnswers(ctx, examID, "q2", &client.EssayListOptions{Ungraded: true})
			must(t, "list answers", err)
			if len(as) != 2 || as[0].MemberID != "" || as[0].Code == "" {
				t.Fatalf("answers to grade = %+v", as)
			}
			_, _, err = guru.Exam.Grading.ListAnswers(ctx, examID, "q2", &client.EssayListOptions{Names: true})
			if !errors.Is(err, &client.Error{Code: client.CodeGraderForbidden}) {
				t.Fatalf("a grader asking names: %v", err)
			}
			a := as[0]
			saved, _, err := guru.Exam.Grading.SaveGrade(ctx, examID, "q2", a.Code, client.GradeRequest{Points: 6.5, Comment: "isi kurang", Version: a.Version()})
			must(t, "save grade", err)
			if saved.Version != 1 || saved.Points != 6.5 || saved.GraderUsername != "guru.satu" {
				t.Fatalf("saved = %+v", saved)
			}
			_, _, err = op.Exam.Grading.SaveGrade(ctx, examID, "q2", a.Code, client.GradeRequest{Points: 9, Version: a.Version()})
			var conflict *client.GradeConflictError
			if !errors.As(err, &conflict) || conflict.Current == nil || conflict.Current.Points != 6.5 ||
				!errors.Is(err, client.ErrConflict) || !errors.Is(err, &client.Error{Code: client.CodeGradeConflict}) {
				t.Fatalf("stale save: %v, want a GradeConflictError with the grader's 6.5", err)
			}
			_, _, err = guru.Exam.Grading.SaveGrade(ctx, examID, "q2", a.Code, client.GradeRequest{Points: 11, Version: 1})
			if !errors.Is(err, &client.Error{Code: client.CodeValidationFailed}) {
				t.Fatalf("points over the max: %v", err)
			}
			one, _, err := op.Exam.Grading.Answer(ctx, examID, "q2", a.Code, true)
			must(t, "answer", err)
			if one.Version() != 1 || len(one.History) != 1 || one.MemberID == "" {
				t.Fatalf("answer = %+v", one)
			}
			res, _, err := op.Exam.Admin.ExamResults(ctx, examID)
			must(t, "results", err)
			for _, m := range res.Results {
				want := client.MemberResult{MemberID: m.MemberID, Graded: false, Pending: 1, PendingPoints: 10}
				if m.MemberID == one.MemberID {
					want = client.MemberResult{MemberID: m.MemberID, Score: 6.5, Graded: true}
					if m.MemberID == "m-1" {
						want.Score = 7.5 // and q1, right
					}
				} else if m.MemberID == "m-1" {
					want.Score = 1
				}
				if m.Score != want.Score || m.Graded != want.Graded || m.Pending != want.Pending || m.PendingPoints != want.PendingPoints {
					t.Errorf("result of %s = %+v, want %+v", m.MemberID, m, want)
				}
			}
		})
	}
}
