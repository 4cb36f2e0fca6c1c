// Package faultproxy is a reverse proxy for tests that stands between a
// client and a real server and misbehaves on demand: it answers slowly,
// drops the connection in the middle of the request or of the response,
// answers an error status (with Retry-After), or answers garbage. The fault
// is switched at run time (Set) and every request it saw is recorded
// (Attempts), so that a test can count how often the client came back and
// check when. It is imported by tests only.
package faultproxy

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Kind is what the proxy does with a request.
type Kind string

// Kinds of Fault.
const (
	// Pass forwards the request and sends the server's answer back.
	Pass Kind = "pass"
	// Slow holds the answer for Fault.Delay (past the client's timeout)
	// before sending it; it gives up when the client does. With
	// Fault.Forward the server has handled the request meanwhile.
	Slow Kind = "slow"
	// CutRequest reads about half of the request body, then closes the
	// connection without an answer: the server never sees the request.
	CutRequest Kind = "cut-request"
	// CutResponse forwards the request, then sends the status line, the
	// headers (with the full Content-Length) and about half of the body,
	// and closes the connection: the server handled the request, the
	// client never reads its answer whole.
	CutResponse Kind = "cut-response"
	// Respond answers Fault.Status with Fault.Body, Fault.ContentType and
	// Fault.RetryAfter, after forwarding the request when Fault.Forward is
	// set.
	Respond Kind = "respond"
	// Truncate forwards the request and answers the server's status and
	// headers with about half of its body, under an honest Content-Length:
	// a well-formed HTTP answer whose JSON is cut short.
	Truncate Kind = "truncate"
	// Retype forwards the request and answers the server's answer whole
	// under Fault.ContentType.
	Retype Kind = "retype"
)

// Fault is the behaviour of the proxy.
type Fault struct {
	Kind Kind
	// Paths limits the fault to the requests whose path starts with one of
	// them; the others pass. Empty: every request.
	Paths []string
	// Forward sends the request to the server before answering (Slow,
	// Respond): the server acts on it, the client never learns.
	Forward bool
	// Delay is how long Slow holds the answer; default one minute.
	Delay time.Duration
	// Status, ContentType and Body are Respond's answer (Status defaults
	// to 200; ContentType also applies to Retype).
	Status      int
	ContentType string
	Body        []byte
	// RetryAfter, when set, gives the Retry-After header of a Respond
	// answer at now: delay seconds ("2") or an HTTP date.
	RetryAfter func(now time.Time) string
}

// Attempt is one request the proxy received.
type Attempt struct {
	Method, Path   string
	IdempotencyKey string
	// Range and Authorization are the request's headers of those names.
	Range, Authorization string
	// At is when the request arrived.
	At time.Time
	// Kind is what the proxy did with it (Pass for a request outside the
	// fault's Paths).
	Kind Kind
	// Forwarded tells whether the server received the request.
	Forwarded bool
	// Status is the status sent to the client; 0 when it got none (a cut,
	// or a slow answer the client gave up on).
	Status int
	// NotBefore is the time the client was asked not to come back before
	// (Retry-After); zero when none was given.
	NotBefore time.Time
	// BodySHA256 is the lowercase hex SHA-256 of the server's answer's
	// body when the proxy passed it on whole (Pass, Slow, Retype); empty
	// otherwise.
	BodySHA256 string
}

// Proxy is a fault-injecting reverse proxy to one server.
type Proxy struct {
	// URL is the proxy's base address, to give the client instead of the
	// server's.
	URL string

	t      testing.TB
	target string
	tr     *http.Transport
	srv    *httptest.Server
	done   chan struct{}

	mu       sync.Mutex
	fault    Fault
	attempts []Attempt
}

// New starts a proxy to the server at target (a base URL such as
// httptest.Server.URL) that passes everything until Set. It stops when the
// test ends.
func New(t testing.TB, target string) *Proxy {
	t.Helper()
	p := &Proxy{
		t: t, target: strings.TrimSuffix(target, "/"),
		tr:    &http.Transport{DisableCompression: true},
		done:  make(chan struct{}),
		fault: Fault{Kind: Pass},
	}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	p.URL = p.srv.URL
	t.Cleanup(p.Close)
	return p
}

// Close stops the proxy, releasing the requests it holds.
func (p *Proxy) Close() {
	select {
	case <-p.done:
		return
	default:
	}
	close(p.done)
	p.srv.CloseClientConnections()
	p.srv.Close()
	p.tr.CloseIdleConnections()
}

// Set switches the proxy to f for the requests that arrive from now on.
func (p *Proxy) Set(f Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fault = f
}

// Heal makes the proxy pass every request again.
func (p *Proxy) Heal() { p.Set(Fault{Kind: Pass}) }

// Mark returns the number of attempts so far, for Since.
func (p *Proxy) Mark() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.attempts)
}

// Since returns the attempts after mark (from Mark), in arrival order.
// An attempt still being handled is included with its outcome so far.
func (p *Proxy) Since(mark int) []Attempt {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Attempt(nil), p.attempts[mark:]...)
}

// Attempts returns every attempt so far.
func (p *Proxy) Attempts() []Attempt { return p.Since(0) }

// applies reports whether f applies to path.
func (f Fault) applies(path string) bool {
	if len(f.Paths) == 0 {
		return true
	}
	for _, pre := range f.Paths {
		if strings.HasPrefix(path, pre) {
			return true
		}
	}
	return false
}

