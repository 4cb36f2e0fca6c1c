package links_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/httpapitest"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/password"
	"github.com/seedhq/portal/internal/testkit"
)

func init() {
	password.Cost = 4 // account and link passwords in tests need not be slow
}

// forEachLinksStore runs fn against every store that implements
// links.Store, skipping the others with a clear message.
func forEachLinksStore(t *testing.T, fn func(t *testing.T, h *httpapitest.LinksHarness)) {
	for _, so := range httpapitest.StoreOpeners() {
		t.Run(so.Name, func(t *testing.T) {
			open := func(t testing.TB) exam.Store {
				st := so.Open(t)
				if _, ok := st.(links.Store); !ok {
					t.Skipf("the %s store does not implement links.Store yet", so.Name)
				}
				return st
			}
			clk := testkit.NewClock(time.Now().UTC().Truncate(time.Second))
			var svc *links.Service
			h := httpapitest.New(t, open, httpapitest.WithLinks(clk, &svc))
			fn(t, &httpapitest.LinksHarness{Harness: h, Links: svc})
		})
	}
}

func TestLinkAuth(t *testing.T) {
	forEachLinksStore(t, func(t *testing.T, h *httpapitest.LinksHarness) {
		u := h.NewLinkUser("alice", 100)
		h.As(u, "GET", "/api/account", nil).ExpectOK()
		h.Req("GET", "/api/account", nil, "Authorization", "Token "+u.Key).ExpectOK()
		h.Req("GET", "/api/account", nil).ExpectLinkError(401)
		h.Req("GET", "/api/account", nil, "Authorization", "Bearer nope").ExpectLinkError(401)
		other, _, _ := links.GenerateAPIKey()
		h.Req("GET", "/api/account", nil, "Authorization", "Bearer "+other).ExpectLinkError(401)
		h.Req("GET", "/api/account", nil, "Authorization", "Basic "+u.Key).ExpectLinkError(401)
		// An operator token is not an API key.
		h.Req("GET", "/api/domains", nil, httpapitest.Bearer(h.Operator())...).ExpectLinkError(401)

		// Rotation: the old key stops, the new one works.
		var rot struct {
			Success bool   `json:"success"`
			UserID  int64  `json:"user_id"`
			Key     string `json:"key"`
		}
		h.Op("POST", fmt.Sprintf("/api/v1/admin/link-users/%d/rotate-key", u.ID), nil).Expect(200).Decode(&rot)
		h.As(httpapitest.LinkUser{ID: u.ID, Key: rot.Key}, "GET", "/api/account", nil).ExpectOK()
		h.Req("GET", "/api/account", nil, "Authorization", "Bearer "+u.Key).ExpectLinkError(401)
		h.Op("POST", "/api/v1/admin/link-users/999/rotate-key", nil).ExpectError(404, "NOT_FOUND")
		h.Op("POST", "/api/v1/admin/link-users/x/rotate-key", nil).ExpectError(404, "NOT_FOUND")

		// The operator sets the password the user signs in to the console
		// with; a short one is refused and changes nothing.
		pwPath := fmt.Sprintf("/api/v1/admin/link-users/%d/password", u.ID)
		h.Op("PUT", pwPath, map[string]any{"password": "short"}).ExpectError(400, "VALIDATION_FAILED")
		if _, err := h.Links.PasswordLogin(t.Context(), "alice", "short", "10.0.0.9"); err == nil {
			t.Fatal("a refused password was stored")
		}
		h.Op("PUT", pwPath, map[string]any{"password": "marketer-Pass-1"}).Expect(200)
		if got, err := h.Links.PasswordLogin(t.Context(), "alice", "marketer-Pass-1", "10.0.0.9"); err != nil || got.ID != u.ID {
			t.Fatalf("sign-in with the password the operator set: %+v, %v", got, err)
		}
		h.Op("PUT", "/api/v1/admin/link-users/999/password", map[string]any{"password": "marketer-Pass-1"}).ExpectError(404, "NOT_FOUND")
		h.Req("PUT", pwPath, map[string]any{"password": "marketer-Pass-1"}).ExpectError(401, "UNAUTHORIZED")

		// Operator routes need the operator.
		h.Req("GET", "/api/v1/admin/link-users", nil).ExpectError(401, "UNAUTHORIZED")
		list := h.Op("GET", "/api/v1/admin/link-users", nil).Expect(200).M()
		if users := list["data"].([]any); len(users) != 1 || strings.Contains(string(h.Op("GET", "/api/v1/admin/link-users", nil).Body), rot.Key) {
			t.Fatalf("users = %v", list)
		}
		h.Op("POST", "/api/v1/admin/link-users", map[string]any{"email": "alice@example.com", "username": "other"}).ExpectError(409, "EMAIL_TAKEN")
		h.Op("POST", "/api/v1/admin/link-users", map[string]any{"email": "x@example.com", "username": "x", "nope": 1}).ExpectError(400, "INVALID_JSON")
	})
}

