package storetest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/identity"
)

// School numbers (npsn) used by the suite.
const (
	npsnA = "20100001"
	npsnB = "20100002"
)

// wib is Western Indonesia Time: the suite passes times in it so that stores
// must convert them to UTC.
var wib = time.FixedZone("WIB", 7*60*60)

// t0 is the suite's epoch, with microsecond precision.
var t0 = time.Date(2025, time.July, 14, 8, 30, 0, 123456000, wib)

// at returns t0 moved by d.
func at(d time.Duration) time.Time { return t0.Add(d) }

// sum returns the lowercase hex SHA-256 of s.
func sum(s string) string { return checksum([]byte(s)) }

func checksum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func ptr[T any](v T) *T { return &v }

// mustOK fails the test when err is not nil.
func mustOK(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// wantErr fails the test unless errors.Is(err, target).
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: err = %v, want %v", what, err, target)
	}
}

// check fails the test when got differs from want. Times compare with Equal
// and must be in UTC when not zero; nil and empty slices are equal.
func check(t *testing.T, what string, got, want any) {
	t.Helper()
	var diffs []string
	diff("", reflect.ValueOf(got), reflect.ValueOf(want), &diffs)
	if len(diffs) > 0 {
		if len(diffs) > 20 {
			diffs = append(diffs[:20], fmt.Sprintf("... and %d more", len(diffs)-20))
		}
		t.Fatalf("%s differs:\n  %s", what, strings.Join(diffs, "\n  "))
	}
}

var timeType = reflect.TypeFor[time.Time]()

func diff(path string, got, want reflect.Value, out *[]string) {
	if !got.IsValid() || !want.IsValid() {
		if got.IsValid() != want.IsValid() {
			*out = append(*out, fmt.Sprintf("%s: got valid %v, want valid %v", path, got.IsValid(), want.IsValid()))
		}
		return
	}
	if got.Type() != want.Type() {
		*out = append(*out, fmt.Sprintf("%s: got type %s, want %s", path, got.Type(), want.Type()))
		return
	}
	if got.Type() == timeType {
		g, w := got.Interface().(time.Time), want.Interface().(time.Time)
		switch {
		case !g.Equal(w):
			*out = append(*out, fmt.Sprintf("%s = %s, want %s", path, fmtTime(g), fmtTime(w)))
		case !g.IsZero() && g.Location() != time.UTC:
			*out = append(*out, fmt.Sprintf("%s = %s: not in UTC", path, fmtTime(g)))
		}
		return
	}
	switch got.Kind() {
	case reflect.Pointer, reflect.Interface:
		if got.IsNil() || want.IsNil() {
			if got.IsNil() != want.IsNil() {
				*out = append(*out, fmt.Sprintf("%s = %s, want %s", path, show(got), show(want)))
			}
			return
		}
		diff(path, got.Elem(), want.Elem(), out)
	case reflect.Struct:
		for i := range got.NumField() {
			f := got.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			diff(path+"."+f.Name, got.Field(i), want.Field(i), out)
		}
	case reflect.Slice, reflect.Array:
		if got.Len() != want.Len() {
			*out = append(*out, fmt.Sprintf("%s has %d elements, want %d: got %s, want %s",
				path, got.Len(), want.Len(), abbrev(show(got)), abbrev(show(want))))
			return
		}
		for i := range got.Len() {
			diff(fmt.Sprintf("%s[%d]", path, i), got.Index(i), want.Index(i), out)
		}
	default:
		if !reflect.DeepEqual(got.Interface(), want.Interface()) {
			*out = append(*out, fmt.Sprintf("%s = %s, want %s", path, abbrev(show(got)), abbrev(show(want))))
		}
	}
}

func fmtTime(t time.Time) string { return t.Format(time.RFC3339Nano) }

func show(v reflect.Value) string {
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		return "&" + show(v.Elem())
	}
	if v.Type() == timeType {
		return fmtTime(v.Interface().(time.Time))
	}
	return fmt.Sprintf("%+v", v.Interface())
}

func abbrev(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// ids returns the ID field of each element of a slice of structs.
func ids[T any](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = reflect.ValueOf(x).FieldByName("ID").String()
	}
	return out
}

