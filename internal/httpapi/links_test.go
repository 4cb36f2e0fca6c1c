package httpapi_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/testkit"
)

func init() {
	links.BcryptCost = 4 // account and link passwords in tests need not be slow
}

// linkBase is the short host of the link harness.
const linkBase = "https://sho.rt"

// linksHarness is a harness whose router serves the link-management API.
type linksHarness struct {
	*harness
	links *links.Service
}

// withLinks builds a links.Service over the harness's store (which must
// implement links.Store) and hands it to the router.
func withLinks(clk *testkit.Clock, out **links.Service) harnessOption {
	return func(c *harnessConfig) {
		prev := c.wrapStore
		c.wrapStore = func(st exam.Store) exam.Store {
			if prev != nil {
				st = prev(st)
			}
			svc := links.NewService(st.(links.Store), links.Config{Now: clk.Now,
				Blobs: st.(interface{ Blobs() blobstore.Store }).Blobs()})
			c.opts.Links = svc
			c.opts.LinkBaseURL = linkBase + "/"
			*out = svc
			return st
		}
	}
}

// forEachLinksStore runs fn against every store that implements
// links.Store, skipping the others with a clear message.
func forEachLinksStore(t *testing.T, fn func(t *testing.T, h *linksHarness)) {
	for _, so := range storeOpeners() {
		t.Run(so.name, func(t *testing.T) {
			open := func(t testing.TB) exam.Store {
				st := so.open(t)
				if _, ok := st.(links.Store); !ok {
					t.Skipf("the %s store does not implement links.Store yet", so.name)
				}
				return st
			}
			clk := testkit.NewClock(time.Now().UTC().Truncate(time.Second))
			var svc *links.Service
			h := newHarness(t, open, withLinks(clk, &svc))
			fn(t, &linksHarness{harness: h, links: svc})
		})
	}
}

// linkUser is a user of the link API.
type linkUser struct {
	id  int64
	key string
}

// newLinkUser creates a user through the operator route.
func (h *linksHarness) newLinkUser(username string, rateLimit int) linkUser {
	h.t.Helper()
	var res struct {
		Success bool `json:"success"`
		Data    struct {
			ID           int64      `json:"id"`
			Email        string     `json:"email"`
			Username     string     `json:"username"`
			Avatar       string     `json:"avatar"`
			Plan         string     `json:"plan"`
			RateLimit    int        `json:"rate_limit"`
			ExpiresAt    *time.Time `json:"expires_at"`
			RegisteredAt time.Time  `json:"registered_at"`
		} `json:"data"`
		Key string `json:"key"`
	}
	r := h.op("POST", "/api/v1/admin/link-users", map[string]any{
		"email": username + "@example.com", "username": username, "plan": "pro", "rate_limit": rateLimit,
	}).expect(201)
	if cc := r.header.Get("Cache-Control"); cc != "no-store" {
		h.t.Errorf("a response with a new API key has Cache-Control %q, want no-store", cc)
	}
	r.decode(&res)
	if !res.Success || res.Data.ID <= 0 || !strings.HasPrefix(res.Key, links.KeyPrefix) || res.Data.Username != username {
		h.t.Fatalf("create link user = %+v", res)
	}
	return linkUser{id: res.Data.ID, key: res.Key}
}

// as sends a request with the user's key and checks the rate-limit headers.
func (h *linksHarness) as(u linkUser, method, path string, body any) *response {
	h.t.Helper()
	r := h.req(method, path, body, "Authorization", "Bearer "+u.key)
	checkRateHeaders(h.t, r)
	return r
}

func checkRateHeaders(t testing.TB, r *response) {
	t.Helper()
	for _, name := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
		if _, err := strconv.ParseInt(r.header.Get(name), 10, 64); err != nil {
			t.Fatalf("%s = %q on a %d response", name, r.header.Get(name), r.status)
		}
	}
	reset, _ := strconv.ParseInt(r.header.Get("X-RateLimit-Reset"), 10, 64)
	if d := time.Until(time.Unix(reset, 0)); d < -time.Minute || d > 2*time.Minute {
		t.Fatalf("X-RateLimit-Reset = %d is not Unix seconds of the window's end", reset)
	}
}

// expectLinkError fails unless the response is the link error envelope with
// the status.
func (r *response) expectLinkError(status int) *response {
	r.t.Helper()
	r.expect(status)
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Code    string          `json:"code"`
	}
	r.decode(&e)
	if string(e.Error) != "1" || e.Message == "" || e.Code == "" {
		r.t.Fatalf("error body = %s, want error 1 with a message", r.body)
	}
	return r
}

