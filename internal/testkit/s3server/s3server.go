// Package s3server runs a real S3 server for tests: Versity's S3 gateway
// (versitygw, Apache 2.0) at a pinned Version, serving a temporary directory
// (its POSIX backend: each subdirectory a bucket, each file an object) on a
// loopback port. It is imported by tests only.
//
// The binary is found, or built once per machine with go install through the
// Go module proxy (Binary); without it the test is skipped loudly, or fails
// when CI=true. A test starts a server, makes a bucket and opens a store on
// it:
//
//	srv := s3server.Start(t)
//	srv.CreateBucket(t, "blobs")
//	cfg, err := s3.ParseURL(srv.URL("blobs", "portal/"))
//	cfg.AccessKey, cfg.SecretKey = srv.AccessKey, srv.SecretKey
//	st, err := s3.New(cfg)
//
// and can kill the server (Kill) and bring it back on the same address and
// data (Restart).
package s3server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/proc"
)

// The pinned gateway.
const (
	// Package is versitygw's main package, as go install takes it.
	Package = "github.com/versity/versitygw/cmd/versitygw"
	// Version is the pinned version (the Makefile's VERSITYGW_VERSION).
	Version = "v1.8.0"
)

// Region is the region the gateway serves (its default).
const Region = "us-east-1"

// binaryName is the installed binary's file name, its version in it (as the
// Makefile's tools are named in bin/tools).
const binaryName = "versitygw-" + Version

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// Binary returns the path of versitygw Version: $VERSITYGW when set (it must
// be that version), else bin/tools/versitygw-VERSION of this module (make
// tools), else the copy in the user's cache directory, which it installs
// there with go install on first use (about a minute and a half on two
// cores). When none can be had the test is skipped with a loud message, or
// fails when CI=true. With -short it is skipped rather than built, CI or
// not: a short run (make test-arm64's, beside the full run that installs
// it) asks for no build, and whether the full run got there first is a
// race.
func Binary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() { binPath, binErr = findOrInstall() })
	if errors.Is(binErr, errShort) {
		t.Skipf("%v (the run without -short builds it and runs this test)", binErr)
	}
	if binErr != nil {
		msg := fmt.Sprintf("NO S3 SERVER: %v; the tests against a real S3 server (versitygw %s) were NOT run "+
			"(make tools installs it into bin/tools; the tests install it into the user's cache when the Go module proxy is reachable)", binErr, Version)
		testkit.Missing(t, msg)
	}
	return binPath
}

// errShort says that a build was needed under -short.
var errShort = errors.New("versitygw is not installed and -short skips building it")

func findOrInstall() (string, error) {
	if p := os.Getenv("VERSITYGW"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("VERSITYGW=%s: %w", p, err)
		}
		return p, nil
	}
	if root, err := moduleRoot(); err == nil {
		p := filepath.Join(root, "bin", "tools", binaryName)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return testkit.CachedTool(binaryName, func(tmp string) (string, error) {
		if testing.Short() {
			return "", errShort
		}
		return install(tmp)
	})
}

// install builds versitygw into tmp and returns its path.
func install(tmp string) (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("install versitygw: no go command on PATH: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, "install", Package+"@"+Version)
	cmd.Dir = tmp // outside any module: the version is the module proxy's
	// Built for this machine, whatever the test run cross-builds.
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "GOOS=", "GOARCH=", "CGO_ENABLED=0", "GOWORK=off")
	fmt.Fprintf(os.Stderr, "s3server: go install %s@%s into the user's cache (once per machine; about a minute and a half)\n", Package, Version)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install %s@%s: %w\n%s", Package, Version, err, out)
	}
	return filepath.Join(tmp, "versitygw"), nil
}

// moduleRoot is the directory of this module's go.mod, above the working
// directory (a test's is its package's).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(b, []byte("module github.com/seedhq/portal\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the module")
		}
		dir = parent
	}
}

// Server is a running versitygw.
type Server struct {
	// Addr is its host:port on the loopback interface.
	Addr string
	// Dir is the directory it serves: Dir/BUCKET/KEY.
	Dir string
	// AccessKey and SecretKey are its root account's credentials.
	AccessKey, SecretKey string

	t   testing.TB
	bin string
	p   *proc.Proc
}

// Start starts versitygw on a free loopback port serving a fresh temporary
// directory, and waits until it accepts connections. It is killed at the
// test's cleanup.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary(t)
	s := &Server{
		Addr:      testkit.FreeAddr(t),
		Dir:       t.TempDir(),
		AccessKey: "portal-test-access",
		SecretKey: "portal-test-secret-0123456789",
		t:         t,
		bin:       bin,
	}
	s.p = proc.Start(t, bin, proc.Options{
		Name:    "versitygw",
		DropEnv: []string{"VGW_", "ROOT_", "AWS_"},
		Env:     []string{"ROOT_ACCESS_KEY=" + s.AccessKey, "ROOT_SECRET_KEY=" + s.SecretKey},
	}, "--port", s.Addr, "posix", s.Dir)
	s.waitUp()
	return s
}

