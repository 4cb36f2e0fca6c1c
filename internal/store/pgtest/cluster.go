package pgtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// EnvBinDir names the directory of initdb and pg_ctl for NewCluster; by
// default the newest /usr/lib/postgresql/*/bin, else the PATH.
const EnvBinDir = "PORTAL_TEST_PG_BINDIR"

// Cluster is a PostgreSQL server of a test's own, made with initdb in the
// test's temporary directory and run with pg_ctl on a free port of
// 127.0.0.1 (no Unix socket), so that the test may stop and restart it
// without touching the shared test server.
//
// PostgreSQL refuses to run as root: when the test runs as root (as CI
// does), initdb and pg_ctl run as the "postgres" user through
// "runuser -u postgres --", and the cluster's directory is given to that
// user.
type Cluster struct {
	t    testing.TB
	bin  string   // directory of initdb, pg_ctl
	as   []string // command prefix running as the cluster's user
	data string   // data directory
	log  string   // server log
	port int
}

// NewCluster creates and starts a cluster, and stops it (immediately) at
// the test's cleanup. Without the binaries it skips the test loudly, or
// fails it when CI=true.
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	bin, err := binDir()
	if err != nil {
		why := fmt.Sprintf("no PostgreSQL server binaries (initdb, pg_ctl): %v; install postgresql or set %s", err, EnvBinDir)
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: failing %s: %s", t.Name(), why)
		}
		fmt.Fprintf(os.Stderr, "%s\n## SKIPPING %s: %s\n%s\n", strings.Repeat("#", 78), t.Name(), why, strings.Repeat("#", 78))
		t.Skipf("SKIPPED LOUDLY: %s", why)
	}
	c := &Cluster{t: t, bin: bin}
	root := t.TempDir()
	dir := filepath.Join(root, "pg")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("pgtest: running as root, and PostgreSQL will not: no postgres user to run it as: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		// The postgres user must reach its directory through the test's
		// temporary directories, private to root (mode 0700).
		for d := root; d != os.TempDir() && d != "/" && d != "."; d = filepath.Dir(d) {
			if st, err := os.Stat(d); err == nil && st.Mode().Perm()&0o011 != 0o011 {
				if err := os.Chmod(d, st.Mode().Perm()|0o011); err != nil {
					t.Fatal(err)
				}
			}
		}
		c.as = []string{"runuser", "-u", "postgres", "--"}
	}
	c.data, c.log = filepath.Join(dir, "data"), filepath.Join(dir, "server.log")
	if out, err := c.command("initdb", "-D", c.data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync").CombinedOutput(); err != nil {
		t.Fatalf("pgtest: initdb: %v\n%s", err, out)
	}
	// A clean stop (pg_ctl -m fast) writes everything out; fsync only
	// matters when the machine itself goes down, which no test does.
	conf := "\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = ''\nfsync = off\nmax_connections = 100\n"
	f, err := os.OpenFile(filepath.Join(c.data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(conf); err != nil {
		t.Fatal(err)
	}
	f.Close()
	t.Cleanup(func() {
		c.command("pg_ctl", "stop", "-D", c.data, "-m", "immediate", "-w", "-t", "30").Run()
	})
	// A free port may be taken between its probe and the start: try again.
	for i := 0; ; i++ {
		c.port = freePort(t)
		if err := c.start(); err == nil {
			break
		} else if i == 4 {
			t.Fatalf("pgtest: cannot start the cluster: %v\n%s", err, c.Log())
		}
	}
	return c
}

// URL is the connection string of the cluster's postgres database, as the
// superuser postgres (trust authentication, loopback only).
func (c *Cluster) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
}

// Port is the TCP port the cluster listens on (the same after a restart).
func (c *Cluster) Port() int { return c.port }

// Stop shuts the server down with "pg_ctl stop -m fast": sessions are
// ended, open transactions rolled back, and the server is gone when Stop
// returns.
func (c *Cluster) Stop() {
	c.t.Helper()
	if out, err := c.command("pg_ctl", "stop", "-D", c.data, "-m", "fast", "-w", "-t", "60").CombinedOutput(); err != nil {
		c.t.Fatalf("pgtest: pg_ctl stop: %v\n%s\n%s", err, out, c.Log())
	}
}

// Start starts the stopped server again, on the same port, and waits for
// it to accept connections.
func (c *Cluster) Start() {
	c.t.Helper()
	if err := c.start(); err != nil {
		c.t.Fatalf("pgtest: pg_ctl start: %v\n%s", err, c.Log())
	}
}

func (c *Cluster) start() error {
	out, err := c.command("pg_ctl", "start", "-D", c.data, "-l", c.log, "-w", "-t", "60",
		"-o", "-p "+strconv.Itoa(c.port)).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	return nil
}

// Log returns the server's log so far.
func (c *Cluster) Log() string {
	b, _ := os.ReadFile(c.log)
	return string(b)
}

// command runs a PostgreSQL program of the cluster, as its user.
func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	argv := append(slices.Clone(c.as), append([]string{filepath.Join(c.bin, name)}, args...)...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	return cmd
}

// binDir finds the directory holding initdb and pg_ctl.
func binDir() (string, error) {
	has := func(d string) bool {
		for _, n := range []string{"initdb", "pg_ctl", "postgres"} {
			if st, err := os.Stat(filepath.Join(d, n)); err != nil || st.IsDir() {
				return false
			}
		}
		return true
	}
	if d := os.Getenv(EnvBinDir); d != "" {
		if has(d) {
			return d, nil
		}
		return "", fmt.Errorf("%s=%s lacks initdb, pg_ctl or postgres", EnvBinDir, d)
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return majorOf(b) - majorOf(a) })
	for _, d := range dirs {
		if has(d) {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil && has(filepath.Dir(p)) {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("none in /usr/lib/postgresql/*/bin or on the PATH")
}

// majorOf is the major version in /usr/lib/postgresql/<major>/bin.
func majorOf(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

// freePort returns a TCP port of 127.0.0.1 free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
