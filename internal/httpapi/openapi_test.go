package httpapi_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	yaml "go.yaml.in/yaml/v3"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/openapi"
	"github.com/seedhq/portal/internal/openapi/openapitest"
	"github.com/seedhq/portal/internal/testkit"
)

// undocumentedPrefixes are the paths of the router that are no JSON API:
// the web console and the built-in stand-ins of the messaging gateway and
// the payment provider (HTML pages).
var undocumentedPrefixes = []string{"/console", "/sandbox/"}

// TestOpenAPIDescribesEveryRoute checks that the documents describe exactly
// the routes of a router serving all three APIs: every route chi has is an
// operation of one document, and every operation is a route.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	clk := testkit.NewClock(time.Time{})
	var ls *links.Service
	h := httpapitest.New(t, httpapitest.OpenBolt, httpapitest.WithLinks(clk, &ls), httpapitest.WithOrdering(clk, "", t.TempDir()))
	clk.Set(h.Clock.Now())
	next, ok := openapitest.Unwrap(h.Server.Config.Handler)
	if !ok {
		t.Fatalf("the harness does not serve through openapitest.Wrap")
	}
	routes, ok := next.(chi.Routes)
	if !ok {
		t.Fatalf("httpapi.New returned %T, not a chi router", next)
	}
	var served []string
	err := chi.Walk(routes, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		for _, p := range undocumentedPrefixes {
			if strings.HasPrefix(route, p) {
				return nil
			}
		}
		served = append(served, method+" "+route)
		return nil
	})
	if err != nil {
		t.Fatalf("walk: %v", err)
	}
	described := openapitest.Operations(t)
	for _, op := range served {
		if _, ok := described[op]; !ok {
			t.Errorf("route %s is described in no OpenAPI document (internal/openapi)", op)
		}
	}
	for op, name := range described {
		if !slices.Contains(served, op) {
			t.Errorf("%s.yaml describes %s, which the router does not serve", name, op)
		}
	}
	if len(served) < 100 {
		t.Errorf("only %d routes walked: is the router built with every API?", len(served))
	}
}

// TestOpenAPIServed checks that the documents are served, public and
// cacheable, in JSON and YAML with the same content, and that each is a
// valid OpenAPI 3.1 document.
func TestOpenAPIServed(t *testing.T) {
	clk := testkit.NewClock(time.Time{})
	var ls *links.Service
	h := httpapitest.New(t, httpapitest.OpenBolt, httpapitest.WithLinks(clk, &ls), httpapitest.WithOrdering(clk, "", t.TempDir()))
	clk.Set(h.Clock.Now())
	for _, name := range openapi.Names() {
		j := h.Req("GET", "/api/openapi/"+name+".json", nil).Expect(http.StatusOK)
		if ct := j.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s.json Content-Type = %q", name, ct)
		}
		if cc := j.Header.Get("Cache-Control"); !strings.Contains(cc, "public") {
			t.Errorf("%s.json Cache-Control = %q, want public", name, cc)
		}
		etag := j.Header.Get("ETag")
		if etag == "" {
			t.Fatalf("%s.json has no ETag", name)
		}
		h.Req("GET", "/api/openapi/"+name+".json", nil, "If-None-Match", etag).Expect(http.StatusNotModified)

		y := h.Req("GET", "/api/openapi/"+name+".yaml", nil).Expect(http.StatusOK)
		if ct := y.Header.Get("Content-Type"); ct != "application/yaml" {
			t.Errorf("%s.yaml Content-Type = %q", name, ct)
		}
		var fromJSON, fromYAML map[string]any
		if err := json.Unmarshal(j.Body, &fromJSON); err != nil {
			t.Fatalf("%s.json: %v", name, err)
		}
		if err := yaml.Unmarshal(y.Body, &fromYAML); err != nil {
			t.Fatalf("%s.yaml: %v", name, err)
		}
		if fromJSON["openapi"] != "3.1.0" || fromYAML["openapi"] != "3.1.0" {
			t.Errorf("%s: openapi = %v / %v, want 3.1.0", name, fromJSON["openapi"], fromYAML["openapi"])
		}
		jp, _ := fromJSON["paths"].(map[string]any)
		yp, _ := fromYAML["paths"].(map[string]any)
		if len(jp) == 0 || len(jp) != len(yp) {
			t.Errorf("%s: %d paths in JSON, %d in YAML", name, len(jp), len(yp))
		}
	}
	// Load validates each document against the OpenAPI 3.1 schema.
	openapitest.Load(t)
}

// TestOpenAPIOnlyServedAPIs checks that a portal without the link and
// ordering APIs does not serve their descriptions either.
func TestOpenAPIOnlyServedAPIs(t *testing.T) {
	h := httpapitest.New(t, httpapitest.OpenBolt)
	h.Req("GET", "/api/openapi/exam.json", nil).Expect(http.StatusOK)
	h.Req("GET", "/api/openapi/links.json", nil).ExpectError(http.StatusNotFound, "NOT_FOUND")
	h.Req("GET", "/api/openapi/ordering.yaml", nil).ExpectError(http.StatusNotFound, "NOT_FOUND")
}

