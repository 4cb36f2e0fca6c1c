// Package mediastore keeps labagent's copy of the exams' images and audio:
// one file per media, named by its SHA-256, in a directory beside the state
// file.
//
// Media are files rather than bbolt values so that serving an audio file to
// hundreds of students streams it from the page cache (http.ServeContent on
// an *os.File) without holding a bbolt read transaction open for the length
// of a slow download, which would stop the answers' writes from growing the
// file. A file is only ever complete: its encrypted download goes to
// <sha>.part (resumed after a cut), is decrypted to a temporary file that is
// checked against the SHA-256 and size the package names, synced, then
// renamed into place.
package mediastore

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"github.com/seedhq/portal/pkg/client"
)

// Dir is the media directory of a data directory.
func Dir(dataDir string) string { return filepath.Join(dataDir, "media") }

// Store is a media directory.
type Store struct{ dir string }

var shaName = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Open opens (creating it when absent) the media directory dir, removing
// the temporary files a crash left.
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("media directory: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("media directory: %w", err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	return &Store{dir: dir}, nil
}

func (s *Store) path(sha string) string { return filepath.Join(s.dir, sha) }

// PartPath is where the encrypted download of sha goes until it is
// complete.
func (s *Store) PartPath(sha string) string { return filepath.Join(s.dir, sha+".part") }

// Has reports whether the media of sha is held whole (size bytes).
func (s *Store) Has(sha string, size int64) bool {
	if !shaName.MatchString(sha) {
		return false
	}
	fi, err := os.Stat(s.path(sha))
	return err == nil && fi.Mode().IsRegular() && fi.Size() == size
}

// Open opens the media of sha; an error wrapping fs.ErrNotExist when it is
// not held.
func (s *Store) Open(sha string) (*os.File, error) {
	if !shaName.MatchString(sha) {
		return nil, fmt.Errorf("media %q: %w", sha, fs.ErrNotExist)
	}
	return os.Open(s.path(sha))
}

// ErrCorrupt marks an encrypted download that does not decrypt to the media
// the package names: it is removed, to be fetched again from the start.
var ErrCorrupt = errors.New("the downloaded media does not decrypt to the file the package names")

// Install decrypts the complete encrypted download of m with the package
// key and makes it the held copy of m, checking its size and SHA-256.
func (s *Store) Install(m client.PackageMedia, key []byte) (err error) {
	if !shaName.MatchString(m.SHA256) {
		return fmt.Errorf("media %q: not a SHA-256", m.SHA256)
	}
	part, err := os.Open(s.PartPath(m.SHA256))
	if err != nil {
		return err
	}
	defer part.Close()
	tmp, err := os.CreateTemp(s.dir, m.SHA256[:16]+"-*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	corrupt := func(cause error) error {
		part.Close()
		os.Remove(s.PartPath(m.SHA256))
		return fmt.Errorf("media %s: %w: %w", m.SHA256[:12], ErrCorrupt, cause)
	}
	dec, err := client.NewPackageDecrypter(key, part)
	if err != nil {
		return corrupt(err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(dec, m.Size+1))
	switch {
	case err != nil && (errors.Is(err, client.ErrPackageCorrupt) || errors.Is(err, client.ErrPackageTruncated) || errors.Is(err, client.ErrPackageFormat)):
		return corrupt(err)
	case err != nil:
		return err
	case n != m.Size:
		return corrupt(fmt.Errorf("%d bytes, the package says %d", n, m.Size))
	case hex.EncodeToString(h.Sum(nil)) != m.SHA256:
		return corrupt(errors.New("SHA-256 differs"))
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), s.path(m.SHA256)); err != nil {
		return err
	}
	syncDir(s.dir)
	part.Close()
	os.Remove(s.PartPath(m.SHA256))
	return nil
}

// Prune removes the media (and partial downloads) that keep does not name.
func (s *Store) Prune(keep map[string]bool) error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("media directory: %w", err)
	}
	for _, e := range entries {
		sha := strings.TrimSuffix(e.Name(), ".part")
		if shaName.MatchString(sha) && !keep[sha] {
			if err := os.Remove(filepath.Join(s.dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove unused media: %w", err)
			}
		}
	}
	return nil
}

// syncDir makes a rename in dir durable, where the system can.
func syncDir(dir string) {
	if runtime.GOOS == "windows" {
		return
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
