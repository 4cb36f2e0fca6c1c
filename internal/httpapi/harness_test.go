package httpapi_test

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
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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
)

func TestMain(m *testing.M) {
	identity.BcryptCost = 4 // the minimum: operator logins in tests need not be slow
	os.Exit(m.Run())
}

// storeOpener opens a fresh, empty store for one test.
type storeOpener struct {
	name string
	open func(t testing.TB) exam.Store
}

// storeOpeners lists every store the handler tests run against.
func storeOpeners() []storeOpener {
	return append([]storeOpener{{"bolt", openBolt}}, extraStoreOpeners...)
}

// extraStoreOpeners is filled by the files of stores that need more set-up
// (postgres_test.go).
var extraStoreOpeners []storeOpener

func openBolt(t testing.TB) exam.Store {
	t.Helper()
	return openBoltWith(t)
}

// openBoltNoSync is openBolt without fsync, for fuzzing.
func openBoltNoSync(t testing.TB) exam.Store {
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

// harness is a real portal router over a real store, served on 127.0.0.1.
type harness struct {
	t      testing.TB
	svc    *exam.Service
	ids    *identity.Service
	idem   *idempotency.Keeper
	clock  *testkit.Clock
	srv    *httptest.Server
	api    *openapitest.Handler // the router, validated against the OpenAPI documents
	mux    http.Handler         // the router itself
	logs   *testkit.Buffer
	client *http.Client

	operatorToken string
	seq           int // numbers fixtures that must be unique (nisn)
}

// harnessOption changes the store or the handler options of a harness.
type harnessOption func(*harnessConfig)

type harnessConfig struct {
	wrapStore func(exam.Store) exam.Store
	opts      httpapi.Options
	logLevel  slog.Level
}

// withQuietLogs keeps only the portal's warnings and errors: a fuzz run
// sends millions of requests.
func withQuietLogs() harnessOption {
	return func(c *harnessConfig) { c.logLevel = slog.LevelWarn }
}

func withTrustedProxies(ps ...string) harnessOption {
	return func(c *harnessConfig) {
		for _, p := range ps {
			c.opts.TrustedProxies = append(c.opts.TrustedProxies, netip.MustParsePrefix(p))
		}
	}
}

func withStoreWrapper(f func(exam.Store) exam.Store) harnessOption {
	return func(c *harnessConfig) { c.wrapStore = f }
}

// newHarness builds the service and the router over a store from open.
func newHarness(t testing.TB, open func(testing.TB) exam.Store, options ...harnessOption) *harness {
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
	api := validateAPI(t, mux) // openapi_validate_test.go
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("portal log:\n%s", logs.String())
		}
	})
	return &harness{t: t, svc: svc, ids: cfg.opts.Identity, idem: cfg.opts.Idempotency, clock: clk, srv: srv, api: api, mux: mux, logs: logs, client: srv.Client()}
}

// router returns the router's routes, to walk them.
func (h *harness) router() chi.Routes { return h.mux.(chi.Routes) }

// use makes t the harness's test, for its failures and the OpenAPI
// validator's: a fuzz function's, for one input.
func (h *harness) use(t testing.TB) {
	h.t = t
	h.api.ReportTo(t)
}

// advance moves the clock forward and forgets the operator token, which may
// have expired.
func (h *harness) advance(d time.Duration) {
	h.clock.Add(d)
	h.operatorToken = ""
}

// forEachStore runs fn as a subtest against every store.
func forEachStore(t *testing.T, fn func(t *testing.T, h *harness), options ...harnessOption) {
	for _, so := range storeOpeners() {
		t.Run(so.name, func(t *testing.T) {
			fn(t, newHarness(t, so.open, options...))
		})
	}
}

// response is a finished HTTP exchange with its body read.
type response struct {
	t      testing.TB
	status int
	header http.Header
	body   []byte
}

