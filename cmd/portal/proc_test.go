package main

import (
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/openapi/openapitest"
	"github.com/seedhq/portal/internal/testkit/proc"
)

// bins is the portal binary that the end-to-end tests run, built once per
// test process, without -race even when the tests run with -race: the
// process is a black box here, and the race detector would make the tests
// several times slower (the in-process tests of each package run with
// -race). raceBins is the same binary built with -race when the tests run
// with it, for the test that runs several portals under concurrent load
// (TestThreePortals); a race report in any process's output fails its test
// (internal/testkit/proc).
var (
	bins = &proc.Binaries{
		Packages:   []string{"."},
		BuildFlags: []string{"-ldflags", "-X main.version=e2e-test"},
	}
	raceBins = &proc.Binaries{
		Packages:   []string{"."},
		BuildFlags: []string{"-ldflags", "-X main.version=e2e-test"},
	}
)

// dropEnv keeps a developer's own PORTAL_* settings away from the processes
// under test.
var dropEnv = []string{"PORTAL_"}

func TestMain(m *testing.M) {
	if raceEnabled {
		raceBins.BuildFlags = append(raceBins.BuildFlags, "-race")
	}
	code := m.Run()
	bins.Remove()
	raceBins.Remove()
	os.Exit(code)
}

// portalProc is a running "portal serve".
type portalProc struct {
	*proc.Proc
	Addr    string // host:port it listens on
	URL     string // http://Addr
	DataDir string
}

// mustStartPortal starts "portal serve --listen 127.0.0.1:0 --data-dir dataDir
// --log-format json --log-level debug extra..." with env added to the
// environment, waits for its "listening" line and for /readyz, and stops it
// (SIGKILL) at cleanup if the test has not stopped it.
func mustStartPortal(t testing.TB, dataDir string, env []string, extra ...string) *portalProc {
	t.Helper()
	return startPortalBin(t, bins.Path(t, "portal"), dataDir, env, extra...)
}

// startPortalBin is mustStartPortal with the portal binary bin.
func startPortalBin(t testing.TB, bin, dataDir string, env []string, extra ...string) *portalProc {
	t.Helper()
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--log-format", "json", "--log-level", "debug"}, extra...)
	p := &portalProc{Proc: proc.Start(t, bin, proc.Options{Env: env, DropEnv: dropEnv}, args...), DataDir: dataDir}
	p.Addr = p.WaitListening(time.Minute)
	p.URL = "http://" + p.Addr
	proc.WaitReady(t, p.URL+"/readyz", 30*time.Second)
	return p
}

// runPortal runs the portal binary with args, env added to the environment
// and stdin as its input, and returns what it printed and its exit status.
func runPortal(t testing.TB, env []string, stdin string, args ...string) proc.Result {
	t.Helper()
	return proc.Run(t, bins.Path(t, "portal"), proc.Options{Env: env, DropEnv: dropEnv, Stdin: stdin}, args...)
}

// apiURL returns the address of a proxy to p that checks every exchange
// against the OpenAPI descriptions (internal/openapi/openapitest) and fails
// t on a mismatch, for the scenarios' API clients. It rewrites the Host
// header to p's address, so that the links the portal builds name p.
func (p *portalProc) apiURL(t testing.TB) string {
	t.Helper()
	target, err := url.Parse(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target) }, FlushInterval: -1}
	srv := httptest.NewServer(openapitest.Wrap(t, rp))
	t.Cleanup(srv.Close)
	return srv.URL
}
