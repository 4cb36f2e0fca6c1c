//go:build !windows

package agent_test

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi"
	"github.com/seedhq/portal/internal/idempotency"
	"github.com/seedhq/portal/internal/identity"
	"github.com/seedhq/portal/internal/openapi/openapitest"
	"github.com/seedhq/portal/internal/store/bolt"
)

const testNPSN = "20100001"

// testPortal is the real portal router over a bbolt store, served on a local
// address that stays the same when the portal is stopped and started again.
type testPortal struct {
	t       *testing.T
	URL     string
	Svc     *exam.Service
	handler http.Handler
	addr    string

	mu  sync.Mutex
	srv *httptest.Server
}

// startPortal serves a new portal with cfg (TempDir is filled in).
func startPortal(t *testing.T, cfg exam.Config) *testPortal {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if cfg.TempDir == "" {
		cfg.TempDir = t.TempDir()
	}
	logger := slog.New(slog.DiscardHandler)
	svc, err := exam.NewService(context.Background(), st, cfg, logger)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := identity.Open(context.Background(), st, nil, identity.Config{})
	if err != nil {
		t.Fatal(err)
	}
	p := &testPortal{t: t, Svc: svc, handler: openapitest.Wrap(t, httpapi.New(httpapi.Options{Exam: svc, Identity: ids,
		Idempotency: idempotency.New(st, idempotency.Options{}), Logger: logger, Registry: prometheus.NewRegistry()}))}
	p.srv = httptest.NewServer(p.handler)
	p.URL, p.addr = p.srv.URL, p.srv.Listener.Addr().String()
	t.Cleanup(p.Stop)
	return p
}

// Stop closes the server: connections to it are refused until Start.
func (p *testPortal) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.srv != nil {
		p.srv.Close()
		p.srv = nil
	}
}

// Start serves the portal again on its address.
func (p *testPortal) Start() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.srv != nil {
		return
	}
	var ln net.Listener
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; {
		if ln, err = net.Listen("tcp", p.addr); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		p.t.Fatalf("listen again on %s: %v", p.addr, err)
	}
	srv := httptest.NewUnstartedServer(p.handler)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	p.srv = srv
}

// newPortal serves the real router over a bbolt store and returns its URL
// and service.
func newPortal(t *testing.T) (string, *exam.Service) {
	t.Helper()
	p := startPortal(t, exam.Config{})
	return p.URL, p.Svc
}

func mustLicense(t *testing.T, svc *exam.Service, hw string, days int) exam.License {
	t.Helper()
	l, err := svc.GenerateLicense(context.Background(), exam.LicenseInput{
		NPSN: testNPSN, SchoolName: "SMA Negeri 1 Contoh", HardwareID: hw, MaxStudents: 40, DurationDays: days, OperatingMode: "SEMI_OFFLINE",
	})
	if err != nil {
		t.Fatal(err)
	}
	return l.License
}
