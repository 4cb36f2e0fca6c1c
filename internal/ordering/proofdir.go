package ordering

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/seedhq/portal/internal/blobstore"
)

// ProofDirMigration counts what MigrateProofDir did.
type ProofDirMigration struct {
	// Copied receipts were put into the blob store.
	Copied int
	// Present receipts were in the blob store already (an earlier run,
	// another instance).
	Present int
	// Skipped files are not receipts of the portal (another name) and were
	// left alone.
	Skipped int
}

// MigrateProofDir copies the receipts of the legacy proof directory
// (Config.ProofDir) into the blob store, each under ProofKey(order id, the
// SHA-256 of its bytes): the key the order's receipt is read from. It is
// idempotent (a receipt stored already is not copied again) and safe to run
// on several instances at once (content-addressed keys); files are never
// removed, so that instances still running an older release keep reading
// them. Files not named as the portal named receipts (<order id>-<random>.
// <ext>) are skipped. The first failure of the blob store ends the run with
// an error wrapping it; the receipts not yet copied are still read from the
// directory (ProofFile).
func (s *Service) MigrateProofDir(ctx context.Context) (ProofDirMigration, error) {
	var m ProofDirMigration
	if s.cfg.ProofDir == "" || s.cfg.Blobs == nil {
		return m, nil
	}
	entries, err := os.ReadDir(s.cfg.ProofDir)
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return m, fmt.Errorf("migrate proof directory: %w", err)
	}
	for _, e := range entries {
		i := strings.LastIndexByte(e.Name(), '-')
		if !e.Type().IsRegular() || i <= 0 {
			m.Skipped++
			continue
		}
		orderID := e.Name()[:i]
		copied, err := s.migrateProofFile(ctx, filepath.Join(s.cfg.ProofDir, e.Name()), orderID)
		switch {
		case errors.Is(err, blobstore.ErrInvalidKey):
			m.Skipped++
		case err != nil:
			return m, fmt.Errorf("migrate proof directory: %s: %w", e.Name(), err)
		case copied:
			m.Copied++
		default:
			m.Present++
		}
	}
	return m, nil
}

// migrateProofFile puts the receipt file at path into the blob store unless
// it is there; it reports whether it copied it.
func (s *Service) migrateProofFile(ctx context.Context, path, orderID string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	h := sha256.New()
	size, err := io.Copy(h, f)
	if err != nil {
		return false, err
	}
	key := ProofKey(orderID, hex.EncodeToString(h.Sum(nil)))
	if err := blobstore.ValidKey(key); err != nil {
		return false, err
	}
	if _, err := s.cfg.Blobs.Stat(ctx, key); err == nil {
		return false, nil
	} else if !errors.Is(err, blobstore.ErrNotFound) {
		return false, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return false, err
	}
	if err := s.cfg.Blobs.Put(ctx, key, f, size); err != nil {
		return false, err
	}
	return true, nil
}
