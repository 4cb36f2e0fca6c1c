package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultUserAgent is the User-Agent sent when WithUserAgent is not used.
const DefaultUserAgent = "seedhq-portal-go-client"

// examPrefix is the path, relative to the base address, of the exam
// synchronisation API.
const examPrefix = "api/v1/"

// Client talks to one portal. It is safe for concurrent use; build it with
// NewClient and reach the APIs through its service fields.
type Client struct {
	httpClient *http.Client
	baseURL    *url.URL // always ends in "/"
	userAgent  string

	mu      sync.RWMutex
	token   string // bearer JWT: operator or lab server
	apiKey  string // X-API-Key of the directory API
	linkKey string // API key of the link-management API, sent as a bearer
	ordKey  string // ordering JWT, sent as a bearer to the ordering API

	// rateLimitRetries is how many times a 429 answer is waited out and
	// retried (WithRateLimitRetry); 0 never.
	rateLimitRetries int

	common service // reused by every service instead of allocating one each

	// Exam is the exam synchronisation API (/api/v1).
	Exam *ExamService
	// Links is the link-management API (/api, docs/api/links.md),
	// authenticated with a link user's API key (WithLinkKey).
	Links *LinksService
	// Ordering is the ordering API (/api, docs/api/ordering.md),
	// authenticated with an ordering JWT (WithOrderingToken).
	Ordering *OrderingService
}

// service is the base of every service: the client it belongs to.
type service struct {
	client *Client
}

// Option configures a Client in NewClient.
type Option func(*Client)

// WithHTTPClient makes the Client send its requests with hc, for example the
// StandardClient of hashicorp/go-retryablehttp, or one with a custom
// transport. A nil hc keeps the default, a plain &http.Client{} without a
// time limit: bound calls with their context.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.httpClient = hc
		}
	}
}

// WithUserAgent sets the User-Agent header of every request. An empty ua
// keeps DefaultUserAgent.
func WithUserAgent(ua string) Option {
	return func(c *Client) {
		if ua != "" {
			c.userAgent = ua
		}
	}
}

// WithToken sets the bearer JWT sent as "Authorization: Bearer <token>" to
// the endpoints that take one: an operator token from c.Exam.Auth.Login or a
// lab-server access token from c.Exam.Sync.VerifyServer. See SetToken.
func WithToken(token string) Option {
	return func(c *Client) { c.token = token }
}

// WithAPIKey sets the key sent as "X-API-Key" to the directory endpoints
// (c.Exam.Directory). See SetAPIKey.
func WithAPIKey(key string) Option {
	return func(c *Client) { c.apiKey = key }
}

// WithLinkKey sets the API key of a link-management user, sent as
// "Authorization: Bearer <key>" to the link endpoints (c.Links) only; the
// operator's token (WithToken) stays separate. See SetLinkKey.
func WithLinkKey(key string) Option {
	return func(c *Client) { c.linkKey = key }
}

// WithOrderingToken sets the ordering JWT (from a messenger login), sent as
// "Authorization: Bearer <token>" to the ordering endpoints (c.Ordering)
// only. See SetOrderingToken.
func WithOrderingToken(token string) Option {
	return func(c *Client) { c.ordKey = token }
}

// WithRateLimitRetry makes the Client wait out a 429 answer and send the
// request again, up to max times per call: it waits for Retry-After (or
// else until X-RateLimit-Reset, or else one second), and gives up at once
// when the call's context ends, with an error matching both the context's
// error and ErrRateLimited. Requests whose body cannot be replayed (an
// io.Reader passed to NewRequest without GetBody) are not retried. max <= 0
// (the default) never retries.
func WithRateLimitRetry(max int) Option {
	return func(c *Client) { c.rateLimitRetries = max }
}

// NewClient returns a Client for the portal at baseURL, the portal's root
// address such as "https://portal.example.org" (a path prefix is kept, for
// a portal behind a reverse proxy; "/api/v1" must not be part of it: every
// service adds its own API's path).
func NewClient(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil {
		return nil, fmt.Errorf("client: base URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("client: base URL %q must start with http:// or https://", baseURL)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("client: base URL %q has no host", baseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("client: base URL %q must not have a query or fragment", baseURL)
	}
	p := strings.TrimRight(u.Path, "/")
	if strings.HasSuffix(p, "/api") || strings.HasSuffix(p, "/api/v1") {
		return nil, fmt.Errorf("client: base URL %q must be the portal's root, without /api or /api/v1", baseURL)
	}
	u.Path = p + "/"
	u.RawPath = ""

	c := &Client{httpClient: &http.Client{}, baseURL: u, userAgent: DefaultUserAgent}
	for _, opt := range opts {
		opt(c)
	}
	c.common.client = c
	c.Exam = newExamService(&c.common)
	c.Links = newLinksService(&c.common)
	c.Ordering = newOrderingService(&c.common)
	return c, nil
}

// BaseURL returns a copy of the base address the Client was built with,
// always ending in "/".
func (c *Client) BaseURL() *url.URL {
	u := *c.baseURL
	return &u
}

// SetToken replaces the bearer JWT sent from now on (for example after a
// login or a handshake, or when the lab-server token is renewed). An empty
// token sends none. It is safe to call while requests are in flight.
func (c *Client) SetToken(token string) {
	c.mu.Lock()
	c.token = token
	c.mu.Unlock()
}

// Token returns the bearer JWT currently set.
func (c *Client) Token() string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.token
}

