package update_test

import (
	"bytes"
	"crypto/ed25519"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/theupdateframework/go-tuf/v2/metadata"

	"github.com/seedhq/portal/internal/agent/update"
	"github.com/seedhq/portal/internal/release"
)

// vendor is a release repository with its keys, served over HTTP as the
// portal serves it.
type vendor struct {
	t                   *testing.T
	now                 time.Time
	root, targets, live ed25519.PrivateKey
	repo                *release.Repo
	mu                  sync.Mutex
	files               map[string][]byte
	srv                 *httptest.Server
}

func newVendor(t *testing.T, now time.Time) *vendor {
	t.Helper()
	v := &vendor{t: t, now: now}
	for _, k := range []*ed25519.PrivateKey{&v.root, &v.targets, &v.live} {
		var err error
		if *k, err = release.GenerateKey(); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	if v.repo, err = release.NewRepo(now, v.root, v.targets, v.live.Public().(ed25519.PublicKey)); err != nil {
		t.Fatal(err)
	}
	v.srv = httptest.NewServer(http.StripPrefix("/metadata/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v.mu.Lock()
		b, ok := v.files[r.URL.Path]
		v.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	})))
	t.Cleanup(v.srv.Close)
	return v
}

// release adds version with a binary per platform and publishes it.
func (v *vendor) release(version string, platforms ...string) map[string][]byte {
	v.t.Helper()
	bins := map[string][]byte{}
	for _, p := range platforms {
		bins[p] = []byte(fmt.Sprintf("labagent %s for %s", version, p))
	}
	if err := v.repo.AddRelease(v.now, version, bins, v.targets); err != nil {
		v.t.Fatal(err)
	}
	v.publish()
	return bins
}

// publish signs a new snapshot and timestamp and serves the metadata.
func (v *vendor) publish() map[string][]byte {
	v.t.Helper()
	if err := v.repo.Publish(v.now, v.live); err != nil {
		v.t.Fatal(err)
	}
	return v.serve()
}

// serve serves the repository's current metadata and returns it.
func (v *vendor) serve() map[string][]byte {
	v.t.Helper()
	files, err := v.repo.Files()
	if err != nil {
		v.t.Fatal(err)
	}
	v.serveFiles(files)
	return files
}

func (v *vendor) serveFiles(files map[string][]byte) {
	v.mu.Lock()
	v.files = files
	v.mu.Unlock()
}

// rootJSON is the first root, as labagent ships it.
func (v *vendor) rootJSON() []byte {
	b, err := v.repo.Roots[0].ToBytes(false)
	if err != nil {
		v.t.Fatal(err)
	}
	return b
}

// httpFetch downloads with net/http, at most maxLength bytes.
type httpFetch struct{}

func (httpFetch) DownloadFile(url string, maxLength int64, _ time.Duration) ([]byte, error) {
	res, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, &metadata.ErrDownloadHTTP{StatusCode: res.StatusCode, URL: url}
	}
	b, err := io.ReadAll(io.LimitReader(res.Body, maxLength+1))
	if err == nil && int64(len(b)) > maxLength {
		err = &metadata.ErrDownloadLengthMismatch{Msg: "too long"}
	}
	return b, err
}

// agent is one lab server's view of the releases.
func (v *vendor) agent(platform string, now *time.Time) update.Config {
	return update.Config{Root: v.rootJSON(), MetadataURL: v.srv.URL + "/metadata/", Dir: v.t.TempDir(), Fetch: httpFetch{},
		Platform: platform, Now: func() time.Time { return *now }}
}

