package exam_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/identity"
)

// TestItemAnalysis: the analysis of an exam's stored answers counts every
// student who answered, a blank or missing answer as nothing; an essay
// with answers still to grade is left out as pending, never zero, and
// counted once graded; a class, a school or an academic year narrows it;
// an unknown school or year is refused; an exam without answers gets an
// empty report.
func TestItemAnalysis(t *testing.T) {
	ctx := context.Background()
	svc, store := newBoltService(t)
	start := time.Now().UTC().Add(time.Hour)
	opts := []exam.Option{{ID: "a", Text: "1"}, {ID: "b", Text: "2"}, {ID: "c", Text: "3"}, {ID: "d", Text: "4"}}
	e, err := svc.CreateExam(ctx, exam.ExamInput{
		Title: "Matematika", Subject: "Matematika", NPSNs: []string{"20100001", "20100002"},
		StartsAt: start, EndsAt: start.Add(2 * time.Hour), DurationMinutes: 60,
		Questions: []exam.Question{
			{ID: "q1", Type: exam.SingleChoice, Text: "1 + 1?", Options: opts, Answer: []string{"b"}, Points: 1},
			{ID: "q2", Type: exam.TrueFalse, Text: "0 is natural", Answer: []string{"false"}, Points: 1},
			{ID: "q3", Type: exam.Essay, Text: "Explain", Points: 4},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	empty, err := svc.ItemAnalysis(ctx, e.ID, exam.AnalysisFilter{})
	if err != nil || empty.Report.Students != 0 || len(empty.Report.Items) != 3 || len(empty.Skipped) != 0 {
		t.Fatalf("before any answer: %+v, %v", empty.Report, err)
	}

	var rows []exam.MemberInput
	for i := range 8 {
		npsn, kelas := "20100001", "XII IPA 1"
		if i >= 4 {
			kelas = "XII IPA 2"
		}
		if i >= 6 {
			npsn = "20100002"
		}
		rows = append(rows, exam.MemberInput{NPSN: npsn, Nama: fmt.Sprintf("Siswa %d", i), Role: "student",
			NISN: fmt.Sprintf("%010d", i+1), Username: fmt.Sprintf("siswa%d", i), Kelas: kelas,
			AcademicYearName: []string{"2025/2026", "2024/2025"}[i%2]})
	}
	rep, err := svc.ImportMembers(ctx, rows, "")
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(rows))
	for i, r := range rep.Rows {
		if r.MemberID == "" {
			t.Fatalf("import row %d: %+v", i, r)
		}
		ids[i] = r.MemberID
	}
	// Student i's answers to q1, q2, q3 ("" blank, "-" none stored).
	given := [][3]string{
		{"b", "false", "Because..."},
		{"b", "false", "Since..."},
		{"b", "true", ""},
		{"a", "false", "-"},
		{"c", "true", "Hmm"},
		{"b", "-", "-"},
		{"d", "true", "Well"},
		{"b", "false", "So"},
	}
	at := start.Add(10 * time.Minute)
	for i, g := range given {
		var as []exam.Answer
		for q, v := range g {
			if v != "-" {
				as = append(as, exam.Answer{ExamID: e.ID, MemberID: ids[i], QuestionID: fmt.Sprint("q", q+1), Answer: v, AnsweredAt: at, ServerCode: "LAB-01"})
			}
		}
		npsn := rows[i].NPSN
		if _, err := store.SaveAnswers(ctx, exam.AnswerBatch{SyncID: fmt.Sprint("sync-", i), ServerCode: "LAB-01", NPSN: npsn,
			Checksum: fmt.Sprintf("%064d", i), Answers: as, ReceivedAt: at}); err != nil {
			t.Fatal(err)
		}
	}

	all, err := svc.ItemAnalysis(ctx, e.ID, exam.AnalysisFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if all.Report.Students != 8 || len(all.Questions) != 2 || all.Questions[1].Number != 2 {
		t.Fatalf("analysis: %d students, questions %+v", all.Report.Students, all.Questions)
	}
	if want := []exam.SkippedQuestion{{Number: 3, QuestionID: "q3", Pending: 5}}; fmt.Sprint(all.Skipped) != fmt.Sprint(want) {
		t.Fatalf("skipped %+v, want %+v", all.Skipped, want)
	}
	q1, q2 := all.Report.Items[0], all.Report.Items[1]
	equal(t, "q1 facility", q1.Facility, 5.0/8)
	equal(t, "q2 facility", q2.Facility, 4.0/8)
	equal(t, "q2 omitted", q2.Omitted.Share, 1.0/8) // student 5 stored no answer to q2
	equal(t, "q1 share of a", q1.Options[0].Share, 1.0/8)
	if !q1.Options[1].Key || q2.Options[1].Option != "false" || !q2.Options[1].Key {
		t.Fatalf("options %+v / %+v", q1.Options, q2.Options)
	}

	// Once every essay answer is graded, q3 is analysed with its points.
	admin := identity.User{ID: "admin", Username: "admin", Role: identity.RoleSuperAdmin}
	eas, err := svc.EssayAnswers(ctx, admin, exam.EssayQuery{ExamID: e.ID, QuestionID: "q3"})
	if err != nil || len(eas) != 5 {
		t.Fatalf("essay answers: %d, %v", len(eas), err)
	}
	for i, ea := range eas {
		if _, err := svc.SaveGrade(ctx, admin, exam.GradeInput{ExamID: e.ID, QuestionID: "q3", Code: ea.Code, Points: float64(i % 5)}); err != nil {
			t.Fatal(err)
		}
	}
	graded, err := svc.ItemAnalysis(ctx, e.ID, exam.AnalysisFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(graded.Skipped) != 0 || len(graded.Report.Items) != 3 {
		t.Fatalf("after grading: skipped %+v, %d items", graded.Skipped, len(graded.Report.Items))
	}
	// Grades 0+1+2+3+4 of 4 points each, over the 8 students.
	equal(t, "q3 facility", graded.Report.Items[2].Facility, 10.0/4/8)
	if graded.Report.KR20 != nil {
		t.Error("KR-20 given with a partly graded essay")
	}

	class, err := svc.ItemAnalysis(ctx, e.ID, exam.AnalysisFilter{NPSN: "20100001", Kelas: "XII IPA 2"})
	if err != nil || class.Report.Students != 2 {
		t.Fatalf("class XII IPA 2: %d students, %v", class.Report.Students, err)
	}
	equal(t, "class q1 facility", class.Report.Items[0].Facility, 0.5)
	school, err := svc.ItemAnalysis(ctx, e.ID, exam.AnalysisFilter{NPSN: "20100002"})
	if err != nil || school.Report.Students != 2 {
		t.Fatalf("school 20100002: %d students, %v", school.Report.Students, err)
	}
	year, err := svc.ItemAnalysis(ctx, e.ID, exam.AnalysisFilter{AcademicYear: "2024/2025"})
	if err != nil || year.Report.Students != 4 {
		t.Fatalf("academic year 2024/2025: %d students, %v", year.Report.Students, err)
	}
	yearClass, err := svc.ItemAnalysis(ctx, e.ID, exam.AnalysisFilter{NPSN: "20100001", Kelas: "XII IPA 1", AcademicYear: "2025/2026"})
	if err != nil || yearClass.Report.Students != 2 {
		t.Fatalf("2025/2026 in XII IPA 1: %d students, %v", yearClass.Report.Students, err)
	}
	if _, err := svc.ItemAnalysis(ctx, e.ID, exam.AnalysisFilter{AcademicYear: "2019/2020"}); !errors.Is(err, exam.ErrUnknownAcademicYear) {
		t.Fatalf("an academic year without members: %v", err)
	}
	// Regions, by the schools' licences: 20100001's newer licence (issued
	// in the same second: the ids order them) moved it from Jawa Tengah to
	// Kota Bandung in Jawa Barat; 20100002 is in Kota Semarang, Jawa Tengah.
	for _, l := range []struct{ npsn, region string }{
		{"20100001", "Jawa Tengah/Kota Semarang"}, {"20100002", " Jawa Tengah / Kota Semarang/"}, {"20100001", "Jawa Barat/Kota Bandung"},
	} {
		if _, err := svc.GenerateLicense(ctx, exam.LicenseInput{NPSN: l.npsn, SchoolName: "SMA " + l.npsn, Region: l.region,
			HardwareID: "hw-" + l.npsn, MaxStudents: 100, DurationDays: 365, OperatingMode: "OFFLINE"}); err != nil {
			t.Fatal(err)
		}
	}
	for region, want := range map[string]int{"jawa barat": 6, "Jawa Barat/Kota Bandung": 6, "Jawa Tengah": 2, "JAWA TENGAH/kota semarang/": 2} {
		got, err := svc.ItemAnalysis(ctx, e.ID, exam.AnalysisFilter{Region: region})
		if err != nil || got.Report.Students != want {
			t.Errorf("region %q: %d students, %v; want %d", region, got.Report.Students, err, want)
		}
	}
	if got, err := svc.ItemAnalysis(ctx, e.ID, exam.AnalysisFilter{Region: "Jawa Barat", Kelas: "XII IPA 2"}); err != nil || got.Report.Students != 2 {
		t.Errorf("a class in Jawa Barat: %d students, %v", got.Report.Students, err)
	}
	for _, f := range []exam.AnalysisFilter{{Region: "Jawa"}, {Region: "Bali"}, {Region: "Jawa Barat", NPSN: "20100002"}} {
		if _, err := svc.ItemAnalysis(ctx, e.ID, f); !errors.Is(err, exam.ErrUnknownRegion) {
			t.Errorf("%+v: %v, want UNKNOWN_REGION", f, err)
		}
	}
	if _, err := svc.GenerateLicense(ctx, exam.LicenseInput{NPSN: "20100003", SchoolName: "SMA", Region: "Jawa Barat//Bandung",
		HardwareID: "hw", MaxStudents: 1, DurationDays: 1, OperatingMode: "OFFLINE"}); apperr.CodeOf(err) != "VALIDATION_FAILED" {
		t.Errorf("a region with an empty part: %v", err)
	}
	if _, err := svc.ItemAnalysis(ctx, e.ID, exam.AnalysisFilter{NPSN: "99999999"}); !errors.Is(err, exam.ErrUnknownSchool) {
		t.Fatalf("an unknown school: %v", err)
	}
	if _, err := svc.ItemAnalysis(ctx, "no-such-exam", exam.AnalysisFilter{}); !errors.Is(err, exam.ErrNotFound) {
		t.Fatalf("an unknown exam: %v", err)
	}
}

func equal(t *testing.T, what string, got *float64, want float64) {
	t.Helper()
	if got == nil || math.Abs(*got-want) > 1e-12 {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}