// expectOK fails unless the response is 200 with the integer error 0.
func (r *response) expectOK() map[string]any {
	r.t.Helper()
	r.expect(200)
	var raw map[string]json.RawMessage
	r.decode(&raw)
	if string(raw["error"]) != "0" {
		r.t.Fatalf("error = %s, want the integer 0: %s", raw["error"], r.body)
	}
	return r.m()
}

// expectList fails unless the response is a paged list with the string "0"
// and the array name; it returns data.
func (r *response) expectList(name string) map[string]any {
	r.t.Helper()
	m := r.expect(200).m()
	if m["error"] != "0" {
		r.t.Fatalf("list error = %#v, want the string \"0\": %s", m["error"], r.body)
	}
	data := m["data"].(map[string]any)
	if got, want := keys(data), sortedKeys("result", "perpage", "currentpage", "nextpage", "maxpage", name); got != want {
		r.t.Fatalf("data keys = %s, want %s", got, want)
	}
	if _, ok := data[name].([]any); !ok {
		r.t.Fatalf("data.%s is not an array: %s", name, r.body)
	}
	return data
}

func sortedKeys(ks ...string) string {
	m := map[string]any{}
	for _, k := range ks {
		m[k] = nil
	}
	return keys(m)
}

// wantKeys fails unless obj has exactly the keys.
func wantKeys(t testing.TB, obj any, ks ...string) {
	t.Helper()
	m, ok := obj.(map[string]any)
	if !ok {
		t.Fatalf("%v is not an object", obj)
	}
	if got, want := keys(m), sortedKeys(ks...); got != want {
		t.Fatalf("keys = %s, want %s", got, want)
	}
}

func num(v any) int64 {
	f, _ := v.(float64)
	return int64(f)
}

func items(data map[string]any, name string) []any { return data[name].([]any) }

func TestLinkAuth(t *testing.T) {
	forEachLinksStore(t, func(t *testing.T, h *linksHarness) {
		u := h.newLinkUser("alice", 100)
		h.as(u, "GET", "/api/account", nil).expectOK()
		h.req("GET", "/api/account", nil, "Authorization", "Token "+u.key).expectOK()
		h.req("GET", "/api/account", nil).expectLinkError(401)
		h.req("GET", "/api/account", nil, "Authorization", "Bearer nope").expectLinkError(401)
		other, _, _ := links.GenerateAPIKey()
		h.req("GET", "/api/account", nil, "Authorization", "Bearer "+other).expectLinkError(401)
		h.req("GET", "/api/account", nil, "Authorization", "Basic "+u.key).expectLinkError(401)
		// An operator token is not an API key.
		h.req("GET", "/api/domains", nil, bearer(h.operator())...).expectLinkError(401)

		// Rotation: the old key stops, the new one works.
		var rot struct {
			Success bool   `json:"success"`
			UserID  int64  `json:"user_id"`
			Key     string `json:"key"`
		}
		h.op("POST", fmt.Sprintf("/api/v1/admin/link-users/%d/rotate-key", u.id), nil).expect(200).decode(&rot)
		h.as(linkUser{u.id, rot.Key}, "GET", "/api/account", nil).expectOK()
		h.req("GET", "/api/account", nil, "Authorization", "Bearer "+u.key).expectLinkError(401)
		h.op("POST", "/api/v1/admin/link-users/999/rotate-key", nil).expectError(404, "NOT_FOUND")
		h.op("POST", "/api/v1/admin/link-users/x/rotate-key", nil).expectError(404, "NOT_FOUND")

		// The operator sets the password the user signs in to the console
		// with; a short one is refused and changes nothing.
		pwPath := fmt.Sprintf("/api/v1/admin/link-users/%d/password", u.id)
		h.op("PUT", pwPath, map[string]any{"password": "short"}).expectError(400, "VALIDATION_FAILED")
		if _, err := h.links.PasswordLogin(t.Context(), "alice", "short", "10.0.0.9"); err == nil {
			t.Fatal("a refused password was stored")
		}
		h.op("PUT", pwPath, map[string]any{"password": "marketer-Pass-1"}).expect(200)
		if got, err := h.links.PasswordLogin(t.Context(), "alice", "marketer-Pass-1", "10.0.0.9"); err != nil || got.ID != u.id {
			t.Fatalf("sign-in with the password the operator set: %+v, %v", got, err)
		}
		h.op("PUT", "/api/v1/admin/link-users/999/password", map[string]any{"password": "marketer-Pass-1"}).expectError(404, "NOT_FOUND")
		h.req("PUT", pwPath, map[string]any{"password": "marketer-Pass-1"}).expectError(401, "UNAUTHORIZED")

		// Operator routes need the operator.
		h.req("GET", "/api/v1/admin/link-users", nil).expectError(401, "UNAUTHORIZED")
		list := h.op("GET", "/api/v1/admin/link-users", nil).expect(200).m()
		if users := list["data"].([]any); len(users) != 1 || strings.Contains(string(h.op("GET", "/api/v1/admin/link-users", nil).body), rot.Key) {
			t.Fatalf("users = %v", list)
		}
		h.op("POST", "/api/v1/admin/link-users", map[string]any{"email": "alice@example.com", "username": "other"}).expectError(409, "EMAIL_TAKEN")
		h.op("POST", "/api/v1/admin/link-users", map[string]any{"email": "x@example.com", "username": "x", "nope": 1}).expectError(400, "INVALID_JSON")
	})
}

