package links_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/httpapitest"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
	"github.com/seedhq/portal/internal/testkit"
)

// TestLinkStatistics saves visits through the store and reads the
// statistics block of GET /api/url/:id and GET /api/qr/:id.
func TestLinkStatistics(t *testing.T) {
	for _, so := range httpapitest.StoreOpeners() {
		t.Run(so.Name, func(t *testing.T) {
			var st links.Store
			capture := httpapitest.WithStoreWrapper(func(s exam.Store) exam.Store {
				ls, ok := s.(links.Store)
				if !ok {
					t.Skipf("the %s store does not implement links.Store yet", so.Name)
				}
				st = ls
				return s
			})
			clk := testkit.NewClock(time.Now().UTC().Truncate(time.Second))
			var svc *links.Service
			h := &httpapitest.LinksHarness{Harness: httpapitest.New(t, so.Open, capture, httpapitest.WithLinks(clk, &svc)), Links: svc}
			u := h.NewLinkUser("alice", 1000)
			other := h.NewLinkUser("bob", 1000)
			lid, _ := h.AddLink(u, map[string]any{"url": "https://example.com/a"})
			qid := httpapitest.Num(h.As(u, "POST", "/api/qr/add", map[string]any{"type": "text", "data": "hello"}).ExpectOK()["id"])

			d1 := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)
			v := func(kind string, id int64, at time.Time, visitor, country, ref, browser, os, social string) visits.Visit {
				return visits.Visit{Kind: kind, ID: id, OwnerID: u.ID, At: at, Visitor: visitor, Country: country,
					Referrer: ref, Browser: browser, OS: os, Social: social}
			}
			bot := v(visits.KindLink, lid, d1, "b", "US", "", "Googlebot", "", "")
			bot.Bot = true
			if err := st.SaveVisits(t.Context(), []visits.Visit{
				v(visits.KindLink, lid, d1, "a", "US", "", "Chrome", "Windows", ""),
				v(visits.KindLink, lid, d1.Add(time.Hour), "a", "US", "", "Chrome", "Windows", ""),
				v(visits.KindLink, lid, d1, "c", "GB", "l.facebook.com", "Facebook App", "iOS", visits.SocialFacebook),
				bot,
				v(visits.KindLink, lid, d1.Add(24*time.Hour), "a", "US", "google.com", "Chrome", "Windows", ""),
				v(visits.KindQR, qid, d1, "a", "ID", "instagram.com", "Instagram App", "Android", visits.SocialInstagram),
				v(visits.KindQR, qid, d1, "a", "ID", "instagram.com", "Instagram App", "Android", visits.SocialInstagram),
			}); err != nil {
				t.Fatalf("SaveVisits: %v", err)
			}

			data := func(path string) string {
				t.Helper()
				var res struct {
					Data json.RawMessage `json:"data"`
				}
				h.As(u, "GET", path, nil).Expect(200).Decode(&res)
				var b bytes.Buffer
				if err := json.Compact(&b, res.Data); err != nil {
					t.Fatal(err)
				}
				return b.String()
			}
			const wantLink = `{"clicks":4,"uniqueClicks":3,` +
				`"topCountries":{"US":"3","GB":"1"},` +
				`"topReferrers":{"Direct":"2","google.com":"1","l.facebook.com":"1"},` +
				`"topBrowsers":{"Chrome":"3","Facebook App":"1"},` +
				`"topOs":{"Windows":"3","iOS":"1"},` +
				`"socialCount":{"facebook":1,"twitter":0,"instagram":0}}`
			if got := data(fmt.Sprintf("/api/url/%d", lid)); got != wantLink {
				t.Fatalf("GET /api/url/%d data\n got %s\nwant %s", lid, got, wantLink)
			}
			const wantQR = `{"clicks":2,"uniqueClicks":1,` +
				`"topCountries":{"ID":"2"},"topReferrers":{"instagram.com":"2"},` +
				`"topBrowsers":{"Instagram App":"2"},"topOs":{"Android":"2"},` +
				`"socialCount":{"facebook":0,"twitter":0,"instagram":2}}`
			if got := data(fmt.Sprintf("/api/qr/%d", qid)); got != wantQR {
				t.Fatalf("GET /api/qr/%d data\n got %s\nwant %s", qid, got, wantQR)
			}

			// The counters in the records follow.
			det := h.As(u, "GET", fmt.Sprintf("/api/url/%d", lid), nil).ExpectOK()["details"].(map[string]any)
			if httpapitest.Num(det["clicks"]) != 4 || httpapitest.Num(det["uniqueClicks"]) != 3 {
				t.Fatalf("url details = %v", det)
			}
			qd := h.As(u, "GET", fmt.Sprintf("/api/qr/%d", qid), nil).ExpectOK()["details"].(map[string]any)
			if httpapitest.Num(qd["scans"]) != 2 {
				t.Fatalf("qr details = %v", qd)
			}

			// Another user's records are not found.
			h.As(other, "GET", fmt.Sprintf("/api/url/%d", lid), nil).ExpectLinkError(404)
			h.As(other, "GET", fmt.Sprintf("/api/qr/%d", qid), nil).ExpectLinkError(404)
		})
	}
}
