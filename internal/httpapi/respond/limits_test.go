package respond

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestSlowBodyIsCut (OWASP API4, docs/security.md "Slow clients"): a
// client that sends its headers and part of its body, then nothing, is cut
// when the body's read deadline passes: the handler's read fails with a
// timeout and the client gets an answer instead of holding the connection
// for ever. A body that arrived in time lifts the deadline: a handler that
// works on past it keeps its request's context.
func TestSlowBodyIsCut(t *testing.T) {
	grace, rate := BodyReadGrace, BodyReadRate
	BodyReadGrace, BodyReadRate = 200*time.Millisecond, 1<<40
	t.Cleanup(func() { BodyReadGrace, BodyReadRate = grace, rate })

	readErr := make(chan error, 1)
	ctxErr := make(chan error, 1)
	srv := httptest.NewServer(LimitBody(1 << 20)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			var v map[string]any
			err := Decode(r, &v)
			readErr <- err
			Error(w, r, slog.New(slog.DiscardHandler), err)
			return
		}
		io.ReadAll(r.Body)
		// The body is in: outlive its deadline, then look at the context.
		time.Sleep(4 * BodyReadGrace)
		ctxErr <- r.Context().Err()
		w.WriteHeader(http.StatusNoContent)
	})))
	defer srv.Close()

	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST /slow HTTP/1.1\r\nHost: portal\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"a\":"); err != nil {
		t.Fatal(err)
	}
	// Nothing more is sent: the server must answer on its own.
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("stalled body: %d", resp.StatusCode)
	}
	if err := <-readErr; err == nil || !strings.Contains(err.Error(), "did not arrive in time") {
		t.Fatalf("decoding a stalled body: %v, want INVALID_JSON, the body did not arrive in time", err)
	}

	res, err := http.Post(srv.URL+"/fast", "application/json", strings.NewReader(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		t.Fatalf("prompt body: %d", res.StatusCode)
	}
	if err := <-ctxErr; err != nil {
		t.Fatalf("a handler working past the body's deadline lost its context: %v", err)
	}
}
