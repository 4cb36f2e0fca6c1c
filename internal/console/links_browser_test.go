package console_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
)

// TestBrowserMarketer drives the marketers' pages in headless Chromium on
// both stores:
// sign-in with the password, a short link created through the form and
// listed, its statistics with their charts, the QR designer's live
// preview, and the pages at a phone's width without sideways scrolling.
func TestBrowserMarketer(t *testing.T) {
	forEachStore(t, browseMarketer)
}

func browseMarketer(t *testing.T, kind string) {
	chrome := newHeadless(t, "the marketers' console", 90*time.Second)
	p := newPortal(t, onStore(kind))
	desk := chrome.tab(1200, 900)
	desk.do("sign in", p.marketerSignInSteps()...)
	desk.do("create a link",
		chromedp.Navigate(p.srv.URL+"/console/links/new"),
		chromedp.WaitVisible(chromedp.ID("url")),
		chromedp.SendKeys(chromedp.ID("url"), "https://example.com/summer-sale"),
		chromedp.SendKeys(chromedp.ID("alias"), "summer"),
		chromedp.SendKeys(chromedp.ID("title"), "Summer sale"),
		chromedp.Submit(chromedp.ID("url")),
		chromedp.WaitVisible(chromedp.ID("created")),
	)
	short, err := chromedp.Run(desk.ctx, chromedp.Value(chromedp.ID("created")))
	if err != nil || short != "https://s.example/summer" {
		t.Fatalf("created short link %q (%v)", short, err)
	}
	listed, err := chromedp.Run(desk.ctx, chromedp.Text(chromedp.CSS("table")))
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
	desk.do("statistics", chromedp.Navigate(p.srv.URL+"/console/links/"+fmtID(id)+"/stats"), chromedp.WaitVisible(chromedp.CSS("section.days svg")))
	charts, err := chromedp.Run(desk.ctx, chromedp.Evaluate[int](`document.querySelectorAll('svg rect').length`))
	if err != nil || charts < 20 {
		t.Fatalf("the statistics draw %d bars (%v)", charts, err)
	}
	desk.shot("links-stats")

	desk.do("QR designer",
		chromedp.Navigate(p.srv.URL+"/console/links/qr/new?type=wifi"),
		chromedp.WaitVisible(chromedp.ID("d_ssid")),
		chromedp.SendKeys(chromedp.ID("name"), "Office Wi-Fi"),
		chromedp.SendKeys(chromedp.ID("d_ssid"), "Office"),
		chromedp.SendKeys(chromedp.ID("d_password"), "s3cret-pass"),
	)
	width, err := chromedp.Run(desk.ctx, chromedp.Evaluate[int](`new Promise(function (done) {
		var t = setInterval(function () {
			var i = document.getElementById('qr-preview');
			if (i.src.indexOf('blob:') === 0 && i.complete && i.naturalWidth > 0) { clearInterval(t); done(i.naturalWidth); }
		}, 100);
	})`, chromedp.EvalAwaitPromise))
	if err != nil || width != 320 {
		t.Fatalf("the live preview is %d pixels wide (%v)", width, err)
	}
	desk.shot("links-qr")
	desk.do("save the QR code", chromedp.Click(chromedp.CSS(`#qr-form button:not([name])`)), chromedp.WaitVisible(chromedp.CSS(`a[href$="download.svg"]`)))

	// A phone: no page scrolls sideways (wide tables scroll in their box).
	phone := chrome.tab(375, 800)
	phone.do("phone", p.marketerSignInSteps()...)
	for _, path := range []string{"/console/links/", "/console/links/" + fmtID(id) + "/stats", "/console/links/qr/new?type=vcard",
		"/console/links/campaigns", "/console/links/new"} {
		phone.do("phone "+path, chromedp.Navigate(p.srv.URL+path), chromedp.WaitVisible(chromedp.CSS("h1")))
		if fits, err := phone.fits(); err != nil || !fits {
			t.Errorf("at a phone's width %s scrolls sideways (%v)", path, err)
		}
		if path == "/console/links/" {
			phone.shot("links-phone")
		}
	}
}