// SetAPIKey replaces the X-API-Key sent from now on to the directory
// endpoints. It is safe to call while requests are in flight.
func (c *Client) SetAPIKey(key string) {
	c.mu.Lock()
	c.apiKey = key
	c.mu.Unlock()
}

// SetLinkKey replaces the link-management API key sent from now on to the
// link endpoints (c.Links). It is safe to call while requests are in
// flight.
func (c *Client) SetLinkKey(key string) {
	c.mu.Lock()
	c.linkKey = key
	c.mu.Unlock()
}

// SetOrderingToken replaces the ordering JWT sent from now on to the
// ordering endpoints (c.Ordering). It is safe to call while requests are in
// flight.
func (c *Client) SetOrderingToken(token string) {
	c.mu.Lock()
	c.ordKey = token
	c.mu.Unlock()
}

// credential names the credential an endpoint expects.
type credential int

const (
	credNone     credential = iota // login, public key, handshake, health
	credBearer                     // operator or lab-server JWT
	credAPIKey                     // X-API-Key
	credLinkKey                    // link-management API key, as a bearer
	credOrdering                   // ordering JWT, as a bearer
	credAll                        // whatever is set (NewRequest)
)

// NewRequest builds a request for path, relative to the base address (for
// example "api/v1/auth/me"), for endpoints this package has no method for
// yet. A body that is an io.Reader is sent as is (set its Content-Type);
// any other non-nil body is sent as JSON. Every credential that is set is
// attached (the bearer JWT, or else the link key, in Authorization). Send it
// with Do.
func (c *Client) NewRequest(method, path string, body any) (*http.Request, error) {
	return c.newRequest(context.Background(), method, path, nil, body, credAll)
}

// newRequest builds a request for path (relative to the base address) with
// the query q, the body (nil, an io.Reader sent as is, or a value sent as
// JSON) and the credential cred.
func (c *Client) newRequest(ctx context.Context, method, path string, q url.Values, body any, cred credential) (*http.Request, error) {
	if strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("client: path %q must be relative to the base URL", path)
	}
	u, err := c.baseURL.Parse(path)
	if err != nil {
		return nil, fmt.Errorf("client: path %q: %w", path, err)
	}
	if len(q) > 0 {
		u.RawQuery = q.Encode()
	}

	var (
		r           io.Reader
		contentType string
	)
	switch b := body.(type) {
	case nil:
	case io.Reader:
		r = b
	case json.RawMessage:
		r, contentType = bytes.NewReader(b), "application/json"
	default:
		buf, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("client: encode request body: %w", err)
		}
		r, contentType = bytes.NewReader(buf), "application/json"
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), r)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if key, ok := ctx.Value(idempotencyKeyCtx{}).(string); ok && key != "" {
		req.Header.Set("Idempotency-Key", key)
	}

	c.mu.RLock()
	token, key, linkKey, ordKey := c.token, c.apiKey, c.linkKey, c.ordKey
	c.mu.RUnlock()
	if cred == credOrdering && ordKey != "" {
		req.Header.Set("Authorization", "Bearer "+ordKey)
	}
	if (cred == credBearer || cred == credAll) && token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if (cred == credLinkKey || (cred == credAll && token == "")) && linkKey != "" {
		req.Header.Set("Authorization", "Bearer "+linkKey)
	}
	if (cred == credAPIKey || cred == credAll) && key != "" {
		req.Header.Set("X-API-Key", key)
	}
	return req, nil
}

type idempotencyKeyCtx struct{}

