package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi"
	"github.com/seedhq/portal/internal/httpapi/httpapitest"
)

func TestBodyLimits(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		// Over the default 1 MiB: refused while reading.
		big := `{"username":"` + strings.Repeat("a", 1<<20) + `","password":"x"}`
		h.Req("POST", "/api/v1/auth/login", big).ExpectError(413, "BODY_TOO_LARGE")
		h.Op("POST", "/api/v1/licenses/generate", big).ExpectError(413, "BODY_TOO_LARGE")
		// Member import takes up to 32 MiB: 2 MiB of (invalid) rows is read
		// and judged on its content.
		rows := "nama,nisn\n" + strings.Repeat("Siswa dengan nama yang cukup panjang untuk tes ini,1\n", 40_000)
		var rep httpapitest.ImportJSON
		h.Op("POST", "/api/v1/admin/members/import?npsn="+httpapitest.NPSNA, rows, "Content-Type", "text/csv").Expect(200).Decode(&rep)
		if len(rows) < 2<<20 || rep.Rejected != 40_000 {
			t.Fatalf("%d bytes, %d rejected", len(rows), rep.Rejected)
		}
		// Exam creation takes up to 256 MiB: a 2 MiB question text is fine.
		e := httpapitest.ExamFixture(httpapitest.NPSNA)
		e["questions"].([]map[string]any)[4]["text"] = strings.Repeat("Jelaskan. ", 200_000)
		h.Op("POST", "/api/v1/admin/exams", e).Expect(201)
	})
}

func TestInvalidJSON(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		tok := httpapitest.Bearer(h.Operator())
		for name, body := range map[string]string{
			"unknown field":  `{"npsn":"20100001","colour":"red"}`,
			"trailing data":  `{"npsn":"20100001"} {"npsn":"20100002"}`,
			"trailing junk":  `{"npsn":"20100001"}x`,
			"malformed":      `{"npsn":`,
			"syntax":         `{npsn: 1}`,
			"wrong type":     `{"npsn":"20100001","max_students":"many"}`,
			"empty":          ``,
			"not an object":  `[1,2]`,
			"null then more": `null null`,
		} {
			t.Run(name, func(t *testing.T) {
				res := h.Req("POST", "/api/v1/licenses/generate", body, tok...).ExpectError(400, "INVALID_JSON")
				var e struct {
					Error string `json:"error"`
				}
				json.Unmarshal(res.Body, &e)
				if name == "unknown field" && !strings.Contains(e.Error, "colour") {
					t.Fatalf("message %q does not name the field", e.Error)
				}
				if name == "wrong type" && !strings.Contains(e.Error, "max_students") {
					t.Fatalf("message %q does not name the field", e.Error)
				}
			})
		}
		// Trailing white space is fine.
		h.Op("POST", "/api/v1/licenses/generate", `{"npsn":"1"}`+"  \n").ExpectError(400, "VALIDATION_FAILED")
	})
}

func TestUnknownRoutes(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		h.Req("GET", "/api/v1/nope", nil).ExpectError(404, "NOT_FOUND")
		h.Req("GET", "/", nil).ExpectError(404, "NOT_FOUND")
		res := h.Req("PUT", "/api/v1/admin/exams", nil).ExpectError(405, "METHOD_NOT_ALLOWED")
		if allow := res.Header.Get("Allow"); allow != "GET, POST" {
			t.Fatalf("Allow = %q", allow)
		}
		h.Req("GET", "/api/v1/auth/login", nil).ExpectError(405, "METHOD_NOT_ALLOWED")
	})
}

func TestHealth(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		if res := h.Req("GET", "/healthz", nil).Expect(200); string(res.Body) != "ok" {
			t.Fatalf("healthz = %q", res.Body)
		}
		if res := h.Req("GET", "/readyz", nil).Expect(200); string(res.Body) != "ok" {
			t.Fatalf("readyz = %q", res.Body)
		}
	})
}

// failingStore is a store whose Ping fails or panics.
type failingStore struct {
	exam.Store
	ping func() error
}

func (s failingStore) Ping(ctx context.Context) error { return s.ping() }

func TestReadyzUnavailable(t *testing.T) {
	h := httpapitest.New(t, httpapitest.OpenBolt, httpapitest.WithStoreWrapper(func(st exam.Store) exam.Store {
		return failingStore{st, func() error { return errors.New("disk on fire") }}
	}))
	h.Req("GET", "/readyz", nil).Expect(503)
	if !strings.Contains(h.Logs.String(), "disk on fire") {
		t.Fatal("the failure was not logged")
	}
}

