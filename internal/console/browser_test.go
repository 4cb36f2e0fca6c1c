package console_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seedhq/portal/internal/testkit"
)

// screenshots: with UPDATE_SCREENSHOTS=1 the browser test saves the main
// pages into docs/console/ (the README shows them).
var screenshots = os.Getenv("UPDATE_SCREENSHOTS") == "1"

func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if !screenshots {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("..", "..", "docs", "console", name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// signInSteps signs in through the form.
func signInSteps(base string) []chromedp.Action[chromedp.Void] {
	return []chromedp.Action[chromedp.Void]{
		chromedp.Navigate(base + "/console/"),
		chromedp.WaitVisible(chromedp.ID("username")),
		chromedp.SendKeys(chromedp.ID("username"), "admin"),
		chromedp.SendKeys(chromedp.ID("password"), password),
		chromedp.Submit(chromedp.ID("password")),
		chromedp.WaitVisible(chromedp.CSS("form.filters")),
	}
}

// TestBrowserOperator drives the console in headless Chromium: sign-in,
// the fleet, a licence generated through the form, a form post without
// its token refused, and the licences page at a phone's width without
// sideways scrolling of the page.
func TestBrowserOperator(t *testing.T) {
	execPath := testkit.FindBrowser(t, "the console")
	srv, _ := newPortal(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	bctx, stop := testkit.NewBrowser(ctx, execPath, 1200, 900)
	defer stop()
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	do("sign in", signInSteps(srv.URL)...)
	h1, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS("h1")))
	if err != nil || h1 != "Fleet of lab servers" {
		t.Fatalf("after sign-in the page says %q (%v)", h1, err)
	}
	shot(t, bctx, "fleet")
	do("generate a licence",
		chromedp.Navigate(srv.URL+"/console/licenses"),
		chromedp.WaitVisible(chromedp.ID("npsn")),
		chromedp.SendKeys(chromedp.ID("npsn"), "20100001"),
		chromedp.SendKeys(chromedp.ID("school"), "SMA Negeri 1 Contoh"),
		chromedp.SendKeys(chromedp.ID("hardware_id"), "HW-0001"),
		chromedp.Submit(chromedp.ID("hardware_id")),
		chromedp.WaitVisible(chromedp.ID("token")),
	)
	token, err := chromedp.Run(bctx, chromedp.Value(chromedp.ID("token")))
	if err != nil || len(token) < 40 {
		t.Fatalf("licence token %q (%v)", token, err)
	}
	shot(t, bctx, "licenses")
	status, err := chromedp.Run(bctx, chromedp.Evaluate[int](`fetch('/console/licenses', {method: 'POST',
		headers: {'Content-Type': 'application/x-www-form-urlencoded'},
		body: 'npsn=20100002&school=X&hardware_id=HW-2&max_students=1&duration_days=1&operating_mode=ONLINE'}).then(r => r.status)`,
		chromedp.EvalAwaitPromise))
	if err != nil || status != 403 {
		t.Fatalf("a form post without its token: %d (%v), want 403", status, err)
	}

	// A phone: the page itself never scrolls sideways (wide tables scroll
	// in their own box).
	phone, stopPhone := testkit.NewBrowser(ctx, execPath, 375, 800)
	defer stopPhone()
	if err := chromedp.Do(phone, append(signInSteps(srv.URL), chromedp.Navigate(srv.URL+"/console/licenses"),
		chromedp.WaitVisible(chromedp.ID("npsn")))...); err != nil {
		t.Fatalf("phone: %v", err)
	}
	overflow, err := chromedp.Run(phone, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
	if err != nil || overflow {
		t.Fatalf("at a phone's width the page scrolls sideways (%v)", err)
	}
	shot(t, phone, "licenses-phone")
}