func TestLinkRateLimit(t *testing.T) {
	forEachLinksStore(t, func(t *testing.T, h *httpapitest.LinksHarness) {
		u := h.NewLinkUser("limited", 3)
		for i := range 3 {
			r := h.As(u, "GET", "/api/domains", nil).Expect(200)
			if r.Header.Get("X-RateLimit-Limit") != "3" || r.Header.Get("X-RateLimit-Remaining") != strconv.Itoa(2-i) {
				t.Fatalf("request %d: limit %s remaining %s", i+1, r.Header.Get("X-RateLimit-Limit"), r.Header.Get("X-RateLimit-Remaining"))
			}
		}
		r := h.As(u, "GET", "/api/domains", nil).ExpectLinkError(429)
		if r.Header.Get("X-RateLimit-Remaining") != "0" {
			t.Fatalf("remaining = %s", r.Header.Get("X-RateLimit-Remaining"))
		}
		if ra, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || ra < 1 || ra > 60 {
			t.Fatalf("Retry-After = %q", r.Header.Get("Retry-After"))
		}
		// Another user has a counter of their own; errors carry the headers too.
		v := h.NewLinkUser("default", 0)
		h.As(v, "GET", "/api/channel/x", nil).ExpectLinkError(404)
		h.As(v, "DELETE", "/api/pixel/9/delete", nil).ExpectLinkError(404)
		h.As(v, "POST", "/api/pixel/add", `{"type":`).ExpectLinkError(400)
		for range 27 {
			h.As(v, "GET", "/api/account", nil).ExpectOK()
		}
		r = h.As(v, "GET", "/api/account", nil).ExpectLinkError(429)
		if r.Header.Get("X-RateLimit-Limit") != "30" || r.Header.Get("Retry-After") == "" {
			t.Fatalf("headers = %v", r.Header)
		}
	})
}

