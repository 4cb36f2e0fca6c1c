package storetest

import (
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/irt"
)

func testExams(t *testing.T, s Store) {
	ctx := t.Context()
	e := newExam("exam-1", at(24*time.Hour), npsnA, npsnB)
	MustCreateExam(t, s, e)
	got, err := s.GetExam(ctx, e.ID)
	mustOK(t, "GetExam", err)
	check(t, "GetExam (questions and answer key round-trip)", got, e)
	_, err = s.GetExam(ctx, "exam-404")
	wantErr(t, "GetExam of an unknown id", err, exam.ErrNotFound)
}

func testListExams(t *testing.T, s Store) {
	ctx := t.Context()
	e1 := newExam("exam-1", at(time.Hour), npsnA)
	e2 := newExam("exam-2", at(time.Hour), npsnA, npsnB) // same start as e1: ordered by ID
	e3 := newExam("exam-3", at(0), npsnA)
	e4 := newExam("exam-4", at(2*time.Hour), npsnB)
	e4.Questions = e4.Questions[:2]
	e4.QuestionCount = 2
	for _, e := range []exam.Exam{e4, e2, e3, e1} {
		MustCreateExam(t, s, e)
	}
	summary := func(es ...exam.Exam) []exam.Exam {
		out := make([]exam.Exam, len(es))
		for i, e := range es {
			e.Questions, e.Stimuli = nil, nil
			out[i] = e
		}
		return out
	}
	for _, tc := range []struct {
		npsn string
		want []exam.Exam
	}{
		{"", summary(e3, e1, e2, e4)},
		{npsnA, summary(e3, e1, e2)},
		{npsnB, summary(e2, e4)},
		{"29999999", nil},
	} {
		got, err := s.ListExams(ctx, exam.ExamFilter{NPSN: tc.npsn})
		mustOK(t, "ListExams", err)
		check(t, "ListExams of npsn "+tc.npsn, got, tc.want)
		for _, e := range got {
			if e.Questions != nil {
				t.Fatalf("ListExams returned exam %s with %d questions, want Questions nil", e.ID, len(e.Questions))
			}
		}
	}
}

func testUpdateExam(t *testing.T, s Store) {
	ctx := t.Context()
	e1 := newExam("exam-1", at(0), npsnA)
	e2 := newExam("exam-2", at(time.Hour), npsnA)
	MustCreateExam(t, s, e1)
	MustCreateExam(t, s, e2)
	MustSaveAnswers(t, s, batch("sync-1", sum("p1"), "", at(time.Hour), answer(e1.ID, "m-1", "q1", "b", at(time.Minute))))

	rev := MustContentRevision(t, s)
	edit := e1
	edit.Title = "Edited"
	wantErr(t, "UpdateExam of an exam with answers", s.UpdateExam(ctx, edit), exam.ErrExamHasAnswers)
	got, err := s.GetExam(ctx, e1.ID)
	mustOK(t, "GetExam after refused update", err)
	check(t, "exam after refused update", got, e1)
	if r := MustContentRevision(t, s); r != rev {
		t.Fatalf("content revision moved from %d to %d on a refused update", rev, r)
	}

	// Every field but the id and creation time is replaced.
	edit = newExam("exam-2", at(3*time.Hour), npsnA, npsnB)
	edit.Title, edit.Subject, edit.DurationMinutes = "Ujian ulang", "Fisika", 60
	edit.Questions = edit.Questions[:1]
	edit.Questions[0].Stimulus, edit.Stimuli = "", nil // the stimuli go too
	edit.QuestionCount = 1
	edit.CreatedAt = at(time.Hour) // ignored
	mustOK(t, "UpdateExam", s.UpdateExam(ctx, edit))
	want := edit
	want.CreatedAt = e2.CreatedAt
	got, err = s.GetExam(ctx, e2.ID)
	mustOK(t, "GetExam after update", err)
	check(t, "exam after update", got, want)
	list, err := s.ListExams(ctx, exam.ExamFilter{NPSN: npsnB})
	mustOK(t, "ListExams", err)
	checkIDs(t, "ListExams of the newly assigned school", list, e2.ID)
	if list[0].QuestionCount != 1 {
		t.Fatalf("QuestionCount in the list = %d after update, want 1", list[0].QuestionCount)
	}
	if r := MustContentRevision(t, s); r <= rev {
		t.Fatalf("content revision = %d after UpdateExam, want more than %d", r, rev)
	}
	missing := newExam("exam-404", at(0), npsnA)
	wantErr(t, "UpdateExam of an unknown id", s.UpdateExam(ctx, missing), exam.ErrNotFound)
}

func testDeleteExam(t *testing.T, s Store) {
	ctx := t.Context()
	e1 := newExam("exam-1", at(0), npsnA)
	e2 := newExam("exam-2", at(time.Hour), npsnA)
	MustCreateExam(t, s, e1)
	MustCreateExam(t, s, e2)
	MustSaveAnswers(t, s, batch("sync-1", sum("p1"), "", at(time.Hour), answer(e1.ID, "m-1", "q1", "b", at(time.Minute))))

	rev := MustContentRevision(t, s)
	wantErr(t, "DeleteExam of an exam with answers", s.DeleteExam(ctx, e1.ID), exam.ErrExamHasAnswers)
	got, err := s.GetExam(ctx, e1.ID)
	mustOK(t, "GetExam after refused delete", err)
	check(t, "exam after refused delete", got, e1)
	if n := MustCountAnswers(t, s, e1.ID); n != 1 {
		t.Fatalf("CountAnswers after refused delete = %d, want 1", n)
	}
	if r := MustContentRevision(t, s); r != rev {
		t.Fatalf("content revision moved from %d to %d on a refused delete", rev, r)
	}

	mustOK(t, "DeleteExam", s.DeleteExam(ctx, e2.ID))
	_, err = s.GetExam(ctx, e2.ID)
	wantErr(t, "GetExam after delete", err, exam.ErrNotFound)
	list, err := s.ListExams(ctx, exam.ExamFilter{})
	mustOK(t, "ListExams", err)
	checkIDs(t, "ListExams after delete", list, e1.ID)
	if r := MustContentRevision(t, s); r <= rev {
		t.Fatalf("content revision = %d after DeleteExam, want more than %d", r, rev)
	}
	wantErr(t, "DeleteExam again", s.DeleteExam(ctx, e2.ID), exam.ErrNotFound)
	wantErr(t, "DeleteExam of an unknown id", s.DeleteExam(ctx, "exam-404"), exam.ErrNotFound)
}

