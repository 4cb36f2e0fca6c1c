// Package release keeps the signed repository of labagent releases: The
// Update Framework's metadata (go-tuf), whose root and targets roles the
// vendor signs offline, and whose snapshot and timestamp roles the portal
// signs online (docs/updates.md). A lab server trusts the vendor's root,
// shipped inside labagent, and through it the targets key: a portal, or a
// network between, that forges, rolls back, freezes or mixes releases is
// refused by the agent (internal/agent/update); the portal's own key can
// at worst withhold an update until its timestamp expires.
package release

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/theupdateframework/go-tuf/v2/metadata"
)

// The roles' lifetimes: root and targets are signed offline, seldom;
// snapshot and timestamp online, the timestamp every time the portal
// publishes and at least daily (TimestampLifetime).
const (
	RootLifetime      = 365 * 24 * time.Hour
	TargetsLifetime   = 180 * 24 * time.Hour
	SnapshotLifetime  = 30 * 24 * time.Hour
	TimestampLifetime = 7 * 24 * time.Hour
)

// Platforms are the labagent builds a release holds (GOOS/GOARCH).
var Platforms = []string{"linux/amd64", "linux/arm64", "windows/amd64"}

// GenerateKey returns a new ed25519 signing key.
func GenerateKey() (ed25519.PrivateKey, error) {
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("release: generate key: %w", err)
	}
	return k, nil
}

// WriteKey writes k to path as a PKCS #8 PEM file readable by its owner
// only; it refuses to overwrite a file.
func WriteKey(path string, k ed25519.PrivateKey) error {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return fmt.Errorf("release: write key: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("release: write key: %w", err)
	}
	if err := pem.Encode(f, &pem.Block{Type: "PRIVATE KEY", Bytes: der}); err != nil {
		f.Close()
		return fmt.Errorf("release: write key %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("release: write key %s: %w", path, err)
	}
	return nil
}

// ReadKey reads an ed25519 key that WriteKey wrote.
func ReadKey(path string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("release: read key: %w", err)
	}
	block, _ := pem.Decode(b)
	if block == nil || block.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("release: read key %s: not a PEM private key", path)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("release: read key %s: %w", path, err)
	}
	ek, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("release: read key %s: %T, want an ed25519 key", path, k)
	}
	return ek, nil
}

// sign signs meta with k.
func sign[T metadata.Roles](meta *metadata.Metadata[T], k ed25519.PrivateKey) error {
	s, err := signature.LoadSigner(k, crypto.Hash(0))
	if err != nil {
		return fmt.Errorf("release: signer: %w", err)
	}
	if _, err := meta.Sign(s); err != nil {
		return fmt.Errorf("release: sign: %w", err)
	}
	return nil
}

// keyOf is k's public key as TUF metadata.
func keyOf(k ed25519.PublicKey) (*metadata.Key, error) {
	key, err := metadata.KeyFromPublicKey(k)
	if err != nil {
		return nil, fmt.Errorf("release: key: %w", err)
	}
	return key, nil
}

// Repo is a release repository's current metadata: every version of the
// root (Roots[0] is version 1), the targets, snapshot and timestamp.
type Repo struct {
	Roots     []*metadata.Metadata[metadata.RootType]
	Targets   *metadata.Metadata[metadata.TargetsType]
	Snapshot  *metadata.Metadata[metadata.SnapshotType]
	Timestamp *metadata.Metadata[metadata.TimestampType]
}

// Root is the newest root.
func (r *Repo) Root() *metadata.Metadata[metadata.RootType] { return r.Roots[len(r.Roots)-1] }

// NewRepo starts a repository: root version 1, signed by rootKey, which
// trusts rootKey for the root, targetsKey for the targets, and the
// portal's online key for the snapshot and the timestamp; and empty
// targets signed by targetsKey. The snapshot and timestamp are made by
// Publish, on the portal.
func NewRepo(now time.Time, rootKey, targetsKey ed25519.PrivateKey, online ed25519.PublicKey) (*Repo, error) {
	root := metadata.Root(now.Add(RootLifetime).UTC().Truncate(time.Second))
	for role, k := range map[string]ed25519.PublicKey{
		metadata.ROOT: rootKey.Public().(ed25519.PublicKey), metadata.TARGETS: targetsKey.Public().(ed25519.PublicKey),
		metadata.SNAPSHOT: online, metadata.TIMESTAMP: online,
	} {
		key, err := keyOf(k)
		if err != nil {
			return nil, err
		}
		if err := root.Signed.AddKey(key, role); err != nil {
			return nil, fmt.Errorf("release: root: %w", err)
		}
	}
	if err := sign(root, rootKey); err != nil {
		return nil, err
	}
	targets := metadata.Targets(now.Add(TargetsLifetime).UTC().Truncate(time.Second))
	if err := sign(targets, targetsKey); err != nil {
		return nil, err
	}
	return &Repo{Roots: []*metadata.Metadata[metadata.RootType]{root}, Targets: targets}, nil
}