// waitUp waits until the server accepts a connection; it fails the test
// when the process exits first, or after a minute.
func (s *Server) waitUp() {
	s.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := net.DialTimeout("tcp", s.Addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if !s.p.Running() {
			s.t.Fatalf("versitygw exited (%v) before listening on %s:\n%s", s.p.Err(), s.Addr, s.p.Tail(50))
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("versitygw did not listen on %s within a minute: %v\n%s", s.Addr, err, s.p.Tail(50))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Kill kills the server (SIGKILL) and waits for it to be gone: connections
// in progress are cut.
func (s *Server) Kill() {
	s.t.Helper()
	s.p.Kill()
}

// Restart starts the server again, killed or not (it is killed first), on
// the same address and directory, and waits until it accepts connections.
func (s *Server) Restart() {
	s.t.Helper()
	if s.p.Running() {
		s.p.Kill()
	}
	s.p = s.p.Restart()
	s.waitUp()
}

// Output returns what the server has written so far.
func (s *Server) Output() string { return s.p.Output() }

// Endpoint is the server's endpoint for an S3 client: host:port, plain HTTP.
func (s *Server) Endpoint() string { return s.Addr }

// URL is the blobstore URL of bucket and prefix on the server (without
// credentials, which go in the environment: Env).
func (s *Server) URL(bucket, prefix string) string {
	return fmt.Sprintf("s3://%s/%s?endpoint=%s&region=%s&insecure=1", bucket, prefix, s.Addr, Region)
}

// Env are the environment variables of the server's root credentials, as a
// store reads them.
func (s *Server) Env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + s.AccessKey, "AWS_SECRET_ACCESS_KEY=" + s.SecretKey}
}

// Client returns an S3 client of the server's root account, to set up and
// inspect what a test needs around the code under test.
func (s *Server) Client(t testing.TB) *minio.Client {
	t.Helper()
	c, err := minio.New(s.Addr, &minio.Options{
		Creds:        credentials.NewStaticV4(s.AccessKey, s.SecretKey, ""),
		Region:       Region,
		BucketLookup: minio.BucketLookupPath,
		MaxRetries:   1,
	})
	if err != nil {
		t.Fatalf("s3 client of %s: %v", s.Addr, err)
	}
	return c
}

// CreateBucket creates bucket.
func (s *Server) CreateBucket(t testing.TB, bucket string) {
	t.Helper()
	if err := s.Client(t).MakeBucket(context.Background(), bucket, minio.MakeBucketOptions{Region: Region}); err != nil {
		t.Fatalf("create bucket %s: %v", bucket, err)
	}
}

// DeleteBucket deletes bucket through the S3 API, as an operator would:
// its objects and incomplete uploads first, then the bucket.
func (s *Server) DeleteBucket(t testing.TB, bucket string) {
	t.Helper()
	ctx := context.Background()
	c := s.Client(t)
	for oi := range c.ListObjectsIter(ctx, bucket, minio.ListObjectsOptions{Recursive: true}) {
		if oi.Err != nil {
			t.Fatalf("delete bucket %s: list: %v", bucket, oi.Err)
		}
		if err := c.RemoveObject(ctx, bucket, oi.Key, minio.RemoveObjectOptions{}); err != nil {
			t.Fatalf("delete bucket %s: remove %s: %v", bucket, oi.Key, err)
		}
	}
	for _, up := range s.IncompleteUploads(t, bucket) {
		if err := c.RemoveIncompleteUpload(ctx, bucket, up); err != nil {
			t.Fatalf("delete bucket %s: abort upload of %s: %v", bucket, up, err)
		}
	}
	if err := c.RemoveBucket(ctx, bucket); err != nil {
		t.Fatalf("delete bucket %s: %v", bucket, err)
	}
}

// IncompleteUploads returns the keys of the multipart uploads of bucket
// begun and neither completed nor aborted.
func (s *Server) IncompleteUploads(t testing.TB, bucket string) []string {
	t.Helper()
	var keys []string
	for up := range s.Client(t).ListIncompleteUploads(context.Background(), bucket, "", true) {
		if up.Err != nil {
			t.Fatalf("list incomplete uploads of %s: %v", bucket, up.Err)
		}
		keys = append(keys, up.Key)
	}
	return keys
}

// Files returns the paths, relative to the bucket's directory, of the
// regular files under bucket on disk, ignoring the gateway's own temporary
// and metadata directories (names starting with "."): what a crash may have
// left half-written in the bucket.
func (s *Server) Files(t testing.TB, bucket string) []string {
	t.Helper()
	root := filepath.Join(s.Dir, bucket)
	var out []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(root, path)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("files of bucket %s: %v", bucket, err)
	}
	return out
}
