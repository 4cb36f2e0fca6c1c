//go:build loadtest

package loadtest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// ---- the origin counter ----

// originCounter counts the requests that reach the cache's origin (cache
// misses) and the bytes answered.
type originCounter struct {
	gets, other, bytes atomic.Int64
}

func (o *originCounter) proxy(target func() *url.URL) http.Handler {
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target())
			r.Out.Host = r.In.Host
		},
		ModifyResponse: func(resp *http.Response) error {
			resp.Body = &countingBody{ReadCloser: resp.Body, n: new(atomic.Int64), done: func(n int64) { o.bytes.Add(n) }}
			return nil
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			o.gets.Add(1)
		} else {
			o.other.Add(1)
		}
		rp.ServeHTTP(w, r)
	})
}

// ---- nginx ----

// nginxBinary finds nginx (Debian's nginx-light or nginx; make
// loadtest-morning installs it). Without it the test is skipped loudly, or
// fails when CI=true.
func nginxBinary(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/sbin/nginx", "/usr/local/sbin/nginx"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	msg := "NGINX IS NOT INSTALLED: the exam morning through a cache was NOT run (apt-get install nginx-light; make loadtest-morning installs it)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// nginxProc is a running nginx.
type nginxProc struct {
	dir string
	cmd *exec.Cmd
}

// nginxConf is the cache in front of the origin: every blob cached whole,
// keyed by its URI, a year (blobs never change under a name); one origin
// read per blob however many ask at once (proxy_cache_lock); ranges
// answered from the cached copy (nginx asks the origin for the whole blob
// on a miss). Blobs are at /blobs/<name> (the portal's blob-public-url) and
// at /api/v1/blobs/<name> (the portal's own path, for envelopes naming
// blobs relative to the portal's URL, resolved against the cache's). The
// blob's ETag is its name and its Cache-Control a year's, whatever the
// object store gives (labagent resumes with a plain Range either way).
const nginxConf = `worker_processes 2;
pid {{dir}}/nginx.pid;
error_log {{dir}}/error.log warn;
events { worker_connections 8192; }
http {
    client_body_temp_path {{dir}}/tmp/client;
    proxy_temp_path {{dir}}/tmp/proxy;
    fastcgi_temp_path {{dir}}/tmp/fastcgi;
    uwsgi_temp_path {{dir}}/tmp/uwsgi;
    scgi_temp_path {{dir}}/tmp/scgi;
    log_format cache '$upstream_cache_status $status $body_bytes_sent';
    access_log {{dir}}/access.log cache buffer=256k flush=5s;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    keepalive_timeout 120s;
    proxy_cache_path {{dir}}/cache levels=1:2 keys_zone=blobs:16m max_size=20g inactive=7d use_temp_path=off;
    upstream origin {
        server {{origin}};
        keepalive 32;
    }
    server {
        listen {{listen}} backlog=4096;
        location ~ "^/(?:blobs|api/v1/blobs)/(?<blob>[0-9a-f]{64})$" {
            limit_except GET { deny all; }
            proxy_pass http://origin{{originPath}}$blob;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_cache blobs;
            proxy_cache_key $uri;
            proxy_cache_valid 200 365d;
            proxy_cache_lock on;
            proxy_cache_lock_timeout 120s;
            proxy_cache_lock_age 120s;
            proxy_force_ranges on;
            proxy_ignore_headers Set-Cookie Expires;
            proxy_hide_header ETag;
            proxy_hide_header Cache-Control;
            proxy_hide_header Set-Cookie;
            add_header ETag "\"$blob\"" always;
            add_header Cache-Control "public, max-age=31536000, immutable" always;
            add_header X-Cache $upstream_cache_status always;
        }
        location / { return 404; }
    }
}
`

// startNginx runs nginx on listen, caching origin (host:port, blobs under
// originPath), as a process of its own, not as root: its configuration,
// pid, cache, temporary files and logs in a directory of its own.
func startNginx(t *testing.T, bin, listen, origin, originPath string) *nginxProc {
	t.Helper()
	dir, err := os.MkdirTemp("", "morning-nginx-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, d := range []string{"tmp", "cache"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	conf := strings.NewReplacer("{{dir}}", dir, "{{origin}}", origin, "{{listen}}", listen, "{{originPath}}", originPath).Replace(nginxConf)
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", filepath.Join(dir, "nginx.conf"), "-e", filepath.Join(dir, "error.log"), "-g", "daemon off;")
	if os.Geteuid() == 0 {
		// Run as nobody: nginx started by root keeps a root master.
		const nobody = 65534
		if err := chownTree(dir, nobody, nobody); err != nil {
			t.Fatal(err)
		}
		os.Chmod(dir, 0o755)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start nginx: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; {
		if c, err := net.DialTimeout("tcp", listen, time.Second); err == nil {
			c.Close()
			break
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx exited before listening on %s: %s\n%s", listen, out.String(), log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginx did not listen on %s within 30 s", listen)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return &nginxProc{dir: dir, cmd: cmd}
}

func chownTree(dir string, uid, gid int) error {
	return filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}

// cpuSeconds is the CPU time of nginx's master and workers so far.
func (n *nginxProc) cpuSeconds() float64 {
	master := n.cmd.Process.Pid
	u, s, _, _ := procCPU(master)
	total := u + s
	for _, pid := range childPIDs(master) {
		u, s, _, _ := procCPU(pid)
		total += u + s
	}
	return total
}

// rotateLog starts a new access log (the cache status of one phase's
// requests).
func (n *nginxProc) rotateLog(t *testing.T) {
	os.Remove(filepath.Join(n.dir, "access.log"))
	n.cmd.Process.Signal(syscall.SIGUSR1) // reopen the log files
	time.Sleep(200 * time.Millisecond)
}

// cacheStatus counts the access log's requests by cache status.
func (n *nginxProc) cacheStatus(t *testing.T) map[string]int {
	n.cmd.Process.Signal(syscall.SIGUSR1) // flush the buffered log
	time.Sleep(500 * time.Millisecond)
	b, err := os.ReadFile(filepath.Join(n.dir, "access.log"))
	if err != nil {
		return nil
	}
	out := map[string]int{}
	for line := range strings.Lines(string(b)) {
		status, _, _ := strings.Cut(line, " ")
		out[status]++
	}
	return out
}

// childPIDs returns the processes whose parent is pid.
func childPIDs(pid int) []int {
	var out []int
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		p, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, p)
		}
	}
	return out
}

// commCPU is the CPU time so far of the processes whose command name
// starts with prefix.
func commCPU(prefix string) float64 {
	return procsCPU(func(pid int) bool {
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		return strings.HasPrefix(strings.TrimSpace(string(comm)), prefix)
	})
}

// databaseName is the database of a PostgreSQL URL.
func databaseName(dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Path, "/")
}