func TestLinkAccountDomainsOverlaysSplash(t *testing.T) {
	forEachLinksStore(t, func(t *testing.T, h *httpapitest.LinksHarness) {
		u := h.NewLinkUser("alice", 1000)
		acc := h.As(u, "GET", "/api/account", nil).ExpectOK()
		httpapitest.WantKeys(t, acc, "error", "data")
		httpapitest.WantKeys(t, acc["data"], "id", "email", "username", "avatar", "status", "expires", "registered")
		data := acc["data"].(map[string]any)
		if httpapitest.Num(data["id"]) != u.ID || data["status"] != "pro" || data["email"] != "alice@example.com" {
			t.Fatalf("account = %v", data)
		}
		if _, err := time.Parse("2006-01-02 15:04:05", data["registered"].(string)); err != nil {
			t.Fatalf("registered = %v", data["registered"])
		}
		upd := h.As(u, "PUT", "/api/account/update", map[string]string{"email": "new@example.com", "password": "long-enough-pw"}).ExpectOK()
		httpapitest.WantKeys(t, upd, "error", "message")
		h.As(u, "PUT", "/api/account/update", map[string]string{}).ExpectLinkError(400)
		h.As(u, "PUT", "/api/account/update", map[string]string{"password": "short"}).ExpectLinkError(400)
		if h.As(u, "GET", "/api/account", nil).ExpectOK()["data"].(map[string]any)["email"] != "new@example.com" {
			t.Fatal("email not updated")
		}

		// Domains.
		add := h.As(u, "POST", "/api/domain/add", map[string]string{"domain": "https://Go.Example.com/", "redirectroot": "https://example.com"}).ExpectOK()
		httpapitest.WantKeys(t, add, "error", "id")
		id := httpapitest.Num(add["id"])
		h.As(u, "POST", "/api/domain/add", map[string]string{"domain": "https://go.example.com"}).ExpectLinkError(409)
		h.As(u, "POST", "/api/domain/add", map[string]string{"domain": "ftp://x.example.com"}).ExpectLinkError(400)
		list := h.As(u, "GET", "/api/domains", nil).ExpectList("domains")
		ds := httpapitest.Items(list, "domains")
		if len(ds) != 1 {
			t.Fatalf("domains = %v", ds)
		}
		httpapitest.WantKeys(t, ds[0], "id", "domain", "redirectroot", "redirect404")
		if ds[0].(map[string]any)["domain"] != "https://go.example.com" {
			t.Fatalf("domain = %v", ds[0])
		}
		httpapitest.WantKeys(t, h.As(u, "PUT", fmt.Sprintf("/api/domain/%d/update", id), map[string]string{"redirect404": "https://example.com/404"}).ExpectOK(), "error", "message")
		h.As(u, "PUT", fmt.Sprintf("/api/domain/%d/update", id), map[string]string{"redirect404": "nope"}).ExpectLinkError(400)
		h.As(u, "DELETE", fmt.Sprintf("/api/domain/%d/delete", id), nil).ExpectOK()
		h.As(u, "DELETE", fmt.Sprintf("/api/domain/%d/delete", id), nil).ExpectLinkError(404)

		// Overlays and splash pages come from operators.
		h.Op("POST", "/api/v1/admin/link-overlays", map[string]any{"user_id": u.ID, "type": "message", "name": "Promo"}).Expect(201)
		h.Op("POST", "/api/v1/admin/link-overlays", map[string]any{"user_id": 999, "type": "message", "name": "Promo"}).ExpectError(404, "NOT_FOUND")
		h.Op("POST", "/api/v1/admin/link-overlays", map[string]any{"user_id": u.ID, "type": "", "name": "Promo"}).ExpectError(400, "VALIDATION_FAILED")
		h.Op("POST", "/api/v1/admin/link-splashes", map[string]any{"user_id": u.ID, "name": "Welcome"}).Expect(201)
		cta := httpapitest.Items(h.As(u, "GET", "/api/overlay", nil).ExpectList("cta"), "cta")
		if len(cta) != 1 {
			t.Fatalf("cta = %v", cta)
		}
		httpapitest.WantKeys(t, cta[0], "id", "type", "name", "date")
		sp := httpapitest.Items(h.As(u, "GET", "/api/splash", nil).ExpectList("splash"), "splash")
		if len(sp) != 1 {
			t.Fatalf("splash = %v", sp)
		}
		httpapitest.WantKeys(t, sp[0], "id", "name", "date")
	})
}