// TestLatest: a lab server finds the newest signed release for its
// platform, verifies its binary, and follows later releases.
func TestLatest(t *testing.T) {
	now := time.Date(2027, 3, 1, 8, 0, 0, 0, time.UTC)
	v := newVendor(t, now)
	bins := v.release("1.4.0", "linux/amd64", "windows/amd64")
	cfg := v.agent("linux/amd64", &now)
	r, err := update.Latest(cfg)
	if err != nil || r == nil || r.Version != "1.4.0" || r.Target != "labagent/1.4.0/linux-amd64/labagent" || r.Length != int64(len(bins["linux/amd64"])) {
		t.Fatalf("Latest: %+v, %v", r, err)
	}
	if err := r.Verify(bins["linux/amd64"]); err != nil {
		t.Fatalf("the signed binary: %v", err)
	}
	tampered := bytes.Clone(bins["linux/amd64"])
	tampered[0] ^= 1
	for what, b := range map[string][]byte{"a changed byte": tampered, "the Windows binary": bins["windows/amd64"], "one byte more": append(bytes.Clone(bins["linux/amd64"]), 0)} {
		if err := r.Verify(b); err == nil {
			t.Errorf("%s verified", what)
		}
	}
	win := cfg
	win.Platform, win.Dir = "windows/amd64", t.TempDir()
	if r, err := update.Latest(win); err != nil || r == nil || r.Target != "labagent/1.4.0/windows-amd64/labagent.exe" {
		t.Fatalf("Windows: %+v, %v", r, err)
	}
	arm := cfg
	arm.Platform, arm.Dir = "linux/arm64", t.TempDir()
	if r, err := update.Latest(arm); err != nil || r != nil {
		t.Fatalf("arm64, not released: %+v, %v", r, err)
	}

	v.release("1.10.0", "linux/amd64")
	if r, err := update.Latest(cfg); err != nil || r == nil || r.Version != "1.10.0" {
		t.Fatalf("after 1.10.0 (newer than 1.4.0 by version, not by text): %+v, %v", r, err)
	}
	if err := v.repo.AddRelease(now, "1.10.0", map[string][]byte{"linux/amd64": []byte("x")}, v.targets); err == nil {
		t.Error("a version released twice")
	}
	for _, bad := range []string{"1.10", "v1.11.0", "1.11.0 ", ""} {
		if err := v.repo.AddRelease(now, bad, map[string][]byte{"linux/amd64": []byte("x")}, v.targets); err == nil {
			t.Errorf("version %q released", bad)
		}
	}
	if err := v.repo.AddRelease(now, "1.11.0", map[string][]byte{"darwin/amd64": []byte("x")}, v.targets); err == nil {
		t.Error("a platform labagent is not built for")
	}

	noRoot := cfg
	noRoot.Root = nil
	if _, err := update.Latest(noRoot); err != update.ErrNoRoot {
		t.Errorf("without a root: %v", err)
	}
}

// refused checks that Latest fails with an error containing want, and
// that the lab server then still trusts what it trusted: once the portal
// publishes the honest repository again, a minute later, it finds release
// version.
func refused(t *testing.T, v *vendor, cfg update.Config, what, want, version string) {
	t.Helper()
	r, err := update.Latest(cfg)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%s: %+v, %v; want an error with %q", what, r, err, want)
	}
	v.now = v.now.Add(time.Minute)
	v.publish()
	if r, err := update.Latest(cfg); err != nil || r == nil || r.Version != version {
		t.Errorf("after %s, the honest repository: %+v, %v", what, r, err)
	}
}

// TestRefused: forged targets, an older publication after a newer one
// (rollback), a snapshot of another publication (mix and match) and
// metadata past its expiry (frozen) are each refused, and the lab server
// keeps trusting what it did.
func TestRefused(t *testing.T) {
	now := time.Date(2027, 3, 1, 8, 0, 0, 0, time.UTC)
	v := newVendor(t, now)
	v.release("1.4.0", "linux/amd64")
	old := v.serve()
	v.now = v.now.Add(time.Minute)
	v.release("1.5.0", "linux/amd64")
	cfg := v.agent("linux/amd64", &now)
	if r, err := update.Latest(cfg); err != nil || r == nil || r.Version != "1.5.0" {
		t.Fatalf("Latest: %+v, %v", r, err)
	}

	// The publication of 1.4.0 again: older versions of everything.
	v.serveFiles(old)
	refused(t, v, cfg, "an older publication", "version", "1.5.0")

	// The newest timestamp, with the snapshot of an older publication
	// under the name it names.
	v.now = v.now.Add(time.Minute)
	mixed := maps.Clone(v.publish())
	ts, err := metadata.Timestamp().FromBytes(mixed["timestamp.json"])
	if err != nil {
		t.Fatal(err)
	}
	var oldSnapshot []byte
	for name, b := range old {
		if strings.HasSuffix(name, ".snapshot.json") {
			oldSnapshot = b
		}
	}
	mixed[fmt.Sprintf("%d.snapshot.json", ts.Signed.Meta["snapshot.json"].Version)] = oldSnapshot
	v.serveFiles(mixed)
	refused(t, v, cfg, "a snapshot of another publication", "version", "1.5.0")

	// The portal stops signing timestamps: past the last one's expiry the
	// lab server refuses the metadata rather than trust a frozen view.
	now = v.now.Add(release.TimestampLifetime + time.Hour)
	if _, err := update.Latest(cfg); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Errorf("a timestamp past its expiry: %v", err)
	}
	v.now = now
	if err := v.repo.Refresh(v.now, v.live); err != nil {
		t.Fatal(err)
	}
	v.serve()
	if r, err := update.Latest(cfg); err != nil || r == nil || r.Version != "1.5.0" {
		t.Errorf("a fresh timestamp: %+v, %v", r, err)
	}

	// A compromised portal signs its own release with a key of its own,
	// and publishes it with the portal's online key: refused. Its
	// snapshot and timestamp, which that key does sign, claim versions the
	// honest ones are below; the vendor recovers by rotating the online
	// key in a new root, after which the lab server takes the honest
	// metadata again.
	evil, err := release.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	v.serveFiles(v.forge(func(r *release.Repo) {
		if err := r.AddRelease(v.now, "9.9.9", map[string][]byte{"linux/amd64": []byte("evil")}, evil); err != nil {
			t.Fatal(err)
		}
	}))
	if r, err := update.Latest(cfg); err == nil || !strings.Contains(err.Error(), "targets") {
		t.Errorf("targets signed by another key: %+v, %v", r, err)
	}
	live, err := release.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	if err := v.repo.RotateRoot(v.now, func(root *metadata.RootType) error {
		return replaceKeys(root, live, metadata.SNAPSHOT, metadata.TIMESTAMP)
	}, v.root); err != nil {
		t.Fatal(err)
	}
	v.live = live
	v.now = v.now.Add(time.Minute)
	v.publish()
	if r, err := update.Latest(cfg); err != nil || r == nil || r.Version != "1.5.0" {
		t.Errorf("after the online key's rotation: %+v, %v", r, err)
	}
}

