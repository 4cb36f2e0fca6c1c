package openapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/seedhq/portal/internal/openapi"
)

// TestDocuments checks that each document is OpenAPI 3.1 and that its JSON
// form holds what its YAML says. (Validation against the OpenAPI schema and
// against real traffic is in internal/httpapi.)
func TestDocuments(t *testing.T) {
	for _, name := range openapi.Names() {
		y, err := openapi.YAML(name)
		if err != nil {
			t.Fatal(err)
		}
		j, err := openapi.JSON(name)
		if err != nil {
			t.Fatal(err)
		}
		var fromYAML, fromJSON any
		if err := yaml.Unmarshal(y, &fromYAML); err != nil {
			t.Fatalf("%s.yaml: %v", name, err)
		}
		if err := json.Unmarshal(j, &fromJSON); err != nil {
			t.Fatalf("%s.json: %v", name, err)
		}
		// Round-trip the YAML value through JSON to compare like with like.
		b, err := json.Marshal(fromYAML)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got, _ := json.Marshal(fromJSON); string(got) != string(b) {
			t.Errorf("%s: the JSON form differs from the YAML", name)
		}
		if m, _ := fromJSON.(map[string]any); m["openapi"] != "3.1.0" {
			t.Errorf("%s: openapi = %v", name, m["openapi"])
		}
	}
	if _, err := openapi.YAML("nope"); err == nil {
		t.Errorf("YAML(nope) did not fail")
	}
}

// TestHandler checks the answers of the handler: the documents it was
// given, with caching headers, and nothing else.
func TestHandler(t *testing.T) {
	h, err := openapi.Handler(openapi.Exam)
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string, hdr ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", path, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	w := get("/api/openapi/exam.yaml")
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/yaml" || w.Header().Get("ETag") == "" {
		t.Fatalf("exam.yaml: %d %v", w.Code, w.Header())
	}
	if w := get("/api/openapi/exam.yaml", "If-None-Match", w.Header().Get("ETag")); w.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: %d, want 304", w.Code)
	}
	if w := get("/api/openapi/links.json"); w.Code != http.StatusNotFound {
		t.Errorf("links.json from an exam-only handler: %d, want 404", w.Code)
	}
}