func TestLinkCampaignsChannels(t *testing.T) {
	forEachLinksStore(t, func(t *testing.T, h *httpapitest.LinksHarness) {
		u := h.NewLinkUser("alice", 1000)
		c := h.As(u, "POST", "/api/campaign/add", map[string]any{"name": "Spring", "slug": "spring", "public": true}).ExpectOK()
		httpapitest.WantKeys(t, c, "error", "id", "domain", "public", "rotator", "list")
		cid := httpapitest.Num(c["id"])
		if c["domain"] != "Spring" || c["rotator"] != httpapitest.LinkBase+"/r/spring" || c["list"] != fmt.Sprintf("%s/c/%d", httpapitest.LinkBase, cid) || c["public"] != true {
			t.Fatalf("campaign = %v", c)
		}
		h.As(u, "POST", "/api/campaign/add", map[string]any{"name": "Dup", "slug": "spring"}).ExpectLinkError(409)
		c2 := h.As(u, "POST", "/api/campaign/add", map[string]any{}).ExpectOK()
		if c2["rotator"] != false {
			t.Fatalf("rotator without slug = %v", c2["rotator"])
		}
		up := h.As(u, "PUT", fmt.Sprintf("/api/campaign/%d/update", cid), map[string]any{"name": "Summer", "slug": ""}).ExpectOK()
		if up["domain"] != "Summer" || up["rotator"] != false {
			t.Fatalf("update = %v", up)
		}
		h.As(u, "PUT", fmt.Sprintf("/api/campaign/%d/update", cid), map[string]any{"slug": "x"}).ExpectLinkError(400)
		cl := httpapitest.Items(h.As(u, "GET", "/api/campaigns", nil).ExpectList("campaigns"), "campaigns")
		if len(cl) != 2 {
			t.Fatalf("campaigns = %v", cl)
		}
		httpapitest.WantKeys(t, cl[0], "id", "name", "slug", "public", "rotator", "list")

		// Assign a link to the campaign.
		lid, short := h.AddLink(u, map[string]any{"url": "https://example.com/a", "custom": "abc"})
		if short != httpapitest.LinkBase+"/abc" {
			t.Fatalf("shorturl = %s", short)
		}
		httpapitest.WantKeys(t, h.As(u, "POST", fmt.Sprintf("/api/campaign/%d/assign/%d", cid, lid), nil).ExpectOK(), "error", "message")
		got := h.As(u, "GET", fmt.Sprintf("/api/url/%d", lid), nil).ExpectOK()["details"].(map[string]any)
		if httpapitest.Num(got["campaign"]) != cid {
			t.Fatalf("campaign of the link = %v", got["campaign"])
		}
		h.As(u, "POST", fmt.Sprintf("/api/campaign/%d/assign/999", cid), nil).ExpectLinkError(404)
		h.As(u, "DELETE", fmt.Sprintf("/api/campaign/%d/delete", cid), nil).ExpectOK()

		// Channels.
		ch := h.As(u, "POST", "/api/channel/add", map[string]any{"name": "News", "description": "d", "color": "#a1b2c3", "starred": true}).ExpectOK()
		httpapitest.WantKeys(t, ch, "error", "id", "name", "description", "color", "starred")
		chid := httpapitest.Num(ch["id"])
		if ch["color"] != "#A1B2C3" || ch["starred"] != true {
			t.Fatalf("channel = %v", ch)
		}
		h.As(u, "POST", "/api/channel/add", map[string]any{"name": "x", "color": "red"}).ExpectLinkError(400)
		h.As(u, "POST", "/api/channel/add", map[string]any{"description": "no name"}).ExpectLinkError(400)
		httpapitest.WantKeys(t, h.As(u, "PUT", fmt.Sprintf("/api/channel/%d/update", chid), map[string]any{"starred": false}).ExpectOK(), "error", "message")
		chs := httpapitest.Items(h.As(u, "GET", "/api/channels", nil).ExpectList("channels"), "channels")
		httpapitest.WantKeys(t, chs[0], "id", "name", "description", "color", "starred")
		if chs[0].(map[string]any)["starred"] != false {
			t.Fatalf("channel = %v", chs[0])
		}

		qid := httpapitest.Num(h.As(u, "POST", "/api/qr/add", map[string]any{"type": "text", "data": "hello"}).ExpectOK()["id"])
		h.As(u, "POST", fmt.Sprintf("/api/channel/%d/assign/links/%d", chid, lid), nil).ExpectOK()
		h.As(u, "POST", fmt.Sprintf("/api/channel/%d/assign/qr/%d", chid, qid), nil).ExpectOK()
		h.As(u, "POST", fmt.Sprintf("/api/channel/%d/assign/bio/1", chid), nil).ExpectLinkError(404)
		h.As(u, "POST", fmt.Sprintf("/api/channel/%d/assign/page/1", chid), nil).ExpectLinkError(400)
		its := httpapitest.Items(h.As(u, "GET", fmt.Sprintf("/api/channel/%d", chid), nil).ExpectList("items"), "items")
		if len(its) != 2 {
			t.Fatalf("items = %v", its)
		}
		httpapitest.WantKeys(t, its[0], "type", "id", "title", "preview", "link", "date")
		first, second := its[0].(map[string]any), its[1].(map[string]any)
		if first["type"] != "qr" || first["link"] != fmt.Sprintf("%s/qr/%d", httpapitest.LinkBase, qid) || second["type"] != "links" || second["link"] != httpapitest.LinkBase+"/abc" {
			t.Fatalf("items = %v", its)
		}
		if _, err := time.Parse("2006-01-02", first["date"].(string)); err != nil {
			t.Fatalf("item date = %v", first["date"])
		}
		chans := h.As(u, "GET", fmt.Sprintf("/api/url/%d", lid), nil).ExpectOK()["details"].(map[string]any)["channels"].([]any)
		if len(chans) != 1 || httpapitest.Num(chans[0]) != chid {
			t.Fatalf("channels of the link = %v", chans)
		}

		// Deleting the channel unassigns its items.
		h.As(u, "DELETE", fmt.Sprintf("/api/channel/%d/delete", chid), nil).ExpectOK()
		h.As(u, "GET", fmt.Sprintf("/api/channel/%d", chid), nil).ExpectLinkError(404)
		chans = h.As(u, "GET", fmt.Sprintf("/api/url/%d", lid), nil).ExpectOK()["details"].(map[string]any)["channels"].([]any)
		if len(chans) != 0 {
			t.Fatalf("channels of the link after the channel's deletion = %v", chans)
		}
	})
}

