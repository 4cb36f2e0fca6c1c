package storetest

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/identity"
)

// state is everything a test can observe of a store.
type state struct {
	Users       int
	Admin       identity.User
	Licenses    []exam.License
	Bindings    []exam.ServerBinding
	Exams       []exam.Exam
	Exam        exam.Exam
	Members     []exam.Member
	MemberTotal int
	Years       []exam.AcademicYear
	Keys        []exam.APIKey
	Answers     []exam.Answer
	Logs        []exam.SyncLog
	Monitors    []exam.Monitor
	Revision    int64
	Package     exam.PackageMeta
}

func snapshot(t *testing.T, s Store) state {
	t.Helper()
	ctx := t.Context()
	var st state
	var err error
	st.Users = MustCountUsers(t, s)
	st.Admin, err = s.GetUserByUsername(ctx, "admin")
	mustOK(t, "GetUserByUsername", err)
	st.Licenses, err = s.ListLicenses(ctx, exam.LicenseFilter{})
	mustOK(t, "ListLicenses", err)
	st.Bindings, err = s.ListServerBindings(ctx, "")
	mustOK(t, "ListServerBindings", err)
	st.Exams, err = s.ListExams(ctx, exam.ExamFilter{})
	mustOK(t, "ListExams", err)
	st.Exam, err = s.GetExam(ctx, "exam-1")
	mustOK(t, "GetExam", err)
	st.Members, st.MemberTotal = MustListMembers(t, s, exam.MemberFilter{})
	st.Years, err = s.ListAcademicYears(ctx)
	mustOK(t, "ListAcademicYears", err)
	st.Keys, err = s.ListAPIKeys(ctx)
	mustOK(t, "ListAPIKeys", err)
	st.Answers = MustListAnswers(t, s, "exam-1")
	st.Logs = MustListSyncLogs(t, s, exam.SyncLogFilter{})
	st.Monitors, err = s.ListMonitors(ctx, exam.MonitorFilter{})
	mustOK(t, "ListMonitors", err)
	st.Revision = MustContentRevision(t, s)
	st.Package = MustGetPackage(t, s, npsnA)
	return st
}

func testFailuresWriteNothing(t *testing.T, s Store) {
	ctx := t.Context()
	MustCreateUser(t, s, user("u-1", "admin", identity.RoleSuperAdmin, at(0)))
	MustCreateLicense(t, s, license("lic-1", npsnA, at(0)))
	MustBindServer(t, s, binding("LAB-A", npsnA, "hw-1", "lic-1", at(0)))
	MustCreateExam(t, s, newExam("exam-1", at(24*time.Hour), npsnA))
	a, g := ani(), guru()
	MustImportMembers(t, s, a, g)
	MustCreateAcademicYear(t, s, year("ay-1", "2025/2026", true, at(0)))
	MustCreateAPIKey(t, s, exam.APIKey{ID: "key-1", Name: "SIAKAD", Prefix: "pk_AbCdEfG", Hash: sum("pk_one"), CreatedAt: at(0)})
	MustSaveAnswers(t, s, batch("sync-1", sum("p1"), "key-1", at(time.Hour), answer("exam-1", "m-ani", "q1", "b", at(time.Minute))))
	MustUpsertMonitor(t, s, exam.Monitor{ID: "mon-1", ServerCode: "LAB-A", NPSN: npsnA, Status: exam.StatusOnline, LastPingAt: at(0), UpdatedAt: at(0)})
	d := blob(1, 4096)
	MustSavePackage(t, s, packageMeta(npsnA, d, 1, at(0)), d)
	before := snapshot(t, s)

	newer := answer("exam-1", "m-ani", "q1", "a", at(2*time.Hour))
	dupNISN := member("m-new", "baru", "Siswa Baru")
	dupNISN.NISN, dupNISN.NIK = a.NISN, "9900000000000001"
	other := blob(2, 4096)
	for _, f := range []struct {
		name string
		run  func() error
	}{
		{"CreateUser with a taken username", func() error { return s.CreateUser(ctx, user("u-2", "Admin", identity.RoleOperator, at(0))) }},
		{"RevokeLicense of an unknown id", func() error { _, err := s.RevokeLicense(ctx, "lic-404", at(0)); return err }},
		{"BindServer from another machine", func() error {
			_, err := s.BindServer(ctx, binding("LAB-A", npsnA, "hw-2", "lic-2", at(time.Hour)))
			return err
		}},
		{"BindServer for another school", func() error {
			_, err := s.BindServer(ctx, binding("LAB-A", npsnB, "hw-1", "lic-2", at(time.Hour)))
			return err
		}},
		{"DeleteServerBinding of an unknown code", func() error { return s.DeleteServerBinding(ctx, "LAB-404") }},
		{"DeleteExam of an exam with answers", func() error { return s.DeleteExam(ctx, "exam-1") }},
		{"DeleteExam of an unknown id", func() error { return s.DeleteExam(ctx, "exam-404") }},
		{"ImportMembers with every row rejected", func() error {
			res, err := s.ImportMembers(ctx, []exam.Member{dupNISN})
			if err == nil && (len(res) != 1 || res[0].Action != exam.ImportRejected) {
				t.Fatalf("ImportMembers of a duplicate nisn = %+v, want rejected", res)
			}
			return errors.New("rejected")
		}},
		{"SetExamPassword of an unknown member", func() error { _, err := s.SetExamPassword(ctx, "m-404", 1, "h"); return err }},
		{"CreateAcademicYear with a taken name", func() error {
			return s.CreateAcademicYear(ctx, year("ay-2", "2025/2026", true, at(time.Hour)))
		}},
		{"ActivateAcademicYear of an unknown id", func() error { _, err := s.ActivateAcademicYear(ctx, "ay-404"); return err }},
		{"RevokeAPIKey of an unknown id", func() error { _, err := s.RevokeAPIKey(ctx, "key-404", at(0)); return err }},
		{"SaveAnswers with a reused key", func() error {
			_, err := s.SaveAnswers(ctx, batch("sync-2", sum("p2"), "key-1", at(2*time.Hour), newer))
			return err
		}},
		{"SaveAnswers of a duplicate", func() error {
			r, err := s.SaveAnswers(ctx, batch("sync-3", sum("p1"), "", at(2*time.Hour), newer))
			if err == nil && !r.Duplicate {
				t.Fatalf("SaveAnswers of a repeated checksum = %+v, want a duplicate", r)
			}
			return errors.New("duplicate")
		}},
		{"SavePackage of bytes that do not match", func() error {
			return s.SavePackage(ctx, packageMeta(npsnA, other, 2, at(time.Hour)), bytes.NewReader(d))
		}},
	} {
		if err := f.run(); err == nil {
			t.Fatalf("%s succeeded", f.name)
		}
		check(t, "state after "+f.name, snapshot(t, s), before)
	}
}