func TestLinkRateLimit(t *testing.T) {
	forEachLinksStore(t, func(t *testing.T, h *linksHarness) {
		u := h.newLinkUser("limited", 3)
		for i := range 3 {
			r := h.as(u, "GET", "/api/domains", nil).expect(200)
			if r.header.Get("X-RateLimit-Limit") != "3" || r.header.Get("X-RateLimit-Remaining") != strconv.Itoa(2-i) {
				t.Fatalf("request %d: limit %s remaining %s", i+1, r.header.Get("X-RateLimit-Limit"), r.header.Get("X-RateLimit-Remaining"))
			}
		}
		r := h.as(u, "GET", "/api/domains", nil).expectLinkError(429)
		if r.header.Get("X-RateLimit-Remaining") != "0" {
			t.Fatalf("remaining = %s", r.header.Get("X-RateLimit-Remaining"))
		}
		if ra, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || ra < 1 || ra > 60 {
			t.Fatalf("Retry-After = %q", r.header.Get("Retry-After"))
		}
		// Another user has a counter of their own; errors carry the headers too.
		v := h.newLinkUser("default", 0)
		h.as(v, "GET", "/api/channel/x", nil).expectLinkError(404)
		h.as(v, "DELETE", "/api/pixel/9/delete", nil).expectLinkError(404)
		h.as(v, "POST", "/api/pixel/add", `{"type":`).expectLinkError(400)
		for range 27 {
			h.as(v, "GET", "/api/account", nil).expectOK()
		}
		r = h.as(v, "GET", "/api/account", nil).expectLinkError(429)
		if r.header.Get("X-RateLimit-Limit") != "30" || r.header.Get("Retry-After") == "" {
			t.Fatalf("headers = %v", r.header)
		}
	})
}

func TestLinkAccountDomainsOverlaysSplash(t *testing.T) {
	forEachLinksStore(t, func(t *testing.T, h *linksHarness) {
		u := h.newLinkUser("alice", 1000)
		acc := h.as(u, "GET", "/api/account", nil).expectOK()
		wantKeys(t, acc, "error", "data")
		wantKeys(t, acc["data"], "id", "email", "username", "avatar", "status", "expires", "registered")
		data := acc["data"].(map[string]any)
		if num(data["id"]) != u.id || data["status"] != "pro" || data["email"] != "alice@example.com" {
			t.Fatalf("account = %v", data)
		}
		if _, err := time.Parse("2006-01-02 15:04:05", data["registered"].(string)); err != nil {
			t.Fatalf("registered = %v", data["registered"])
		}
		upd := h.as(u, "PUT", "/api/account/update", map[string]string{"email": "new@example.com", "password": "long-enough-pw"}).expectOK()
		wantKeys(t, upd, "error", "message")
		h.as(u, "PUT", "/api/account/update", map[string]string{}).expectLinkError(400)
		h.as(u, "PUT", "/api/account/update", map[string]string{"password": "short"}).expectLinkError(400)
		if h.as(u, "GET", "/api/account", nil).expectOK()["data"].(map[string]any)["email"] != "new@example.com" {
			t.Fatal("email not updated")
		}

		// Domains.
		add := h.as(u, "POST", "/api/domain/add", map[string]string{"domain": "https://Go.Example.com/", "redirectroot": "https://example.com"}).expectOK()
		wantKeys(t, add, "error", "id")
		id := num(add["id"])
		h.as(u, "POST", "/api/domain/add", map[string]string{"domain": "https://go.example.com"}).expectLinkError(409)
		h.as(u, "POST", "/api/domain/add", map[string]string{"domain": "ftp://x.example.com"}).expectLinkError(400)
		list := h.as(u, "GET", "/api/domains", nil).expectList("domains")
		ds := items(list, "domains")
		if len(ds) != 1 {
			t.Fatalf("domains = %v", ds)
		}
		wantKeys(t, ds[0], "id", "domain", "redirectroot", "redirect404")
		if ds[0].(map[string]any)["domain"] != "https://go.example.com" {
			t.Fatalf("domain = %v", ds[0])
		}
		wantKeys(t, h.as(u, "PUT", fmt.Sprintf("/api/domain/%d/update", id), map[string]string{"redirect404": "https://example.com/404"}).expectOK(), "error", "message")
		h.as(u, "PUT", fmt.Sprintf("/api/domain/%d/update", id), map[string]string{"redirect404": "nope"}).expectLinkError(400)
		h.as(u, "DELETE", fmt.Sprintf("/api/domain/%d/delete", id), nil).expectOK()
		h.as(u, "DELETE", fmt.Sprintf("/api/domain/%d/delete", id), nil).expectLinkError(404)

		// Overlays and splash pages come from operators.
		h.op("POST", "/api/v1/admin/link-overlays", map[string]any{"user_id": u.id, "type": "message", "name": "Promo"}).expect(201)
		h.op("POST", "/api/v1/admin/link-overlays", map[string]any{"user_id": 999, "type": "message", "name": "Promo"}).expectError(404, "NOT_FOUND")
		h.op("POST", "/api/v1/admin/link-overlays", map[string]any{"user_id": u.id, "type": "", "name": "Promo"}).expectError(400, "VALIDATION_FAILED")
		h.op("POST", "/api/v1/admin/link-splashes", map[string]any{"user_id": u.id, "name": "Welcome"}).expect(201)
		cta := items(h.as(u, "GET", "/api/overlay", nil).expectList("cta"), "cta")
		if len(cta) != 1 {
			t.Fatalf("cta = %v", cta)
		}
		wantKeys(t, cta[0], "id", "type", "name", "date")
		sp := items(h.as(u, "GET", "/api/splash", nil).expectList("splash"), "splash")
		if len(sp) != 1 {
			t.Fatalf("splash = %v", sp)
		}
		wantKeys(t, sp[0], "id", "name", "date")
	})
}