func TestLinkPixelsQR(t *testing.T) {
	forEachLinksStore(t, func(t *testing.T, h *httpapitest.LinksHarness) {
		u := h.NewLinkUser("alice", 1000)
		px := h.As(u, "POST", "/api/pixel/add", map[string]string{"type": "gtmpixel", "name": "GTM", "tag": "GTM-ABC1234"}).ExpectOK()
		httpapitest.WantKeys(t, px, "error", "id")
		pid := httpapitest.Num(px["id"])
		h.As(u, "POST", "/api/pixel/add", map[string]string{"type": "gtmpixel", "name": "GTM", "tag": "nope"}).ExpectLinkError(400)
		h.As(u, "POST", "/api/pixel/add", map[string]string{"type": "myspace", "name": "x", "tag": "1"}).ExpectLinkError(400)
		// AdRoll takes both of its ids; the advertisable id alone is refused with the expected shape.
		roll := "Q4BTWXMRKZF7HNJ2C5D8EA/LM3P6VSG9YU1TE0RAWBKXN"
		rid := httpapitest.Num(h.As(u, "POST", "/api/pixel/add", map[string]string{"type": "adrollpixel", "name": "AdRoll", "tag": roll}).ExpectOK()["id"])
		msg := h.As(u, "POST", "/api/pixel/add", map[string]string{"type": "adrollpixel", "name": "AdRoll", "tag": "Q4BTWXMRKZF7HNJ2C5D8EA"}).ExpectLinkError(400).M()["message"]
		if m, _ := msg.(string); !strings.Contains(m, "expected ADV_EID/PIX_EID") {
			t.Fatalf("message for a single AdRoll id = %v", msg)
		}
		h.As(u, "PUT", fmt.Sprintf("/api/pixel/%d/update", rid), map[string]string{"tag": "LM3P6VSG9YU1TE0RAWBKXN"}).ExpectLinkError(400)
		if p := httpapitest.Items(h.As(u, "GET", "/api/pixels", nil).ExpectList("pixels"), "pixels")[0].(map[string]any); p["tag"] != roll {
			t.Fatalf("AdRoll pixel = %v", p)
		}
		h.As(u, "DELETE", fmt.Sprintf("/api/pixel/%d/delete", rid), nil).ExpectOK()
		h.As(u, "PUT", fmt.Sprintf("/api/pixel/%d/update", pid), map[string]string{"name": "Tags"}).ExpectLinkError(400)
		h.As(u, "PUT", fmt.Sprintf("/api/pixel/%d/update", pid), map[string]string{"name": "Tags", "tag": "GTM-ZZZ9999"}).ExpectOK()
		ps := httpapitest.Items(h.As(u, "GET", "/api/pixels", nil).ExpectList("pixels"), "pixels")
		httpapitest.WantKeys(t, ps[0], "id", "type", "name", "tag", "date")
		if p := ps[0].(map[string]any); p["tag"] != "GTM-ZZZ9999" || p["name"] != "Tags" || p["type"] != "gtmpixel" {
			t.Fatalf("pixel = %v", p)
		}
		h.As(u, "DELETE", fmt.Sprintf("/api/pixel/%d/delete", pid), nil).ExpectOK()

		// QR codes.
		q := h.As(u, "POST", "/api/qr/add", map[string]any{"type": "link", "data": "https://example.com",
			"background": "rgb(255,255,255)", "foreground": "rgb(0,0,0)", "logo": testLogoDataURI(t)}).ExpectOK()
		httpapitest.WantKeys(t, q, "error", "id", "link")
		qid := httpapitest.Num(q["id"])
		if q["link"] != fmt.Sprintf("%s/qr/%d", httpapitest.LinkBase, qid) {
			t.Fatalf("qr link = %v", q["link"])
		}
		h.As(u, "POST", "/api/qr/add", map[string]any{"type": "wifi", "data": map[string]any{"ssid": "Lab", "password": "secret123"}}).ExpectOK()
		h.As(u, "POST", "/api/qr/add", map[string]any{"type": "fax", "data": "x"}).ExpectLinkError(400)
		h.As(u, "POST", "/api/qr/add", map[string]any{"type": "link", "data": "not a url"}).ExpectLinkError(400)
		h.As(u, "POST", "/api/qr/add", map[string]any{"type": "text", "data": "x", "foreground": "rgb(250,250,250)"}).ExpectLinkError(400)
		h.As(u, "POST", "/api/qr/add", map[string]any{"type": "text", "data": "x", "background": "#fff"}).ExpectLinkError(400)
		h.As(u, "POST", "/api/qr/add", map[string]any{"type": "text", "data": "x", "logo": "logo.gif"}).ExpectLinkError(400)
		h.As(u, "POST", "/api/qr/add", map[string]any{"type": "text", "data": "x", "logo": "https://example.com/logo.png"}).ExpectLinkError(400) // never fetched
		h.As(u, "POST", "/api/qr/add", map[string]any{"type": "text"}).ExpectLinkError(400)

		qs := httpapitest.Items(h.As(u, "GET", "/api/qr", nil).ExpectList("qrs"), "qrs")
		if len(qs) != 2 {
			t.Fatalf("qrs = %v", qs)
		}
		httpapitest.WantKeys(t, qs[0], "id", "link", "scans", "name", "date")
		one := h.As(u, "GET", fmt.Sprintf("/api/qr/%d", qid), nil).ExpectOK()
		httpapitest.WantKeys(t, one, "error", "details", "data")
		httpapitest.HasFields(t, one["details"], "id", "link", "scans", "name", "date")
		httpapitest.WantKeys(t, one["data"], "clicks", "uniqueClicks", "topCountries", "topReferrers", "topBrowsers", "topOs", "socialCount")
		stats := one["data"].(map[string]any)
		httpapitest.WantKeys(t, stats["socialCount"], "facebook", "twitter", "instagram")
		for _, k := range []string{"topCountries", "topReferrers", "topBrowsers", "topOs"} {
			if m, ok := stats[k].(map[string]any); !ok || len(m) != 0 {
				t.Fatalf("%s = %v, want {}", k, stats[k])
			}
		}

		h.As(u, "PUT", fmt.Sprintf("/api/qr/%d/update", qid), map[string]any{"data": "https://example.org", "foreground": "rgb(10,10,10)"}).ExpectOK()
		h.As(u, "PUT", fmt.Sprintf("/api/qr/%d/update", qid), map[string]any{"type": "link", "data": "https://example.net"}).ExpectOK()
		h.As(u, "PUT", fmt.Sprintf("/api/qr/%d/update", qid), map[string]any{"type": "text", "data": "hello"}).ExpectLinkError(400)
		h.As(u, "PUT", fmt.Sprintf("/api/qr/%d/update", qid), map[string]any{"data": "not a url"}).ExpectLinkError(400)
		d := h.As(u, "GET", fmt.Sprintf("/api/qr/%d", qid), nil).ExpectOK()["details"].(map[string]any)
		if d["data"] != "https://example.net" || d["foreground"] != "rgb(10,10,10)" {
			t.Fatalf("details = %v", d)
		}
		h.As(u, "DELETE", fmt.Sprintf("/api/qr/%d/delete", qid), nil).ExpectOK()
		h.As(u, "GET", fmt.Sprintf("/api/qr/%d", qid), nil).ExpectLinkError(404)
	})
}

