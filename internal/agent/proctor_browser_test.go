//go:build !windows

package agent_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seedhq/portal/internal/agent/examsrv"
	"github.com/seedhq/portal/internal/agent/webui"
	"github.com/seedhq/portal/internal/testkit/browsertest"
)

// TestBrowserProctorLastContact: the proctor page of a lab server that
// pushed answers seven minutes after its handshake with a real portal
// shows, in Chromium, the push as its last contact with the portal (its
// time and kind), and the handshake apart; at 1280 and 390 px.
func TestBrowserProctorLastContact(t *testing.T) {
	execPath := browsertest.Find(t, "the proctor page")
	f := newFixture(t, fixtureOptions{})
	s, st := pushAfterHandshake(t, f, 7*time.Minute)
	srv, err := examsrv.New(t.Context(), examsrv.Options{DB: f.db, Now: s.Now, ServerCode: f.cfg.ServerCode, SchoolName: f.cfg.SchoolName,
		ProctorPassword: "proctor-secret", SyncStatus: func() any { return s.Status() }, Static: webui.FS()})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)

	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	for _, width := range []int64{1280, 390} {
		bctx, stop := browsertest.New(ctx, execPath, 1280, 900)
		defer stop()
		steps := []chromedp.Action[chromedp.Void]{
			chromedp.EmulateViewport(width, 900),
			chromedp.Navigate(hs.URL + "/proctor"),
			chromedp.WaitVisible(chromedp.ID("proctor-login-form")),
			chromedp.SendKeys(chromedp.ID("proctor-password"), "proctor-secret"),
			chromedp.Click(chromedp.ID("proctor-login-submit")),
			chromedp.WaitVisible(chromedp.CSS(`#sync-state dd[data-field="last_contact_at"]`)),
		}
		if err := chromedp.Do(bctx, steps...); err != nil {
			t.Fatalf("%d px: sign in to the proctor page: %v", width, err)
		}
		contact, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(`#sync-state dd[data-field="last_contact_at"]`)))
		if err != nil {
			t.Fatal(err)
		}
		handshake, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS(`#sync-state dd[data-field="last_handshake_at"]`)))
		if err != nil {
			t.Fatal(err)
		}
		clock := func(at time.Time) string { return at.Local().Format("15:04:05") }
		if !strings.Contains(contact, clock(st.LastContactAt)+" (kirim jawaban, baru saja)") {
			t.Fatalf("%d px: last contact shows %q, want %s (kirim jawaban, baru saja)", width, contact, clock(st.LastContactAt))
		}
		if !strings.Contains(handshake, clock(st.LastHandshakeAt)+" (7 mnt lalu)") {
			t.Fatalf("%d px: the handshake shows %q, want %s (7 mnt lalu)", width, handshake, clock(st.LastHandshakeAt))
		}
		if fits, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`document.scrollingElement.scrollWidth <= window.innerWidth`)); err != nil || !fits {
			t.Fatalf("%d px: the proctor page scrolls sideways (%v)", width, err)
		}
		name := "proctor-sync"
		if width < 500 {
			name += "-phone"
		}
		proctorShot(t, bctx, name)
	}
}

// proctorShot saves the proctor page, scrolled to its sync state, as
// docs/labagent/<name>.png when UPDATE_SCREENSHOTS=1.
func proctorShot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if os.Getenv("UPDATE_SCREENSHOTS") != "1" {
		return
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.getElementById('sync-state').scrollIntoView(), 0`)); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("..", "..", "docs", "labagent", name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
