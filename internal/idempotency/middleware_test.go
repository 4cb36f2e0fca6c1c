package idempotency_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/idempotency"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/internal/testkit"
)

// fixture is a keyed handler over a real bbolt store: it counts its runs
// and answers 201 with the run's number, or what respond says.
type fixture struct {
	clock   *testkit.Clock
	keeper  *idempotency.Keeper
	runs    atomic.Int32
	respond func(w http.ResponseWriter, r *http.Request, run int32)
	h       http.Handler
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"), bolt.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f := &fixture{clock: testkit.NewClock(time.Date(2026, 11, 26, 8, 0, 0, 0, time.UTC))}
	f.keeper = idempotency.New(st, idempotency.Options{Now: f.clock.Now})
	f.respond = func(w http.ResponseWriter, r *http.Request, run int32) {
		io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"run":`+string(rune('0'+run))+`}`)
	}
	fail := func(w http.ResponseWriter, r *http.Request, err error) {
		e := apperr.From(err)
		if e == nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		http.Error(w, e.Code, e.Kind.Status())
	}
	principal := func(r *http.Request) string { return r.Header.Get("X-User") }
	f.h = f.keeper.Middleware(principal, fail)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.respond(w, r, f.runs.Add(1))
	}))
	return f
}

func (f *fixture) post(user, key, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("POST", "/things", strings.NewReader(body))
	r.Header.Set("X-User", user)
	if key != "" {
		r.Header.Set("Idempotency-Key", key)
	}
	w := httptest.NewRecorder()
	f.h.ServeHTTP(w, r)
	return w
}

func TestMiddlewareWithoutKey(t *testing.T) {
	f := newFixture(t)
	f.post("u", "", "a")
	if w := f.post("u", "", "a"); w.Code != 201 || f.runs.Load() != 2 || w.Header().Get(idempotency.ReplayedHeader) != "" {
		t.Fatalf("without a key: %d, %d runs; want every call run", w.Code, f.runs.Load())
	}
}

func TestMiddlewareReplay(t *testing.T) {
	f := newFixture(t)
	first := f.post("u", "k", "a")
	again := f.post("u", "k", "a")
	if f.runs.Load() != 1 || again.Code != 201 || again.Body.String() != first.Body.String() ||
		again.Header().Get(idempotency.ReplayedHeader) != "true" || again.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("retry: %d %q (%v), %d runs; want the first answer %q again, one run", again.Code, again.Body, again.Header(),
			f.runs.Load(), first.Body)
	}
	if w := f.post("u", "k", "b"); w.Code != 422 || !strings.Contains(w.Body.String(), "IDEMPOTENCY_KEY_REUSED") {
		t.Fatalf("another body: %d %q", w.Code, w.Body)
	}
	if w := f.post("v", "k", "a"); w.Code != 201 || f.runs.Load() != 2 {
		t.Fatalf("another user's same key: %d, %d runs; want run", w.Code, f.runs.Load())
	}
	// After the TTL the key is new again.
	f.clock.Add(idempotency.DefaultTTL)
	if w := f.post("u", "k", "b"); w.Code != 201 || f.runs.Load() != 3 {
		t.Fatalf("after the TTL: %d, %d runs; want run", w.Code, f.runs.Load())
	}
}

// A request that runs while the first is still running waits (409); a
// claim whose holder died is taken over once its lease ends.
func TestMiddlewareInUseAndTakeover(t *testing.T) {
	f := newFixture(t)
	inside, release := make(chan struct{}), make(chan struct{})
	f.respond = func(w http.ResponseWriter, r *http.Request, run int32) {
		if run == 1 {
			close(inside)
			<-release
		}
		w.WriteHeader(http.StatusCreated)
	}
	done := make(chan *httptest.ResponseRecorder)
	go func() { done <- f.post("u", "k", "a") }()
	<-inside
	w := f.post("u", "k", "a")
	if w.Code != 409 || w.Header().Get("Retry-After") == "" || !strings.Contains(w.Body.String(), "IDEMPOTENCY_KEY_IN_USE") {
		t.Fatalf("while the first runs: %d %q (Retry-After %q)", w.Code, w.Body, w.Header().Get("Retry-After"))
	}
	// The first request's process is taken to have died: after the lease,
	// a retry runs.
	f.clock.Add(idempotency.DefaultLease)
	if w := f.post("u", "k", "a"); w.Code != 201 || f.runs.Load() != 2 {
		t.Fatalf("after the lease: %d, %d runs", w.Code, f.runs.Load())
	}
	close(release)
	<-done
	// The first request's late answer did not replace the second's.
	if w := f.post("u", "k", "a"); w.Header().Get(idempotency.ReplayedHeader) != "true" || f.runs.Load() != 2 {
		t.Fatalf("after both: %d replayed %q, %d runs", w.Code, w.Header().Get(idempotency.ReplayedHeader), f.runs.Load())
	}
}

// Answers other than 2xx are not kept, nor answers of a handler that
// panicked: a retry runs again.
func TestMiddlewareKeepsOnlySuccess(t *testing.T) {
	f := newFixture(t)
	f.respond = func(w http.ResponseWriter, r *http.Request, run int32) {
		switch run {
		case 1:
			w.WriteHeader(http.StatusBadRequest)
		case 2:
			w.WriteHeader(http.StatusServiceUnavailable)
		case 3:
			panic("boom")
		default:
			w.WriteHeader(http.StatusCreated)
		}
	}
	if w := f.post("u", "k", "a"); w.Code != 400 {
		t.Fatalf("run 1: %d", w.Code)
	}
	if w := f.post("u", "k", "a"); w.Code != 503 {
		t.Fatalf("run 2: %d", w.Code)
	}
	func() {
		defer func() { recover() }()
		f.post("u", "k", "a")
	}()
	if w := f.post("u", "k", "a"); w.Code != 201 || f.runs.Load() != 4 {
		t.Fatalf("run 4: %d, %d runs", w.Code, f.runs.Load())
	}
	if w := f.post("u", "k", "a"); w.Code != 201 || f.runs.Load() != 4 {
		t.Fatalf("the retry of a success: %d, %d runs", w.Code, f.runs.Load())
	}
}

// The fingerprint covers the whole body, also what the handler left unread.
func TestMiddlewareFingerprintsUnreadBody(t *testing.T) {
	f := newFixture(t)
	f.respond = func(w http.ResponseWriter, r *http.Request, run int32) {
		io.ReadFull(r.Body, make([]byte, 4))
		w.WriteHeader(http.StatusCreated)
	}
	f.post("u", "k", "same-start-A")
	if w := f.post("u", "k", "same-start-B"); w.Code != 422 {
		t.Fatalf("a body differing after what the handler read: %d, want 422", w.Code)
	}
}

func TestParseKey(t *testing.T) {
	for in, want := range map[string]string{
		"abc": "abc", `"abc"`: "abc", "8e03978e-40d5-43e8-bc93-6894a57f9324": "8e03978e-40d5-43e8-bc93-6894a57f9324",
		`"a b"`: "a b",
	} {
		if got, ok := idempotency.ParseKey(in); !ok || got != want {
			t.Errorf("ParseKey(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", " ", `""`, `"a"b"`, `"a\"`, strings.Repeat("x", 201), "caf\u00e9", "a\x00b", "a\nb"} {
		if got, ok := idempotency.ParseKey(in); ok {
			t.Errorf("ParseKey(%q) = %q, accepted", in, got)
		}
	}
}