// record appends a and returns a function that updates it in place.
func (p *Proxy) record(a Attempt) func(func(*Attempt)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := len(p.attempts)
	p.attempts = append(p.attempts, a)
	return func(fn func(*Attempt)) {
		p.mu.Lock()
		defer p.mu.Unlock()
		fn(&p.attempts[i])
	}
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	f := p.fault
	p.mu.Unlock()
	if !f.applies(r.URL.Path) {
		f = Fault{Kind: Pass}
	}
	update := p.record(Attempt{
		Method: r.Method, Path: r.URL.Path, IdempotencyKey: r.Header.Get("Idempotency-Key"),
		Range: r.Header.Get("Range"), Authorization: r.Header.Get("Authorization"),
		At: time.Now(), Kind: f.Kind,
	})

	if f.Kind == CutRequest {
		if r.ContentLength > 1 {
			io.CopyN(io.Discard, r.Body, r.ContentLength/2)
		}
		p.hangUp(w, nil)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away
	}

	var resp *upstream
	if f.Kind != Respond && f.Kind != Slow || f.Forward {
		resp, err = p.forward(r, body)
		if err != nil {
			http.Error(w, "faultproxy: "+err.Error(), http.StatusBadGateway)
			update(func(a *Attempt) { a.Status = http.StatusBadGateway })
			return
		}
		update(func(a *Attempt) { a.Forwarded = true })
	}

	switch f.Kind {
	case Slow:
		delay := f.Delay
		if delay <= 0 {
			delay = time.Minute
		}
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-p.done:
			return
		}
		if resp == nil {
			resp = &upstream{status: http.StatusOK, header: http.Header{}}
		}
		resp.send(w)
		update(func(a *Attempt) { a.Status, a.BodySHA256 = resp.status, resp.sum() })
	case CutResponse:
		p.hangUp(w, resp.head())
	case Respond:
		status := f.Status
		if status == 0 {
			status = http.StatusOK
		}
		var notBefore time.Time
		if f.RetryAfter != nil {
			now := time.Now()
			v := f.RetryAfter(now)
			w.Header().Set("Retry-After", v)
			notBefore = retryAfterTime(v, now)
		}
		if f.ContentType != "" {
			w.Header().Set("Content-Type", f.ContentType)
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(f.Body)))
		w.WriteHeader(status)
		w.Write(f.Body)
		update(func(a *Attempt) { a.Status, a.NotBefore = status, notBefore })
	case Truncate:
		resp.body = resp.body[:len(resp.body)/2]
		resp.send(w)
		update(func(a *Attempt) { a.Status = resp.status })
	case Retype:
		if f.ContentType != "" {
			resp.header.Set("Content-Type", f.ContentType)
		}
		resp.send(w)
		update(func(a *Attempt) { a.Status, a.BodySHA256 = resp.status, resp.sum() })
	default:
		resp.send(w)
		update(func(a *Attempt) { a.Status, a.BodySHA256 = resp.status, resp.sum() })
	}
}

// hangUp writes raw to the client's connection (nil: nothing) and closes
// it.
func (p *Proxy) hangUp(w http.ResponseWriter, raw []byte) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		p.t.Errorf("faultproxy: hijack: %v", err)
		return
	}
	defer conn.Close()
	if len(raw) > 0 {
		buf.Write(raw)
		buf.Flush()
	}
}

// upstream is the server's answer, read whole.
type upstream struct {
	status int
	header http.Header
	body   []byte
}

// hopHeaders are not passed on by a proxy.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// forward sends r (with body) to the server and reads its answer.
func (p *Proxy) forward(r *http.Request, body []byte) (*upstream, error) {
	out, err := http.NewRequestWithContext(r.Context(), r.Method, p.target+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("build the request: %w", err)
	}
	out.Header = r.Header.Clone()
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	res, err := p.tr.RoundTrip(out)
	if err != nil {
		return nil, fmt.Errorf("forward: %w", err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, fmt.Errorf("read the answer: %w", err)
	}
	h := res.Header.Clone()
	for _, k := range hopHeaders {
		h.Del(k)
	}
	h.Del("Content-Length")
	return &upstream{status: res.StatusCode, header: h, body: b}, nil
}

// sum is the lowercase hex SHA-256 of u's body.
func (u *upstream) sum() string {
	h := sha256.Sum256(u.body)
	return hex.EncodeToString(h[:])
}

// send writes u to w.
func (u *upstream) send(w http.ResponseWriter) {
	for k, v := range u.header {
		w.Header()[k] = v
	}
	if u.status != http.StatusNotModified && u.status != http.StatusNoContent {
		w.Header().Set("Content-Length", strconv.Itoa(len(u.body)))
	}
	w.WriteHeader(u.status)
	w.Write(u.body)
}

// head returns the first half of u as raw HTTP/1.1: the status line, the
// headers with the full Content-Length, and half the body (or, for an
// answer without a body, half of the headers).
func (u *upstream) head() []byte {
	var b bytes.Buffer
	bw := bufio.NewWriter(&b)
	fmt.Fprintf(bw, "HTTP/1.1 %d %s\r\n", u.status, http.StatusText(u.status))
	h := u.header.Clone()
	h.Set("Content-Length", strconv.Itoa(len(u.body)))
	h.Set("Connection", "close")
	h.Write(bw)
	bw.WriteString("\r\n")
	bw.Flush()
	if len(u.body) < 2 {
		return b.Bytes()[:b.Len()/2]
	}
	b.Write(u.body[:len(u.body)/2])
	return b.Bytes()
}

// retryAfterTime is the time a Retry-After value v sent at now points to.
func retryAfterTime(v string, now time.Time) time.Time {
	if sec, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
		return now.Add(time.Duration(sec) * time.Second)
	}
	if t, err := http.ParseTime(v); err == nil {
		return t
	}
	return time.Time{}
}
