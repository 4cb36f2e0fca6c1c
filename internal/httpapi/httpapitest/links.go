package httpapitest

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/testkit"
)

// LinkBase is the short host of the link harness.
const LinkBase = "https://sho.rt"

// LinksHarness is a harness whose router serves the link-management API.
type LinksHarness struct {
	*Harness
	Links *links.Service
}

// WithLinks builds a links.Service over the harness's store (which must
// implement links.Store) and hands it to the router.
func WithLinks(clk *testkit.Clock, out **links.Service) Option {
	return func(c *harnessConfig) {
		prev := c.wrapStore
		c.wrapStore = func(st exam.Store) exam.Store {
			if prev != nil {
				st = prev(st)
			}
			svc := links.NewService(st.(links.Store), links.Config{Now: clk.Now,
				Blobs: st.(interface{ Blobs() blobstore.Store }).Blobs()})
			c.opts.Links = svc
			c.opts.LinkBaseURL = LinkBase + "/"
			*out = svc
			return st
		}
	}
}

// LinkUser is a user of the link API.
type LinkUser struct {
	ID  int64
	Key string
}

// NewLinkUser creates a user through the operator route.
func (h *LinksHarness) NewLinkUser(username string, rateLimit int) LinkUser {
	h.T.Helper()
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
	r := h.Op("POST", "/api/v1/admin/link-users", map[string]any{
		"email": username + "@example.com", "username": username, "plan": "pro", "rate_limit": rateLimit,
	}).Expect(201)
	if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
		h.T.Errorf("a response with a new API key has Cache-Control %q, want no-store", cc)
	}
	r.Decode(&res)
	if !res.Success || res.Data.ID <= 0 || !strings.HasPrefix(res.Key, links.KeyPrefix) || res.Data.Username != username {
		h.T.Fatalf("create link user = %+v", res)
	}
	return LinkUser{ID: res.Data.ID, Key: res.Key}
}

// As sends a request with the user's key and checks the rate-limit headers.
func (h *LinksHarness) As(u LinkUser, method, path string, body any) *Response {
	h.T.Helper()
	r := h.Req(method, path, body, "Authorization", "Bearer "+u.Key)
	CheckRateHeaders(h.T, r)
	return r
}

// CheckRateHeaders fails t unless r carries the link API's rate-limit
// headers.
func CheckRateHeaders(t testing.TB, r *Response) {
	t.Helper()
	for _, name := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
		if _, err := strconv.ParseInt(r.Header.Get(name), 10, 64); err != nil {
			t.Fatalf("%s = %q on a %d response", name, r.Header.Get(name), r.Status)
		}
	}
	reset, _ := strconv.ParseInt(r.Header.Get("X-RateLimit-Reset"), 10, 64)
	if d := time.Until(time.Unix(reset, 0)); d < -time.Minute || d > 2*time.Minute {
		t.Fatalf("X-RateLimit-Reset = %d is not Unix seconds of the window's end", reset)
	}
}

// ExpectLinkError fails unless the response is the link error envelope with
// the status.
func (r *Response) ExpectLinkError(status int) *Response {
	r.t.Helper()
	r.Expect(status)
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Code    string          `json:"code"`
	}
	r.Decode(&e)
	if string(e.Error) != "1" || e.Message == "" || e.Code == "" {
		r.t.Fatalf("error body = %s, want error 1 with a message", r.Body)
	}
	return r
}

// ExpectOK fails unless the response is 200 with the integer error 0.
func (r *Response) ExpectOK() map[string]any {
	r.t.Helper()
	r.Expect(200)
	var raw map[string]json.RawMessage
	r.Decode(&raw)
	if string(raw["error"]) != "0" {
		r.t.Fatalf("error = %s, want the integer 0: %s", raw["error"], r.Body)
	}
	return r.M()
}

// ExpectList fails unless the response is a paged list with the string "0"
// and the array name; it returns data.
func (r *Response) ExpectList(name string) map[string]any {
	r.t.Helper()
	m := r.Expect(200).M()
	if m["error"] != "0" {
		r.t.Fatalf("list error = %#v, want the string \"0\": %s", m["error"], r.Body)
	}
	data := m["data"].(map[string]any)
	if got, want := Keys(data), SortedKeys("result", "perpage", "currentpage", "nextpage", "maxpage", name); got != want {
		r.t.Fatalf("data keys = %s, want %s", got, want)
	}
	if _, ok := data[name].([]any); !ok {
		r.t.Fatalf("data.%s is not an array: %s", name, r.Body)
	}
	return data
}

// SortedKeys returns ks sorted and joined with commas, as Keys does.
func SortedKeys(ks ...string) string {
	m := map[string]any{}
	for _, k := range ks {
		m[k] = nil
	}
	return Keys(m)
}

// WantKeys fails unless obj has exactly the keys.
func WantKeys(t testing.TB, obj any, ks ...string) {
	t.Helper()
	m, ok := obj.(map[string]any)
	if !ok {
		t.Fatalf("%v is not an object", obj)
	}
	if got, want := Keys(m), SortedKeys(ks...); got != want {
		t.Fatalf("keys = %s, want %s", got, want)
	}
}

// Num returns a JSON number as an integer.
func Num(v any) int64 {
	f, _ := v.(float64)
	return int64(f)
}

// Items returns the array under name in a link API answer's data.
func Items(data map[string]any, name string) []any { return data[name].([]any) }

// AddLink creates a short link and returns its id and shorturl.
func (h *LinksHarness) AddLink(u LinkUser, body map[string]any) (int64, string) {
	h.T.Helper()
	res := h.As(u, "POST", "/api/url/add", body).ExpectOK()
	WantKeys(h.T, res, "error", "id", "shorturl")
	return Num(res["id"]), res["shorturl"].(string)
}