// versionPattern is a release version: semantic versioning's
// MAJOR.MINOR.PATCH with an optional pre-release.
var versionPattern = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?$`)

// TargetPath is the target name of labagent version for platform
// (GOOS/GOARCH): labagent/VERSION/GOOS-GOARCH/labagent[.exe].
func TargetPath(version, platform string) string {
	goos, goarch, _ := cutPlatform(platform)
	name := "labagent"
	if goos == "windows" {
		name += ".exe"
	}
	return path.Join("labagent", version, goos+"-"+goarch, name)
}

func cutPlatform(p string) (goos, goarch string, ok bool) {
	for i := range len(p) {
		if p[i] == '/' {
			return p[:i], p[i+1:], true
		}
	}
	return p, "", false
}

// Custom is what a target carries besides its length and hashes.
type Custom struct {
	Version  string `json:"version"`
	Platform string `json:"platform"`
}

// AddRelease adds labagent version, its binaries by platform, to the
// targets and signs them with targetsKey as a new targets version. A
// version already released, or a platform not in Platforms, is refused.
func (r *Repo) AddRelease(now time.Time, version string, binaries map[string][]byte, targetsKey ed25519.PrivateKey) error {
	if !versionPattern.MatchString(version) {
		return fmt.Errorf("release: version %q is not MAJOR.MINOR.PATCH", version)
	}
	if len(binaries) == 0 {
		return errors.New("release: no binaries")
	}
	for p := range binaries {
		if !slices.Contains(Platforms, p) {
			return fmt.Errorf("release: platform %q is not one of %v", p, Platforms)
		}
		if _, ok := r.Targets.Signed.Targets[TargetPath(version, p)]; ok {
			return fmt.Errorf("release: version %s for %s is already released", version, p)
		}
	}
	for p, b := range binaries {
		tf, err := metadata.TargetFile().FromBytes(TargetPath(version, p), b, "sha256")
		if err != nil {
			return fmt.Errorf("release: target: %w", err)
		}
		raw, err := json.Marshal(Custom{Version: version, Platform: p})
		if err != nil {
			return fmt.Errorf("release: target: %w", err)
		}
		msg := json.RawMessage(raw)
		tf.Custom = &msg
		r.Targets.Signed.Targets[tf.Path] = tf
	}
	r.Targets.Signed.Version++
	r.Targets.Signed.Expires = now.Add(TargetsLifetime).UTC().Truncate(time.Second)
	r.Targets.ClearSignatures()
	return sign(r.Targets, targetsKey)
}

// nextVersion is the version of an online role's next metadata: the
// Unix time, or one more than the last when that is not below it. Lab
// servers refuse a version below one they have seen; a portal that was
// compromised, and made higher versions, is past them again once its clock
// is, and several portal instances need no shared counter.
func nextVersion(now time.Time, last int64) int64 {
	return max(now.Unix(), last+1)
}

// Publish makes a new snapshot of the current targets and a new timestamp
// of it, signed with the portal's online key.
func (r *Repo) Publish(now time.Time, online ed25519.PrivateKey) error {
	var last int64
	if r.Snapshot != nil {
		last = r.Snapshot.Signed.Version
	}
	snap := metadata.Snapshot(now.Add(SnapshotLifetime).UTC().Truncate(time.Second))
	snap.Signed.Version = nextVersion(now, last)
	snap.Signed.Meta["targets.json"] = metadata.MetaFile(r.Targets.Signed.Version)
	if err := sign(snap, online); err != nil {
		return err
	}
	r.Snapshot = snap
	return r.Refresh(now, online)
}

// Refresh signs a new timestamp of the current snapshot with the portal's
// online key, so that lab servers do not take the releases for frozen.
func (r *Repo) Refresh(now time.Time, online ed25519.PrivateKey) error {
	if r.Snapshot == nil {
		return errors.New("release: refresh: nothing published")
	}
	var last int64
	if r.Timestamp != nil {
		last = r.Timestamp.Signed.Version
	}
	ts := metadata.Timestamp(now.Add(TimestampLifetime).UTC().Truncate(time.Second))
	ts.Signed.Version = nextVersion(now, last)
	ts.Signed.Meta["snapshot.json"] = metadata.MetaFile(r.Snapshot.Signed.Version)
	if err := sign(ts, online); err != nil {
		return err
	}
	r.Timestamp = ts
	return nil
}

// RotateRoot makes a new root version from the newest, its keys changed
// by change, signed by signers: the old root's keys and the new one's, so
// that a lab server trusting the old root moves to it.
func (r *Repo) RotateRoot(now time.Time, change func(*metadata.RootType) error, signers ...ed25519.PrivateKey) error {
	raw, err := r.Root().ToBytes(false)
	if err != nil {
		return fmt.Errorf("release: rotate root: %w", err)
	}
	next, err := metadata.Root().FromBytes(raw)
	if err != nil {
		return fmt.Errorf("release: rotate root: %w", err)
	}
	next.Signed.Version++
	next.Signed.Expires = now.Add(RootLifetime).UTC().Truncate(time.Second)
	if err := change(&next.Signed); err != nil {
		return fmt.Errorf("release: rotate root: %w", err)
	}
	next.ClearSignatures()
	for _, k := range signers {
		if err := sign(next, k); err != nil {
			return err
		}
	}
	r.Roots = append(r.Roots, next)
	return nil
}

// Files returns the repository's metadata files by name, as a TUF client
// fetches them with consistent snapshots: N.root.json for every root,
// N.targets.json, N.snapshot.json and timestamp.json.
func (r *Repo) Files() (map[string][]byte, error) {
	out := map[string][]byte{}
	put := func(name string, b []byte, err error) error {
		if err != nil {
			return fmt.Errorf("release: encode %s: %w", name, err)
		}
		out[name] = b
		return nil
	}
	for _, root := range r.Roots {
		b, err := root.ToBytes(false)
		if err := put(fmt.Sprintf("%d.root.json", root.Signed.Version), b, err); err != nil {
			return nil, err
		}
	}
	b, err := r.Targets.ToBytes(false)
	if err := put(fmt.Sprintf("%d.targets.json", r.Targets.Signed.Version), b, err); err != nil {
		return nil, err
	}
	if r.Snapshot != nil {
		b, err := r.Snapshot.ToBytes(false)
		if err := put(fmt.Sprintf("%d.snapshot.json", r.Snapshot.Signed.Version), b, err); err != nil {
			return nil, err
		}
	}
	if r.Timestamp != nil {
		b, err := r.Timestamp.ToBytes(false)
		if err := put("timestamp.json", b, err); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// LoadRepo reads a repository from its metadata files (Files' names): every
// N.root.json from 1 on, the newest N.targets.json and N.snapshot.json,
// and timestamp.json. Signatures are not checked: a repository is the
// signer's own.
func LoadRepo(files map[string][]byte) (*Repo, error) {
	r := &Repo{}
	for v := 1; ; v++ {
		b, ok := files[fmt.Sprintf("%d.root.json", v)]
		if !ok {
			break
		}
		root, err := metadata.Root().FromBytes(b)
		if err != nil {
			return nil, fmt.Errorf("release: %d.root.json: %w", v, err)
		}
		r.Roots = append(r.Roots, root)
	}
	if len(r.Roots) == 0 {
		return nil, errors.New("release: no 1.root.json")
	}
	newest := func(role string) []byte {
		var best []byte
		top := 0
		for name, b := range files {
			n, err := strconv.Atoi(strings.TrimSuffix(name, "."+role+".json"))
			if err == nil && strings.HasSuffix(name, "."+role+".json") && n > top {
				best, top = b, n
			}
		}
		return best
	}
	b := newest(metadata.TARGETS)
	if b == nil {
		return nil, errors.New("release: no targets")
	}
	var err error
	if r.Targets, err = metadata.Targets().FromBytes(b); err != nil {
		return nil, fmt.Errorf("release: targets: %w", err)
	}
	if b := newest(metadata.SNAPSHOT); b != nil {
		if r.Snapshot, err = metadata.Snapshot().FromBytes(b); err != nil {
			return nil, fmt.Errorf("release: snapshot: %w", err)
		}
	}
	if b, ok := files["timestamp.json"]; ok {
		if r.Timestamp, err = metadata.Timestamp().FromBytes(b); err != nil {
			return nil, fmt.Errorf("release: timestamp: %w", err)
		}
	}
	return r, nil
}