// checkIDs fails the test unless the IDs of got are want, in order.
func checkIDs[T any](t *testing.T, what string, got []T, want ...string) {
	t.Helper()
	g := ids(got)
	if strings.Join(g, ",") != strings.Join(want, ",") || len(g) != len(want) {
		t.Fatalf("%s = %q, want %q", what, g, want)
	}
}

// MustCreateUser stores u or fails the test.
func MustCreateUser(t *testing.T, s Store, u identity.User) {
	t.Helper()
	mustOK(t, "CreateUser "+u.Username, s.CreateUser(t.Context(), u))
}

// MustCountUsers returns the number of users or fails the test.
func MustCountUsers(t *testing.T, s Store) int {
	t.Helper()
	n, err := s.CountUsers(t.Context())
	mustOK(t, "CountUsers", err)
	return n
}

// MustCreateLicense stores l or fails the test.
func MustCreateLicense(t *testing.T, s Store, l exam.License) {
	t.Helper()
	mustOK(t, "CreateLicense "+l.ID, s.CreateLicense(t.Context(), l))
}

// MustBindServer binds b or fails the test, returning the stored binding.
func MustBindServer(t *testing.T, s Store, b exam.ServerBinding) exam.ServerBinding {
	t.Helper()
	got, err := s.BindServer(t.Context(), b)
	mustOK(t, "BindServer "+b.ServerCode, err)
	return got
}

// MustCreateExam stores e or fails the test.
func MustCreateExam(t *testing.T, s Store, e exam.Exam) {
	t.Helper()
	mustOK(t, "CreateExam "+e.ID, s.CreateExam(t.Context(), e))
}

// MustImportMembers imports ms and fails the test when the call fails or any
// row is rejected.
func MustImportMembers(t *testing.T, s Store, ms ...exam.Member) []exam.ImportResult {
	t.Helper()
	res, err := s.ImportMembers(t.Context(), ms)
	mustOK(t, "ImportMembers", err)
	if len(res) != len(ms) {
		t.Fatalf("ImportMembers of %d rows returned %d results", len(ms), len(res))
	}
	for _, r := range res {
		if r.Action == exam.ImportRejected {
			t.Fatalf("ImportMembers rejected row %d: %s %s", r.Row, r.Code, r.Message)
		}
	}
	return res
}

// MustLookupMember returns the member whose field equals value or fails the test.
func MustLookupMember(t *testing.T, s Store, field exam.LookupField, value string) exam.Member {
	t.Helper()
	m, err := s.LookupMember(t.Context(), field, value)
	mustOK(t, fmt.Sprintf("LookupMember %s=%q", field, value), err)
	return m
}

// MustListMembers lists members or fails the test.
func MustListMembers(t *testing.T, s Store, f exam.MemberFilter) ([]exam.Member, int) {
	t.Helper()
	ms, total, err := s.ListMembers(t.Context(), f)
	mustOK(t, fmt.Sprintf("ListMembers %+v", f), err)
	return ms, total
}

// MustCreateAcademicYear stores ay or fails the test.
func MustCreateAcademicYear(t *testing.T, s Store, ay exam.AcademicYear) {
	t.Helper()
	mustOK(t, "CreateAcademicYear "+ay.Name, s.CreateAcademicYear(t.Context(), ay))
}

// MustCreateAPIKey stores k or fails the test.
func MustCreateAPIKey(t *testing.T, s Store, k exam.APIKey) {
	t.Helper()
	mustOK(t, "CreateAPIKey "+k.ID, s.CreateAPIKey(t.Context(), k))
}

// MustSaveAnswers saves b or fails the test.
func MustSaveAnswers(t *testing.T, s Store, b exam.AnswerBatch) exam.Receipt {
	t.Helper()
	r, err := s.SaveAnswers(t.Context(), b)
	mustOK(t, "SaveAnswers "+b.SyncID, err)
	return r
}

// MustListAnswers lists the answers of an exam or fails the test.
func MustListAnswers(t *testing.T, s Store, examID string) []exam.Answer {
	t.Helper()
	as, err := s.ListAnswers(t.Context(), exam.AnswerQuery{ExamID: examID})
	mustOK(t, "ListAnswers "+examID, err)
	return as
}