// replaceKeys makes k the only key of each role.
func replaceKeys(root *metadata.RootType, k ed25519.PrivateKey, roles ...string) error {
	key, err := metadata.KeyFromPublicKey(k.Public())
	if err != nil {
		return err
	}
	for _, role := range roles {
		for _, id := range slices.Clone(root.Roles[role].KeyIDs) {
			if err := root.RevokeKey(id, role); err != nil {
				return err
			}
		}
		if err := root.AddKey(key, role); err != nil {
			return err
		}
	}
	return nil
}

// TestRootRotation: the vendor replaces its targets key with a new root
// signed by the old root key and a new one; a lab server that shipped
// with the first root follows, takes releases signed with the new
// targets key and refuses the old key's. A root signed by the new key
// alone is refused.
func TestRootRotation(t *testing.T) {
	now := time.Date(2027, 3, 1, 8, 0, 0, 0, time.UTC)
	v := newVendor(t, now)
	v.release("1.4.0", "linux/amd64")
	cfg := v.agent("linux/amd64", &now)
	if _, err := update.Latest(cfg); err != nil {
		t.Fatal(err)
	}
	newRoot, err := release.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	newTargets, err := release.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	oldTargets := v.targets
	rotate := func(r *release.Repo, signers ...ed25519.PrivateKey) error {
		return r.RotateRoot(v.now, func(root *metadata.RootType) error {
			if err := replaceKeys(root, newRoot, metadata.ROOT); err != nil {
				return err
			}
			return replaceKeys(root, newTargets, metadata.TARGETS)
		}, signers...)
	}

	// Signed by the new root key alone: the lab server cannot chain to it.
	v.serveFiles(v.forge(func(r *release.Repo) {
		if err := rotate(r, newRoot); err != nil {
			t.Fatal(err)
		}
	}))
	if _, err := update.Latest(cfg); err == nil || !strings.Contains(err.Error(), "root") {
		t.Errorf("a root the old root did not sign: %v", err)
	}

	if err := rotate(v.repo, v.root, newRoot); err != nil {
		t.Fatal(err)
	}
	v.root, v.targets = newRoot, newTargets
	v.now = v.now.Add(time.Minute)
	bins := v.release("2.0.0", "linux/amd64")
	r, err := update.Latest(cfg)
	if err != nil || r == nil || r.Version != "2.0.0" || r.Verify(bins["linux/amd64"]) != nil {
		t.Fatalf("after the rotation: %+v, %v", r, err)
	}
	// The old targets key is no longer trusted.
	v.serveFiles(v.forge(func(r *release.Repo) {
		if err := r.AddRelease(v.now, "2.0.1", map[string][]byte{"linux/amd64": []byte("old key")}, oldTargets); err != nil {
			t.Fatal(err)
		}
	}))
	if r, err := update.Latest(cfg); err == nil || !strings.Contains(err.Error(), "targets") {
		t.Errorf("targets signed with the revoked key: %+v, %v", r, err)
	}
}

// forge returns the files of a copy of the repository changed by change
// and published with the portal's online key: what a compromised portal
// can make.
func (v *vendor) forge(change func(*release.Repo)) map[string][]byte {
	v.t.Helper()
	files, err := v.repo.Files()
	if err != nil {
		v.t.Fatal(err)
	}
	r, err := release.LoadRepo(files)
	if err != nil {
		v.t.Fatal(err)
	}
	change(r)
	if err := r.Publish(v.now, v.live); err != nil {
		v.t.Fatal(err)
	}
	out, err := r.Files()
	if err != nil {
		v.t.Fatal(err)
	}
	return out
}