func TestLinkURLs(t *testing.T) {
	forEachLinksStore(t, func(t *testing.T, h *httpapitest.LinksHarness) {
		u := h.NewLinkUser("alice", 1000)
		did := httpapitest.Num(h.As(u, "POST", "/api/domain/add", map[string]string{"domain": "https://go.example.com"}).ExpectOK()["id"])
		pid := httpapitest.Num(h.As(u, "POST", "/api/pixel/add", map[string]string{"type": "fbpixel", "name": "FB", "tag": "123456789012345"}).ExpectOK()["id"])
		cid := httpapitest.Num(h.As(u, "POST", "/api/campaign/add", map[string]any{"name": "C"}).ExpectOK()["id"])
		chid := httpapitest.Num(h.As(u, "POST", "/api/channel/add", map[string]any{"name": "Ch"}).ExpectOK()["id"])
		expiry := time.Now().UTC().Add(48 * time.Hour).Format("2006-01-02 15:04:05")

		id, short := h.AddLink(u, map[string]any{"url": "https://example.com/x", "custom": "promo", "domain": "https://go.example.com",
			"expiry": expiry, "password": "s3cret", "pixels": []int64{pid}, "campaign": cid, "channel": chid, "description": "desc"})
		if short != "https://go.example.com/promo" {
			t.Fatalf("shorturl = %s", short)
		}
		// Alias uniqueness: per domain.
		h.As(u, "POST", "/api/url/add", map[string]any{"url": "https://example.com/y", "custom": "promo", "domain": did}).ExpectLinkError(409)
		_, s2 := h.AddLink(u, map[string]any{"url": "https://example.com/y", "custom": "promo"})
		if s2 != httpapitest.LinkBase+"/promo" {
			t.Fatalf("shorturl = %s", s2)
		}
		h.As(u, "POST", "/api/url/add", map[string]any{"url": "https://example.com/z", "custom": "promo"}).ExpectLinkError(409)
		h.As(u, "POST", "/api/url/add", map[string]any{"url": "https://example.com/z", "custom": "admin"}).ExpectLinkError(400)
		_, gen := h.AddLink(u, map[string]any{"url": "https://example.com/gen"})
		if len(strings.TrimPrefix(gen, httpapitest.LinkBase+"/")) != links.GeneratedAliasLength {
			t.Fatalf("generated shorturl = %s", gen)
		}
		// Validation.
		h.As(u, "POST", "/api/url/add", map[string]any{"custom": "nourl"}).ExpectLinkError(400)
		h.As(u, "POST", "/api/url/add", map[string]any{"url": "javascript:alert(1)"}).ExpectLinkError(400)
		h.As(u, "POST", "/api/url/add", map[string]any{"url": "https://example.com", "expiry": "2001-01-01 00:00:00"}).ExpectLinkError(400)
		h.As(u, "POST", "/api/url/add", map[string]any{"url": "https://example.com", "expiry": "tomorrow"}).ExpectLinkError(400)
		h.As(u, "POST", "/api/url/add", map[string]any{"url": "https://example.com", "domain": "https://other.example.com"}).ExpectLinkError(404)
		h.As(u, "POST", "/api/url/add", map[string]any{"url": "https://example.com", "pixels": []int64{999}}).ExpectLinkError(404)
		h.As(u, "POST", "/api/url/add", map[string]any{"url": "https://example.com", "type": "direct"}).ExpectLinkError(400)

		list := h.As(u, "GET", "/api/urls", nil).ExpectList("urls")
		us := httpapitest.Items(list, "urls")
		if len(us) != 3 || httpapitest.Num(list["result"]) != 3 {
			t.Fatalf("urls = %v", us)
		}
		httpapitest.HasFields(t, us[0], "id", "alias", "shorturl", "longurl", "clicks", "uniqueClicks", "title", "description", "date", "campaign")
		h.As(u, "GET", "/api/urls?order=clicks", nil).ExpectList("urls")
		h.As(u, "GET", "/api/urls?order=alpha", nil).ExpectLinkError(400)

		one := h.As(u, "GET", fmt.Sprintf("/api/url/%d", id), nil).ExpectOK()
		httpapitest.WantKeys(t, one, "error", "id", "details", "data")
		det := one["details"].(map[string]any)
		if det["alias"] != "promo" || det["description"] != "desc" || httpapitest.Num(det["campaign"]) != cid || det["expiry"] != expiry || det["password"] != true {
			t.Fatalf("details = %v", det)
		}
		httpapitest.WantKeys(t, one["data"], "clicks", "uniqueClicks", "topCountries", "topReferrers", "topBrowsers", "topOs", "socialCount")

		up := h.As(u, "PUT", fmt.Sprintf("/api/url/%d/update", id), map[string]any{"custom": "promo2", "domain": 0, "expiry": nil, "channel": []int64{}}).ExpectOK()
		if up["shorturl"] != httpapitest.LinkBase+"/promo2" {
			t.Fatalf("update = %v", up)
		}
		det = h.As(u, "GET", fmt.Sprintf("/api/url/%d", id), nil).ExpectOK()["details"].(map[string]any)
		if det["expiry"] != "" || len(det["channels"].([]any)) != 0 || httpapitest.Num(det["domain"]) != 0 {
			t.Fatalf("details after update = %v", det)
		}
		h.As(u, "PUT", fmt.Sprintf("/api/url/%d/update", id), map[string]any{"custom": "promo"}).ExpectLinkError(409)
		h.As(u, "DELETE", fmt.Sprintf("/api/url/%d/delete", id), nil).ExpectOK()
		h.As(u, "GET", fmt.Sprintf("/api/url/%d", id), nil).ExpectLinkError(404)
	})
}

