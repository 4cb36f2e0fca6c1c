// Package httpapitest is the harness of the portal's HTTP tests: the
// portal's router (internal/httpapi) over a real store, bbolt and, when the
// test server is reachable, PostgreSQL (internal/store/pgtest), served on
// 127.0.0.1, with every exchange validated against the OpenAPI documents
// (internal/openapi/openapitest); and the fixtures of the three APIs (an
// operator, licences and lab servers, exams and students; link users and
// links; ordering logins, orders and payments). The tests of each API's
// package (internal/httpapi/exam, links, ordering) and of the router's
// shared parts use it.
//
// Importing it lowers the bcrypt cost of operator, link-user and link
// passwords to the minimum: the tests sign in thousands of times.
package httpapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/seedhq/portal/internal/password"
	"github.com/seedhq/portal/internal/testkit"

	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi"
	"github.com/seedhq/portal/internal/idempotency"
	"github.com/seedhq/portal/internal/identity"
	"github.com/seedhq/portal/internal/openapi/openapitest"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/internal/store/postgres"
)

func init() {
	password.Cost = bcrypt.MinCost
}

// StoreOpener opens a fresh, empty store for one test.
type StoreOpener struct {
	Name string
	Open func(t testing.TB) exam.Store
}

// StoreOpeners lists every store the handler tests run against.
func StoreOpeners() []StoreOpener {
	return []StoreOpener{{"bolt", OpenBolt}, {"postgres", openPostgres}}
}

// OpenBolt opens a new bbolt store in the test's temporary directory.
func OpenBolt(t testing.TB) exam.Store {
	t.Helper()
	return openBoltWith(t)
}

// OpenBoltNoSync is OpenBolt without fsync, for fuzzing.
func OpenBoltNoSync(t testing.TB) exam.Store {
	t.Helper()
	return openBoltWith(t, bolt.WithNoSync())
}

func openBoltWith(t testing.TB, opts ...bolt.Option) exam.Store {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"), opts...)
	if err != nil {
		t.Fatalf("open bolt store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Harness is a real portal router over a real store, served on 127.0.0.1.
type Harness struct {
	T           testing.TB
	Exam        *exam.Service
	Identity    *identity.Service
	Idempotency *idempotency.Keeper
	Clock       *testkit.Clock
	Server      *httptest.Server
	API         *openapitest.Handler // the router, validated against the OpenAPI documents
	Mux         http.Handler         // the router itself
	Logs        *testkit.Buffer
	Client      *http.Client

	OperatorToken string
	Seq           int // numbers fixtures that must be unique (nisn)
}

// Option changes the store or the handler options of a harness.
type Option func(*harnessConfig)

type harnessConfig struct {
	wrapStore func(exam.Store) exam.Store
	opts      httpapi.Options
	logLevel  slog.Level
}

// WithQuietLogs keeps only the portal's warnings and errors: a fuzz run
// sends millions of requests.
func WithQuietLogs() Option {
	return func(c *harnessConfig) { c.logLevel = slog.LevelWarn }
}

// WithTrustedProxies makes the router believe the forwarding headers of
// proxies in the networks ps.
func WithTrustedProxies(ps ...string) Option {
	return func(c *harnessConfig) {
		for _, p := range ps {
			c.opts.TrustedProxies = append(c.opts.TrustedProxies, netip.MustParsePrefix(p))
		}
	}
}

// WithOptions lets f change the router's options before the router is
// built: a backup, a blob collector.
func WithOptions(f func(*httpapi.Options)) Option {
	return func(c *harnessConfig) { f(&c.opts) }
}

// WithStoreWrapper hands the store to f before the services are built
// over what f returns: to keep it, or to wrap it.
func WithStoreWrapper(f func(exam.Store) exam.Store) Option {
	return func(c *harnessConfig) { c.wrapStore = f }
}

// New builds the service and the router over a store from open.
func New(t testing.TB, open func(testing.TB) exam.Store, options ...Option) *Harness {
	t.Helper()
	cfg := harnessConfig{logLevel: slog.LevelDebug}
	for _, o := range options {
		o(&cfg)
	}
	st := open(t)
	own, _ := st.(interface{ Blobs() blobstore.Store })
	accounts, receipts := st.(identity.Store), st.(idempotency.Store) // both stores keep them
	if cfg.wrapStore != nil {
		st = cfg.wrapStore(st)
	}
	clk := testkit.NewClock(time.Now().UTC().Truncate(time.Second))
	logs := &testkit.Buffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: cfg.logLevel}))
	ids, err := identity.Open(context.Background(), accounts, []byte("test-secret-of-at-least-32-bytes!!"), identity.Config{Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := exam.NewService(context.Background(), st, exam.Config{
		Tokens:  ids.Tokens(),
		TempDir: t.TempDir(),
		Now:     clk.Now,
		Blobs:   own.Blobs(),
	}, logger)
	if err != nil {
		t.Fatalf("new service: %v", err)
	}
	cfg.opts.Exam = svc
	cfg.opts.Identity = ids
	cfg.opts.Idempotency = idempotency.New(receipts, idempotency.Options{Now: clk.Now, Logger: logger})
	cfg.opts.Logger = logger
	cfg.opts.Registry = prometheus.NewRegistry()
	mux := httpapi.New(cfg.opts)
	api := openapitest.Wrap(t, mux) // a mismatch fails the test (or the one given to Use since)
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("portal log:\n%s", logs.String())
		}
	})
	return &Harness{T: t, Exam: svc, Identity: cfg.opts.Identity, Idempotency: cfg.opts.Idempotency, Clock: clk, Server: srv, API: api, Mux: mux, Logs: logs, Client: srv.Client()}
}