// addLink creates a short link and returns its id and shorturl.
func (h *linksHarness) addLink(u linkUser, body map[string]any) (int64, string) {
	h.t.Helper()
	res := h.as(u, "POST", "/api/url/add", body).expectOK()
	wantKeys(h.t, res, "error", "id", "shorturl")
	return num(res["id"]), res["shorturl"].(string)
}

func TestLinkCampaignsChannels(t *testing.T) {
	forEachLinksStore(t, func(t *testing.T, h *linksHarness) {
		u := h.newLinkUser("alice", 1000)
		c := h.as(u, "POST", "/api/campaign/add", map[string]any{"name": "Spring", "slug": "spring", "public": true}).expectOK()
		wantKeys(t, c, "error", "id", "domain", "public", "rotator", "list")
		cid := num(c["id"])
		if c["domain"] != "Spring" || c["rotator"] != linkBase+"/r/spring" || c["list"] != fmt.Sprintf("%s/c/%d", linkBase, cid) || c["public"] != true {
			t.Fatalf("campaign = %v", c)
		}
		h.as(u, "POST", "/api/campaign/add", map[string]any{"name": "Dup", "slug": "spring"}).expectLinkError(409)
		c2 := h.as(u, "POST", "/api/campaign/add", map[string]any{}).expectOK()
		if c2["rotator"] != false {
			t.Fatalf("rotator without slug = %v", c2["rotator"])
		}
		up := h.as(u, "PUT", fmt.Sprintf("/api/campaign/%d/update", cid), map[string]any{"name": "Summer", "slug": ""}).expectOK()
		if up["domain"] != "Summer" || up["rotator"] != false {
			t.Fatalf("update = %v", up)
		}
		h.as(u, "PUT", fmt.Sprintf("/api/campaign/%d/update", cid), map[string]any{"slug": "x"}).expectLinkError(400)
		cl := items(h.as(u, "GET", "/api/campaigns", nil).expectList("campaigns"), "campaigns")
		if len(cl) != 2 {
			t.Fatalf("campaigns = %v", cl)
		}
		wantKeys(t, cl[0], "id", "name", "slug", "public", "rotator", "list")

		// Assign a link to the campaign.
		lid, short := h.addLink(u, map[string]any{"url": "https://example.com/a", "custom": "abc"})
		if short != linkBase+"/abc" {
			t.Fatalf("shorturl = %s", short)
		}
		wantKeys(t, h.as(u, "POST", fmt.Sprintf("/api/campaign/%d/assign/%d", cid, lid), nil).expectOK(), "error", "message")
		got := h.as(u, "GET", fmt.Sprintf("/api/url/%d", lid), nil).expectOK()["details"].(map[string]any)
		if num(got["campaign"]) != cid {
			t.Fatalf("campaign of the link = %v", got["campaign"])
		}
		h.as(u, "POST", fmt.Sprintf("/api/campaign/%d/assign/999", cid), nil).expectLinkError(404)
		h.as(u, "DELETE", fmt.Sprintf("/api/campaign/%d/delete", cid), nil).expectOK()

		// Channels.
		ch := h.as(u, "POST", "/api/channel/add", map[string]any{"name": "News", "description": "d", "color": "#a1b2c3", "starred": true}).expectOK()
		wantKeys(t, ch, "error", "id", "name", "description", "color", "starred")
		chid := num(ch["id"])
		if ch["color"] != "#A1B2C3" || ch["starred"] != true {
			t.Fatalf("channel = %v", ch)
		}
		h.as(u, "POST", "/api/channel/add", map[string]any{"name": "x", "color": "red"}).expectLinkError(400)
		h.as(u, "POST", "/api/channel/add", map[string]any{"description": "no name"}).expectLinkError(400)
		wantKeys(t, h.as(u, "PUT", fmt.Sprintf("/api/channel/%d/update", chid), map[string]any{"starred": false}).expectOK(), "error", "message")
		chs := items(h.as(u, "GET", "/api/channels", nil).expectList("channels"), "channels")
		wantKeys(t, chs[0], "id", "name", "description", "color", "starred")
		if chs[0].(map[string]any)["starred"] != false {
			t.Fatalf("channel = %v", chs[0])
		}

		qid := num(h.as(u, "POST", "/api/qr/add", map[string]any{"type": "text", "data": "hello"}).expectOK()["id"])
		h.as(u, "POST", fmt.Sprintf("/api/channel/%d/assign/links/%d", chid, lid), nil).expectOK()
		h.as(u, "POST", fmt.Sprintf("/api/channel/%d/assign/qr/%d", chid, qid), nil).expectOK()
		h.as(u, "POST", fmt.Sprintf("/api/channel/%d/assign/bio/1", chid), nil).expectLinkError(404)
		h.as(u, "POST", fmt.Sprintf("/api/channel/%d/assign/page/1", chid), nil).expectLinkError(400)
		its := items(h.as(u, "GET", fmt.Sprintf("/api/channel/%d", chid), nil).expectList("items"), "items")
		if len(its) != 2 {
			t.Fatalf("items = %v", its)
		}
		wantKeys(t, its[0], "type", "id", "title", "preview", "link", "date")
		first, second := its[0].(map[string]any), its[1].(map[string]any)
		if first["type"] != "qr" || first["link"] != fmt.Sprintf("%s/qr/%d", linkBase, qid) || second["type"] != "links" || second["link"] != linkBase+"/abc" {
			t.Fatalf("items = %v", its)
		}
		if _, err := time.Parse("2006-01-02", first["date"].(string)); err != nil {
			t.Fatalf("item date = %v", first["date"])
		}
		chans := h.as(u, "GET", fmt.Sprintf("/api/url/%d", lid), nil).expectOK()["details"].(map[string]any)["channels"].([]any)
		if len(chans) != 1 || num(chans[0]) != chid {
			t.Fatalf("channels of the link = %v", chans)
		}

		// Deleting the channel unassigns its items.
		h.as(u, "DELETE", fmt.Sprintf("/api/channel/%d/delete", chid), nil).expectOK()
		h.as(u, "GET", fmt.Sprintf("/api/channel/%d", chid), nil).expectLinkError(404)
		chans = h.as(u, "GET", fmt.Sprintf("/api/url/%d", lid), nil).expectOK()["details"].(map[string]any)["channels"].([]any)
		if len(chans) != 0 {
			t.Fatalf("channels of the link after the channel's deletion = %v", chans)
		}
	})
}

