// Package openapitest validates HTTP exchanges against the portal's OpenAPI
// descriptions (internal/openapi) in tests: Wrap serves a handler so that
// every request it accepts and every response it gives is checked against
// the document that describes its route, with getkin/kin-openapi's
// openapi3filter (JSON Schema 2020-12, as OpenAPI 3.1 has it), and a mismatch
// fails the test.
//
//   - Every response is checked: its status must be one its operation
//     lists, its Content-Type one it declares and its body must match the
//     schema.
//   - A request is checked when the portal accepted it (status below 400):
//     tests send bad requests on purpose, and the portal refusing one the
//     description also refuses is the point of those tests; the portal
//     accepting one the description refuses is a mismatch.
//   - Exchanges on paths no document describes, or that the wrapped router
//     has no route for (an API it is built without: its 404), pass through
//     unchecked; internal/httpapi's TestOpenAPIDescribesEveryRoute makes
//     sure that no route of the router is undescribed.
//   - Bodies over MaxValidatedBody and streams (Server-Sent Events,
//     anything flushed) pass through without a body check.
package openapitest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/openapi"
)

// MaxValidatedBody is the largest request or response body kept for
// validation; larger ones are streamed through unchecked.
const MaxValidatedBody = 2 << 20

// apiDoc is one OpenAPI document: its model and a router that matches
// the operations it describes.
type apiDoc struct {
	name string
	doc  *openapi3.T
	ops  *chi.Mux
	list []string // "METHOD /path/{param}" of every operation
	// bodyTypes are the request media types of each operation, by
	// "METHOD /path/{param}".
	bodyTypes map[string][]string
}

var (
	docsMu sync.Mutex
	docs   []*apiDoc // nil until loaded, and after dropDocs
)

// loadDocs parses the three documents and builds their validators, once
// for the tests that follow (until dropDocs).
func loadDocs(t testing.TB) []*apiDoc {
	t.Helper()
	docsMu.Lock()
	defer docsMu.Unlock()
	if docs == nil {
		var loaded []*apiDoc
		for _, name := range openapi.Names() {
			d, err := loadDoc(name)
			if err != nil {
				t.Fatalf("openapi documents: %v", err)
			}
			loaded = append(loaded, d)
		}
		docs = loaded
	}
	return docs
}

// dropDocs lets the validators go (tens of MB with their compiled
// schemas); the next loadDocs builds them again.
func dropDocs() {
	docsMu.Lock()
	defer docsMu.Unlock()
	docs = nil
}

// Unvalidated names tests (and their subtests) that Wrap leaves alone:
// tests that measure the heap while the portal streams. Their handler is
// served without validation and the validators are let go, as their memory
// (tens of MB) would count against the measurement. Set it before the
// tests run.
var Unvalidated []string