func TestPanicRecovery(t *testing.T) {
	h := httpapitest.New(t, httpapitest.OpenBolt, httpapitest.WithStoreWrapper(func(st exam.Store) exam.Store {
		return failingStore{st, func() error { panic("boom") }}
	}))
	res := h.Req("GET", "/readyz", nil, "X-Request-ID", "req-panic-1").ExpectError(500, "INTERNAL")
	if strings.Contains(string(res.Body), "boom") {
		t.Fatalf("the panic leaks to the client: %s", res.Body)
	}
	if res.Header.Get("X-Request-ID") != "req-panic-1" {
		t.Fatalf("X-Request-ID = %q", res.Header.Get("X-Request-ID"))
	}
	var panicLine, requestLine map[string]any
	for _, line := range strings.Split(strings.TrimSpace(h.Logs.String()), "\n") {
		var m map[string]any
		json.Unmarshal([]byte(line), &m)
		switch m["msg"] {
		case "panic serving request":
			panicLine = m
		case "request complete":
			if m["route"] == "/readyz" {
				requestLine = m
			}
		}
	}
	if panicLine == nil || panicLine["panic"] != "boom" || !strings.Contains(panicLine["stack"].(string), "goroutine") ||
		panicLine["request_id"] != "req-panic-1" {
		t.Fatalf("panic log = %v", panicLine)
	}
	if requestLine == nil || requestLine["status"] != 500.0 || requestLine["request_id"] != "req-panic-1" {
		t.Fatalf("request log = %v", requestLine)
	}
	// The server goes on serving.
	h.Req("GET", "/healthz", nil).Expect(200)
}

func TestRequestLogAndMetrics(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		id := h.CreateExam(httpapitest.NPSNA)
		h.Op("GET", "/api/v1/admin/exams/"+id, nil).Expect(200)
		h.Op("GET", "/api/v1/admin/exams/another-id", nil).Expect(404)
		res := h.Req("GET", "/api/v1/nope/123", nil).Expect(404)
		if len(res.Header.Get("X-Request-ID")) < 16 {
			t.Fatalf("X-Request-ID = %q", res.Header.Get("X-Request-ID"))
		}

		metrics := string(h.Req("GET", "/metrics", nil).Expect(200).Body)
		for _, want := range []string{
			`http_requests_total{method="GET",route="/api/v1/admin/exams/{id}",status="200"} 1`,
			`http_requests_total{method="GET",route="/api/v1/admin/exams/{id}",status="404"} 1`,
			`http_requests_total{method="POST",route="/api/v1/admin/exams",status="201"} 1`,
			`http_requests_total{method="GET",route="unmatched",status="404"} 1`,
			`http_request_duration_seconds_count{method="GET",route="/api/v1/admin/exams/{id}",status="200"} 1`,
			`http_request_duration_seconds_count{method="GET",route="/api/v1/admin/exams/{id}",status="404"} 1`,
		} {
			if !strings.Contains(metrics, want) {
				t.Errorf("metrics lack %s", want)
			}
		}
		if strings.Contains(metrics, id) || strings.Contains(metrics, "another-id") || strings.Contains(metrics, "/nope/") {
			t.Error("metrics carry raw paths")
		}

		var line map[string]any
		for _, l := range strings.Split(h.Logs.String(), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == "request complete" && m["route"] == "/api/v1/admin/exams/{id}" {
				line = m
				break
			}
		}
		if line == nil {
			t.Fatalf("no request line for the exam route in:\n%s", h.Logs.String())
		}
		for _, k := range []string{"method", "route", "status", "duration", "bytes", "request_id"} {
			if _, ok := line[k]; !ok {
				t.Errorf("request line lacks %s: %v", k, line)
			}
		}
	})
}

func TestMetricsGatherer(t *testing.T) {
	// With an explicit registry and gatherer, /metrics serves the gatherer,
	// and two handlers over one registry share their series.
	reg := prometheus.NewRegistry()
	extra := prometheus.NewCounter(prometheus.CounterOpts{Name: "portal_test_extra_total", Help: "x"})
	reg.MustRegister(extra)
	hh := httpapitest.New(t, httpapitest.OpenBolt)
	opts := httpapi.Options{Exam: hh.Exam, Identity: hh.Identity, Idempotency: hh.Idempotency, Registry: reg, Gatherer: reg, Logger: slog.New(slog.DiscardHandler)}
	h1, h2 := httpapi.New(opts), httpapi.New(opts)
	for _, h := range []http.Handler{h1, h2} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	}
	rec := httptest.NewRecorder()
	h1.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	if !strings.Contains(string(body), "portal_test_extra_total") ||
		!strings.Contains(string(body), `http_requests_total{method="GET",route="/healthz",status="200"} 2`) {
		t.Fatalf("metrics:\n%s", body)
	}
}
