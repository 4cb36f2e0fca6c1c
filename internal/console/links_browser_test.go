package console_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
	"github.com/seedhq/portal/internal/testkit"
)

// marketerSignInSteps signs ana in through the password form.
func marketerSignInSteps(base string) []chromedp.Action[chromedp.Void] {
	return []chromedp.Action[chromedp.Void]{
		chromedp.Navigate(base + "/console/links/"),
		chromedp.WaitVisible(chromedp.ID("login")),
		chromedp.SendKeys(chromedp.ID("login"), "ana"),
		chromedp.SendKeys(chromedp.ID("password"), marketerPassword),
		chromedp.Submit(chromedp.ID("password")),
		chromedp.WaitVisible(chromedp.CSS("form.filters")),
	}
}

// TestBrowserMarketer drives the marketers' pages in headless Chromium:
// sign-in with the password, a short link created through the form and
// listed, its statistics with their charts, the QR designer's live
// preview, and the pages at a phone's width without sideways scrolling.
func TestBrowserMarketer(t *testing.T) {
	execPath := testkit.FindBrowser(t, "the marketers' console")
	p := newLinkPortal(t, linkStores[0].open(t))
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	bctx, stop := testkit.NewBrowser(ctx, execPath, 1200, 900)
	defer stop()
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(bctx, steps...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	do("sign in", marketerSignInSteps(p.srv.URL)...)
	do("create a link",
		chromedp.Navigate(p.srv.URL+"/console/links/new"),
		chromedp.WaitVisible(chromedp.ID("url")),
		chromedp.SendKeys(chromedp.ID("url"), "https://example.com/summer-sale"),
		chromedp.SendKeys(chromedp.ID("alias"), "summer"),
		chromedp.SendKeys(chromedp.ID("title"), "Summer sale"),
		chromedp.Submit(chromedp.ID("url")),
		chromedp.WaitVisible(chromedp.ID("created")),
	)
	short, err := chromedp.Run(bctx, chromedp.Value(chromedp.ID("created")))
	if err != nil || short != "https://s.example/summer" {
		t.Fatalf("created short link %q (%v)", short, err)
	}
	listed, err := chromedp.Run(bctx, chromedp.Text(chromedp.CSS("table")))
	if err != nil || !strings.Contains(listed, "Summer sale") {
		t.Fatalf("the list shows %q (%v)", listed, err)
	}

	l, err := p.links.ListLinks(t.Context(), p.ana.ID, links.LinkFilter{Search: "summer"}, links.Page{})
	if err != nil || l.Total != 1 {
		t.Fatalf("stored links: %d (%v)", l.Total, err)
	}
	id := l.Items[0].ID
	now := time.Now().UTC()
	var vs []visits.Visit
	for i, c := range []struct{ country, browser, os, device, ref string }{
		{"ID", "Chrome", "Android", visits.DeviceMobile, "instagram.com"}, {"ID", "Chrome", "Android", visits.DeviceMobile, ""},
		{"ID", "Safari", "iOS", visits.DeviceMobile, "facebook.com"}, {"SG", "Chrome", "Windows", visits.DeviceDesktop, "google.com"},
		{"MY", "Firefox", "Linux", visits.DeviceDesktop, ""}, {"ID", "Safari", "iOS", visits.DeviceTablet, "instagram.com"},
	} {
		for d := range i + 1 {
			vs = append(vs, visits.Visit{Kind: visits.KindLink, ID: id, OwnerID: p.ana.ID, At: now.AddDate(0, 0, -3*d-i),
				Country: c.country, Browser: c.browser, OS: c.os, Device: c.device, Referrer: c.ref})
		}
	}
	if err := p.store.SaveVisits(t.Context(), vs); err != nil {
		t.Fatal(err)
	}
	do("statistics", chromedp.Navigate(p.srv.URL+"/console/links/"+fmtID(id)+"/stats"), chromedp.WaitVisible(chromedp.CSS("section.days svg")))
	charts, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll('svg rect').length`))
	if err != nil || charts < 20 {
		t.Fatalf("the statistics draw %d bars (%v)", charts, err)
	}
	shot(t, bctx, "links-stats")

	do("QR designer",
		chromedp.Navigate(p.srv.URL+"/console/links/qr/new?type=wifi"),
		chromedp.WaitVisible(chromedp.ID("d_ssid")),
		chromedp.SendKeys(chromedp.ID("name"), "Office Wi-Fi"),
		chromedp.SendKeys(chromedp.ID("d_ssid"), "Office"),
		chromedp.SendKeys(chromedp.ID("d_password"), "s3cret-pass"),
	)
	width, err := chromedp.Run(bctx, chromedp.Evaluate[int](`new Promise(function (done) {
		var t = setInterval(function () {
			var i = document.getElementById('qr-preview');
			if (i.src.indexOf('blob:') === 0 && i.complete && i.naturalWidth > 0) { clearInterval(t); done(i.naturalWidth); }
		}, 100);
	})`, chromedp.EvalAwaitPromise))
	if err != nil || width != 320 {
		t.Fatalf("the live preview is %d pixels wide (%v)", width, err)
	}
	shot(t, bctx, "links-qr")
	do("save the QR code", chromedp.Click(chromedp.CSS(`#qr-form button:not([name])`)), chromedp.WaitVisible(chromedp.CSS(`a[href$="download.svg"]`)))

	// A phone: no page scrolls sideways (wide tables scroll in their box).
	phone, stopPhone := testkit.NewBrowser(ctx, execPath, 375, 800)
	defer stopPhone()
	if err := chromedp.Do(phone, marketerSignInSteps(p.srv.URL)...); err != nil {
		t.Fatalf("phone: %v", err)
	}
	for _, path := range []string{"/console/links/", "/console/links/" + fmtID(id) + "/stats", "/console/links/qr/new?type=vcard",
		"/console/links/campaigns", "/console/links/new"} {
		if err := chromedp.Do(phone, chromedp.Navigate(p.srv.URL+path), chromedp.WaitVisible(chromedp.CSS("h1"))); err != nil {
			t.Fatalf("phone %s: %v", path, err)
		}
		overflow, err := chromedp.Run(phone, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
		if err != nil || overflow {
			t.Errorf("at a phone's width %s scrolls sideways (%v)", path, err)
		}
		if path == "/console/links/" {
			shot(t, phone, "links-phone")
		}
	}
}