func loadDoc(name string) (*apiDoc, error) {
	src, err := openapi.YAML(name)
	if err != nil {
		return nil, err
	}
	docJSON, err := openapi.JSON(name)
	if err != nil {
		return nil, err
	}
	if err := validateAgainstMetaSchema(docJSON); err != nil {
		return nil, fmt.Errorf("%s: not a valid OpenAPI 3.1 document: %w", name, err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(src)
	if err != nil {
		return nil, fmt.Errorf("%s: parse: %w", name, err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("%s: not a valid OpenAPI document: %w", name, err)
	}
	d := &apiDoc{name: name, doc: doc, ops: chi.NewMux(), bodyTypes: map[string][]string{}}
	noop := func(http.ResponseWriter, *http.Request) {}
	for _, path := range doc.Paths.InMatchingOrder() {
		for method, op := range doc.Paths.Value(path).Operations() {
			m := strings.ToUpper(method)
			d.ops.MethodFunc(m, path, noop)
			d.list = append(d.list, m+" "+path)
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				d.bodyTypes[m+" "+path] = bodyTypes(op.RequestBody.Value.Content)
			}
		}
	}
	return d, nil
}

// bodyTypes returns the media types of a request body, JSON first, the
// others in order.
func bodyTypes(content openapi3.Content) []string {
	types := slices.Sorted(maps.Keys(content))
	if i := slices.Index(types, "application/json"); i > 0 {
		types = slices.Insert(slices.Delete(types, i, i+1), 0, "application/json")
	}
	return types
}

func init() {
	// To the documents, every body that is not JSON, a form or multipart is
	// a string of bytes (type: string), YAML and CSV included, which
	// kin-openapi would otherwise parse into values.
	for _, mt := range []string{"*/*", "application/yaml", "application/x-yaml", "text/csv"} {
		openapi3filter.RegisterBodyDecoder(mt, openapi3filter.FileBodyDecoder)
	}
}

// validateMu lets one exchange at a time be validated: kin-openapi builds
// some schema caches lazily, on first use.
var validateMu sync.Mutex

// route returns the route of the operation that method and pattern name,
// or nil (also for a nil d).
func (d *apiDoc) route(method, pattern string) *routers.Route {
	if d == nil {
		return nil
	}
	item := d.doc.Paths.Value(pattern)
	if item == nil {
		return nil
	}
	op := item.GetOperation(method)
	if op == nil {
		return nil
	}
	return &routers.Route{Spec: d.doc, Path: pattern, PathItem: item, Method: method, Operation: op}
}

// docFor returns the document that describes the operation method path
// and the operation's path template, or nil.
func docFor(docs []*apiDoc, method, path string) (*apiDoc, string, map[string]string) {
	for _, d := range docs {
		rctx := chi.NewRouteContext()
		if d.ops.Match(rctx, method, path) {
			params := map[string]string{}
			for i, k := range rctx.URLParams.Keys {
				params[k] = rctx.URLParams.Values[i]
			}
			return d, rctx.RoutePattern(), params
		}
	}
	return nil, "", nil
}

// formatErrors lists validation errors, one a line (each schema failure
// of a multi-error on its own), without the schema and value kin-openapi
// appends: the report gives the bodies.
func formatErrors(errs ...error) string {
	var b strings.Builder
	line := func(err error) {
		msg, _, _ := strings.Cut(err.Error(), "\nSchema:")
		fmt.Fprintf(&b, "  - %s\n", strings.ReplaceAll(strings.TrimSpace(msg), "\n", "\n    "))
	}
	for _, err := range errs {
		var multi openapi3.MultiError
		switch {
		case err == nil:
		case errors.As(err, &multi):
			for _, e := range multi {
				line(e)
			}
		default:
			line(err)
		}
	}
	return b.String()
}

// Handler serves a handler with every exchange checked against the
// documents (or, for the tests named in Unvalidated, unchecked).
type Handler struct {
	docs []*apiDoc // nil: unchecked
	next http.Handler

	mu sync.Mutex
	t  testing.TB // where mismatches are reported
}

// Wrap returns h serving every exchange validated against the OpenAPI
// documents; a mismatch fails t (with Errorf, from the handler's goroutine,
// before the client gets the response), or the test given to ReportTo
// since.
func Wrap(t testing.TB, h http.Handler) *Handler {
	t.Helper()
	for _, name := range Unvalidated {
		if t.Name() == name || strings.HasPrefix(t.Name(), name+"/") {
			dropDocs()
			return &Handler{next: h, t: t}
		}
	}
	return &Handler{docs: loadDocs(t), next: h, t: t}
}

// ReportTo makes later mismatches fail t instead: a fuzz target serves its
// handler for the whole run, and each input is its own *testing.T (a
// testing.F must not be failed from inside the fuzz function).
func (vh *Handler) ReportTo(t testing.TB) {
	vh.mu.Lock()
	vh.t = t
	vh.mu.Unlock()
}

func (vh *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if vh.docs == nil {
		vh.next.ServeHTTP(w, r)
		return
	}
	d, pattern, params := docFor(vh.docs, r.Method, r.URL.Path)
	route := d.route(r.Method, pattern)
	if route == nil || !vh.routed(r) {
		vh.next.ServeHTTP(w, r)
		return
	}
	reqBody := &capBuffer{limit: MaxValidatedBody}
	body := r.Body
	if body != nil && body != http.NoBody {
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.TeeReader(body, reqBody), body}
	}
	cw := &captureWriter{w: w, header: w.Header(), limit: MaxValidatedBody}
	vh.next.ServeHTTP(cw, r)
	if cw.passthrough {
		return
	}
	if body != nil && body != http.NoBody {
		// What the handler left unread is part of the request too.
		io.Copy(reqBody, io.LimitReader(body, MaxValidatedBody+1))
	}
	status := cw.status
	if status == 0 {
		status = http.StatusOK
	}
	vr := r.Clone(r.Context())
	vr.Body = io.NopCloser(bytes.NewReader(reqBody.buf.Bytes()))
	if types := d.bodyTypes[r.Method+" "+pattern]; vr.Header.Get("Content-Type") == "" && reqBody.buf.Len() > 0 && len(types) > 0 {
		// The portal reads a body without Content-Type as the
		// operation's media type (its first: JSON where there are two).
		vr.Header.Set("Content-Type", types[0])
	}
	header := cw.sent
	if header == nil {
		header = cw.header.Clone()
	}
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true, MultiError: true}
	in := &openapi3filter.RequestValidationInput{Request: vr, PathParams: params, Route: route, Options: opts}
	validateMu.Lock()
	respErr := openapi3filter.ValidateResponse(vr.Context(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(cw.body.Bytes())),
		Options:                opts,
	})
	var reqErr error
	if status < 400 && !reqBody.overflow {
		vr.Body = io.NopCloser(bytes.NewReader(reqBody.buf.Bytes()))
		reqErr = openapi3filter.ValidateRequest(vr.Context(), in)
	}
	validateMu.Unlock()
	if respErr != nil || reqErr != nil {
		vh.mu.Lock()
		t := vh.t
		vh.mu.Unlock()
		t.Errorf("openapi %s: %s %s -> %d does not match its description:\n%s%s\trequest body: %s\n\tresponse body: %s",
			d.name, r.Method, r.URL.RequestURI(), status,
			formatErrors(reqErr), formatErrors(respErr),
			excerpt(reqBody.buf.Bytes()), excerpt(cw.body.Bytes()))
	}
	cw.flushBuffered()
}