func TestLinkPixelsQR(t *testing.T) {
	forEachLinksStore(t, func(t *testing.T, h *linksHarness) {
		u := h.newLinkUser("alice", 1000)
		px := h.as(u, "POST", "/api/pixel/add", map[string]string{"type": "gtmpixel", "name": "GTM", "tag": "GTM-ABC1234"}).expectOK()
		wantKeys(t, px, "error", "id")
		pid := num(px["id"])
		h.as(u, "POST", "/api/pixel/add", map[string]string{"type": "gtmpixel", "name": "GTM", "tag": "nope"}).expectLinkError(400)
		h.as(u, "POST", "/api/pixel/add", map[string]string{"type": "myspace", "name": "x", "tag": "1"}).expectLinkError(400)
		// AdRoll takes both of its ids; the advertisable id alone is refused with the expected shape.
		roll := "Q4BTWXMRKZF7HNJ2C5D8EA/LM3P6VSG9YU1TE0RAWBKXN"
		rid := num(h.as(u, "POST", "/api/pixel/add", map[string]string{"type": "adrollpixel", "name": "AdRoll", "tag": roll}).expectOK()["id"])
		msg := h.as(u, "POST", "/api/pixel/add", map[string]string{"type": "adrollpixel", "name": "AdRoll", "tag": "Q4BTWXMRKZF7HNJ2C5D8EA"}).expectLinkError(400).m()["message"]
		if m, _ := msg.(string); !strings.Contains(m, "expected ADV_EID/PIX_EID") {
			t.Fatalf("message for a single AdRoll id = %v", msg)
		}
		h.as(u, "PUT", fmt.Sprintf("/api/pixel/%d/update", rid), map[string]string{"tag": "LM3P6VSG9YU1TE0RAWBKXN"}).expectLinkError(400)
		if p := items(h.as(u, "GET", "/api/pixels", nil).expectList("pixels"), "pixels")[0].(map[string]any); p["tag"] != roll {
			t.Fatalf("AdRoll pixel = %v", p)
		}
		h.as(u, "DELETE", fmt.Sprintf("/api/pixel/%d/delete", rid), nil).expectOK()
		h.as(u, "PUT", fmt.Sprintf("/api/pixel/%d/update", pid), map[string]string{"name": "Tags"}).expectLinkError(400)
		h.as(u, "PUT", fmt.Sprintf("/api/pixel/%d/update", pid), map[string]string{"name": "Tags", "tag": "GTM-ZZZ9999"}).expectOK()
		ps := items(h.as(u, "GET", "/api/pixels", nil).expectList("pixels"), "pixels")
		wantKeys(t, ps[0], "id", "type", "name", "tag", "date")
		if p := ps[0].(map[string]any); p["tag"] != "GTM-ZZZ9999" || p["name"] != "Tags" || p["type"] != "gtmpixel" {
			t.Fatalf("pixel = %v", p)
		}
		h.as(u, "DELETE", fmt.Sprintf("/api/pixel/%d/delete", pid), nil).expectOK()

		// QR codes.
		q := h.as(u, "POST", "/api/qr/add", map[string]any{"type": "link", "data": "https://example.com",
			"background": "rgb(255,255,255)", "foreground": "rgb(0,0,0)", "logo": testLogoDataURI(t)}).expectOK()
		wantKeys(t, q, "error", "id", "link")
		qid := num(q["id"])
		if q["link"] != fmt.Sprintf("%s/qr/%d", linkBase, qid) {
			t.Fatalf("qr link = %v", q["link"])
		}
		h.as(u, "POST", "/api/qr/add", map[string]any{"type": "wifi", "data": map[string]any{"ssid": "Lab", "password": "secret123"}}).expectOK()
		h.as(u, "POST", "/api/qr/add", map[string]any{"type": "fax", "data": "x"}).expectLinkError(400)
		h.as(u, "POST", "/api/qr/add", map[string]any{"type": "link", "data": "not a url"}).expectLinkError(400)
		h.as(u, "POST", "/api/qr/add", map[string]any{"type": "text", "data": "x", "foreground": "rgb(250,250,250)"}).expectLinkError(400)
		h.as(u, "POST", "/api/qr/add", map[string]any{"type": "text", "data": "x", "background": "#fff"}).expectLinkError(400)
		h.as(u, "POST", "/api/qr/add", map[string]any{"type": "text", "data": "x", "logo": "logo.gif"}).expectLinkError(400)
		h.as(u, "POST", "/api/qr/add", map[string]any{"type": "text", "data": "x", "logo": "https://example.com/logo.png"}).expectLinkError(400) // never fetched
		h.as(u, "POST", "/api/qr/add", map[string]any{"type": "text"}).expectLinkError(400)

		qs := items(h.as(u, "GET", "/api/qr", nil).expectList("qrs"), "qrs")
		if len(qs) != 2 {
			t.Fatalf("qrs = %v", qs)
		}
		wantKeys(t, qs[0], "id", "link", "scans", "name", "date")
		one := h.as(u, "GET", fmt.Sprintf("/api/qr/%d", qid), nil).expectOK()
		wantKeys(t, one, "error", "details", "data")
		hasFields(t, one["details"], "id", "link", "scans", "name", "date")
		wantKeys(t, one["data"], "clicks", "uniqueClicks", "topCountries", "topReferrers", "topBrowsers", "topOs", "socialCount")
		stats := one["data"].(map[string]any)
		wantKeys(t, stats["socialCount"], "facebook", "twitter", "instagram")
		for _, k := range []string{"topCountries", "topReferrers", "topBrowsers", "topOs"} {
			if m, ok := stats[k].(map[string]any); !ok || len(m) != 0 {
				t.Fatalf("%s = %v, want {}", k, stats[k])
			}
		}

		h.as(u, "PUT", fmt.Sprintf("/api/qr/%d/update", qid), map[string]any{"data": "https://example.org", "foreground": "rgb(10,10,10)"}).expectOK()
		h.as(u, "PUT", fmt.Sprintf("/api/qr/%d/update", qid), map[string]any{"type": "link", "data": "https://example.net"}).expectOK()
		h.as(u, "PUT", fmt.Sprintf("/api/qr/%d/update", qid), map[string]any{"type": "text", "data": "hello"}).expectLinkError(400)
		h.as(u, "PUT", fmt.Sprintf("/api/qr/%d/update", qid), map[string]any{"data": "not a url"}).expectLinkError(400)
		d := h.as(u, "GET", fmt.Sprintf("/api/qr/%d", qid), nil).expectOK()["details"].(map[string]any)
		if d["data"] != "https://example.net" || d["foreground"] != "rgb(10,10,10)" {
			t.Fatalf("details = %v", d)
		}
		h.as(u, "DELETE", fmt.Sprintf("/api/qr/%d/delete", qid), nil).expectOK()
		h.as(u, "GET", fmt.Sprintf("/api/qr/%d", qid), nil).expectLinkError(404)
	})
}

