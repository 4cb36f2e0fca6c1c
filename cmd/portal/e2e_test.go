package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/pkg/client"
	"github.com/seedhq/portal/pkg/labwire"
)

// Fixture values of the end-to-end scenario.
const (
	e2eNPSN       = "20100001"
	e2eSchool     = "SMA Negeri 1 Contoh"
	e2eHardwareID = "HW-E2E-0001"
	e2eServerCode = "LAB-01"
)

// TestEndToEndBolt runs the real binary on the embedded store.
func TestEndToEndBolt(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(t.TempDir(), "data") // the portal creates it
	p := mustStartPortal(t, dataDir, nil)
	password := mustReadAdminPassword(t, p)
	s := runScenario(t, p, password)
	checkShutdownFinishesInFlight(t, p, s)

	// The data outlives the process: a second start on the same directory
	// creates no account and serves what the first one stored.
	before, _ := os.ReadFile(filepath.Join(dataDir, adminPasswordFileName))
	p2 := mustStartPortal(t, dataDir, nil)
	if m := p2.FindLog("created the first operator account with a generated password; read it from the file, then change or delete it"); m != nil {
		t.Errorf("second start created an account again: %v", m)
	}
	after, _ := os.ReadFile(filepath.Join(dataDir, adminPasswordFileName))
	if !bytes.Equal(before, after) {
		t.Error("second start rewrote the initial admin password file")
	}
	ctx := t.Context()
	c := mustOperatorClient(t, p2.URL, "admin", password)
	res, _, err := c.Exam.Admin.ExamResults(ctx, s.examID)
	if err != nil {
		t.Fatalf("results after restart: %v", err)
	}
	if len(res.Results) != 2 {
		t.Errorf("results after restart: %d students, want 2", len(res.Results))
	}
	p2.Stop()
}

