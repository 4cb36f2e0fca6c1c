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
	h := newHarness(t, openBolt, withLinks(clk, &ls), withOrdering(clk, "", t.TempDir()))
	clk.Set(h.clock.Now())
	next, ok := openapitest.Unwrap(h.srv.Config.Handler)
	if !ok {
		t.Fatalf("the harness does not serve through validateAPI")
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
	h := newHarness(t, openBolt, withLinks(clk, &ls), withOrdering(clk, "", t.TempDir()))
	clk.Set(h.clock.Now())
	for _, name := range openapi.Names() {
		j := h.req("GET", "/api/openapi/"+name+".json", nil).expect(http.StatusOK)
		if ct := j.header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("%s.json Content-Type = %q", name, ct)
		}
		if cc := j.header.Get("Cache-Control"); !strings.Contains(cc, "public") {
			t.Errorf("%s.json Cache-Control = %q, want public", name, cc)
		}
		etag := j.header.Get("ETag")
		if etag == "" {
			t.Fatalf("%s.json has no ETag", name)
		}
		h.req("GET", "/api/openapi/"+name+".json", nil, "If-None-Match", etag).expect(http.StatusNotModified)

		y := h.req("GET", "/api/openapi/"+name+".yaml", nil).expect(http.StatusOK)
		if ct := y.header.Get("Content-Type"); ct != "application/yaml" {
			t.Errorf("%s.yaml Content-Type = %q", name, ct)
		}
		var fromJSON, fromYAML map[string]any
		if err := json.Unmarshal(j.body, &fromJSON); err != nil {
			t.Fatalf("%s.json: %v", name, err)
		}
		if err := yaml.Unmarshal(y.body, &fromYAML); err != nil {
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
	h := newHarness(t, openBolt)
	h.req("GET", "/api/openapi/exam.json", nil).expect(http.StatusOK)
	h.req("GET", "/api/openapi/links.json", nil).expectError(http.StatusNotFound, "NOT_FOUND")
	h.req("GET", "/api/openapi/ordering.yaml", nil).expectError(http.StatusNotFound, "NOT_FOUND")
}

// TestOpenAPIRoundTrip drives, through the validating harness, the
// operations the other handler tests reach only with errors or not at all:
// an exam replaced, the menu and settings edited and the shop administered
// by the portal's operator (users, roles, bans, menu import, ledger). Each
// exchange is checked against its description like every other.
func TestOpenAPIRoundTrip(t *testing.T) {
	for _, so := range storeOpeners() {
		t.Run(so.name, func(t *testing.T) {
			h := orderingHarness(t, so.open, "628110000001")

			// Exam replaced while it has no answers.
			examID := h.createExam("20100001")
			h.op("PUT", "/api/v1/admin/exams/"+examID, examFixture("20100001", "20100002")).expect(http.StatusOK)

			// Menu and settings, as the owner.
			jwts := h.orderingUsers()
			owner := bearer(jwts["OWNER"])
			var cat struct {
				Category struct{ ID string } `json:"category"`
			}
			h.req("POST", "/api/menu/categories", map[string]any{"name": "Minuman", "position": 1}, owner...).expect(http.StatusCreated).decode(&cat)
			h.req("PUT", "/api/menu/categories/"+cat.Category.ID, map[string]any{"name": "Minuman dingin", "position": 2}, owner...).expect(http.StatusOK)
			var item struct {
				Item struct{ ID string } `json:"item"`
			}
			h.req("POST", "/api/menu/items", map[string]any{"categoryId": cat.Category.ID, "name": "Es teh", "price": 5000}, owner...).
				expect(http.StatusCreated).decode(&item)
			h.req("PUT", "/api/menu/items/"+item.Item.ID, map[string]any{"categoryId": cat.Category.ID, "name": "Es teh manis",
				"description": "Manis", "price": 6000, "available": false, "position": 3}, owner...).expect(http.StatusOK)
			h.req("DELETE", "/api/menu/items/"+item.Item.ID, nil, owner...).expect(http.StatusOK)
			h.req("DELETE", "/api/menu/categories/"+cat.Category.ID, nil, owner...).expect(http.StatusOK)
			var st struct {
				Settings map[string]any `json:"settings"`
			}
			h.req("GET", "/api/settings", nil, owner...).expect(http.StatusOK).decode(&st)
			st.Settings["deliveryBaseFee"] = 12000
			h.req("PUT", "/api/settings", st.Settings, owner...).expect(http.StatusOK)

			// The operator administers the shop.
			h.op("POST", "/api/v1/admin/ordering/menu/import",
				"category,name,price\nMakanan,Nasi goreng,25000\nMakanan,Mie goreng,22000\n", "Content-Type", "text/csv").expect(http.StatusOK)
			h.op("POST", "/api/v1/admin/ordering/menu/import",
				"category,name,price\nMakanan,,-1\n", "Content-Type", "text/csv").expectError(http.StatusUnprocessableEntity, "IMPORT_REFUSED")
			var users struct {
				Data []struct {
					ID   string `json:"id"`
					Role string `json:"role"`
				} `json:"data"`
			}
			h.op("GET", "/api/v1/admin/ordering/users", nil).expect(http.StatusOK).decode(&users)
			for _, u := range users.Data {
				if u.Role == "CUSTOMER" {
					h.op("PUT", "/api/v1/admin/ordering/users/"+u.ID+"/role",
						map[string]any{"role": "STAFF", "allowedMenus": []string{"kitchen", "payments"}}).expect(http.StatusOK)
				}
			}
			for range 4 { // three unverified logins, and the fourth is refused
				h.req("POST", "/api/auth/login", map[string]string{"messengerNumber": "6281299990000", "challengeToken": h.solvedChallenge()})
			}
			var bans struct {
				Data []struct {
					ID string `json:"id"`
				} `json:"data"`
			}
			h.op("GET", "/api/v1/admin/ordering/bans", nil).expect(http.StatusOK).decode(&bans)
			if len(bans.Data) == 0 {
				t.Fatalf("no ban after four unverified logins")
			}
			h.op("POST", "/api/v1/admin/ordering/bans/"+bans.Data[0].ID+"/lift", nil).expect(http.StatusOK)
			day := h.clock.Now().Format("2006-01-02")
			h.op("GET", "/api/v1/admin/ordering/ledger?from="+day+"&to="+day, nil).expect(http.StatusOK)
			h.op("GET", "/api/v1/admin/ordering/ledger?from="+day+"&to="+day+"&format=csv", nil).expect(http.StatusOK)
		})
	}
}