func TestLinkURLs(t *testing.T) {
	forEachLinksStore(t, func(t *testing.T, h *linksHarness) {
		u := h.newLinkUser("alice", 1000)
		did := num(h.as(u, "POST", "/api/domain/add", map[string]string{"domain": "https://go.example.com"}).expectOK()["id"])
		pid := num(h.as(u, "POST", "/api/pixel/add", map[string]string{"type": "fbpixel", "name": "FB", "tag": "123456789012345"}).expectOK()["id"])
		cid := num(h.as(u, "POST", "/api/campaign/add", map[string]any{"name": "C"}).expectOK()["id"])
		chid := num(h.as(u, "POST", "/api/channel/add", map[string]any{"name": "Ch"}).expectOK()["id"])
		expiry := time.Now().UTC().Add(48 * time.Hour).Format("2006-01-02 15:04:05")

		id, short := h.addLink(u, map[string]any{"url": "https://example.com/x", "custom": "promo", "domain": "https://go.example.com",
			"expiry": expiry, "password": "s3cret", "pixels": []int64{pid}, "campaign": cid, "channel": chid, "description": "desc"})
		if short != "https://go.example.com/promo" {
			t.Fatalf("shorturl = %s", short)
		}
		// Alias uniqueness: per domain.
		h.as(u, "POST", "/api/url/add", map[string]any{"url": "https://example.com/y", "custom": "promo", "domain": did}).expectLinkError(409)
		_, s2 := h.addLink(u, map[string]any{"url": "https://example.com/y", "custom": "promo"})
		if s2 != linkBase+"/promo" {
			t.Fatalf("shorturl = %s", s2)
		}
		h.as(u, "POST", "/api/url/add", map[string]any{"url": "https://example.com/z", "custom": "promo"}).expectLinkError(409)
		h.as(u, "POST", "/api/url/add", map[string]any{"url": "https://example.com/z", "custom": "admin"}).expectLinkError(400)
		_, gen := h.addLink(u, map[string]any{"url": "https://example.com/gen"})
		if len(strings.TrimPrefix(gen, linkBase+"/")) != links.GeneratedAliasLength {
			t.Fatalf("generated shorturl = %s", gen)
		}
		// Validation.
		h.as(u, "POST", "/api/url/add", map[string]any{"custom": "nourl"}).expectLinkError(400)
		h.as(u, "POST", "/api/url/add", map[string]any{"url": "javascript:alert(1)"}).expectLinkError(400)
		h.as(u, "POST", "/api/url/add", map[string]any{"url": "https://example.com", "expiry": "2001-01-01 00:00:00"}).expectLinkError(400)
		h.as(u, "POST", "/api/url/add", map[string]any{"url": "https://example.com", "expiry": "tomorrow"}).expectLinkError(400)
		h.as(u, "POST", "/api/url/add", map[string]any{"url": "https://example.com", "domain": "https://other.example.com"}).expectLinkError(404)
		h.as(u, "POST", "/api/url/add", map[string]any{"url": "https://example.com", "pixels": []int64{999}}).expectLinkError(404)
		h.as(u, "POST", "/api/url/add", map[string]any{"url": "https://example.com", "type": "direct"}).expectLinkError(400)

		list := h.as(u, "GET", "/api/urls", nil).expectList("urls")
		us := items(list, "urls")
		if len(us) != 3 || num(list["result"]) != 3 {
			t.Fatalf("urls = %v", us)
		}
		hasFields(t, us[0], "id", "alias", "shorturl", "longurl", "clicks", "uniqueClicks", "title", "description", "date", "campaign")
		h.as(u, "GET", "/api/urls?order=clicks", nil).expectList("urls")
		h.as(u, "GET", "/api/urls?order=alpha", nil).expectLinkError(400)

		one := h.as(u, "GET", fmt.Sprintf("/api/url/%d", id), nil).expectOK()
		wantKeys(t, one, "error", "id", "details", "data")
		det := one["details"].(map[string]any)
		if det["alias"] != "promo" || det["description"] != "desc" || num(det["campaign"]) != cid || det["expiry"] != expiry || det["password"] != true {
			t.Fatalf("details = %v", det)
		}
		wantKeys(t, one["data"], "clicks", "uniqueClicks", "topCountries", "topReferrers", "topBrowsers", "topOs", "socialCount")

		up := h.as(u, "PUT", fmt.Sprintf("/api/url/%d/update", id), map[string]any{"custom": "promo2", "domain": 0, "expiry": nil, "channel": []int64{}}).expectOK()
		if up["shorturl"] != linkBase+"/promo2" {
			t.Fatalf("update = %v", up)
		}
		det = h.as(u, "GET", fmt.Sprintf("/api/url/%d", id), nil).expectOK()["details"].(map[string]any)
		if det["expiry"] != "" || len(det["channels"].([]any)) != 0 || num(det["domain"]) != 0 {
			t.Fatalf("details after update = %v", det)
		}
		h.as(u, "PUT", fmt.Sprintf("/api/url/%d/update", id), map[string]any{"custom": "promo"}).expectLinkError(409)
		h.as(u, "DELETE", fmt.Sprintf("/api/url/%d/delete", id), nil).expectOK()
		h.as(u, "GET", fmt.Sprintf("/api/url/%d", id), nil).expectLinkError(404)
	})
}