// Router returns the Router's routes, to walk them.
func (h *Harness) Router() chi.Routes { return h.Mux.(chi.Routes) }

// Use makes t the harness's test, for its failures and the OpenAPI
// validator's: a fuzz function's, for one input.
func (h *Harness) Use(t testing.TB) {
	h.T = t
	h.API.ReportTo(t)
}

// Advance moves the clock forward and forgets the operator token, which may
// have expired.
func (h *Harness) Advance(d time.Duration) {
	h.Clock.Add(d)
	h.OperatorToken = ""
}

// ForEachStore runs fn as a subtest against every store.
func ForEachStore(t *testing.T, fn func(t *testing.T, h *Harness), options ...Option) {
	for _, so := range StoreOpeners() {
		t.Run(so.Name, func(t *testing.T) {
			fn(t, New(t, so.Open, options...))
		})
	}
}

// Response is a finished HTTP exchange with its body read.
type Response struct {
	t      testing.TB
	Status int
	Header http.Header
	Body   []byte
}

// Req sends a request. body is nil, a []byte or string sent as is, or any
// other value sent as JSON. hdr holds header name/value pairs.
func (h *Harness) Req(method, path string, body any, hdr ...string) *Response {
	h.T.Helper()
	var rd io.Reader
	contentType := ""
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			h.T.Fatalf("marshal body: %v", err)
		}
		rd = bytes.NewReader(data)
		contentType = "application/json"
	}
	req, err := http.NewRequest(method, h.Server.URL+path, rd)
	if err != nil {
		h.T.Fatalf("new request: %v", err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := h.Client.Do(req)
	if err != nil {
		h.T.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		h.T.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return &Response{t: h.T, Status: resp.StatusCode, Header: resp.Header, Body: data}
}

// Bearer returns the header pair of a Bearer token.
func Bearer(token string) []string { return []string{"Authorization", "Bearer " + token} }

// Op sends a request as the operator.
func (h *Harness) Op(method, path string, body any, hdr ...string) *Response {
	h.T.Helper()
	return h.Req(method, path, body, append(Bearer(h.Operator()), hdr...)...)
}

// Expect fails the test unless the response has the status.
func (r *Response) Expect(status int) *Response {
	r.t.Helper()
	if r.Status != status {
		r.t.Fatalf("status = %d, want %d; body: %s", r.Status, status, r.Body)
	}
	return r
}

// ExpectError fails the test unless the response is the exam error envelope
// with the status and code.
func (r *Response) ExpectError(status int, code string) *Response {
	r.t.Helper()
	r.Expect(status)
	var e struct {
		Success *bool   `json:"success"`
		Error   *string `json:"error"`
		Code    string  `json:"code"`
	}
	if err := json.Unmarshal(r.Body, &e); err != nil {
		r.t.Fatalf("error body is not JSON: %v: %s", err, r.Body)
	}
	if e.Success == nil || *e.Success || e.Error == nil || *e.Error == "" || e.Code != code {
		r.t.Fatalf("error body = %s, want success false, a message and code %s", r.Body, code)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		r.t.Fatalf("error Content-Type = %q", ct)
	}
	return r
}

// Decode unmarshals the body into v (strictly: unknown fields fail, so that
// tests notice fields they do not check).
func (r *Response) Decode(v any) {
	r.t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		r.t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// M returns the body as a generic JSON object.
func (r *Response) M() map[string]any {
	r.t.Helper()
	var v map[string]any
	r.Decode(&v)
	return v
}

// Keys returns the sorted Keys of a JSON object.
func Keys(m map[string]any) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return strings.Join(ks, ",")
}

// HasFields fails unless the object has every named field.
func HasFields(t *testing.T, obj any, fields ...string) {
	t.Helper()
	m, ok := obj.(map[string]any)
	if !ok {
		t.Fatalf("%v is not an object", obj)
	}
	for _, f := range fields {
		if _, ok := m[f]; !ok {
			t.Fatalf("object lacks %q; has %s", f, Keys(m))
		}
	}
}

// --- Fixtures -------------------------------------------------------------

const (
	AdminUser     = "admin"
	AdminPassword = "correct-horse-battery"
	NPSNA         = "20100001"
	NPSNB         = "20100002"
)

// Operator returns an Operator token, creating the admin and signing in on
// first use.
func (h *Harness) Operator() string {
	h.T.Helper()
	if h.OperatorToken != "" {
		return h.OperatorToken
	}
	if _, _, err := h.Identity.EnsureAdmin(context.Background(), AdminUser, AdminPassword); err != nil {
		h.T.Fatalf("ensure admin: %v", err)
	}
	var res struct {
		Token string `json:"token"`
	}
	json.Unmarshal(h.Req("POST", "/api/v1/auth/login", map[string]string{
		"username": AdminUser, "password": AdminPassword,
	}).Expect(200).Body, &res)
	if res.Token == "" {
		h.T.Fatal("login returned no token")
	}
	h.OperatorToken = res.Token
	return res.Token
}

// LicenseReq is the body of POST /api/v1/licenses/generate.
type LicenseReq struct {
	NPSN          string `json:"npsn"`
	SchoolName    string `json:"school_name"`
	HardwareID    string `json:"hardware_id"`
	MaxStudents   int    `json:"max_students"`
	DurationDays  int    `json:"duration_days"`
	OperatingMode string `json:"operating_mode"`
}

// ValidLicenseReq returns a licence request for a school that the portal
// accepts.
func ValidLicenseReq(npsn, hw string) LicenseReq {
	return LicenseReq{NPSN: npsn, SchoolName: "SMA Negeri " + npsn, HardwareID: hw, MaxStudents: 500,
		DurationDays: 365, OperatingMode: "SEMI_OFFLINE"}
}

// IssueLicense issues a licence and returns its token and id.
func (h *Harness) IssueLicense(npsn, hw string, days int) (token, id string) {
	h.T.Helper()
	req := ValidLicenseReq(npsn, hw)
	req.DurationDays = days
	var res struct {
		LicenseToken string `json:"license_token"`
		Payload      struct {
			LicenseID string `json:"license_id"`
		} `json:"payload"`
	}
	json.Unmarshal(h.Op("POST", "/api/v1/licenses/generate", req).Expect(201).Body, &res)
	return res.LicenseToken, res.Payload.LicenseID
}

// HandshakeReq is the body of POST /api/v1/sync/verify-server.
type HandshakeReq struct {
	ServerCode   string `json:"server_code"`
	NPSN         string `json:"npsn"`
	HardwareID   string `json:"hardware_id"`
	LicenseToken string `json:"license_token"`
}

// LabServer is a verified lab server.
type LabServer struct {
	Code, NPSN, HW string
	Token          string
	PackageKey     []byte
}

// Verify performs a handshake that must succeed.
func (h *Harness) Verify(code, npsn, hw, licence string) LabServer {
	h.T.Helper()
	var res struct {
		AccessToken string `json:"access_token"`
		PackageKey  []byte `json:"package_key"`
	}
	json.Unmarshal(h.Req("POST", "/api/v1/sync/verify-server",
		HandshakeReq{ServerCode: code, NPSN: npsn, HardwareID: hw, LicenseToken: licence}).Expect(200).Body, &res)
	if res.AccessToken == "" || len(res.PackageKey) != 32 {
		h.T.Fatalf("handshake: token %q, package key of %d bytes", res.AccessToken, len(res.PackageKey))
	}
	return LabServer{Code: code, NPSN: npsn, HW: hw, Token: res.AccessToken, PackageKey: res.PackageKey}
}

// NewLabServer issues a licence for npsn and verifies server code with it.
func (h *Harness) NewLabServer(code, npsn string) LabServer {
	h.T.Helper()
	hw := "HW-" + code
	lic, _ := h.IssueLicense(npsn, hw, 365)
	return h.Verify(code, npsn, hw, lic)
}

// As sends a request As the lab server.
func (h *Harness) As(s LabServer, method, path string, body any, hdr ...string) *Response {
	h.T.Helper()
	return h.Req(method, path, body, append(Bearer(s.Token), hdr...)...)
}

// ExamFixture is the body of an exam with one question of each type.
func ExamFixture(npsns ...string) map[string]any {
	start := time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC)
	return map[string]any{
		"title": "Matematika Dasar", "subject": "Matematika", "npsn": npsns,
		"starts_at": start.Format(time.RFC3339), "ends_at": start.Add(3 * time.Hour).Format(time.RFC3339),
		"duration_minutes": 90,
		"questions": []map[string]any{
			{"id": "q1", "type": "single_choice", "text": "1 + 1 = ?", "points": 2,
				"options": []map[string]string{{"id": "a", "text": "1"}, {"id": "b", "text": "2"}}, "answer": []string{"b"}},
			{"id": "q2", "type": "multiple_choice", "text": "Bilangan prima?", "points": 3,
				"options": []map[string]string{{"id": "a", "text": "2"}, {"id": "b", "text": "4"}, {"id": "c", "text": "5"}},
				"answer":  []string{"a", "c"}},
			{"id": "q3", "type": "true_false", "text": "0 adalah bilangan asli", "points": 1, "answer": []string{"false"}},
			{"id": "q4", "type": "short_answer", "text": "Ibu kota Indonesia", "points": 1, "answer": []string{"Jakarta"}},
			{"id": "q5", "type": "essay", "text": "Jelaskan teorema Pythagoras"},
		},
	}
}

// CreateExam creates an exam for the schools and returns its id.
func (h *Harness) CreateExam(npsns ...string) string {
	h.T.Helper()
	var res struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	json.Unmarshal(h.Op("POST", "/api/v1/admin/exams", ExamFixture(npsns...)).Expect(201).Body, &res)
	return res.Data.ID
}

// ImportStudents imports students of a school and returns their ids by username.
func (h *Harness) ImportStudents(npsn string, names ...string) map[string]string {
	h.T.Helper()
	var members []map[string]string
	for _, n := range names {
		h.Seq++
		members = append(members, map[string]string{
			"npsn": npsn, "nama": n, "username": strings.ToLower(strings.ReplaceAll(n, " ", ".")),
			"nisn": fmt.Sprintf("%010d", h.Seq), "kelas": "XII IPA 1",
		})
	}
	var res struct {
		Rows []struct {
			MemberID string `json:"member_id"`
			Action   string `json:"action"`
		} `json:"rows"`
	}
	json.Unmarshal(h.Op("POST", "/api/v1/admin/members/import", map[string]any{"members": members}).Expect(200).Body, &res)
	ids := map[string]string{}
	for i, r := range res.Rows {
		if r.Action != "created" && r.Action != "updated" {
			h.T.Fatalf("import row %d: %s: %s", i+1, r.Action, h.Logs.String())
		}
		ids[members[i]["username"]] = r.MemberID
	}
	return ids
}

// openPostgres opens a store over a fresh database created for the test
// (skipped, or failed under CI=true, when the test server is unreachable).
func openPostgres(t testing.TB) exam.Store {
	t.Helper()
	ctx := context.Background()
	st, err := postgres.Open(ctx, pgtest.NewDatabase(t))
	if err != nil {
		t.Fatalf("open postgres store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return st
}