// WithIdempotencyKey returns ctx carrying key as the Idempotency-Key of the
// creating call made with it (1 to 200 printable ASCII characters; a UUID
// is one). Every creating call (CreateExam, Orders.Create, URLs.Add, ...)
// sends a key, the same on each of its retries, so that the portal creates
// once however often the call is sent; without this, the key is a new
// random one per call. Set your own to keep a retry safe across runs of
// your program (a job restarted after a crash sends the same key): use one
// key for one call only, since the portal answers another call with the
// same key 422 IDEMPOTENCY_KEY_REUSED.
func WithIdempotencyKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, idempotencyKeyCtx{}, key)
}

// creating returns ctx with the Idempotency-Key of one creating call: the
// caller's (WithIdempotencyKey) or a new random one.
func creating(ctx context.Context) context.Context {
	if ctx == nil {
		return nil // refused by send
	}
	if _, ok := ctx.Value(idempotencyKeyCtx{}).(string); ok {
		return ctx
	}
	return context.WithValue(ctx, idempotencyKeyCtx{}, rand.Text())
}

// Do sends req with ctx and decodes a successful JSON body into v (a
// pointer), or copies it to v when v is an io.Writer; v may be nil. A
// status outside 2xx (and 304) gives an *Error decoded from whichever of
// the portal's error envelopes the body is in. The *Response is returned
// whenever the portal answered, also with an *Error.
func (c *Client) Do(ctx context.Context, req *http.Request, v any) (*Response, error) {
	return c.do(ctx, req, v, decodeAnyError)
}

// do is Do with the error envelope of one API. With WithRateLimitRetry, a
// 429 answer is waited out and the request sent again (see retryWait).
func (c *Client) do(ctx context.Context, req *http.Request, v any, dec errorDecoder) (*Response, error) {
	resp, err := c.send(ctx, req)
	for attempt := 0; err == nil && resp.StatusCode == http.StatusTooManyRequests && attempt < c.rateLimitRetries; attempt++ {
		next, ok := replay(ctx, req)
		if !ok {
			break
		}
		wait := retryWait(resp.Header, time.Now())
		apiErr := newError(resp, dec)
		resp.Body.Close()
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return newResponse(resp), fmt.Errorf("client: %w while waiting %s to retry: %w", ctx.Err(), wait, apiErr)
		case <-t.C:
		}
		req = next
		resp, err = c.send(ctx, req)
	}
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	response := newResponse(resp)
	if err := checkResponse(resp, dec); err != nil {
		return response, err
	}
	if resp.StatusCode == http.StatusNotModified || v == nil {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // let the connection be reused
		return response, nil
	}
	if w, ok := v.(io.Writer); ok {
		if _, err := io.Copy(w, resp.Body); err != nil {
			return response, fmt.Errorf("client: %s %s: read body: %w", req.Method, redact(req.URL), err)
		}
		return response, nil
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil && !errors.Is(err, io.EOF) { // EOF: no body
		return response, fmt.Errorf("client: %s %s: decode response: %w", req.Method, redact(req.URL), err)
	}
	return response, nil
}

// replay returns a copy of req to send again, with a fresh body, and false
// when its body cannot be read again.
func replay(ctx context.Context, req *http.Request) (*http.Request, bool) {
	next := req.Clone(ctx)
	if req.Body == nil || req.Body == http.NoBody {
		return next, true
	}
	if req.GetBody == nil {
		return nil, false
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, false
	}
	next.Body = body
	return next, true
}

// retryWait is how long to wait before retrying a 429 answer with header h:
// Retry-After (seconds or an HTTP date), else until X-RateLimit-Reset (Unix
// seconds), else one second.
func retryWait(h http.Header, now time.Time) time.Duration {
	if d := parseRetryAfter(h.Get("Retry-After"), now); d > 0 {
		return d
	}
	if sec, err := strconv.ParseInt(strings.TrimSpace(h.Get("X-RateLimit-Reset")), 10, 64); err == nil {
		if d := time.Unix(sec, 0).Sub(now); d > 0 {
			return d
		}
	}
	return time.Second
}

// send sends req with ctx and returns the response with its body open.
// When ctx ends first, the error wraps ctx.Err().
func (c *Client) send(ctx context.Context, req *http.Request) (*http.Response, error) {
	if ctx == nil {
		return nil, errors.New("client: nil context")
	}
	req = req.WithContext(ctx)
	resp, err := c.httpClient.Do(req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			return nil, fmt.Errorf("client: %w (%v)", ctxErr, err)
		}
		return nil, fmt.Errorf("client: %w", err)
	}
	return resp, nil
}

// call builds and sends one request with the credential cred and decodes
// its errors with dec, the envelope of the API called.
func (c *Client) call(ctx context.Context, method, path string, q url.Values, body, v any, cred credential, dec errorDecoder) (*Response, error) {
	req, err := c.newRequest(ctx, method, path, q, body, cred)
	if err != nil {
		return nil, err
	}
	return c.do(ctx, req, v, dec)
}