// pgBackendCPU is the CPU time so far of the PostgreSQL backends connected
// to the database db (their process titles name it): this run's share of
// PostgreSQL on a machine where other tests use the same server. The
// server's shared processes (WAL writer, checkpointer) are not counted,
// nor backends that have exited (the portals keep their pools open).
func pgBackendCPU(db string) float64 {
	return procsCPU(func(pid int) bool {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		return bytes.HasPrefix(cmdline, []byte("postgres: ")) && bytes.Contains(cmdline, []byte(" "+db+" "))
	})
}

// procsCPU is the CPU time so far of the running processes that match.
func procsCPU(match func(pid int) bool) float64 {
	var total float64
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || !match(pid) {
			continue
		}
		u, s, _, _ := procCPU(pid)
		total += u + s
	}
	return total
}

// selfCPU is the CPU time of the test process so far: the simulated lab
// servers.
func selfCPU() float64 {
	u, s, _, _ := procCPU(os.Getpid())
	return u + s
}

// portalHasFlag reports whether "portal serve" takes --flag.
func portalHasFlag(t *testing.T, bin, flag string) bool {
	t.Helper()
	out, _ := exec.Command(bin, "serve", "--help").CombinedOutput()
	return bytes.Contains(out, []byte("--"+flag))
}