// MustCountAnswers counts the answers of an exam or fails the test.
func MustCountAnswers(t *testing.T, s Store, examID string) int {
	t.Helper()
	n, err := s.CountAnswers(t.Context(), exam.AnswerQuery{ExamID: examID})
	mustOK(t, "CountAnswers "+examID, err)
	return n
}

// MustAppendSyncLog appends l or fails the test.
func MustAppendSyncLog(t *testing.T, s Store, l exam.SyncLog) {
	t.Helper()
	mustOK(t, "AppendSyncLog "+l.ID, s.AppendSyncLog(t.Context(), l))
}

// MustListSyncLogs lists sync-log records or fails the test.
func MustListSyncLogs(t *testing.T, s Store, f exam.SyncLogFilter) []exam.SyncLog {
	t.Helper()
	ls, err := s.ListSyncLogs(t.Context(), f)
	mustOK(t, fmt.Sprintf("ListSyncLogs %+v", f), err)
	return ls
}

// MustUpsertMonitor upserts m alone or fails the test, returning the stored
// record as ListMonitors reads it.
func MustUpsertMonitor(t *testing.T, s Store, m exam.Monitor) exam.Monitor {
	t.Helper()
	mustOK(t, "UpsertMonitors "+m.ServerCode, s.UpsertMonitors(t.Context(), []exam.Monitor{m}))
	ms, err := s.ListMonitors(t.Context(), exam.MonitorFilter{NPSN: m.NPSN})
	mustOK(t, "ListMonitors", err)
	for _, got := range ms {
		if got.ServerCode == m.ServerCode {
			return got
		}
	}
	t.Fatalf("ListMonitors lacks %s after UpsertMonitors", m.ServerCode)
	return exam.Monitor{}
}

// MustContentRevision returns the content revision or fails the test.
func MustContentRevision(t *testing.T, s Store) int64 {
	t.Helper()
	rev, err := s.ContentRevision(t.Context())
	mustOK(t, "ContentRevision", err)
	return rev
}

// MustSavePackage saves meta with the bytes data or fails the test.
func MustSavePackage(t *testing.T, s Store, meta exam.PackageMeta, data []byte) {
	t.Helper()
	mustOK(t, "SavePackage "+meta.NPSN, s.SavePackage(t.Context(), meta, bytes.NewReader(data)))
}

// MustGetPackage returns the meta of a school's package or fails the test.
func MustGetPackage(t *testing.T, s Store, npsn string) exam.PackageMeta {
	t.Helper()
	m, err := s.GetPackage(t.Context(), npsn)
	mustOK(t, "GetPackage "+npsn, err)
	return m
}

// Fixtures.

func user(id, username string, role identity.Role, created time.Time) identity.User {
	return identity.User{ID: id, Username: username, Name: "Operator " + id, Role: role,
		PasswordHash: "$2a$04$" + strings.Repeat("x", 53), CreatedAt: created}
}

func license(id, npsn string, issued time.Time) exam.License {
	return exam.License{ID: id, NPSN: npsn, SchoolName: "SMA Negeri " + npsn, Region: "Jawa Barat/Kota Bandung", HardwareID: "hw-" + id,
		MaxStudents: 500, OperatingMode: "offline", IssuedAt: issued, ExpiresAt: issued.AddDate(1, 0, 0),
		Token: "eyJsaWNlbnNlIjoi" + id + "In0.c2lnbmF0dXJl"}
}