// req sends a request. body is nil, a []byte or string sent as is, or any
// other value sent as JSON. hdr holds header name/value pairs.
func (h *harness) req(method, path string, body any, hdr ...string) *response {
	h.t.Helper()
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
			h.t.Fatalf("marshal body: %v", err)
		}
		rd = bytes.NewReader(data)
		contentType = "application/json"
	}
	req, err := http.NewRequest(method, h.srv.URL+path, rd)
	if err != nil {
		h.t.Fatalf("new request: %v", err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := h.client.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatalf("%s %s: read body: %v", method, path, err)
	}
	return &response{t: h.t, status: resp.StatusCode, header: resp.Header, body: data}
}

// bearer returns the header pair of a bearer token.
func bearer(token string) []string { return []string{"Authorization", "Bearer " + token} }

// op sends a request as the operator.
func (h *harness) op(method, path string, body any, hdr ...string) *response {
	h.t.Helper()
	return h.req(method, path, body, append(bearer(h.operator()), hdr...)...)
}

// expect fails the test unless the response has the status.
func (r *response) expect(status int) *response {
	r.t.Helper()
	if r.status != status {
		r.t.Fatalf("status = %d, want %d; body: %s", r.status, status, r.body)
	}
	return r
}

// expectError fails the test unless the response is the exam error envelope
// with the status and code.
func (r *response) expectError(status int, code string) *response {
	r.t.Helper()
	r.expect(status)
	var e struct {
		Success *bool   `json:"success"`
		Error   *string `json:"error"`
		Code    string  `json:"code"`
	}
	if err := json.Unmarshal(r.body, &e); err != nil {
		r.t.Fatalf("error body is not JSON: %v: %s", err, r.body)
	}
	if e.Success == nil || *e.Success || e.Error == nil || *e.Error == "" || e.Code != code {
		r.t.Fatalf("error body = %s, want success false, a message and code %s", r.body, code)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		r.t.Fatalf("error Content-Type = %q", ct)
	}
	return r
}

// decode unmarshals the body into v (strictly: unknown fields fail, so that
// tests notice fields they do not check).
func (r *response) decode(v any) {
	r.t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		r.t.Fatalf("decode %s: %v", r.body, err)
	}
}

// m returns the body as a generic JSON object.
func (r *response) m() map[string]any {
	r.t.Helper()
	var v map[string]any
	r.decode(&v)
	return v
}

// keys returns the sorted keys of a JSON object.
func keys(m map[string]any) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return strings.Join(ks, ",")
}

// hasFields fails unless the object has every named field.
func hasFields(t *testing.T, obj any, fields ...string) {
	t.Helper()
	m, ok := obj.(map[string]any)
	if !ok {
		t.Fatalf("%v is not an object", obj)
	}
	for _, f := range fields {
		if _, ok := m[f]; !ok {
			t.Fatalf("object lacks %q; has %s", f, keys(m))
		}
	}
}

// --- Fixtures -------------------------------------------------------------

const (
	adminUser     = "admin"
	adminPassword = "correct-horse-battery"
	npsnA         = "20100001"
	npsnB         = "20100002"
)

// operator returns an operator token, creating the admin and signing in on
// first use.
func (h *harness) operator() string {
	h.t.Helper()
	if h.operatorToken != "" {
		return h.operatorToken
	}
	if _, _, err := h.ids.EnsureAdmin(context.Background(), adminUser, adminPassword); err != nil {
		h.t.Fatalf("ensure admin: %v", err)
	}
	var res struct {
		Token string `json:"token"`
	}
	json.Unmarshal(h.req("POST", "/api/v1/auth/login", map[string]string{
		"username": adminUser, "password": adminPassword,
	}).expect(200).body, &res)
	if res.Token == "" {
		h.t.Fatal("login returned no token")
	}
	h.operatorToken = res.Token
	return res.Token
}

type licenseReq struct {
	NPSN          string `json:"npsn"`
	SchoolName    string `json:"school_name"`
	HardwareID    string `json:"hardware_id"`
	MaxStudents   int    `json:"max_students"`
	DurationDays  int    `json:"duration_days"`
	OperatingMode string `json:"operating_mode"`
}