// Healthz asks GET /healthz whether the portal process is up; a nil error
// means it answered 200.
func (c *Client) Healthz(ctx context.Context) (*Response, error) {
	return c.health(ctx, "healthz")
}

// Readyz asks GET /readyz whether the portal can serve (its store answers);
// a nil error means 200, and a portal that is not ready gives an *Error
// matching ErrUnavailable (503).
func (c *Client) Readyz(ctx context.Context) (*Response, error) {
	return c.health(ctx, "readyz")
}

func (c *Client) health(ctx context.Context, path string) (*Response, error) {
	req, err := c.newRequest(ctx, http.MethodGet, path, nil, nil, credNone)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/plain")
	return c.do(ctx, req, nil, decodeAnyError)
}

// Response is the portal's answer to one call: the *http.Response (whose
// body has been read and closed) and what the client read from it.
type Response struct {
	*http.Response

	// Paging of list calls that page (c.Exam.Directory.ListMembers,
	// c.Exam.Admin.ListAnswers and the
	// lists of c.Links): the page returned, its size, the number of items
	// and pages in all, and the next and previous page numbers (0 when
	// there is none). All zero on calls that do not page. For the link API
	// they are data.currentpage, perpage, result, maxpage and nextpage.
	Page, PerPage     int
	Total, TotalPages int
	NextPage          int
	PrevPage          int

	// AppName is meta.app_name of directory responses.
	AppName string

	// AnswerRows is meta.answer_rows of c.Exam.Admin.ListAnswers: every
	// stored answer row of the exam, whatever the filters.
	AnswerRows int

	// Rate is the rate-limit state announced by X-RateLimit-* headers
	// (every authenticated answer of the link API), zero when the endpoint
	// sends none.
	Rate Rate
}

// Rate is the rate-limit state of X-RateLimit-Limit, X-RateLimit-Remaining
// and X-RateLimit-Reset (Unix seconds).
type Rate struct {
	Limit     int
	Remaining int
	Reset     time.Time
}

// newResponse wraps r and reads its rate-limit headers.
func newResponse(r *http.Response) *Response {
	resp := &Response{Response: r}
	if v := r.Header.Get("X-RateLimit-Limit"); v != "" {
		resp.Rate.Limit, _ = strconv.Atoi(v)
	}
	if v := r.Header.Get("X-RateLimit-Remaining"); v != "" {
		resp.Rate.Remaining, _ = strconv.Atoi(v)
	}
	if v := r.Header.Get("X-RateLimit-Reset"); v != "" {
		if sec, err := strconv.ParseInt(v, 10, 64); err == nil {
			resp.Rate.Reset = time.Unix(sec, 0).UTC()
		}
	}
	return resp
}

// setPaging fills the paging fields from a page's meta.
func (r *Response) setPaging(page, perPage, total, totalPages int) {
	r.Page, r.PerPage, r.Total, r.TotalPages = page, perPage, total, totalPages
	r.NextPage, r.PrevPage = 0, 0
	if page < totalPages {
		r.NextPage = page + 1
	}
	if page > 1 {
		r.PrevPage = page - 1
	}
}

// ListOptions selects one page of a list that pages.
type ListOptions struct {
	// Page is the page to return, from 1; 0 means the first.
	Page int
	// PerPage is the number of items per page; 0 means the portal's
	// default (20 for members, at most 100).
	PerPage int
}

// values adds the paging parameters that are set to q.
func (o ListOptions) values(q url.Values) {
	if o.Page > 0 {
		q.Set("page", strconv.Itoa(o.Page))
	}
	if o.PerPage > 0 {
		q.Set("per_page", strconv.Itoa(o.PerPage))
	}
}

// redact returns u as a string without user information.
func redact(u *url.URL) string {
	if u == nil {
		return ""
	}
	return u.Redacted()
}

// setIf sets q[key] = value when value is not empty.
func setIf(q url.Values, key, value string) {
	if value != "" {
		q.Set(key, value)
	}
}

// quoteETag turns a bare checksum into a strong entity tag; a value that is
// already quoted (or weak) is kept.
func quoteETag(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasPrefix(s, `"`) || strings.HasPrefix(s, "W/") {
		return s
	}
	return `"` + s + `"`
}

// unquoteETag returns the opaque part of an entity tag.
func unquoteETag(s string) string {
	s = strings.TrimPrefix(strings.TrimSpace(s), "W/")
	return strings.Trim(s, `"`)
}
