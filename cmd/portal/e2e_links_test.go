package main

import (
	"bytes"
	"image/png"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"

	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/pkg/client"
)

// browserUA is a browser's user agent: visits of HTTP libraries count as
// bots and are left out of the statistics.
const browserUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36"

// TestLinksEndToEndBolt runs the redirector through the real binary on the
// embedded store.
func TestLinksEndToEndBolt(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(t.TempDir(), "data")
	const password = "e2e-links-Password"
	p := mustStartPortal(t, dataDir, []string{"PORTAL_ADMIN_PASSWORD=" + password})
	runLinksScenario(t, p, password)
	checkLinkMetrics(t, p)
	p.Stop()
	if m := p.FindLog("visit recorder stopped"); m == nil {
		t.Error("no \"visit recorder stopped\" log line at shutdown")
	}
}

// TestLinksEndToEndPostgres runs the redirector through the real binary on
// a fresh PostgreSQL database.
func TestLinksEndToEndPostgres(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the portal binary; skipped with -short")
	}
	dbURL := pgtest.NewDatabase(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	const password = "e2e-links-Password"
	p := mustStartPortal(t, dataDir, []string{"PORTAL_ADMIN_PASSWORD=" + password}, "--database-url", dbURL)
	runLinksScenario(t, p, password)
	checkLinkMetrics(t, p)
	p.Stop()
}

// runLinksScenario creates a link user, a short link and a link QR code
// through the API, follows them through the redirector and waits for the
// statistics to count the click and the scan.
func runLinksScenario(t *testing.T, p *portalProc, password string) {
	t.Helper()
	ctx := t.Context()
	api := p.apiURL(t)
	op := mustOperatorClient(t, api, "admin", password)
	u, _, err := op.Exam.Admin.CreateLinkUser(ctx, &client.LinkUserRequest{Email: "ana@example.com", Username: "ana"})
	if err != nil {
		t.Fatalf("CreateLinkUser: %v", err)
	}
	c, err := client.NewClient(api, client.WithLinkKey(u.Key))
	if err != nil {
		t.Fatal(err)
	}
	const longURL = "https://example.org/landing?utm=e2e"
	l, _, err := c.Links.URLs.Add(ctx, &client.LinkURLRequest{URL: longURL, Custom: "promo-e2e"})
	if err != nil {
		t.Fatalf("add short link: %v", err)
	}
	if want := p.URL + "/promo-e2e"; l.ShortURL != want {
		t.Errorf("shorturl = %q, want %q", l.ShortURL, want)
	}
	const qrURL = "https://example.org/from-qr"
	q, _, err := c.Links.QR.Add(ctx, &client.LinkQRRequest{Type: client.LinkQRLink, Data: qrURL, Name: "poster"})
	if err != nil {
		t.Fatalf("add QR code: %v", err)
	}

	hc := &http.Client{
		Timeout:       10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	get := func(path string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("User-Agent", browserUA)
		req.Header.Set("Referer", "https://news.example.com/article")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}

	resp, _ := get("/promo-e2e")
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != longURL {
		t.Fatalf("GET /promo-e2e: %d to %q, want 302 to %q", resp.StatusCode, resp.Header.Get("Location"), longURL)
	}
	if cc := resp.Header.Get("Cache-Control"); !strings.Contains(cc, "no-store") {
		t.Errorf("GET /promo-e2e: Cache-Control = %q, want no-store", cc)
	}
	resp, _ = get("/q/" + strconv.FormatInt(q.ID, 10))
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != qrURL {
		t.Fatalf("GET /q/%d: %d to %q, want 302 to %q", q.ID, resp.StatusCode, resp.Header.Get("Location"), qrURL)
	}
	// The API's link of the code is its PNG image, which encodes the
	// tracking address (not the long URL).
	qrPath := "/qr/" + strconv.FormatInt(q.ID, 10)
	if q.Link != p.URL+qrPath {
		t.Errorf("QR link = %q, want %q", q.Link, p.URL+qrPath)
	}
	resp, img := get(qrPath)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("GET %s: %d %q, want 200 image/png", qrPath, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if got, want := decodeQRPNG(t, []byte(img)), p.URL+"/q/"+strconv.FormatInt(q.ID, 10); got != want {
		t.Errorf("GET %s decodes to %q, want %q", qrPath, got, want)
	}
	resp, body := get("/unknown-alias")
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(resp.Header.Get("Content-Type"), "text/html") || body == "" {
		t.Errorf("GET /unknown-alias: %d %q (%d bytes), want the 404 page", resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
	}
	// The API keeps its own paths and JSON errors.
	resp, body = get("/api/v1/no-such-route")
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(resp.Header.Get("Content-Type"), "json") {
		t.Errorf("GET /api/v1/no-such-route: %d %q %s, want the API's JSON 404", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}

	// The recorder saves every second: poll the statistics.
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, _, err := c.Links.URLs.Get(ctx, l.ID)
		if err != nil {
			t.Fatalf("get short link: %v", err)
		}
		gq, _, err := c.Links.QR.Get(ctx, q.ID)
		if err != nil {
			t.Fatalf("get QR code: %v", err)
		}
		linkOK := got.Clicks == 1 && got.Stats != nil && got.Stats.Clicks == 1 && got.Stats.UniqueClicks == 1
		qrOK := gq.Scans == 1 && gq.Stats != nil && gq.Stats.Clicks == 1
		if linkOK && qrOK {
			if len(got.Stats.TopReferrers) == 0 {
				t.Errorf("link statistics without a referrer: %+v", got.Stats)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("statistics after 30s: link clicks %d, stats %+v; QR scans %d, stats %+v",
				got.Clicks, got.Stats, gq.Scans, gq.Stats)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// checkLinkMetrics checks that the redirector's answers and the clicks of
// runLinksScenario are in /metrics, summed over the instances ps that served
// it.
func checkLinkMetrics(t *testing.T, ps ...*portalProc) {
	t.Helper()
	sums := map[string]float64{}
	for _, p := range ps {
		resp, err := http.Get(p.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for line := range strings.Lines(string(body)) {
			name, value, ok := strings.Cut(strings.TrimSpace(line), " ")
			if v, err := strconv.ParseFloat(value, 64); ok && err == nil && !strings.HasPrefix(name, "#") {
				sums[name] += v
			}
		}
	}
	for name, want := range map[string]float64{
		`portal_link_redirect_responses_total{code="302"}`: 2, `portal_link_redirect_responses_total{code="404"}`: 1,
		"portal_link_clicks_recorded_total": 2, "portal_link_clicks_dropped_total": 0, "portal_link_clicks_failed_total": 0,
		"portal_link_click_batch_failures_total": 0, "portal_link_click_queue_length": 0,
	} {
		if got, ok := sums[name]; !ok || got != want {
			t.Errorf("/metrics: %s = %v (found: %v), want %v", name, got, ok, want)
		}
	}
}

// decodeQRPNG reads the QR code of a PNG with gozxing's reader.
func decodeQRPNG(t *testing.T, b []byte) string {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("png.Decode: %v", err)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	res, err := zxqr.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		t.Fatalf("decode QR: %v", err)
	}
	return res.GetText()
}
