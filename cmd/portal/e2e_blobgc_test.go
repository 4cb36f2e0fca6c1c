package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seedhq/portal/pkg/client"
)

// TestBlobGCCommand: "portal admin blobs gc" through the real binary: a QR
// code's logo, once the code is deleted, is found unreferenced and marked
// by a collection; --dry-run prints what the collection sees and changes
// nothing; --output json carries the same report; a collection logs its
// summary.
func TestBlobGCCommand(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the portal binary; skipped with -short")
	}
	ctx := t.Context()
	p := mustStartPortal(t, filepath.Join(t.TempDir(), "data"), nil, "--blob-gc-interval", "0")
	password := mustReadAdminPassword(t, p)
	env := []string{"PORTAL_ADMIN_PASSWORD=" + password}

	operator, err := client.NewClient(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	login, _, err := operator.Exam.Auth.Login(ctx, "admin", password)
	if err != nil {
		t.Fatal(err)
	}
	operator.SetToken(login.Token)
	u, _, err := operator.Exam.Admin.CreateLinkUser(ctx, &client.LinkUserRequest{Email: "ani@example.com", Username: "ani", RateLimit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	marketer, err := client.NewClient(p.URL, client.WithLinkKey(u.Key))
	if err != nil {
		t.Fatal(err)
	}
	var logo bytes.Buffer
	if err := png.Encode(&logo, image.NewGray(image.Rect(0, 0, 8, 8))); err != nil {
		t.Fatal(err)
	}
	uri := "data:image/png;base64," + base64.StdEncoding.EncodeToString(logo.Bytes())
	q, _, err := marketer.Links.QR.Add(ctx, &client.LinkQRRequest{Type: client.LinkQRText, Data: "hello", Logo: &uri})
	if err != nil {
		t.Fatal(err)
	}

	gc := func(args ...string) client.BlobGCReport {
		t.Helper()
		res := runPortal(t, env, "", append([]string{"admin", "blobs", "gc", "--url", p.URL, "--output", "json"}, args...)...)
		if res.Code != 0 {
			t.Fatalf("portal admin blobs gc %s: exit %d\n%s%s", strings.Join(args, " "), res.Code, res.Stdout, res.Stderr)
		}
		var rep client.BlobGCReport
		if err := json.Unmarshal([]byte(res.Stdout), &rep); err != nil {
			t.Fatalf("portal admin blobs gc --output json: %v\n%s", err, res.Stdout)
		}
		return rep
	}
	if rep := gc(); rep.Listed != 1 || rep.Referenced != 1 || rep.Marked != 0 || len(rep.Deleted) != 0 {
		t.Fatalf("collection with the logo in use: %+v", rep)
	}
	if _, err := marketer.Links.QR.Delete(ctx, q.ID); err != nil {
		t.Fatal(err)
	}
	// A dry run sees the logo unreferenced and marks nothing: twice the same.
	for range 2 {
		res := runPortal(t, env, "", "admin", "blobs", "gc", "--dry-run", "--url", p.URL, "--output", "table")
		if res.Code != 0 || !strings.Contains(res.Stdout, "listed 1, referenced 0, newly unreferenced 1") ||
			!strings.Contains(res.Stdout, "would delete (dry run, nothing changed) 0 (0 bytes)") {
			t.Fatalf("portal admin blobs gc --dry-run: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
		}
	}
	if rep := gc(); rep.Marked != 1 || rep.Referenced != 0 || len(rep.Deleted) != 0 || rep.DryRun {
		t.Fatalf("collection after the code was deleted: %+v", rep)
	}
	// Marked once: within the retention it waits.
	if rep := gc("--dry-run"); rep.Marked != 0 || rep.Waiting != 1 || !rep.DryRun {
		t.Fatalf("dry run after the mark: %+v", rep)
	}
	var summaries []map[string]any
	for _, m := range p.LogLines() {
		if m["msg"] == "blob gc done" {
			summaries = append(summaries, m)
		}
	}
	if len(summaries) != 5 || summaries[3]["marked"] != float64(1) || summaries[3]["dry_run"] != false ||
		summaries[3]["listed"] != float64(1) || summaries[3]["bytes_freed"] != float64(0) {
		t.Errorf("summary log lines of the collections: %v", summaries)
	}
}
