// Package update finds and verifies labagent releases for a lab server:
// The Update Framework's metadata, fetched from the portal and verified
// with go-tuf's updater from the vendor's root, which labagent ships. A
// release the vendor's targets key did not sign, an older one offered as
// newer, metadata past its expiry (frozen), metadata of different
// publications mixed, or a binary whose length or hash differs from what
// was signed is refused with an error saying which (docs/updates.md).
package update

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/theupdateframework/go-tuf/v2/metadata"
	"github.com/theupdateframework/go-tuf/v2/metadata/config"
	"github.com/theupdateframework/go-tuf/v2/metadata/updater"
	"golang.org/x/mod/semver"
)

// Fetcher downloads the file at url, at most maxLength bytes.
type Fetcher interface {
	DownloadFile(url string, maxLength int64, timeout time.Duration) ([]byte, error)
}

// Config is where the releases are and what this lab server trusts.
type Config struct {
	// Root is the vendor's root metadata (a root.json) that labagent
	// ships: the trust of first use. Later roots, each signed by the one
	// before it, are kept in Dir.
	Root []byte
	// MetadataURL is the directory the metadata is served from
	// (N.root.json, timestamp.json, N.snapshot.json, N.targets.json).
	MetadataURL string
	// Dir keeps the newest trusted metadata between checks, so that a
	// restarted agent refuses metadata older than what it has seen.
	Dir string
	// Fetch downloads the metadata.
	Fetch Fetcher
	// Platform is this build's GOOS/GOARCH.
	Platform string
	// Now, when set, is the time expiry is checked against (tests).
	Now func() time.Time
}

// Release is a signed labagent build for this lab server's platform.
type Release struct {
	Version string
	// Target is its name in the targets metadata; Length and SHA256 what
	// its binary must be.
	Target string
	Length int64
	SHA256 string
	info   *metadata.TargetFiles
}

// Verify checks that b is the release's binary: its length and SHA-256
// are the signed ones.
func (r *Release) Verify(b []byte) error {
	if err := r.info.VerifyLengthHashes(b); err != nil {
		return fmt.Errorf("update: %s: the binary is not the one signed: %w", r.Target, err)
	}
	return nil
}

// ErrNoRoot is returned when labagent was built without a vendor root:
// it then never updates itself.
var ErrNoRoot = errors.New("update: this labagent was built without a release root: it does not update itself")

// custom is what a target carries besides its length and hashes
// (release.Custom on the vendor's side).
type custom struct {
	Version  string `json:"version"`
	Platform string `json:"platform"`
}

// Latest refreshes the trusted metadata and returns the newest release for
// cfg.Platform, nil when there is none. Any verification failure is an
// error, and the metadata trusted before stays as it was.
func Latest(cfg Config) (*Release, error) {
	if len(cfg.Root) == 0 {
		return nil, ErrNoRoot
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("update: %w", err)
	}
	// The trusted root: the newest kept in Dir, else the shipped one.
	root := cfg.Root
	if b, err := os.ReadFile(filepath.Join(cfg.Dir, "root.json")); err == nil {
		root = b
	}
	uc, err := config.New(cfg.MetadataURL, root)
	if err != nil {
		return nil, fmt.Errorf("update: %w", err)
	}
	uc.LocalMetadataDir, uc.LocalTargetsDir = cfg.Dir, filepath.Join(cfg.Dir, "targets")
	uc.Fetcher = cfg.Fetch
	up, err := updater.New(uc)
	if err != nil {
		return nil, fmt.Errorf("update: the trusted root: %w", err)
	}
	if cfg.Now != nil {
		up.UnsafeSetRefTime(cfg.Now())
	}
	if err := up.Refresh(); err != nil {
		return nil, fmt.Errorf("update: the release metadata: %w", err)
	}
	var best *Release
	for name, tf := range up.GetTopLevelTargets() {
		if tf.Custom == nil {
			continue
		}
		var c custom
		if err := json.Unmarshal(*tf.Custom, &c); err != nil || c.Platform != cfg.Platform || !semver.IsValid("v"+c.Version) {
			continue
		}
		if best == nil || semver.Compare("v"+c.Version, "v"+best.Version) > 0 {
			sum := ""
			if h, ok := tf.Hashes["sha256"]; ok {
				sum = h.String()
			}
			best = &Release{Version: c.Version, Target: name, Length: tf.Length, SHA256: sum, info: tf}
		}
	}
	return best, nil
}

// Newer reports whether version a is newer than b (MAJOR.MINOR.PATCH with
// an optional pre-release; a version that is not one is never newer).
func Newer(a, b string) bool {
	if !semver.IsValid("v" + a) {
		return false
	}
	return !semver.IsValid("v"+b) || semver.Compare("v"+a, "v"+b) > 0
}
