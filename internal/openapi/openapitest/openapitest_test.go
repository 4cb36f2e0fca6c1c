package openapitest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"
)

// recorder is a testing.TB that keeps what Errorf reports instead of
// failing the test.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestWrapFindsMismatches serves exchanges that break the exam document in
// each way the validator checks, and one that keeps to it.
func TestWrapFindsMismatches(t *testing.T) {
	type answer struct {
		status      int
		contentType string
		body        string
	}
	cases := []struct {
		name    string
		method  string
		path    string
		reqBody string
		answer  answer
		want    string // "" when the exchange matches
	}{
		{"healthz as described", "GET", "/healthz", "", answer{200, "text/plain; charset=utf-8", "ok"}, ""},
		{"a value the schema's const refuses", "GET", "/healthz", "", answer{200, "text/plain", "not ok"}, "value must be 'ok'"},
		{"a status the operation does not list", "GET", "/healthz", "", answer{http.StatusTeapot, "text/plain", "ok"}, "status is not supported"},
		{"a media type the response does not declare", "GET", "/healthz", "", answer{200, "application/json", `"ok"`}, "Content-Type has unexpected value"},
		{"a JSON body missing a required property", "POST", "/api/v1/auth/login", `{"username":"a","password":"b"}`,
			answer{200, "application/json", `{"success":true}`}, "missing properties 'token'"},
		{"an error envelope with a code in the wrong case", "POST", "/api/v1/auth/login", `{"username":"a"}`,
			answer{400, "application/json", `{"success":false,"error":"bad","code":"bad_request"}`}, "does not match pattern"},
		{"a refused request answered as described", "POST", "/api/v1/auth/login", `{"username":"a","extra":1}`,
			answer{400, "application/json", `{"success":false,"error":"unknown field","code":"INVALID_JSON"}`}, ""},
		{"an accepted request the description refuses", "POST", "/api/v1/auth/login", `{"username":"a","password":"b","extra":1}`,
			answer{401, "application/json", `{"success":false,"error":"wrong","code":"INVALID_CREDENTIALS"}`}, ""},
		{"an accepted request body the description refuses", "POST", "/api/v1/auth/login", `{"username":"a","password":"b","extra":1}`,
			answer{200, "application/json", `{"success":true}`}, "additional properties 'extra' not allowed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mux := chi.NewMux()
			mux.HandleFunc(tc.method+" "+tc.path, func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", tc.answer.contentType)
				w.WriteHeader(tc.answer.status)
				io.WriteString(w, tc.answer.body)
			})
			h := Wrap(t, mux)
			rec := &recorder{TB: t}
			h.ReportTo(rec)
			req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.reqBody))
			if tc.reqBody != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != tc.answer.status || w.Body.String() != tc.answer.body {
				t.Errorf("the client got %d %q, want the handler's %d %q", w.Code, w.Body.String(), tc.answer.status, tc.answer.body)
			}
			got := strings.Join(rec.errs, "\n")
			switch {
			case tc.want == "" && got != "":
				t.Errorf("a matching exchange was reported:\n%s", got)
			case tc.want != "" && got == "":
				t.Errorf("the mismatch was not reported (want a report naming %q)", tc.want)
			case tc.want != "" && !strings.Contains(got, tc.want):
				t.Errorf("the report does not name %q:\n%s", tc.want, got)
			}
		})
	}
}

// TestMetaSchemaRefusesInvalidDocuments: the OpenAPI 3.1 schema catches
// what a hand-edited description gets wrong, and passes the three
// documents (Load).
func TestMetaSchemaRefusesInvalidDocuments(t *testing.T) {
	Load(t)
	for name, doc := range map[string]string{
		"no info":                          `{"openapi":"3.1.0","paths":{}}`,
		"a 3.0 version":                    `{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{}}`,
		"an unknown field":                 `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{},"pathz":{}}`,
		"a response without a description": `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/x":{"get":{"responses":{"200":{}}}}}}`,
	} {
		if err := validateAgainstMetaSchema([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := validateAgainstMetaSchema([]byte(`{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{}}`)); err != nil {
		t.Errorf("a minimal document: %v", err)
	}
}
