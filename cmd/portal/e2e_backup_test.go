package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/pkg/client"
)

// backupLine is what "portal backup" prints.
var backupLine = regexp.MustCompile(`^backup written to (\S+): (\d+) bytes(?: \([^)]*\))?, sha256 ([0-9a-f]{64}), in \S+\n$`)

// TestBackupRestoreBolt takes "portal backup" of a running portal on the
// embedded store while a marketer keeps adding links, then starts a new
// portal on the copy alone (no package blobs, no other file): the exam,
// link and ordering data are there, the lab server's token still works and
// its package is built again, and the links acknowledged before the backup
// began are all in it.
func TestBackupRestoreBolt(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the portal binary; skipped with -short")
	}
	ctx := t.Context()
	dataDir := filepath.Join(t.TempDir(), "data")
	p := mustStartPortal(t, dataDir, nil, "--ordering-owner-number", "0811-0000-001")
	password := mustReadAdminPassword(t, p)
	s := runScenario(t, p, password)
	runLinksScenario(t, p, password)
	runOrderingScenario(t, p)

	// A marketer adds links without pause while the backup is taken.
	u, _, err := s.operator.Exam.Admin.CreateLinkUser(ctx, &client.LinkUserRequest{Email: "bowo@example.com", Username: "bowo", RateLimit: 100000})
	if err != nil {
		t.Fatalf("CreateLinkUser: %v", err)
	}
	marketer, err := client.NewClient(p.URL, client.WithLinkKey(u.Key))
	if err != nil {
		t.Fatal(err)
	}
	var acked atomic.Int64 // links 1..acked were answered
	stop := make(chan struct{})
	var writer sync.WaitGroup
	writer.Go(func() {
		for i := int64(1); ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, _, err := marketer.Links.URLs.Add(ctx, &client.LinkURLRequest{
				URL: fmt.Sprintf("https://example.org/w/%d", i), Custom: fmt.Sprintf("w-%d", i)}); err != nil {
				t.Errorf("add link w-%d during the backup: %v", i, err)
				return
			}
			acked.Store(i)
		}
	})
	waitBackupWriter(t, "the writer's first links", func() bool { return acked.Load() >= 5 })

	// The file of a running portal is locked: the command says to use --url.
	outDir := t.TempDir()
	res := runPortal(t, nil, "", "backup", "--data-dir", dataDir, "--output", filepath.Join(outDir, "direct.db"))
	if res.Code != 1 || !strings.Contains(res.Stderr, "a portal is running on this data directory") || !strings.Contains(res.Stderr, "--url") {
		t.Errorf("backup --data-dir of a running portal: exit %d\n%s", res.Code, res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(outDir, "direct.db")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed backup left its file: %v", err)
	}

	backup := filepath.Join(outDir, "portal-backup.db")
	before := acked.Load()
	res = runPortal(t, []string{"PORTAL_ADMIN_PASSWORD=" + password}, "", "backup", "--url", p.URL, "--output", backup)
	after := acked.Load()
	close(stop)
	writer.Wait()
	if res.Code != 0 {
		t.Fatalf("backup: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	checkBackupFile(t, res.Stdout, backup)
	if m := p.FindLog("backup taken"); m == nil || m["operator"] != "admin" {
		t.Errorf("no backup taken log line: %v", m)
	}
	if left, _ := filepath.Glob(filepath.Join(outDir, ".*.tmp")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	t.Logf("links acknowledged: %d when the backup began, %d when it ended", before, after)
	p.Stop()

	// A stopped portal's file is copied directly, to the same content.
	direct := filepath.Join(outDir, "direct.db")
	res = runPortal(t, nil, "", "backup", "--data-dir", dataDir, "--output", direct)
	if res.Code != 0 {
		t.Fatalf("backup --data-dir: exit %d\n%s", res.Code, res.Stderr)
	}
	checkBackupFile(t, res.Stdout, direct)

	// Restore: the copy alone, in a new data directory.
	restored := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(restored, 0o700); err != nil {
		t.Fatal(err)
	}
	copyFile(t, backup, filepath.Join(restored, boltFileName))
	p2 := mustStartPortal(t, restored, nil, "--ordering-owner-number", "0811-0000-001")
	if p2.FindLog("created the first operator account with a generated password; read it from the file, then change or delete it") != nil {
		t.Error("the restored portal created an operator account")
	}
	checkRestored(t, p2, s, password)

	c2, err := client.NewClient(p2.URL, client.WithLinkKey(u.Key))
	if err != nil {
		t.Fatal(err)
	}
	present := int64(0)
	for i := int64(1); i <= after+1; i++ {
		code := redirectStatus(t, p2.URL+fmt.Sprintf("/w-%d", i))
		if code == http.StatusFound {
			if present != i-1 {
				t.Errorf("link w-%d is in the backup but w-%d is not", i, present+1)
			}
			present = i
		}
	}
	t.Logf("the backup holds links w-1..w-%d", present)
	if present < before || present > after+1 {
		t.Errorf("the backup holds links w-1..w-%d; want at least the %d acknowledged before it began, at most the %d after", present, before, after)
	}
	// The marketer's key is in the backup too.
	if _, _, err := c2.Links.URLs.List(ctx, nil); err != nil {
		t.Errorf("marketer's key on the restored portal: %v", err)
	}
	p2.Stop()
}

// TestBackupRestorePostgres takes a pg_dump -Fc of a running portal's
// database, restores it with pg_restore into a fresh database and starts a
// portal on it, which serves the data. "portal backup" refuses PostgreSQL
// with a pointer to pg_dump.
func TestBackupRestorePostgres(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the portal binary; skipped with -short")
	}
	pgDump, pgRestore := pgTool(t, "pg_dump"), pgTool(t, "pg_restore")
	dbURL := pgtest.NewDatabase(t)
	const password = "backup-postgres-Password"
	env := []string{"PORTAL_ADMIN_PASSWORD=" + password}
	p := mustStartPortal(t, filepath.Join(t.TempDir(), "data"), env, "--database-url", dbURL,
		"--ordering-owner-number", "0811-0000-001")
	s := runScenario(t, p, password)
	runLinksScenario(t, p, password)
	runOrderingScenario(t, p)

	out := filepath.Join(t.TempDir(), "x.db")
	for _, args := range [][]string{
		{"backup", "--url", p.URL, "--output", out},
		{"backup", "--database-url", dbURL, "--output", out},
	} {
		res := runPortal(t, env, "", args...)
		if res.Code != 1 || !strings.Contains(res.Stderr, "pg_dump -Fc") {
			t.Errorf("%v: exit %d, want 1 naming pg_dump -Fc\n%s", args[:2], res.Code, res.Stderr)
		}
	}

	dump := filepath.Join(t.TempDir(), "portal.dump")
	if b, err := exec.CommandContext(t.Context(), pgDump, "-Fc", "--file", dump, "--dbname", dbURL).CombinedOutput(); err != nil {
		t.Fatalf("pg_dump: %v\n%s", err, b)
	}
	p.Stop()

	fresh := pgtest.NewDatabase(t)
	if b, err := exec.CommandContext(t.Context(), pgRestore, "--no-owner", "--exit-on-error", "--dbname", fresh, dump).CombinedOutput(); err != nil {
		t.Fatalf("pg_restore: %v\n%s", err, b)
	}
	res := runPortal(t, nil, "", "migrate", "--database-url", fresh)
	if res.Code != 0 || !strings.Contains(res.Stdout, "the schema is up to date") {
		t.Fatalf("migrate on the restored database: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	p2 := mustStartPortal(t, filepath.Join(t.TempDir(), "data"), nil, "--database-url", fresh,
		"--ordering-owner-number", "0811-0000-001")
	checkRestored(t, p2, s, password)
	p2.Stop()
}

// checkRestored checks that p, started on a restored store, serves what the
// scenarios wrote before the backup: the operator, the exam's results, the
// lab server's session and package, a short link and the paid order.
func checkRestored(t *testing.T, p *portalProc, s *scenario, password string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	op := mustOperatorClient(t, p.URL, "admin", password)
	res, _, err := op.Exam.Admin.ExamResults(ctx, s.examID)
	if err != nil || len(res.Results) != 2 {
		t.Errorf("results on the restored portal: %+v, %v; want 2 students", res, err)
	}
	// The lab server's access token was signed with the JWT secret in the
	// store; its package is built again from the restored data.
	srv, err := client.NewClient(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	srv.SetToken(s.server.Token())
	var bin bytes.Buffer
	dl, _, err := srv.Exam.Sync.DownloadPackage(ctx, e2eServerCode, &bin, nil)
	if err != nil || !dl.Verified || bin.Len() == 0 {
		t.Errorf("package pull on the restored portal: %+v, %v", dl, err)
	}
	if code := redirectStatus(t, p.URL+"/promo-e2e"); code != http.StatusFound {
		t.Errorf("GET /promo-e2e on the restored portal: %d, want 302", code)
	}
	today := time.Now().In(mustLoadLocation(t, "Asia/Jakarta")).Format("2006-01-02")
	if ledger, _, err := op.Ordering.Admin.Ledger(ctx, today, today); err != nil || ledger.Total != 18000 {
		t.Errorf("ledger on the restored portal: %+v, %v; want the paid order of 18000", ledger, err)
	}
}

// checkBackupFile checks the line "portal backup" printed against the file.
func checkBackupFile(t *testing.T, stdout, path string) {
	t.Helper()
	m := backupLine.FindStringSubmatch(stdout)
	if m == nil || m[1] != path {
		t.Fatalf("backup printed %q, want %q", stdout, "backup written to "+path+": N bytes (...), sha256 ...")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if m[2] != fmt.Sprint(len(b)) || m[3] != hex.EncodeToString(sum[:]) {
		t.Errorf("backup printed size %s sha256 %s; the file has %d bytes, sha256 %x", m[2], m[3], len(b), sum)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("backup file mode: %v, %v; want 0600", st.Mode().Perm(), err)
	}
}

// redirectStatus returns the status of GET url, not following redirects.
func redirectStatus(t *testing.T, url string) int {
	t.Helper()
	hc := &http.Client{Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("User-Agent", browserUA)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// copyFile copies src to dst, mode 0600.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// waitBackupWriter polls cond for up to 30 s.
func waitBackupWriter(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pgTool returns the path of a PostgreSQL client program: on PATH, else in
// /usr/lib/postgresql/<version>/bin (the newest); the test is skipped
// without it, or fails with CI=true.
func pgTool(t *testing.T, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if ms, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name); len(ms) > 0 {
		return ms[len(ms)-1]
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not installed", name)
	}
	t.Skipf("%s is not installed", name)
	return ""
}
