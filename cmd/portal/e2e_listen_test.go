package main

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeListenFails starts "portal serve" on a port already in use: it
// exits with status 1 and says why, after stopping the jobs it started
// (it used to wait for them for ever).
func TestServeListenFails(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the portal binary; skipped with -short")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	res := runPortal(t, nil, "", "serve", "--listen", ln.Addr().String(), "--data-dir", filepath.Join(t.TempDir(), "data"))
	if res.Code != 1 || !strings.Contains(res.Stderr, "error: listen on "+ln.Addr().String()) {
		t.Errorf("serve on a busy port: exit %d, want 1 with the listen error\n%s", res.Code, res.Stderr)
	}
}
