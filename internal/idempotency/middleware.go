package idempotency

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/pkg/labwire"
)

// How long receipts are kept, and how long a claim holds.
const (
	// DefaultTTL is how long an answer is kept for retries: a day, longer
	// than any client's retries (labagent's pushes, pkg/client's 429 waits,
	// a customer's phone coming back into coverage) and the same as the
	// payment industry's usual window.
	DefaultTTL = 24 * time.Hour
	// DefaultLease is how long a request may run before a retry with its
	// key may take its claim over, taking it to have died with its process.
	DefaultLease = 5 * time.Minute
	// maxAnswer is the largest answer kept; creating calls answer far less.
	// A larger one is not kept, and a retry runs the request again.
	maxAnswer = 1 << 20
)

// The errors a client gets from the middleware.
var (
	ErrInvalidKey = apperr.New(apperr.Invalid, "INVALID_IDEMPOTENCY_KEY",
		"Idempotency-Key must be one header of 1 to 200 printable ASCII characters")
	ErrKeyInUse = apperr.New(apperr.Conflict, "IDEMPOTENCY_KEY_IN_USE",
		"a request with this Idempotency-Key is still being processed; retry after Retry-After seconds")
	ErrKeyReused = apperr.New(apperr.Unprocessable, "IDEMPOTENCY_KEY_REUSED",
		"this Idempotency-Key was used for another request (another body or query); use a new key for a new request")
)

// Options configure a Keeper. Zero values take the defaults.
type Options struct {
	// TTL is how long an answer is kept (DefaultTTL).
	TTL time.Duration
	// Lease is how long a claim holds (DefaultLease).
	Lease time.Duration
	// Now returns the current time (time.Now).
	Now func() time.Time
	// Logger receives the failures to keep an answer (discarded when nil).
	Logger *slog.Logger
}

// Keeper answers retried creating calls from the receipts in its store.
type Keeper struct {
	store Store
	ttl   time.Duration
	lease time.Duration
	now   func() time.Time
	log   *slog.Logger
}

// New returns a Keeper of receipts in st.
func New(st Store, o Options) *Keeper {
	k := &Keeper{store: st, ttl: o.TTL, lease: o.Lease, now: o.Now, log: o.Logger}
	if k.ttl <= 0 {
		k.ttl = DefaultTTL
	}
	if k.lease <= 0 {
		k.lease = DefaultLease
	}
	if k.now == nil {
		k.now = time.Now
	}
	if k.log == nil {
		k.log = slog.New(slog.DiscardHandler)
	}
	return k
}