func TestLinkValidationAndPaging(t *testing.T) {
	forEachLinksStore(t, func(t *testing.T, h *httpapitest.LinksHarness) {
		u := h.NewLinkUser("alice", 1000)
		r := h.As(u, "POST", "/api/channel/add", map[string]any{"name": "x", "colour": "#FFFFFF"}).ExpectLinkError(400)
		if !strings.Contains(string(r.Body), "colour") {
			t.Fatalf("unknown field message = %s", r.Body)
		}
		h.As(u, "POST", "/api/channel/add", `{"name": "x"`).ExpectLinkError(400)
		h.As(u, "POST", "/api/channel/add", `{"name": 5}`).ExpectLinkError(400)
		h.As(u, "POST", "/api/channel/add", "").ExpectLinkError(400)
		h.As(u, "POST", "/api/channel/add", `{"name":"`+strings.Repeat("a", 2<<20)+`"}`).ExpectLinkError(413)
		for _, p := range []string{"abc", "0", "-1", "1.5", "99999999999999999999"} {
			h.As(u, "DELETE", "/api/channel/"+p+"/delete", nil).ExpectLinkError(404)
		}

		for i := range 25 {
			h.As(u, "POST", "/api/channel/add", map[string]any{"name": fmt.Sprintf("ch%02d", i)}).ExpectOK()
		}
		page := func(q string) map[string]any {
			t.Helper()
			return h.As(u, "GET", "/api/channels"+q, nil).ExpectList("channels")
		}
		check := func(d map[string]any, n int, result, perpage, current, next, maxp int64) {
			t.Helper()
			got := []int64{int64(len(httpapitest.Items(d, "channels"))), httpapitest.Num(d["result"]), httpapitest.Num(d["perpage"]), httpapitest.Num(d["currentpage"]), httpapitest.Num(d["nextpage"]), httpapitest.Num(d["maxpage"])}
			want := []int64{int64(n), result, perpage, current, next, maxp}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("page = %v, want %v", got, want)
			}
		}
		d := page("")
		check(d, 10, 25, 10, 1, 2, 3)
		if httpapitest.Items(d, "channels")[0].(map[string]any)["name"] != "ch24" {
			t.Fatalf("first = %v, want the newest", httpapitest.Items(d, "channels")[0])
		}
		check(page("?page=3"), 5, 25, 10, 3, 0, 3)
		check(page("?page=4"), 0, 25, 10, 4, 0, 3)
		check(page("?limit=1000"), 25, 25, 1000, 1, 0, 1)
		check(page("?limit=7&page=2"), 7, 25, 7, 2, 3, 4)
		for _, q := range []string{"?limit=0", "?limit=1001", "?page=0", "?page=x", "?limit=-5"} {
			h.As(u, "GET", "/api/channels"+q, nil).ExpectLinkError(400)
		}
		empty := h.NewLinkUser("bob", 100)
		check(h.As(empty, "GET", "/api/channels", nil).ExpectList("channels"), 0, 0, 10, 1, 0, 1)
	})
}

// TestLinkRoutesNeedTheService checks that without Options.Links the link
// API does not exist.
func TestLinkRoutesNeedTheService(t *testing.T) {
	h := httpapitest.New(t, httpapitest.OpenBolt)
	h.Req("GET", "/api/account", nil).Expect(404)
	h.Op("GET", "/api/v1/admin/link-users", nil).Expect(404)
}

// testLogoDataURI is a small PNG as a data URI, the form QR logos take.
func testLogoDataURI(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 16, 16))); err != nil {
		t.Fatal(err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
}