func sampleQuestions() []exam.Question {
	return []exam.Question{
		{ID: "q1", Type: exam.SingleChoice, Text: "2 + 2 = ?",
			Options: []exam.Option{{ID: "a", Text: "3"}, {ID: "b", Text: "4"}}, Answer: []string{"b"}, Points: 1},
		{ID: "q2", Type: exam.MultipleChoice, Text: "Manakah bilangan prima?",
			Options: []exam.Option{{ID: "a", Text: "2"}, {ID: "b", Text: "4"}, {ID: "c", Text: "5"}},
			Answer:  []string{"a", "c"}, Points: 2.5},
		{ID: "q3", Type: exam.TrueFalse, Text: "Bumi mengelilingi Matahari.", Answer: []string{"true"}, Points: 1},
		{ID: "q4", Type: exam.ShortAnswer, Text: "Ibu kota Indonesia?", Answer: []string{"Jakarta", "DKI Jakarta"}, Points: 1},
		{ID: "q5", Type: exam.Essay, Text: strings.Repeat("Jelaskan proses fotosintesis — ", 2000) + `<img src="data:image/png;base64,iVBORw0KGgo=">`},
		{ID: "q6", Type: exam.Numeric, Text: "π ≈ ?", Answer: []string{"3.14159"}, Tolerance: 1, ToleranceMode: exam.ToleranceRelative, Points: 1},
		{ID: "q7", Type: exam.Cloze, Format: "markdown", Text: "[[kota]] di [[arah]] Jawa, [[luas]] km².", Points: 4,
			Blanks: []exam.Blank{{ID: "kota", Kind: exam.BlankText, Answer: []string{"Jakarta"}, Points: 1},
				{ID: "arah", Kind: exam.BlankChoice, Options: []exam.Option{{ID: "u", Text: "utara"}, {ID: "b", Text: "barat"}},
					Answer: []string{"b"}, Points: 1},
				{ID: "luas", Kind: exam.BlankNumber, Answer: []string{"661.5"}, Tolerance: 0.5, Points: 2}}},
	}
}

// newExam is an exam of sampleQuestions, its first two questions sharing a
// stimulus.
func newExam(id string, starts time.Time, npsns ...string) exam.Exam {
	qs := sampleQuestions()
	qs[0].Stimulus, qs[1].Stimulus = "bacaan-1", "bacaan-1"
	return exam.Exam{ID: id, Title: "Ujian " + id, Subject: "Matematika", NPSNs: npsns, StartsAt: starts,
		EndsAt: starts.Add(2 * time.Hour), DurationMinutes: 90, Questions: qs, QuestionCount: len(qs),
		Stimuli: []exam.Stimulus{{ID: "bacaan-1", Title: "Bacaan 1", Format: "markdown",
			Text: "| Kota | Suhu |\n|---|---|\n| Bandung | 22 |\n\n![Peta](media:" + strings.Repeat("ab", 32) + ")"}},
		CreatedAt: at(-24 * time.Hour)}
}

func member(id, username, nama string) exam.Member {
	return exam.Member{ID: id, NPSN: npsnA, Nama: nama, Role: exam.RoleStudent, Username: username, Kelas: "X-1",
		AcademicYearName: "2025/2026", ExamPasswordHash: "pbkdf2-sha256$" + id, CreatedAt: at(0), UpdatedAt: at(0)}
}

func answer(examID, memberID, questionID, value string, answered time.Time) exam.Answer {
	return exam.Answer{ExamID: examID, MemberID: memberID, QuestionID: questionID, Answer: value,
		AnsweredAt: answered, ServerCode: "LAB-A"}
}

func batch(syncID, checksum, key string, received time.Time, answers ...exam.Answer) exam.AnswerBatch {
	return exam.AnswerBatch{SyncID: syncID, ServerCode: "LAB-A", NPSN: npsnA, Checksum: checksum,
		IdempotencyKey: key, Answers: answers, ReceivedAt: received}
}

// stored returns the answers as SaveAnswers stores them from the push syncID.
func stored(syncID string, as ...exam.Answer) []exam.Answer {
	out := make([]exam.Answer, len(as))
	for i, a := range as {
		a.SyncID = syncID
		out[i] = a
	}
	return out
}

// acceptedLog is the sync-log record SaveAnswers appends for b.
func acceptedLog(b exam.AnswerBatch) exam.SyncLog {
	return exam.SyncLog{ID: b.SyncID, Action: exam.ActionPushResults, ServerCode: b.ServerCode, NPSN: b.NPSN,
		RecordCount: len(b.Answers), Checksum: b.Checksum, IdempotencyKey: b.IdempotencyKey,
		Outcome: exam.OutcomeAccepted, ReceivedAt: b.ReceivedAt}
}