// TestOpenAPIRoundTrip drives, through the validating harness, the
// operations the other handler tests reach only with errors or not at all:
// an exam replaced, the menu and settings edited and the shop administered
// by the portal's operator (users, roles, bans, menu import, ledger). Each
// exchange is checked against its description like every other.
func TestOpenAPIRoundTrip(t *testing.T) {
	for _, so := range httpapitest.StoreOpeners() {
		t.Run(so.Name, func(t *testing.T) {
			h := httpapitest.OrderingHarness(t, so.Open, "628110000001")

			// Exam replaced while it has no answers.
			examID := h.CreateExam("20100001")
			h.Op("PUT", "/api/v1/admin/exams/"+examID, httpapitest.ExamFixture("20100001", "20100002")).Expect(http.StatusOK)

			// Menu and settings, as the owner.
			jwts := h.OrderingUsers()
			owner := httpapitest.Bearer(jwts["OWNER"])
			var cat struct {
				Category struct{ ID string } `json:"category"`
			}
			h.Req("POST", "/api/menu/categories", map[string]any{"name": "Minuman", "position": 1}, owner...).Expect(http.StatusCreated).Decode(&cat)
			h.Req("PUT", "/api/menu/categories/"+cat.Category.ID, map[string]any{"name": "Minuman dingin", "position": 2}, owner...).Expect(http.StatusOK)
			var item struct {
				Item struct{ ID string } `json:"item"`
			}
			h.Req("POST", "/api/menu/items", map[string]any{"categoryId": cat.Category.ID, "name": "Es teh", "price": 5000}, owner...).
				Expect(http.StatusCreated).Decode(&item)
			h.Req("PUT", "/api/menu/items/"+item.Item.ID, map[string]any{"categoryId": cat.Category.ID, "name": "Es teh manis",
				"description": "Manis", "price": 6000, "available": false, "position": 3}, owner...).Expect(http.StatusOK)
			h.Req("DELETE", "/api/menu/items/"+item.Item.ID, nil, owner...).Expect(http.StatusOK)
			h.Req("DELETE", "/api/menu/categories/"+cat.Category.ID, nil, owner...).Expect(http.StatusOK)
			var st struct {
				Settings map[string]any `json:"settings"`
			}
			h.Req("GET", "/api/settings", nil, owner...).Expect(http.StatusOK).Decode(&st)
			st.Settings["deliveryBaseFee"] = 12000
			h.Req("PUT", "/api/settings", st.Settings, owner...).Expect(http.StatusOK)

			// The operator administers the shop.
			h.Op("POST", "/api/v1/admin/ordering/menu/import",
				"category,name,price\nMakanan,Nasi goreng,25000\nMakanan,Mie goreng,22000\n", "Content-Type", "text/csv").Expect(http.StatusOK)
			h.Op("POST", "/api/v1/admin/ordering/menu/import",
				"category,name,price\nMakanan,,-1\n", "Content-Type", "text/csv").ExpectError(http.StatusUnprocessableEntity, "IMPORT_REFUSED")
			var users struct {
				Data []struct {
					ID   string `json:"id"`
					Role string `json:"role"`
				} `json:"data"`
			}
			h.Op("GET", "/api/v1/admin/ordering/users", nil).Expect(http.StatusOK).Decode(&users)
			for _, u := range users.Data {
				if u.Role == "CUSTOMER" {
					h.Op("PUT", "/api/v1/admin/ordering/users/"+u.ID+"/role",
						map[string]any{"role": "STAFF", "allowedMenus": []string{"kitchen", "payments"}}).Expect(http.StatusOK)
				}
			}
			for range 4 { // three unverified logins, and the fourth is refused
				h.Req("POST", "/api/auth/login", map[string]string{"messengerNumber": "6281299990000", "challengeToken": h.SolvedChallenge()})
			}
			var bans struct {
				Data []struct {
					ID string `json:"id"`
				} `json:"data"`
			}
			h.Op("GET", "/api/v1/admin/ordering/bans", nil).Expect(http.StatusOK).Decode(&bans)
			if len(bans.Data) == 0 {
				t.Fatalf("no ban after four unverified logins")
			}
			h.Op("POST", "/api/v1/admin/ordering/bans/"+bans.Data[0].ID+"/lift", nil).Expect(http.StatusOK)
			day := h.Clock.Now().Format("2006-01-02")
			h.Op("GET", "/api/v1/admin/ordering/ledger?from="+day+"&to="+day, nil).Expect(http.StatusOK)
			h.Op("GET", "/api/v1/admin/ordering/ledger?from="+day+"&to="+day+"&format=csv", nil).Expect(http.StatusOK)
		})
	}
}