// TestEndToEndPostgres runs the real binary on a fresh PostgreSQL database,
// with the first account's password from PORTAL_ADMIN_PASSWORD.
func TestEndToEndPostgres(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the portal binary; skipped with -short")
	}
	dbURL := pgtest.NewDatabase(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	const password = "e2e-postgres-Password"
	p := mustStartPortal(t, dataDir, []string{"PORTAL_ADMIN_PASSWORD=" + password}, "--database-url", dbURL)
	if m := p.WaitLog("store opened", 30*time.Second); m["kind"] != "postgres" {
		t.Fatalf("store opened: %v, want kind postgres", m)
	}
	if _, err := os.Stat(filepath.Join(dataDir, adminPasswordFileName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("initial-admin-password written although PORTAL_ADMIN_PASSWORD was set (stat: %v)", err)
	}
	if _, err := os.Stat(filepath.Join(dataDir, boltFileName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a bbolt file was created on PostgreSQL (stat: %v)", err)
	}
	if strings.Contains(p.Output(), password) {
		t.Error("the admin password appears in the log")
	}
	s := runScenario(t, p, password)
	checkShutdownFinishesInFlight(t, p, s)

	// "portal migrate" on the migrated database: nothing to do, exit 0.
	res := runPortal(t, []string{"PORTAL_DATABASE_URL=" + dbURL}, "", "migrate")
	if res.Code != 0 || !strings.Contains(res.Stdout, "the schema is up to date") {
		t.Errorf("migrate: exit %d\nstdout: %s\nstderr: %s", res.Code, res.Stdout, res.Stderr)
	}
}

// mustReadAdminPassword reads the generated password file and checks that
// it is private and that the log names the file, not the password.
func mustReadAdminPassword(t *testing.T, p *portalProc) string {
	t.Helper()
	path := filepath.Join(p.DataDir, adminPasswordFileName)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatalf("initial admin password file: %v", err)
	}
	if mode := st.Mode().Perm(); mode != 0o600 {
		t.Errorf("%s has mode %v, want 0600", path, mode)
	}
	if st, err := os.Stat(p.DataDir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("data dir: %v, %v; want mode 0700", st.Mode().Perm(), err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	password := strings.TrimSpace(string(b))
	if len(password) < 12 {
		t.Fatalf("generated password %q is too short", password)
	}
	m := p.FindLog("created the first operator account with a generated password; read it from the file, then change or delete it")
	if m == nil || m["password_file"] != path || m["username"] != "admin" {
		t.Errorf("no log line naming the password file %s: %v", path, m)
	}
	if strings.Contains(p.Output(), password) {
		t.Error("the generated admin password appears in the log")
	}
	return password
}

// mustOperatorClient signs in and returns a client carrying the token.
func mustOperatorClient(t *testing.T, baseURL, username, password string) *client.Client {
	t.Helper()
	c, err := client.NewClient(baseURL)
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := c.Exam.Auth.Login(t.Context(), username, password)
	if err != nil {
		t.Fatalf("login as %s: %v", username, err)
	}
	c.SetToken(res.Token)
	return c
}

// scenario is what runScenario created, for later checks.
type scenario struct {
	operator *client.Client
	server   *client.Client // carries the lab server's access token
	examID   string
	members  map[string]string // username -> member id
}

// runScenario drives the portal as an operator and a lab server would, from
// login to results, checking each step.
func runScenario(t *testing.T, p *portalProc, password string) *scenario {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	// Operator: login.
	api := p.apiURL(t)
	op := mustOperatorClient(t, api, "admin", password)
	me, _, err := op.Exam.Auth.Me(ctx)
	if err != nil || me.Username != "admin" || me.Role != "SUPER_ADMIN" {
		t.Fatalf("me = %+v, %v; want admin SUPER_ADMIN", me, err)
	}

	// Licence for the school's lab server.
	lic, _, err := op.Exam.Licenses.Generate(ctx, &client.LicenseRequest{
		NPSN: e2eNPSN, SchoolName: e2eSchool, HardwareID: e2eHardwareID,
		MaxStudents: 100, DurationDays: 30, OperatingMode: client.ModeSemiOffline,
	})
	if err != nil {
		t.Fatalf("generate licence: %v", err)
	}
	pub, _, err := op.Exam.Licenses.PublicKey(ctx)
	if err != nil {
		t.Fatalf("public key: %v", err)
	}
	if _, err := client.VerifyLicenseToken(lic.LicenseToken, pub); err != nil {
		t.Errorf("licence token does not verify offline with the public key: %v", err)
	}

	// Academic year, members, exam.
	if _, _, err := op.Exam.Admin.CreateAcademicYear(ctx, "2025/2026", true); err != nil {
		t.Fatalf("create academic year: %v", err)
	}
	csv := "nama,username,nisn,kelas,role\n" +
		"Ani Lestari,ani,0051234561,XII IPA 1,siswa\n" +
		"Budi Santoso,budi,0051234562,XII IPA 1,siswa\n" +
		"Citra Guru,citra,,,guru\n"
	rep, _, err := op.Exam.Admin.ImportMembersCSV(ctx, strings.NewReader(csv), &client.ImportOptions{NPSN: e2eNPSN})
	if err != nil {
		t.Fatalf("import members: %v", err)
	}
	if rep.Created != 3 || rep.Rejected != 0 {
		t.Fatalf("import: %+v, want 3 created", rep)
	}
	s := &scenario{operator: op, members: map[string]string{}}
	for i, r := range rep.Rows {
		name := []string{"ani", "budi", "citra"}[i]
		s.members[name] = r.MemberID
	}
	now := time.Now().UTC().Truncate(time.Second)
	ex, _, err := op.Exam.Admin.CreateExam(ctx, &client.ExamRequest{
		Title: "Matematika Semester 1", Subject: "MTK", NPSN: []string{e2eNPSN},
		StartsAt: now.Add(-time.Hour), EndsAt: now.Add(23 * time.Hour), DurationMinutes: 90,
		Questions: []client.Question{
			{ID: "q1", Type: client.SingleChoice, Text: "2 + 2 = ?", Points: 10, Answer: []string{"b"},
				Options: []client.QuestionOption{{ID: "a", Text: "3"}, {ID: "b", Text: "4"}}},
			{ID: "q2", Type: client.TrueFalse, Text: "The earth is round.", Points: 5, Answer: []string{"true"}},
		},
	})
	if err != nil {
		t.Fatalf("create exam: %v", err)
	}
	s.examID = ex.ID

	// Lab server: handshake.
	srv, err := client.NewClient(api)
	if err != nil {
		t.Fatal(err)
	}
	ver, _, err := srv.Exam.Sync.VerifyServer(ctx, &client.VerifyServerRequest{
		ServerCode: e2eServerCode, NPSN: e2eNPSN, HardwareID: e2eHardwareID, LicenseToken: lic.LicenseToken,
	})
	if err != nil {
		t.Fatalf("verify server: %v", err)
	}
	if ver.Status != "VERIFIED" || ver.ServerName != e2eSchool || len(ver.PackageKey) != 32 || ver.HeartbeatIntervalSeconds != 60 {
		t.Fatalf("verification = %+v", ver)
	}
	srv.SetToken(ver.AccessToken)
	s.server = srv

	// Another machine with the same server code is refused.
	_, _, err = srv.Exam.Sync.VerifyServer(ctx, &client.VerifyServerRequest{
		ServerCode: e2eServerCode, NPSN: e2eNPSN, HardwareID: "HW-OTHER", LicenseToken: lic.LicenseToken,
	})
	if !errors.Is(err, &client.Error{Code: client.CodeHardwareMismatch}) {
		t.Errorf("handshake from another machine: %v, want HARDWARE_MISMATCH", err)
	}

	// Pull the package (JSON and binary), decrypt it, check its content.
	pkg, _, err := srv.Exam.Sync.PullQuestions(ctx, e2eServerCode, "")
	if err != nil {
		t.Fatalf("pull: %v", err)
	}
	var bin bytes.Buffer
	dl, _, err := srv.Exam.Sync.DownloadPackage(ctx, e2eServerCode, &bin, nil)
	if err != nil || !dl.Verified || dl.ChecksumSHA256 != pkg.ChecksumSHA256 || !bytes.Equal(bin.Bytes(), pkg.Package) {
		t.Fatalf("binary download = %+v, %v; want the same verified bytes as the JSON pull", dl, err)
	}
	again, _, err := srv.Exam.Sync.PullQuestions(ctx, e2eServerCode, pkg.ChecksumSHA256)
	if err != nil || !again.NotModified {
		t.Errorf("pull with the current checksum: %+v, %v; want 304", again, err)
	}
	checkPackage(t, ctx, op, pkg, ver.PackageKey, ex.ID)

	// Push answers: Ani gets both right (15), Budi only q2 (5).
	answeredAt := now.Add(-10 * time.Minute)
	answers := []client.Answer{
		{ExamID: ex.ID, MemberID: s.members["ani"], QuestionID: "q1", Answer: "b", AnsweredAt: answeredAt},
		{ExamID: ex.ID, MemberID: s.members["ani"], QuestionID: "q2", Answer: "true", AnsweredAt: answeredAt},
		{ExamID: ex.ID, MemberID: s.members["budi"], QuestionID: "q1", Answer: "a", AnsweredAt: answeredAt},
		{ExamID: ex.ID, MemberID: s.members["budi"], QuestionID: "q2", Answer: "true", AnsweredAt: answeredAt},
	}
	push := &client.PushAnswersRequest{ServerCode: e2eServerCode, NPSN: e2eNPSN, Answers: answers, IdempotencyKey: "e2e-push-1"}
	rcpt, _, err := srv.Exam.Sync.PushAnswers(ctx, push)
	if err != nil || rcpt.Duplicate || rcpt.SyncID == "" {
		t.Fatalf("push = %+v, %v", rcpt, err)
	}
	dup, _, err := srv.Exam.Sync.PushAnswers(ctx, push)
	if err != nil || !dup.Duplicate || dup.SyncID != rcpt.SyncID {
		t.Errorf("repeated push = %+v, %v; want a duplicate of %s", dup, err, rcpt.SyncID)
	}

	// Heartbeat.
	hb, _, err := srv.Exam.Sync.Heartbeat(ctx, &client.HeartbeatRequest{
		ServerCode: e2eServerCode, ConnectedStudents: 2, ActiveExamsCount: 1, ClientVersion: "labagent/e2e", Status: client.MonitorOnline,
	})
	if err != nil || hb.IntervalSeconds != 60 {
		t.Fatalf("heartbeat = %+v, %v", hb, err)
	}

	// Results.
	res, _, err := op.Exam.Admin.ExamResults(ctx, ex.ID)
	if err != nil {
		t.Fatalf("results: %v", err)
	}
	if res.MaxScore != 15 {
		t.Errorf("max score %v, want 15", res.MaxScore)
	}
	scores := map[string]float64{}
	for _, r := range res.Results {
		scores[r.Username] = r.Score
	}
	if scores["ani"] != 15 || scores["budi"] != 5 || len(scores) != 2 {
		t.Errorf("scores = %v, want ani 15, budi 5", scores)
	}

	// Monitors and sync logs.
	mons, _, err := op.Exam.Admin.ListMonitors(ctx, &client.MonitorListOptions{NPSN: e2eNPSN})
	if err != nil || len(mons) != 1 || mons[0].ServerCode != e2eServerCode || mons[0].Status != client.MonitorOnline ||
		mons[0].ConnectedStudents != 2 || mons[0].ClientVersion != "labagent/e2e" {
		t.Errorf("monitors = %s, %v", jsonString(mons), err)
	}
	logs, _, err := op.Exam.Admin.ListSyncLogs(ctx, &client.SyncLogListOptions{ServerCode: e2eServerCode})
	if err != nil {
		t.Fatalf("sync logs: %v", err)
	}
	seen := map[string]bool{}
	for _, l := range logs {
		seen[l.Action+"/"+l.Outcome] = true
		if l.Action == client.ActionPushResults && l.Outcome == client.OutcomeAccepted &&
			(l.SyncID != rcpt.SyncID || l.RecordCount != 4 || l.ChecksumSHA256 != rcpt.ChecksumSHA256) {
			t.Errorf("push log = %+v, want sync id %s with 4 records", l, rcpt.SyncID)
		}
	}
	for _, want := range []string{"verify_server/accepted", "pull_data/accepted", "push_results/accepted"} {
		if !seen[want] {
			t.Errorf("sync logs lack %s: %s", want, jsonString(logs))
		}
	}

	// Directory API with an API key.
	key, _, err := op.Exam.Admin.CreateAPIKey(ctx, "e2e directory")
	if err != nil || key.Key == "" {
		t.Fatalf("create API key = %+v, %v", key, err)
	}
	dir, err := client.NewClient(api, client.WithAPIKey(key.Key))
	if err != nil {
		t.Fatal(err)
	}
	year, _, err := dir.Exam.Directory.ActiveAcademicYear(ctx)
	if err != nil || year.Name != "2025/2026" {
		t.Errorf("active academic year = %+v, %v", year, err)
	}
	found, _, err := dir.Exam.Directory.LookupMember(ctx, client.MemberLookup{NISN: "0051234562"})
	if err != nil || !found.Found || found.Member.Nama != "Budi Santoso" {
		t.Errorf("lookup = %+v, %v", found, err)
	}
	list, resp, err := dir.Exam.Directory.ListMembers(ctx, &client.MemberListOptions{Role: "siswa"})
	if err != nil || len(list) != 2 || resp.Total != 2 {
		t.Errorf("list members = %s, %v", jsonString(list), err)
	}
	return s
}

// checkPackage decrypts the pulled package and checks that it holds the
// school's students (with hashes of their exam passwords) and the exam,
// without any answer key.
func checkPackage(t *testing.T, ctx context.Context, op *client.Client, pkg *client.EncryptedPackage, key []byte, examID string) {
	t.Helper()
	dr, err := client.NewPackageDecrypter(key, bytes.NewReader(pkg.Package))
	if err != nil {
		t.Fatalf("decrypter: %v", err)
	}
	plain, err := io.ReadAll(dr)
	if err != nil {
		t.Fatalf("decrypt package: %v", err)
	}
	sum := sha256.Sum256(plain)
	if v := hex.EncodeToString(sum[:]); v != pkg.Version {
		t.Errorf("plaintext SHA-256 %s, want the package version %s", v, pkg.Version)
	}
	if bytes.Contains(plain, []byte(`"answer"`)) {
		t.Errorf("the package holds answer keys:\n%s", plain)
	}
	decoded, err := client.DecodePackage(bytes.NewReader(pkg.Package), key)
	if err != nil {
		t.Fatalf("decode package: %v", err)
	}
	if decoded.NPSN != e2eNPSN || len(decoded.Students) != 2 || len(decoded.Exams) != 1 {
		t.Fatalf("package: npsn %s, %d students, %d exams; want %s, 2 (no teacher), 1", decoded.NPSN, len(decoded.Students), len(decoded.Exams), e2eNPSN)
	}
	// Format 3: the questions are blobs, fetched apart.
	if err := op.Exam.Sync.FetchContent(ctx, decoded); err != nil { // no credential needed
		t.Fatalf("fetch the questions: %v", err)
	}
	if e := decoded.Exams[0]; e.ID != examID || len(e.Questions) != 2 || e.Questions[0].ID != "q1" || len(e.Questions[0].Options) != 2 {
		t.Errorf("package exam = %s", jsonString(e))
	}
	cards, _, err := op.Exam.Admin.LoginCards(ctx, e2eNPSN)
	if err != nil || len(cards) != 2 {
		t.Fatalf("login cards = %s, %v", jsonString(cards), err)
	}
	passwords := map[string]string{}
	for _, c := range cards {
		passwords[c.Username] = c.ExamPassword
	}
	for _, st := range decoded.Students {
		if !labwire.CheckExamPassword(st.PasswordHash, passwords[st.Username]) {
			t.Errorf("student %s: password hash does not match the login card's password", st.Username)
		}
	}
}

// checkShutdownFinishesInFlight starts a push whose body is still being
// sent, sends SIGTERM, checks that the portal stops accepting connections
// but completes the push, and exits 0 after closing the store.
//
// The request is written by hand with "Expect: 100-continue": the portal's
// "100 Continue" proves that the handler is running and reading the body
// before the signal is sent.
func checkShutdownFinishesInFlight(t *testing.T, p *portalProc, s *scenario) {
	t.Helper()
	answers, _ := json.Marshal([]map[string]string{{
		"exam_id": s.examID, "member_id": s.members["budi"], "question_id": "q1",
		"answer": "b", "answered_at": time.Now().UTC().Format(time.RFC3339),
	}})
	sum := sha256.Sum256(answers)
	body := fmt.Sprintf(`{"server_code":%q,"npsn":%q,"checksum_sha256":%q,"total_records":1,"answers":%s}`,
		e2eServerCode, e2eNPSN, hex.EncodeToString(sum[:]), answers)
	half := len(body) / 2

	conn, err := net.DialTimeout("tcp", p.Addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute))
	fmt.Fprintf(conn, "POST /api/v1/sync/push-answers HTTP/1.1\r\nHost: %s\r\n"+
		"Content-Type: application/json\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n"+
		"Expect: 100-continue\r\nConnection: close\r\n\r\n", p.Addr, s.server.Token(), len(body))
	br := bufio.NewReader(conn)
	status, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(status, "HTTP/1.1 100") {
		t.Fatalf("want 100 Continue before the body, got %q, %v", status, err)
	}
	if blank, err := br.ReadString('\n'); err != nil || blank != "\r\n" {
		t.Fatalf("after 100 Continue: %q, %v", blank, err)
	}
	if _, err := io.WriteString(conn, body[:half]); err != nil {
		t.Fatalf("write first half: %v", err)
	}

	p.Signal(syscall.SIGTERM)
	p.WaitLog("shutting down", 30*time.Second)
	// New connections are refused once the listener is closed.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", p.Addr, time.Second)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("the portal still accepts connections after SIGTERM")
		}
		time.Sleep(20 * time.Millisecond)
	}
	select {
	case <-p.Done():
		t.Fatalf("the portal exited with a request in flight\n%s", p.Output())
	case <-time.After(300 * time.Millisecond):
	}

	if _, err := io.WriteString(conn, body[half:]); err != nil {
		t.Fatalf("write second half: %v", err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("in-flight push: no answer: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"success":true`) {
		t.Errorf("in-flight push: status %d, body %s; want 200", resp.StatusCode, b)
	}
	if code := p.Wait(60 * time.Second); code != 0 {
		t.Fatalf("exit status %d after SIGTERM, want 0\n%s", code, p.Output())
	}
	for _, msg := range []string{"server stopped", "store closed"} {
		if p.FindLog(msg) == nil {
			t.Errorf("no %q log line", msg)
		}
	}
}

// jsonString renders v for failure messages.
func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