func validLicenseReq(npsn, hw string) licenseReq {
	return licenseReq{NPSN: npsn, SchoolName: "SMA Negeri " + npsn, HardwareID: hw, MaxStudents: 500,
		DurationDays: 365, OperatingMode: "SEMI_OFFLINE"}
}

// issueLicense issues a licence and returns its token and id.
func (h *harness) issueLicense(npsn, hw string, days int) (token, id string) {
	h.t.Helper()
	req := validLicenseReq(npsn, hw)
	req.DurationDays = days
	var res struct {
		LicenseToken string `json:"license_token"`
		Payload      struct {
			LicenseID string `json:"license_id"`
		} `json:"payload"`
	}
	json.Unmarshal(h.op("POST", "/api/v1/licenses/generate", req).expect(201).body, &res)
	return res.LicenseToken, res.Payload.LicenseID
}

type handshakeReq struct {
	ServerCode   string `json:"server_code"`
	NPSN         string `json:"npsn"`
	HardwareID   string `json:"hardware_id"`
	LicenseToken string `json:"license_token"`
}

// labServer is a verified lab server.
type labServer struct {
	code, npsn, hw string
	token          string
	packageKey     []byte
}

// verify performs a handshake that must succeed.
func (h *harness) verify(code, npsn, hw, licence string) labServer {
	h.t.Helper()
	var res struct {
		AccessToken string `json:"access_token"`
		PackageKey  []byte `json:"package_key"`
	}
	json.Unmarshal(h.req("POST", "/api/v1/sync/verify-server",
		handshakeReq{ServerCode: code, NPSN: npsn, HardwareID: hw, LicenseToken: licence}).expect(200).body, &res)
	if res.AccessToken == "" || len(res.PackageKey) != 32 {
		h.t.Fatalf("handshake: token %q, package key of %d bytes", res.AccessToken, len(res.PackageKey))
	}
	return labServer{code: code, npsn: npsn, hw: hw, token: res.AccessToken, packageKey: res.PackageKey}
}

// newLabServer issues a licence for npsn and verifies server code with it.
func (h *harness) newLabServer(code, npsn string) labServer {
	h.t.Helper()
	hw := "HW-" + code
	lic, _ := h.issueLicense(npsn, hw, 365)
	return h.verify(code, npsn, hw, lic)
}

// as sends a request as the lab server.
func (h *harness) as(s labServer, method, path string, body any, hdr ...string) *response {
	h.t.Helper()
	return h.req(method, path, body, append(bearer(s.token), hdr...)...)
}

// examFixture is the body of an exam with one question of each type.
func examFixture(npsns ...string) map[string]any {
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

// createExam creates an exam for the schools and returns its id.
func (h *harness) createExam(npsns ...string) string {
	h.t.Helper()
	var res struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	json.Unmarshal(h.op("POST", "/api/v1/admin/exams", examFixture(npsns...)).expect(201).body, &res)
	return res.Data.ID
}

// importStudents imports students of a school and returns their ids by username.
func (h *harness) importStudents(npsn string, names ...string) map[string]string {
	h.t.Helper()
	var members []map[string]string
	for _, n := range names {
		h.seq++
		members = append(members, map[string]string{
			"npsn": npsn, "nama": n, "username": strings.ToLower(strings.ReplaceAll(n, " ", ".")),
			"nisn": fmt.Sprintf("%010d", h.seq), "kelas": "XII IPA 1",
		})
	}
	var res struct {
		Rows []struct {
			MemberID string `json:"member_id"`
			Action   string `json:"action"`
		} `json:"rows"`
	}
	json.Unmarshal(h.op("POST", "/api/v1/admin/members/import", map[string]any{"members": members}).expect(200).body, &res)
	ids := map[string]string{}
	for i, r := range res.Rows {
		if r.Action != "created" && r.Action != "updated" {
			h.t.Fatalf("import row %d: %s: %s", i+1, r.Action, h.logs.String())
		}
		ids[members[i]["username"]] = r.MemberID
	}
	return ids
}