func testContentRevision(t *testing.T, s Store) {
	ctx := t.Context()
	rev := MustContentRevision(t, s)
	grew := func(what string) {
		t.Helper()
		r := MustContentRevision(t, s)
		if r <= rev {
			t.Fatalf("content revision = %d after %s, want more than %d", r, what, rev)
		}
		rev = r
	}
	same := func(what string) {
		t.Helper()
		if r := MustContentRevision(t, s); r != rev {
			t.Fatalf("content revision moved from %d to %d after %s", rev, r, what)
		}
	}

	MustCreateExam(t, s, newExam("exam-1", at(0), npsnA))
	grew("CreateExam")
	mustOK(t, "DeleteExam", s.DeleteExam(ctx, "exam-1"))
	grew("DeleteExam")

	ani := member("m-ani", "ani", "Ani Lestari")
	ani.NISN = "0012345678"
	MustImportMembers(t, s, ani)
	grew("ImportMembers creating a member")
	upd := ani
	upd.Kelas = "X-2"
	MustImportMembers(t, s, upd)
	grew("ImportMembers updating a member")

	dup := member("m-dup", "ani.kembar", "Ani Kembar")
	dup.NISN = ani.NISN
	res, err := s.ImportMembers(ctx, []exam.Member{dup})
	mustOK(t, "ImportMembers", err)
	if len(res) != 1 || res[0].Action != exam.ImportRejected {
		t.Fatalf("ImportMembers of a duplicate nisn = %+v, want rejected", res)
	}
	same("ImportMembers whose only row was rejected")

	_, err = s.SetExamPassword(ctx, ani.ID, 1, "pbkdf2-sha256$new")
	mustOK(t, "SetExamPassword", err)
	grew("SetExamPassword")
	_, err = s.SetExamPassword(ctx, "m-404", 1, "pbkdf2-sha256$new")
	wantErr(t, "SetExamPassword of an unknown member", err, exam.ErrNotFound)
	same("SetExamPassword of an unknown member")
}

func testSetItemParameters(t *testing.T, s Store) {
	ctx := t.Context()
	e := newExam("exam-1", at(0), npsnA)
	MustCreateExam(t, s, e)
	MustSaveAnswers(t, s, batch("sync-1", sum("p1"), "", at(time.Hour), answer(e.ID, "m-1", "q1", "b", at(time.Minute))))
	rev := MustContentRevision(t, s)

	se := 0.12
	p1 := exam.ItemParameters{Model: irt.TwoPL, Difficulty: -0.75, Discrimination: 1.25, DifficultySE: &se,
		Students: 812, ExamID: e.ID, CalibratedAt: at(2 * time.Hour)}
	p2 := exam.ItemParameters{Model: irt.TwoPL, Difficulty: 1.5, Discrimination: 0.5, Students: 790, ExamID: e.ID,
		CalibratedAt: at(2 * time.Hour)}
	// Kept although the exam has answers; a question id it lacks is ignored.
	mustOK(t, "SetItemParameters", s.SetItemParameters(ctx, e.ID, map[string]exam.ItemParameters{
		e.Questions[0].ID: p1, e.Questions[1].ID: p2, "no-such-question": p1}))
	want := e
	want.Questions = append([]exam.Question(nil), e.Questions...)
	// Times come back in UTC, as every time the stores keep.
	p1.CalibratedAt, p2.CalibratedAt = p1.CalibratedAt.UTC(), p2.CalibratedAt.UTC()
	want.Questions[0].Calibrated, want.Questions[1].Calibrated = &p1, &p2
	got, err := s.GetExam(ctx, e.ID)
	mustOK(t, "GetExam", err)
	check(t, "exam with item parameters", got, want)

	// A later call replaces the questions it names and leaves the others.
	p3 := p1
	p3.Difficulty, p3.DifficultySE, p3.CalibratedAt = -0.5, nil, at(3*time.Hour)
	mustOK(t, "SetItemParameters again", s.SetItemParameters(ctx, e.ID, map[string]exam.ItemParameters{e.Questions[0].ID: p3}))
	p3.CalibratedAt = p3.CalibratedAt.UTC()
	want.Questions[0].Calibrated = &p3
	got, err = s.GetExam(ctx, e.ID)
	mustOK(t, "GetExam", err)
	check(t, "exam after the second call", got, want)

	if r := MustContentRevision(t, s); r != rev {
		t.Fatalf("content revision moved from %d to %d: item parameters are not package content", rev, r)
	}
	wantErr(t, "SetItemParameters of an unknown exam", s.SetItemParameters(ctx, "exam-404", map[string]exam.ItemParameters{"q1": p1}), exam.ErrNotFound)
}