// routed reports whether the router has a route for r: one it lacks (an
// API it is built without) answers the router's own 404 or 405.
func (vh *Handler) routed(r *http.Request) bool {
	routes, ok := vh.next.(chi.Routes)
	return !ok || routes.Match(chi.NewRouteContext(), r.Method, r.URL.Path)
}

// excerpt returns the start of a body for a failure message.
func excerpt(b []byte) string {
	const n = 600
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

// capBuffer keeps the first limit bytes written to it.
type capBuffer struct {
	buf      bytes.Buffer
	limit    int
	overflow bool
}

func (c *capBuffer) Write(p []byte) (int, error) {
	if c.overflow {
		return len(p), nil
	}
	if c.buf.Len()+len(p) > c.limit {
		c.overflow = true
		c.buf = bytes.Buffer{}
		return len(p), nil
	}
	return c.buf.Write(p)
}

// captureWriter holds a response back until it has been validated. A
// response that flushes (a stream) or grows over limit is sent on at once
// and not validated.
type captureWriter struct {
	w           http.ResponseWriter
	header      http.Header // w's header map: handlers set headers in it
	sent        http.Header // the headers as they were at WriteHeader
	status      int
	body        bytes.Buffer
	limit       int
	passthrough bool
}

func (c *captureWriter) Header() http.Header { return c.header }

func (c *captureWriter) WriteHeader(status int) {
	if c.passthrough {
		c.w.WriteHeader(status)
		return
	}
	if c.status != 0 {
		return
	}
	if status >= 100 && status < 200 {
		c.w.WriteHeader(status)
		return
	}
	c.status = status
	c.sent = c.header.Clone()
}

func (c *captureWriter) Write(p []byte) (int, error) {
	if c.passthrough {
		return c.w.Write(p)
	}
	if c.status == 0 {
		c.WriteHeader(http.StatusOK)
	}
	if c.body.Len()+len(p) > c.limit {
		c.startPassthrough()
		return c.w.Write(p)
	}
	return c.body.Write(p)
}

// Flush sends what is held and everything after it as it comes.
func (c *captureWriter) Flush() {
	if !c.passthrough {
		c.startPassthrough()
	}
	http.NewResponseController(c.w).Flush()
}

// Unwrap gives http.ResponseController the real writer.
func (c *captureWriter) Unwrap() http.ResponseWriter { return c.w }

func (c *captureWriter) startPassthrough() {
	c.passthrough = true
	if c.status != 0 {
		c.writeHeld()
	}
}

// writeHeld sends the status, the headers as they were at WriteHeader and
// the held body.
func (c *captureWriter) writeHeld() {
	// Header values set after WriteHeader are trailers (or ignored):
	// send the headers as they were then.
	final := c.header.Clone()
	for k := range c.header {
		delete(c.header, k)
	}
	for k, v := range c.sent {
		c.header[k] = v
	}
	c.w.WriteHeader(c.status)
	c.w.Write(c.body.Bytes())
	c.body = bytes.Buffer{}
	// Trailers declared in the Trailer header get their final values.
	for _, decl := range c.sent.Values("Trailer") {
		for _, k := range strings.Split(decl, ",") {
			k = http.CanonicalHeaderKey(strings.TrimSpace(k))
			if k != "" {
				c.header[k] = final[k]
			}
		}
	}
	for k, v := range final {
		if strings.HasPrefix(k, http.TrailerPrefix) {
			c.header[k] = v
		}
	}
}

// flushBuffered sends a held response once validated.
func (c *captureWriter) flushBuffered() {
	if c.status == 0 {
		// The handler wrote nothing: an empty 200, as net/http sends.
		c.status = http.StatusOK
		c.sent = c.header.Clone()
	}
	c.writeHeld()
}

// Unwrap returns the handler Wrap was given, or h and false when h is not
// one of Wrap's.
func Unwrap(h http.Handler) (http.Handler, bool) {
	vh, ok := h.(*Handler)
	if !ok {
		return h, false
	}
	return vh.next, true
}

// Operations returns every operation of the documents ("GET /api/v1/...",
// the path as the document writes it) with the name of the document that
// describes it; an operation described twice fails t.
func Operations(t testing.TB) map[string]string {
	t.Helper()
	ops := map[string]string{}
	for _, d := range loadDocs(t) {
		for _, op := range d.list {
			if prev, dup := ops[op]; dup {
				t.Errorf("%s is described in both %s and %s", op, prev, d.name)
			}
			ops[op] = d.name
		}
	}
	return ops
}

// Load parses and validates the documents (against the OpenAPI 3.1 schema),
// failing t on an error.
func Load(t testing.TB) {
	t.Helper()
	loadDocs(t)
}
