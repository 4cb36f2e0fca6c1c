package client_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi"
	"github.com/seedhq/portal/internal/idempotency"
	"github.com/seedhq/portal/internal/identity"
	"github.com/seedhq/portal/internal/password"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/internal/store/postgres/postgrestest"
	"github.com/seedhq/portal/pkg/client"
)

const (
	itAdminUser     = "admin"
	itAdminPassword = "correct-horse-battery"
	itNPSN          = "20100001"
	itNPSN2         = "20100002"
)

// itLogs is a concurrency-safe log sink for the portal under test.
type itLogs struct {
	ch chan struct{}
	b  bytes.Buffer
}

func newITLogs() *itLogs { l := &itLogs{ch: make(chan struct{}, 1)}; l.ch <- struct{}{}; return l }

func (l *itLogs) Write(p []byte) (int, error) {
	<-l.ch
	defer func() { l.ch <- struct{}{} }()
	return l.b.Write(p)
}

func (l *itLogs) String() string {
	<-l.ch
	defer func() { l.ch <- struct{}{} }()
	return l.b.String()
}

// itStores opens fresh stores: bbolt in a temporary directory, and
// PostgreSQL in a database of its own.
var itStores = []struct {
	name string
	open func(t *testing.T) exam.Store
}{
	{"bolt", func(t *testing.T) exam.Store {
		st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"))
		if err != nil {
			t.Fatalf("open bolt: %v", err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}},
	{"postgres", func(t *testing.T) exam.Store { return postgrestest.Open(t) }},
}

// newRealPortal serves the real router over st, with the first operator
// account (itAdminUser), and returns its URL and the exam service.
func newRealPortal(t *testing.T, st exam.Store) (string, *exam.Service) {
	t.Helper()
	logs := newITLogs()
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ids := mustIdentity(t, st)
	svc, err := exam.NewService(context.Background(), st, exam.Config{Tokens: ids.Tokens(), TempDir: t.TempDir()}, logger)
	if err != nil {
		t.Fatalf("new service: %v", err)
	}
	srv := httptest.NewServer(httpapi.New(httpapi.Options{Exam: svc, Identity: ids, Idempotency: idempotency.New(st.(idempotency.Store), idempotency.Options{}),
		Logger: logger, Registry: prometheus.NewRegistry()}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("portal log:\n%s", logs.String())
		}
	})
	return srv.URL, svc
}

func TestIntegrationRealPortal(t *testing.T) {
	old := password.Cost
	password.Cost = 4
	t.Cleanup(func() { password.Cost = old })
	for _, so := range itStores {
		t.Run(so.name, func(t *testing.T) {
			base, svc := newRealPortal(t, so.open(t))
			runIntegration(t, base, svc)
		})
	}
}

func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func runIntegration(t *testing.T, base string, svc *exam.Service) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	newC := func() *client.Client {
		c, err := client.NewClient(base)
		must(t, "new client", err)
		return c
	}

	// ---- Health, login, me ----
	op := newC()
	_, err := op.Healthz(ctx)
	must(t, "healthz", err)
	_, err = op.Readyz(ctx)
	must(t, "readyz", err)

	_, _, err = op.Exam.Auth.Login(ctx, itAdminUser, "wrong-password")
	if !errors.Is(err, &client.Error{Code: client.CodeInvalidCredentials}) || !errors.Is(err, client.ErrUnauthorized) {
		t.Fatalf("login with a wrong password: %v, want 401 INVALID_CREDENTIALS", err)
	}
	login, resp, err := op.Exam.Auth.Login(ctx, itAdminUser, itAdminPassword)
	must(t, "login", err)
	if login.Token == "" || login.User.Username != itAdminUser || !login.ExpiresAt.After(time.Now()) || resp.StatusCode != 200 {
		t.Fatalf("login = %+v (status %d)", login, resp.StatusCode)
	}
	_, _, err = op.Exam.Auth.Me(ctx)
	if !errors.Is(err, client.ErrUnauthorized) {
		t.Fatalf("me without a token: %v, want 401", err)
	}
	op.SetToken(login.Token)
	me, _, err := op.Exam.Auth.Me(ctx)
	must(t, "me", err)
	if me.Username != itAdminUser || me.ID == "" || me.ID != login.User.ID || me.Role == "" {
		t.Fatalf("me = %+v, login user %+v", me, login.User)
	}

	// ---- Licences ----
	const hw = "HW-LAB-1"
	issued, resp, err := op.Exam.Licenses.Generate(ctx, &client.LicenseRequest{
		NPSN: itNPSN, SchoolName: "SMA Negeri 1", HardwareID: hw, MaxStudents: 500,
		DurationDays: 365, OperatingMode: client.ModeSemiOffline,
	})
	must(t, "generate licence", err)
	if resp.StatusCode != http.StatusCreated || issued.LicenseToken == "" || issued.Payload.LicenseID == "" || issued.Payload.Signature == "" {
		t.Fatalf("generate = %+v (status %d)", issued, resp.StatusCode)
	}
	issued2, _, err := op.Exam.Licenses.Generate(ctx, &client.LicenseRequest{
		NPSN: itNPSN2, SchoolName: "SMA Negeri 2", HardwareID: "HW-LAB-2", MaxStudents: 10,
		DurationDays: 30, OperatingMode: client.ModeOffline,
	})
	must(t, "generate licence 2", err)
	_, _, err = op.Exam.Licenses.Generate(ctx, &client.LicenseRequest{NPSN: "12"})
	if !errors.Is(err, client.ErrBadRequest) {
		t.Fatalf("invalid licence request: %v, want 400", err)
	}

	pub, _, err := newC().Exam.Licenses.PublicKey(ctx) // no credential needed
	must(t, "public key", err)
	payload, err := client.VerifyLicenseToken(issued.LicenseToken, pub)
	must(t, "verify licence token offline", err)
	if payload.LicenseID != issued.Payload.LicenseID || payload.NPSN != itNPSN || payload.HardwareID != hw ||
		payload.MaxStudents != 500 || payload.OperatingMode != client.ModeSemiOffline || payload.Expired(time.Now()) ||
		!payload.ExpiresAt.Equal(issued.Payload.ExpiresAt) {
		t.Fatalf("licence payload = %+v, issued %+v", payload, issued.Payload)
	}
	dot := strings.IndexByte(issued2.LicenseToken, '.')
	tampered := []byte(issued2.LicenseToken)
	if tampered[dot+10] == 'A' { // flip one full base64 digit of the signature
		tampered[dot+10] = 'B'
	} else {
		tampered[dot+10] = 'A'
	}
	if _, err := client.VerifyLicenseToken(string(tampered), pub); !errors.Is(err, client.ErrInvalidLicense) {
		t.Fatalf("tampered token: %v, want ErrInvalidLicense", err)
	}

	lics, _, err := op.Exam.Licenses.List(ctx, nil)
	must(t, "list licences", err)
	if len(lics) != 2 {
		t.Fatalf("licences = %d, want 2", len(lics))
	}
	lics, _, err = op.Exam.Licenses.List(ctx, &client.LicenseListOptions{NPSN: itNPSN2})
	must(t, "list licences by npsn", err)
	if len(lics) != 1 || lics[0].LicenseID != issued2.Payload.LicenseID || lics[0].Status != "active" || lics[0].RevokedAt != nil {
		t.Fatalf("licences of %s = %+v", itNPSN2, lics)
	}
	revoked, _, err := op.Exam.Licenses.Revoke(ctx, issued2.Payload.LicenseID)
	must(t, "revoke licence", err)
	if revoked.LicenseID != issued2.Payload.LicenseID || revoked.Status != "revoked" || revoked.RevokedAt == nil {
		t.Fatalf("revoked = %+v", revoked)
	}
	_, _, err = op.Exam.Licenses.Revoke(ctx, "no-such-licence")
	if !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("revoke unknown licence: %v, want 404", err)
	}

	// A handshake with the revoked licence is refused.
	refused := newC()
	_, resp, err = refused.Exam.Sync.VerifyServer(ctx, &client.VerifyServerRequest{
		ServerCode: "LAB-2", NPSN: itNPSN2, HardwareID: "HW-LAB-2", LicenseToken: issued2.LicenseToken,
	})
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || apiErr.Code != client.CodeLicenseRevoked || apiErr.Status != http.StatusForbidden ||
		!errors.Is(err, &client.Error{Code: client.CodeLicenseRevoked}) || !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("handshake with a revoked licence: %v, want 403 LICENSE_REVOKED", err)
	}
	if resp == nil || resp.StatusCode != http.StatusForbidden || apiErr.Message == "" || apiErr.Method != http.MethodPost {
		t.Fatalf("refusal response %v, error %+v", resp, apiErr)
	}

	// ---- Academic years ----
	y1, resp, err := op.Exam.Admin.CreateAcademicYear(ctx, "2024/2025", true)
	must(t, "create academic year", err)
	if resp.StatusCode != http.StatusCreated || y1.ID == "" || !y1.IsActive || y1.Name != "2024/2025" {
		t.Fatalf("year 1 = %+v (status %d)", y1, resp.StatusCode)
	}
	y2, _, err := op.Exam.Admin.CreateAcademicYear(ctx, "2025/2026", false)
	must(t, "create academic year 2", err)
	if y2.IsActive {
		t.Fatalf("year 2 = %+v, want inactive", y2)
	}
	_, _, err = op.Exam.Admin.CreateAcademicYear(ctx, "2025/2026", false)
	if !errors.Is(err, &client.Error{Code: client.CodeAcademicYearExists}) || !errors.Is(err, client.ErrConflict) {
		t.Fatalf("duplicate academic year: %v, want 409 ACADEMIC_YEAR_EXISTS", err)
	}
	act, _, err := op.Exam.Admin.ActivateAcademicYear(ctx, y2.ID)
	must(t, "activate academic year", err)
	if act.ID != y2.ID || !act.IsActive {
		t.Fatalf("activated = %+v", act)
	}
	years, _, err := op.Exam.Admin.ListAcademicYears(ctx)
	must(t, "list academic years", err)
	if len(years) != 2 {
		t.Fatalf("years = %+v", years)
	}
	for _, y := range years {
		if y.IsActive != (y.ID == y2.ID) {
			t.Fatalf("years = %+v: only %s should be active", years, y2.ID)
		}
	}

	// ---- API keys ----
	key, resp, err := op.Exam.Admin.CreateAPIKey(ctx, "directory reader")
	must(t, "create api key", err)
	if resp.StatusCode != http.StatusCreated || key.ID == "" || key.Key == "" || key.Name != "directory reader" ||
		key.Prefix == "" || !strings.HasPrefix(key.Key, key.Prefix) {
		t.Fatalf("api key = %+v (status %d)", key, resp.StatusCode)
	}
	key2, _, err := op.Exam.Admin.CreateAPIKey(ctx, "to revoke")
	must(t, "create api key 2", err)
	keys, _, err := op.Exam.Admin.ListAPIKeys(ctx)
	must(t, "list api keys", err)
	if len(keys) != 2 {
		t.Fatalf("api keys = %+v", keys)
	}
	for _, k := range keys {
		if k.Key != "" {
			t.Fatalf("listed key shows its secret: %+v", k)
		}
	}
	rk, _, err := op.Exam.Admin.RevokeAPIKey(ctx, key2.ID)
	must(t, "revoke api key", err)
	if rk == nil || rk.ID != key2.ID || rk.RevokedAt == nil {
		t.Fatalf("revoked key = %+v", rk)
	}

	// ---- Member import: JSON and CSV ----
	var inputs []client.MemberInput
	for i := 1; i <= 7; i++ {
		inputs = append(inputs, client.MemberInput{
			Nama: fmt.Sprintf("Siswa %d", i), Username: fmt.Sprintf("siswa.%d", i),
			NISN: fmt.Sprintf("%010d", i), Kelas: "XII IPA 1", AcademicYearName: "2025/2026",
		})
	}
	inputs = append(inputs, client.MemberInput{Nama: "Guru Satu", Role: "guru", Username: "guru.1", NIP: "198001012005011001"})
	inputs = append(inputs, client.MemberInput{Username: "no.name"}) // rejected: nama is required
	rep, resp, err := op.Exam.Admin.ImportMembers(ctx, inputs, &client.ImportOptions{NPSN: itNPSN})
	must(t, "import members (json)", err)
	if resp.StatusCode != 200 || rep.Created != 8 || rep.Rejected != 1 || len(rep.Rows) != 9 ||
		rep.Rows[8].Action != "rejected" || rep.Rows[8].Code == "" || rep.Rows[0].Action != "created" || rep.Rows[0].MemberID == "" {
		t.Fatalf("json import = %+v (status %d)", rep, resp.StatusCode)
	}
	ids := map[string]string{}
	for i, r := range rep.Rows[:8] {
		ids[inputs[i].Username] = r.MemberID
	}

	csvBody := "npsn,nama,username,nisn,kelas\n" +
		itNPSN + ",Siswa 8,siswa.8,0000000008,XII IPA 2\n" +
		itNPSN + ",Siswa 9,siswa.9,0000000009,XII IPA 2\n" +
		itNPSN + ",Siswa Satu Baru,siswa.1,0000000001,XII IPA 1\n" // updates siswa.1
	crep, _, err := op.Exam.Admin.ImportMembersCSV(ctx, strings.NewReader(csvBody), nil)
	must(t, "import members (csv)", err)
	if crep.Created != 2 || crep.Updated != 1 || crep.Rejected != 0 || len(crep.Rows) != 3 ||
		crep.Rows[2].MemberID != ids["siswa.1"] || crep.Rows[2].Action != "updated" {
		t.Fatalf("csv import = %+v", crep)
	}
	ids["siswa.8"], ids["siswa.9"] = crep.Rows[0].MemberID, crep.Rows[1].MemberID
	const students = 9

	// ---- Directory (X-API-Key) ----
	dir := newC()
	_, _, err = dir.Exam.Directory.ActiveAcademicYear(ctx)
	if !errors.Is(err, client.ErrUnauthorized) {
		t.Fatalf("directory without a key: %v, want 401", err)
	}
	dir.SetAPIKey(key2.Key)
	_, _, err = dir.Exam.Directory.ActiveAcademicYear(ctx)
	if !errors.Is(err, client.ErrUnauthorized) {
		t.Fatalf("directory with a revoked key: %v, want 401", err)
	}
	dir.SetAPIKey(key.Key)
	ay, resp, err := dir.Exam.Directory.ActiveAcademicYear(ctx)
	must(t, "active academic year", err)
	if ay.ID != y2.ID || ay.Name != "2025/2026" || !ay.IsActive {
		t.Fatalf("active year = %+v (app %q)", ay, resp.AppName)
	}
	found, _, err := dir.Exam.Directory.LookupMember(ctx, client.MemberLookup{NISN: "0000000003"})
	must(t, "lookup member", err)
	if !found.Found || found.Member == nil || found.Member.ID != ids["siswa.3"] || found.Member.Nama != "Siswa 3" ||
		found.Member.Role != exam.RoleStudent || found.Member.Kelas != "XII IPA 1" {
		t.Fatalf("lookup = %+v / %+v", found, found.Member)
	}
	found, _, err = dir.Exam.Directory.LookupMember(ctx, client.MemberLookup{Username: "guru.1"})
	must(t, "lookup member by username", err)
	if !found.Found || found.Member.ID != ids["guru.1"] || found.Member.Role != "guru" {
		t.Fatalf("lookup guru = %+v / %+v", found, found.Member)
	}
	missing, _, err := dir.Exam.Directory.LookupMember(ctx, client.MemberLookup{NISN: "9999999999"})
	must(t, "lookup missing member", err)
	if missing.Found || missing.Member != nil {
		t.Fatalf("lookup of nobody = %+v", missing)
	}
	if _, _, err := dir.Exam.Directory.LookupMember(ctx, client.MemberLookup{}); err == nil {
		t.Fatal("lookup without a key: no error")
	}

	page, resp, err := dir.Exam.Directory.ListMembers(ctx, &client.MemberListOptions{ListOptions: client.ListOptions{Page: 1, PerPage: 4}})
	must(t, "list members", err)
	if len(page) != 4 || resp.Page != 1 || resp.PerPage != 4 || resp.Total != students+1 || resp.TotalPages != 3 ||
		resp.NextPage != 2 || resp.PrevPage != 0 {
		t.Fatalf("page 1: %d members, paging %+v", len(page), resp)
	}
	last, resp, err := dir.Exam.Directory.ListMembers(ctx, &client.MemberListOptions{ListOptions: client.ListOptions{Page: 3, PerPage: 4}})
	must(t, "list members page 3", err)
	if len(last) != 2 || resp.NextPage != 0 || resp.PrevPage != 2 {
		t.Fatalf("page 3: %d members, paging %+v", len(last), resp)
	}
	siswa, resp, err := dir.Exam.Directory.ListMembers(ctx, &client.MemberListOptions{Role: exam.RoleStudent, Kelas: "XII IPA 2"})
	must(t, "list members filtered", err)
	if len(siswa) != 2 || resp.Total != 2 {
		t.Fatalf("XII IPA 2 = %d members (total %d)", len(siswa), resp.Total)
	}

	seen := map[string]bool{}
	n := 0
	for m, err := range dir.Exam.Directory.AllMembers(ctx, &client.MemberListOptions{ListOptions: client.ListOptions{PerPage: 3}}) {
		must(t, "all members", err)
		n++
		seen[m.ID] = true
	}
	if n != students+1 || len(seen) != students+1 {
		t.Fatalf("AllMembers walked %d members (%d distinct), want %d", n, len(seen), students+1)
	}
	for u, id := range ids {
		if !seen[id] {
			t.Fatalf("AllMembers missed %s (%s)", u, id)
		}
	}
	n = 0
	for _, err := range dir.Exam.Directory.AllMembers(ctx, &client.MemberListOptions{ListOptions: client.ListOptions{PerPage: 2}}) {
		must(t, "all members (break)", err)
		if n++; n == 3 {
			break
		}
	}

	// ---- Exams ----
	start := time.Now().Add(24 * time.Hour).Truncate(time.Second)
	examReq := &client.ExamRequest{
		Title: "Matematika Dasar", Subject: "Matematika", NPSN: []string{itNPSN},
		StartsAt: start, EndsAt: start.Add(3 * time.Hour), DurationMinutes: 90,
		Questions: []client.Question{
			{ID: "q1", Type: client.SingleChoice, Text: "1 + 1 = ?", Points: 2,
				Options: []client.QuestionOption{{ID: "a", Text: "1"}, {ID: "b", Text: "2"}}, Answer: []string{"b"}},
			{ID: "q2", Type: client.MultipleChoice, Text: "Bilangan prima?", Points: 3,
				Options: []client.QuestionOption{{ID: "a", Text: "2"}, {ID: "b", Text: "4"}, {ID: "c", Text: "5"}}, Answer: []string{"a", "c"}},
			{ID: "q3", Type: client.TrueFalse, Text: "0 adalah bilangan asli", Points: 1, Answer: []string{"false"}},
			{ID: "q4", Type: client.ShortAnswer, Text: "Ibu kota Indonesia", Points: 1, Answer: []string{"Jakarta"}},
			{ID: "q5", Type: client.Essay, Text: "Jelaskan teorema Pythagoras"},
		},
	}
	ex, resp, err := op.Exam.Admin.CreateExam(ctx, examReq)
	must(t, "create exam", err)
	if resp.StatusCode != http.StatusCreated || ex.ID == "" || ex.Title != examReq.Title || len(ex.Questions) != 5 ||
		!ex.StartsAt.Equal(start) || !slices.Equal(ex.NPSN, []string{itNPSN}) {
		t.Fatalf("created exam = %+v (status %d)", ex, resp.StatusCode)
	}
	other := *examReq
	other.Title = "Ujian Sementara"
	tmp, _, err := op.Exam.Admin.CreateExam(ctx, &other)
	must(t, "create exam 2", err)
	exams, _, err := op.Exam.Admin.ListExams(ctx, nil)
	must(t, "list exams", err)
	if len(exams) != 2 {
		t.Fatalf("exams = %+v", exams)
	}
	exams, _, err = op.Exam.Admin.ListExams(ctx, &client.ExamListOptions{NPSN: itNPSN2})
	must(t, "list exams of npsn 2", err)
	if len(exams) != 0 {
		t.Fatalf("exams of %s = %+v", itNPSN2, exams)
	}
	got, _, err := op.Exam.Admin.GetExam(ctx, ex.ID)
	must(t, "get exam", err)
	if got.ID != ex.ID || len(got.Questions) != 5 || !slices.Equal(got.Questions[1].Answer, []string{"a", "c"}) ||
		got.Questions[0].Points != 2 || got.DurationMinutes != 90 {
		t.Fatalf("got exam = %+v", got)
	}
	other.Title, other.DurationMinutes = "Ujian Sementara (edited)", 60
	other.Questions = other.Questions[:2]
	edited, _, err := op.Exam.Admin.UpdateExam(ctx, tmp.ID, &other)
	must(t, "update exam", err)
	if edited.ID != tmp.ID || edited.Title != other.Title || edited.QuestionCount != 2 || len(edited.Questions) != 2 ||
		edited.DurationMinutes != 60 || !edited.CreatedAt.Equal(tmp.CreatedAt) {
		t.Fatalf("edited exam = %+v", edited)
	}
	bad := other
	bad.DurationMinutes = 0
	if _, _, err := op.Exam.Admin.UpdateExam(ctx, tmp.ID, &bad); !errors.Is(err, &client.Error{Code: client.CodeValidationFailed}) {
		t.Fatalf("an invalid edit: %v, want 400", err)
	}
	if got, _, _ := op.Exam.Admin.GetExam(ctx, tmp.ID); got == nil || got.DurationMinutes != 60 {
		t.Fatalf("after a refused edit the exam is %+v", got)
	}
	resp, err = op.Exam.Admin.DeleteExam(ctx, tmp.ID)
	must(t, "delete exam", err)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("delete exam status %d", resp.StatusCode)
	}
	_, _, err = op.Exam.Admin.GetExam(ctx, tmp.ID)
	if !errors.Is(err, client.ErrNotFound) || !errors.As(err, &apiErr) || apiErr.Code != client.CodeNotFound {
		t.Fatalf("get deleted exam: %v, want 404 NOT_FOUND", err)
	}
	_, _, err = op.Exam.Admin.ExamResults(ctx, "no-such-exam")
	if !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("results of a missing exam: %v, want ErrNotFound", err)
	}

	// ---- Login cards, exam passwords ----
	cards, _, err := op.Exam.Admin.LoginCards(ctx, itNPSN)
	must(t, "login cards", err)
	if len(cards) != students {
		t.Fatalf("login cards = %d, want %d", len(cards), students)
	}
	byMember := map[string]*client.LoginCard{}
	for _, c := range cards {
		if c.ExamPassword == "" || c.NPSN != itNPSN || c.Username == "" {
			t.Fatalf("login card = %+v", c)
		}
		byMember[c.MemberID] = c
	}
	var csvBuf bytes.Buffer
	resp, err = op.Exam.Admin.LoginCardsCSV(ctx, itNPSN, &csvBuf)
	must(t, "login cards csv", err)
	rows, err := csv.NewReader(&csvBuf).ReadAll()
	must(t, "parse login cards csv", err)
	if len(rows) != students+1 || strings.Join(rows[0], ",") != "npsn,kelas,nama,username,nisn,exam_password" ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("csv login cards (%s): %q", resp.Header.Get("Content-Type"), rows)
	}
	for _, r := range rows[1:] {
		found := false
		for _, c := range cards {
			if c.Username == r[3] && c.ExamPassword == r[5] {
				found = true
			}
		}
		if !found {
			t.Fatalf("csv row %q is not a json login card", r)
		}
	}
	pw, _, err := op.Exam.Admin.ResetExamPassword(ctx, ids["siswa.2"])
	must(t, "reset exam password", err)
	if pw.MemberID != ids["siswa.2"] || pw.Username != "siswa.2" || pw.ExamPassword == "" || pw.ExamPassword == byMember[ids["siswa.2"]].ExamPassword {
		t.Fatalf("reset password = %+v (old %q)", pw, byMember[ids["siswa.2"]].ExamPassword)
	}
	_, _, err = op.Exam.Admin.ResetExamPassword(ctx, "no-such-member")
	if !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("reset password of nobody: %v, want 404", err)
	}

	// ---- Lab server: handshake, pull, download, decode ----
	lab := newC()
	const code = "LAB-1"
	v, _, err := lab.Exam.Sync.VerifyServer(ctx, &client.VerifyServerRequest{
		ServerCode: code, NPSN: itNPSN, HardwareID: hw, LicenseToken: issued.LicenseToken,
	})
	must(t, "verify server", err)
	if v.Status != "VERIFIED" || v.AccessToken == "" || len(v.PackageKey) != 32 || v.HeartbeatInterval() <= 0 ||
		v.License.LicenseID != issued.Payload.LicenseID || v.License.MaxStudents != 500 || v.ServerName != "SMA Negeri 1" {
		t.Fatalf("verification = %+v", v)
	}
	lab.SetToken(v.AccessToken)

	enc, _, err := lab.Exam.Sync.PullQuestions(ctx, code, "")
	must(t, "pull questions", err)
	if enc.NotModified || enc.Size == 0 || int64(len(enc.Package)) != enc.Size || enc.ChecksumSHA256 == "" ||
		enc.Version == "" || enc.NPSN != itNPSN || enc.ServerCode != code {
		t.Fatalf("package = %+v", enc)
	}
	again, resp, err := lab.Exam.Sync.PullQuestions(ctx, code, enc.ChecksumSHA256)
	must(t, "pull questions (known checksum)", err)
	if !again.NotModified || resp.StatusCode != http.StatusNotModified || again.ChecksumSHA256 != enc.ChecksumSHA256 || len(again.Package) != 0 {
		t.Fatalf("second pull = %+v (status %d)", again, resp.StatusCode)
	}
	_, _, err = lab.Exam.Sync.PullQuestions(ctx, "OTHER-LAB", "")
	if !errors.As(err, &apiErr) || apiErr.Status/100 != 4 {
		t.Fatalf("pull for another server code: %v, want a 4xx", err)
	}

	var full bytes.Buffer
	d, _, err := lab.Exam.Sync.DownloadPackage(ctx, code, &full, nil)
	must(t, "download package", err)
	if d.Status != 200 || !d.Verified || !d.Complete() || d.Size != enc.Size || d.ChecksumSHA256 != enc.ChecksumSHA256 ||
		d.ETag == "" || !bytes.Equal(full.Bytes(), enc.Package) {
		t.Fatalf("download = %+v", d)
	}
	half := int64(full.Len() / 2)
	var resumed bytes.Buffer
	resumed.Write(full.Bytes()[:half]) // as if the first download had been cut
	d2, _, err := lab.Exam.Sync.DownloadPackage(ctx, code, &resumed, &client.DownloadOptions{Offset: half, IfRange: d.ETag})
	must(t, "resume download", err)
	if d2.Status != http.StatusPartialContent || d2.Offset != half || d2.Written != enc.Size-half || !d2.Complete() ||
		!bytes.Equal(resumed.Bytes(), enc.Package) {
		t.Fatalf("resumed download = %+v (%d bytes assembled)", d2, resumed.Len())
	}
	d3, _, err := lab.Exam.Sync.DownloadPackage(ctx, code, io.Discard, &client.DownloadOptions{IfNoneMatch: d.ChecksumSHA256})
	must(t, "download (not modified)", err)
	if !d3.NotModified() || d3.Written != 0 {
		t.Fatalf("conditional download = %+v", d3)
	}
	d4, _, err := lab.Exam.Sync.DownloadPackage(ctx, code, io.Discard, &client.DownloadOptions{Offset: enc.Size, IfRange: d.ETag})
	must(t, "download (already complete)", err)
	if d4.Status != http.StatusRequestedRangeNotSatisfiable || !d4.Complete() || d4.Written != 0 {
		t.Fatalf("download past the end = %+v", d4)
	}
	var stale bytes.Buffer
	_, _, err = lab.Exam.Sync.DownloadPackage(ctx, code, &stale, &client.DownloadOptions{Offset: half, IfRange: strings.Repeat("0", 64)})
	if !errors.Is(err, client.ErrPackageChanged) || stale.Len() != 0 {
		t.Fatalf("resume with a stale If-Range: %v (%d bytes written), want ErrPackageChanged", err, stale.Len())
	}

	pkg, err := client.DecodePackage(bytes.NewReader(resumed.Bytes()), v.PackageKey)
	must(t, "decode package", err)
	if pkg.Format != 3 || len(pkg.Exams) != 1 || len(pkg.Exams[0].QuestionBlobs) != 5 || len(pkg.Exams[0].Questions) != 0 {
		t.Fatalf("package of format %d: %+v", pkg.Format, pkg.Exams)
	}
	must(t, "fetch the questions' blobs", lab.Exam.Sync.FetchContent(ctx, pkg))
	if pkg.Version != enc.Version || pkg.NPSN != itNPSN || len(pkg.Students) != students || len(pkg.Exams) != 1 {
		t.Fatalf("package: version %s (want %s), npsn %s, %d students, %d exams", pkg.Version, enc.Version, pkg.NPSN, len(pkg.Students), len(pkg.Exams))
	}
	pe := pkg.Exams[0]
	if pe.ID != ex.ID || len(pe.Questions) != 5 || pe.Questions[0].ID != "q1" || len(pe.Questions[0].Options) != 2 {
		t.Fatalf("package exam = %+v", pe)
	}
	for _, s := range pkg.Students {
		if !strings.HasPrefix(s.PasswordHash, "pbkdf2-sha256$") || s.Username == "" || seen[s.ID] == false {
			t.Fatalf("package student = %+v", s)
		}
	}
	dr, err := client.NewPackageDecrypter(v.PackageKey, bytes.NewReader(enc.Package))
	must(t, "package decrypter", err)
	plain, err := io.ReadAll(dr)
	must(t, "decrypt package", err)
	if bytes.Contains(plain, []byte(`"answer"`)) || bytes.Contains(plain, []byte("Jakarta")) {
		t.Fatalf("the package carries answer keys: %s", plain)
	}
	if strings.Contains(string(plain), "guru.1") {
		t.Fatal("the package carries a teacher")
	}
	if _, err := client.DecodePackage(bytes.NewReader(enc.Package), make([]byte, 32)); err == nil {
		t.Fatal("decode with a wrong key: no error")
	}

	// ---- Push answers, duplicate, heartbeat ----
	at := time.Now().Truncate(time.Second)
	push := &client.PushAnswersRequest{ServerCode: code, NPSN: itNPSN, Answers: []client.Answer{
		{ExamID: ex.ID, MemberID: ids["siswa.1"], QuestionID: "q1", Answer: "b", AnsweredAt: at},
		{ExamID: ex.ID, MemberID: ids["siswa.1"], QuestionID: "q2", Answer: "a,c", AnsweredAt: at},
		{ExamID: ex.ID, MemberID: ids["siswa.1"], QuestionID: "q4", Answer: "Jakarta", AnsweredAt: at},
		{ExamID: ex.ID, MemberID: ids["siswa.2"], QuestionID: "q1", Answer: "a", AnsweredAt: at},
	}}
	rc, resp, err := lab.Exam.Sync.PushAnswers(ctx, push)
	must(t, "push answers", err)
	if rc.SyncID == "" || rc.Duplicate || rc.ChecksumSHA256 == "" || resp.StatusCode/100 != 2 {
		t.Fatalf("push receipt = %+v (status %d)", rc, resp.StatusCode)
	}
	dup, _, err := lab.Exam.Sync.PushAnswers(ctx, push)
	must(t, "push answers again", err)
	if !dup.Duplicate || dup.SyncID != rc.SyncID || dup.ChecksumSHA256 != rc.ChecksumSHA256 {
		t.Fatalf("duplicate receipt = %+v, first %+v", dup, rc)
	}
	keyed := &client.PushAnswersRequest{ServerCode: code, NPSN: itNPSN, IdempotencyKey: "batch-2", Answers: []client.Answer{
		{ExamID: ex.ID, MemberID: ids["siswa.3"], QuestionID: "q3", Answer: "false", AnsweredAt: at},
	}}
	rk1, _, err := lab.Exam.Sync.PushAnswers(ctx, keyed)
	must(t, "push with idempotency key", err)
	rk2, _, err := lab.Exam.Sync.PushAnswers(ctx, keyed)
	must(t, "push with idempotency key again", err)
	if rk1.Duplicate || !rk2.Duplicate || rk2.SyncID != rk1.SyncID {
		t.Fatalf("keyed receipts %+v then %+v", rk1, rk2)
	}
	_, _, err = lab.Exam.Sync.PushAnswers(ctx, &client.PushAnswersRequest{ServerCode: code, NPSN: itNPSN, Answers: []client.Answer{
		{ExamID: ex.ID, MemberID: ids["siswa.1"], QuestionID: "q9", Answer: "x", AnsweredAt: at},
	}})
	if !errors.Is(err, &client.Error{Code: client.CodeUnknownQuestion}) || !errors.Is(err, client.ErrUnprocessable) {
		t.Fatalf("push to an unknown question: %v, want 422 UNKNOWN_QUESTION", err)
	}
	hb, _, err := lab.Exam.Sync.Heartbeat(ctx, &client.HeartbeatRequest{
		ServerCode: code, ConnectedStudents: 3, ActiveExamsCount: 1, ClientVersion: "lab/1.2.3", Status: client.MonitorOnline,
	})
	must(t, "heartbeat", err)
	if hb.Interval() <= 0 || hb.ServerTime.IsZero() {
		t.Fatalf("heartbeat = %+v", hb)
	}
	// A lab-server token is not an operator token.
	if _, _, err := lab.Exam.Admin.ListExams(ctx, nil); !errors.Is(err, client.ErrUnauthorized) && !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("admin call with a lab token: %v, want 401 or 403", err)
	}

	// ---- Results, delete refused ----
	res, _, err := op.Exam.Admin.ExamResults(ctx, ex.ID)
	must(t, "exam results", err)
	if res.ExamID != ex.ID || res.MaxScore != 7 {
		t.Fatalf("results = %+v", res)
	}
	scores := map[string]client.MemberResult{}
	for _, r := range res.Results {
		scores[r.MemberID] = r
	}
	if s1 := scores[ids["siswa.1"]]; s1.Score != 6 || s1.Answered != 3 || s1.Correct != 3 || s1.Username != "siswa.1" {
		t.Fatalf("siswa.1 result = %+v (all %+v)", s1, res.Results)
	}
	if s2 := scores[ids["siswa.2"]]; s2.Score != 0 || s2.Answered != 1 || s2.Correct != 0 {
		t.Fatalf("siswa.2 result = %+v", s2)
	}
	if s3 := scores[ids["siswa.3"]]; s3.Score != 1 || s3.Correct != 1 {
		t.Fatalf("siswa.3 result = %+v", s3)
	}
	// ---- Stored answers: pages, the iterator, CSV, a sheet ----
	var stored []*client.StoredAnswer
	for a, err := range op.Exam.Admin.AllAnswers(ctx, ex.ID, &client.AnswerListOptions{ListOptions: client.ListOptions{PerPage: 2}}) {
		must(t, "all answers", err)
		stored = append(stored, a)
	}
	if len(stored) != res.AnswerRows || res.AnswerRows != 5 {
		t.Fatalf("AllAnswers walked %d answers; results count %d rows, want 5", len(stored), res.AnswerRows)
	}
	sheetPage, resp, err := op.Exam.Admin.ListAnswers(ctx, ex.ID, &client.AnswerListOptions{MemberID: ids["siswa.1"], ListOptions: client.ListOptions{PerPage: 2}})
	must(t, "list answers of siswa.1", err)
	if len(sheetPage) != 2 || resp.Total != 3 || resp.TotalPages != 2 || resp.NextPage != 2 || resp.AnswerRows != 5 || sheetPage[0].SyncID != rc.SyncID || !sheetPage[0].Correct {
		t.Fatalf("answers of siswa.1 = %+v, resp %+v", sheetPage, resp)
	}
	var csvOut strings.Builder
	_, err = op.Exam.Admin.AnswersCSV(ctx, ex.ID, &client.AnswerListOptions{MemberID: ids["siswa.3"]}, &csvOut)
	must(t, "answers CSV", err)
	if lines := strings.Split(strings.TrimSpace(csvOut.String()), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], "exam_id,member_id,question_id,answer") ||
		!strings.Contains(lines[1], ",q3,false,") {
		t.Fatalf("answers CSV of siswa.3:\n%s", csvOut.String())
	}
	sheet, _, err := op.Exam.Admin.AnswerSheet(ctx, ex.ID, ids["siswa.1"])
	must(t, "answer sheet", err)
	if sheet.Score != 6 || sheet.Answered != 3 || len(sheet.Questions) == 0 || sheet.Questions[0].Answer == nil || sheet.Username != "siswa.1" {
		t.Fatalf("sheet of siswa.1 = %+v", sheet)
	}
	if _, _, err := op.Exam.Admin.AnswerSheet(ctx, ex.ID, "nobody"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("sheet of an unknown member: %v, want 404", err)
	}

	_, err = op.Exam.Admin.DeleteExam(ctx, ex.ID)
	if !errors.Is(err, &client.Error{Code: client.CodeExamHasAnswers}) || !errors.Is(err, client.ErrConflict) {
		t.Fatalf("delete an exam with answers: %v, want 409 EXAM_HAS_ANSWERS", err)
	}
	_, _, err = op.Exam.Admin.UpdateExam(ctx, ex.ID, examReq)
	if !errors.Is(err, &client.Error{Code: client.CodeExamHasAnswers}) {
		t.Fatalf("edit an exam with answers: %v, want 409 EXAM_HAS_ANSWERS", err)
	}

	// ---- Monitors, sync logs, servers ----
	mons, _, err := op.Exam.Admin.ListMonitors(ctx, nil)
	must(t, "list monitors", err)
	if len(mons) != 1 || mons[0].ServerCode != code || mons[0].NPSN != itNPSN || mons[0].ConnectedStudents != 3 ||
		mons[0].ActiveExamsCount != 1 || mons[0].ClientVersion != "lab/1.2.3" || mons[0].Status != client.MonitorOnline ||
		mons[0].LastPingAt.IsZero() {
		t.Fatalf("monitors = %+v", mons)
	}
	mons, _, err = op.Exam.Admin.ListMonitors(ctx, &client.MonitorListOptions{NPSN: itNPSN2})
	must(t, "list monitors of npsn 2", err)
	if len(mons) != 0 {
		t.Fatalf("monitors of %s = %+v", itNPSN2, mons)
	}
	logs, _, err := op.Exam.Admin.ListSyncLogs(ctx, nil)
	must(t, "list sync logs", err)
	actions := map[string]int{}
	outcomes := map[string]int{}
	for _, l := range logs {
		actions[l.Action]++
		outcomes[l.Outcome]++
	}
	if actions[client.ActionVerifyServer] == 0 || actions[client.ActionPushResults] == 0 || outcomes[client.OutcomeDuplicate] < 2 ||
		outcomes[client.OutcomeAccepted] == 0 || outcomes[client.OutcomeRejected] == 0 {
		t.Fatalf("sync logs: actions %v, outcomes %v", actions, outcomes)
	}
	dups, _, err := op.Exam.Admin.ListSyncLogs(ctx, &client.SyncLogListOptions{ServerCode: code, Status: client.OutcomeDuplicate, Limit: 1})
	must(t, "list sync logs filtered", err)
	if len(dups) != 1 || dups[0].Outcome != client.OutcomeDuplicate || dups[0].ServerCode != code {
		t.Fatalf("duplicate sync logs = %+v", dups)
	}
	servers, _, err := op.Exam.Admin.ListServers(ctx, nil)
	must(t, "list servers", err)
	if len(servers) != 1 || servers[0].ServerCode != code || servers[0].HardwareID != hw || servers[0].LicenseID != issued.Payload.LicenseID ||
		servers[0].BoundAt.IsZero() {
		t.Fatalf("servers = %+v", servers)
	}
	// The bound machine may handshake again.
	_, _, err = newC().Exam.Sync.VerifyServer(ctx, &client.VerifyServerRequest{
		ServerCode: code, NPSN: itNPSN, HardwareID: hw, LicenseToken: issued.LicenseToken,
	})
	must(t, "re-verify from the bound machine", err)
	resp, err = op.Exam.Admin.ResetServer(ctx, code)
	must(t, "reset server", err)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("reset server status %d", resp.StatusCode)
	}
	servers, _, err = op.Exam.Admin.ListServers(ctx, &client.ServerListOptions{NPSN: itNPSN})
	must(t, "list servers after reset", err)
	if len(servers) != 0 {
		t.Fatalf("servers after reset = %+v", servers)
	}
	_, err = op.Exam.Admin.ResetServer(ctx, code)
	if !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("reset of an unbound server: %v, want 404", err)
	}
}

// mustIdentity returns the identity service over st, with the first
// operator account (itAdminUser, itAdminPassword).
func mustIdentity(t *testing.T, st exam.Store) *identity.Service {
	t.Helper()
	ids, err := identity.Open(context.Background(), st.(identity.Store), []byte("integration-secret-of-at-least-32-bytes"), identity.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ids.EnsureAdmin(context.Background(), itAdminUser, itAdminPassword); err != nil {
		t.Fatalf("ensure admin: %v", err)
	}
	return ids
}