func TestLinkValidationAndPaging(t *testing.T) {
	forEachLinksStore(t, func(t *testing.T, h *linksHarness) {
		u := h.newLinkUser("alice", 1000)
		r := h.as(u, "POST", "/api/channel/add", map[string]any{"name": "x", "colour": "#FFFFFF"}).expectLinkError(400)
		if !strings.Contains(string(r.body), "colour") {
			t.Fatalf("unknown field message = %s", r.body)
		}
		h.as(u, "POST", "/api/channel/add", `{"name": "x"`).expectLinkError(400)
		h.as(u, "POST", "/api/channel/add", `{"name": 5}`).expectLinkError(400)
		h.as(u, "POST", "/api/channel/add", "").expectLinkError(400)
		h.as(u, "POST", "/api/channel/add", `{"name":"`+strings.Repeat("a", 2<<20)+`"}`).expectLinkError(413)
		for _, p := range []string{"abc", "0", "-1", "1.5", "99999999999999999999"} {
			h.as(u, "DELETE", "/api/channel/"+p+"/delete", nil).expectLinkError(404)
		}

		for i := range 25 {
			h.as(u, "POST", "/api/channel/add", map[string]any{"name": fmt.Sprintf("ch%02d", i)}).expectOK()
		}
		page := func(q string) map[string]any {
			t.Helper()
			return h.as(u, "GET", "/api/channels"+q, nil).expectList("channels")
		}
		check := func(d map[string]any, n int, result, perpage, current, next, maxp int64) {
			t.Helper()
			got := []int64{int64(len(items(d, "channels"))), num(d["result"]), num(d["perpage"]), num(d["currentpage"]), num(d["nextpage"]), num(d["maxpage"])}
			want := []int64{int64(n), result, perpage, current, next, maxp}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("page = %v, want %v", got, want)
			}
		}
		d := page("")
		check(d, 10, 25, 10, 1, 2, 3)
		if items(d, "channels")[0].(map[string]any)["name"] != "ch24" {
			t.Fatalf("first = %v, want the newest", items(d, "channels")[0])
		}
		check(page("?page=3"), 5, 25, 10, 3, 0, 3)
		check(page("?page=4"), 0, 25, 10, 4, 0, 3)
		check(page("?limit=1000"), 25, 25, 1000, 1, 0, 1)
		check(page("?limit=7&page=2"), 7, 25, 7, 2, 3, 4)
		for _, q := range []string{"?limit=0", "?limit=1001", "?page=0", "?page=x", "?limit=-5"} {
			h.as(u, "GET", "/api/channels"+q, nil).expectLinkError(400)
		}
		empty := h.newLinkUser("bob", 100)
		check(h.as(empty, "GET", "/api/channels", nil).expectList("channels"), 0, 0, 10, 1, 0, 1)
	})
}

// TestLinkRoutesNeedTheService checks that without Options.Links the link
// API does not exist.
func TestLinkRoutesNeedTheService(t *testing.T) {
	h := newHarness(t, openBolt)
	h.req("GET", "/api/account", nil).expect(404)
	h.op("GET", "/api/v1/admin/link-users", nil).expect(404)
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
