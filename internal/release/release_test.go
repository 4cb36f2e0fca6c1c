package release_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/release"
)

// TestKeyFiles: a key file is PKCS #8 PEM, its owner's only, never written
// over, and read back as the same key; a file of another kind of key is
// refused.
func TestKeyFiles(t *testing.T) {
	dir := t.TempDir()
	k, err := release.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "targets.pem")
	if err := release.WriteKey(p, k); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", fi.Mode(), err)
	}
	if err := release.WriteKey(p, k); err == nil {
		t.Fatal("a key file written over")
	}
	back, err := release.ReadKey(p)
	if err != nil || !back.Equal(k) {
		t.Fatalf("read back: %v", err)
	}
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(ec)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "ec.pem")
	if err := os.WriteFile(other, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{other, filepath.Join(dir, "none.pem")} {
		if _, err := release.ReadKey(bad); err == nil {
			t.Errorf("%s read", bad)
		}
	}
}

// TestLoadRepo: a repository read back from its files writes the same
// files, and publishes on from where it was: higher snapshot and
// timestamp versions, the same targets.
func TestLoadRepo(t *testing.T) {
	now := time.Date(2027, 3, 1, 8, 0, 0, 0, time.UTC)
	var root, targets, live ed25519.PrivateKey
	for _, k := range []*ed25519.PrivateKey{&root, &targets, &live} {
		var err error
		if *k, err = release.GenerateKey(); err != nil {
			t.Fatal(err)
		}
	}
	r, err := release.NewRepo(now, root, targets, live.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.AddRelease(now, "1.4.0", map[string][]byte{"linux/amd64": []byte("a"), "linux/arm64": []byte("b")}, targets); err != nil {
		t.Fatal(err)
	}
	if err := r.Publish(now, live); err != nil {
		t.Fatal(err)
	}
	files, err := r.Files()
	if err != nil {
		t.Fatal(err)
	}
	back, err := release.LoadRepo(files)
	if err != nil {
		t.Fatal(err)
	}
	again, err := back.Files()
	if err != nil || !maps.EqualFunc(files, again, bytes.Equal) {
		t.Fatalf("written again: %v\n%v\n%v", err, keysOf(files), keysOf(again))
	}
	if err := back.Publish(now, live); err != nil {
		t.Fatal(err)
	}
	if back.Snapshot.Signed.Version <= r.Snapshot.Signed.Version || back.Timestamp.Signed.Version <= r.Timestamp.Signed.Version ||
		back.Targets.Signed.Version != r.Targets.Signed.Version {
		t.Errorf("published on: snapshot %d (was %d), timestamp %d (was %d), targets %d (was %d)",
			back.Snapshot.Signed.Version, r.Snapshot.Signed.Version, back.Timestamp.Signed.Version, r.Timestamp.Signed.Version,
			back.Targets.Signed.Version, r.Targets.Signed.Version)
	}
	delete(files, "1.root.json")
	if _, err := release.LoadRepo(files); err == nil {
		t.Error("a repository without its first root")
	}
}

func keysOf(m map[string][]byte) []string { return slices.Sorted(maps.Keys(m)) }