// ParseKey returns the key of an Idempotency-Key header value: the draft's
// quoted string ("8e03978e-...") or the bare token most clients send, the
// two naming the same key. It reports false for a value that is not a
// valid key.
func ParseKey(v string) (string, bool) {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
		if strings.ContainsAny(v, `"\`) {
			return "", false
		}
	}
	return v, labwire.ValidIdempotencyKey(v)
}

// Middleware returns the middleware that honours Idempotency-Key on the
// routes it wraps. Without the header a request goes through untouched.
// With it:
//
//   - the first request with a key runs, and a successful (2xx) answer is
//     kept for the Keeper's TTL; any other answer is not kept, so that a
//     corrected request may use the key again;
//   - a request with a kept key and the same query and body gets the kept
//     answer again, with Idempotent-Replayed: true, and runs nothing;
//   - with another query or body it gets ErrKeyReused (422);
//   - while the first request still runs, ErrKeyInUse (409, Retry-After).
//
// Keys are scoped by principal (who calls, from the request's credential),
// the method and the path: two callers never share a key. fail writes an
// error in the API's envelope. Wrap only routes behind authentication.
func (k *Keeper) Middleware(principal func(*http.Request) string, fail func(http.ResponseWriter, *http.Request, error)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			values := r.Header.Values(Header)
			if len(values) == 0 {
				next.ServeHTTP(w, r)
				return
			}
			key, ok := ParseKey(values[0])
			if len(values) > 1 || !ok {
				fail(w, r, ErrInvalidKey)
				return
			}
			k.serve(w, r, next, receiptID(principal(r), r.Method, r.URL.Path, key), fail)
		})
	}
}

// serve runs one keyed request.
func (k *Keeper) serve(w http.ResponseWriter, r *http.Request, next http.Handler, id string, fail func(http.ResponseWriter, *http.Request, error)) {
	ctx := r.Context()
	now := k.now()
	claim := Receipt{Token: newToken(), LeaseUntil: now.Add(k.lease), ExpiresAt: now.Add(k.ttl)}
	kept, claimed, err := k.store.ClaimIdempotencyKey(ctx, id, claim, now)
	if err != nil {
		fail(w, r, fmt.Errorf("idempotency: claim key: %w", err))
		return
	}
	if !claimed {
		if !kept.Done {
			w.Header().Set("Retry-After", "1")
			fail(w, r, ErrKeyInUse)
			return
		}
		sum, err := fingerprint(r)
		if err != nil {
			fail(w, r, err)
			return
		}
		if !bytes.Equal(sum, kept.Fingerprint) {
			fail(w, r, ErrKeyReused)
			return
		}
		replay(w, kept)
		return
	}

	// The claim is this request's: run it, hashing the body as the handler
	// reads it, and keep its answer.
	h := newFingerprint(r)
	body := r.Body
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(body, h), body}
	rec := &recorder{header: w.Header(), status: http.StatusOK}
	kctx := context.WithoutCancel(ctx)
	finished := false
	defer func() {
		if !finished { // the handler panicked: let a retry run it again
			k.release(kctx, id, claim.Token)
		}
	}()
	next.ServeHTTP(rec, r)
	// The fingerprint covers what the client sent, also what the handler
	// did not read.
	_, drainErr := io.Copy(h, body)
	finished = true

	if rec.status >= 200 && rec.status < 300 && rec.body.Len() <= maxAnswer && drainErr == nil {
		answer := Receipt{Token: claim.Token, Done: true, Fingerprint: h.Sum(nil), Status: rec.status,
			ContentType: rec.header.Get("Content-Type"), Location: rec.header.Get("Location"),
			Body: rec.body.Bytes(), ExpiresAt: claim.ExpiresAt}
		if err := k.store.FinishIdempotencyKey(kctx, id, answer); err != nil {
			// The request's work is done and answered; a retry within the
			// lease waits, after it runs again.
			k.log.WarnContext(ctx, "idempotency: keep answer", "method", r.Method, "path", r.URL.Path, "err", err)
		}
	} else {
		k.release(kctx, id, claim.Token)
	}
	rec.send(w)
}

// release forgets the claim, logging a failure (the claim then holds until
// its lease ends).
func (k *Keeper) release(ctx context.Context, id, token string) {
	if err := k.store.ReleaseIdempotencyKey(ctx, id, token); err != nil {
		k.log.WarnContext(ctx, "idempotency: release key", "err", err)
	}
}

// replay writes a kept answer.
func replay(w http.ResponseWriter, a Receipt) {
	h := w.Header()
	if a.ContentType != "" {
		h.Set("Content-Type", a.ContentType)
	}
	if a.Location != "" {
		h.Set("Location", a.Location)
	}
	h.Set(ReplayedHeader, "true")
	h.Set("Content-Length", fmt.Sprint(len(a.Body)))
	w.WriteHeader(a.Status)
	w.Write(a.Body)
}

// receiptID names a key of one principal on one route: a SHA-256, so that
// the store keeps no credential, path or key in the clear and every id has
// the same length.
func receiptID(principal, method, path, key string) string {
	h := sha256.New()
	for _, s := range []string{principal, method, path, key} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// newFingerprint starts the fingerprint of r: its media type and query,
// then its body as it is written to the hash.
func newFingerprint(r *http.Request) hash.Hash {
	h := sha256.New()
	h.Write([]byte(r.Header.Get("Content-Type")))
	h.Write([]byte{0})
	h.Write([]byte(r.URL.RawQuery))
	h.Write([]byte{0})
	return h
}

// fingerprint reads r's whole body into the fingerprint.
func fingerprint(r *http.Request) ([]byte, error) {
	h := newFingerprint(r)
	if r.Body != nil {
		if _, err := io.Copy(h, r.Body); err != nil {
			return nil, fmt.Errorf("idempotency: read body: %w", err)
		}
	}
	return h.Sum(nil), nil
}

// newToken returns a random claim token.
func newToken() string {
	return rand.Text()
}

// recorder keeps a handler's answer so that it is stored before it is sent.
type recorder struct {
	header      http.Header
	status      int
	wroteHeader bool
	body        bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if !r.wroteHeader {
		r.status, r.wroteHeader = status, true
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.wroteHeader = true
	return r.body.Write(p)
}

// send writes the recorded answer to w (whose header map is r's).
func (r *recorder) send(w http.ResponseWriter) {
	w.WriteHeader(r.status)
	w.Write(r.body.Bytes())
}
