package agent

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/seedhq/portal/internal/agent/localdb"
)

// metaPackageKey is the localdb meta key of the wrapped package key.
const metaPackageKey = "package_key"

// ErrNoPackageKey means no handshake has given labagent the package key yet.
var ErrNoPackageKey = errors.New("no package key yet: labagent has not completed a handshake with the portal")

// wrappedKey is the package key sealed with AES-256-GCM under a key derived
// from the machine and the licence (see wrappingKey).
type wrappedKey struct {
	Nonce      []byte `json:"nonce"`
	Ciphertext []byte `json:"ciphertext"`
}

// SavePackageKey keeps the school's package key, given at each handshake, so
// that labagent decrypts its package after a restart without the portal. The
// key is stored wrapped, never in the clear.
func SavePackageKey(ctx context.Context, db *localdb.DB, cfg *Config, key []byte) error {
	aead, err := keyWrapper(cfg)
	if err != nil {
		return err
	}
	w := wrappedKey{Nonce: make([]byte, aead.NonceSize())}
	rand.Read(w.Nonce)
	w.Ciphertext = aead.Seal(nil, w.Nonce, key, []byte(cfg.ServerCode))
	return db.PutMeta(ctx, metaPackageKey, w)
}

// LoadPackageKey returns the package key kept by SavePackageKey, or
// ErrNoPackageKey.
func LoadPackageKey(db *localdb.DB, cfg *Config) ([]byte, error) {
	var w wrappedKey
	found, err := db.GetMeta(metaPackageKey, &w)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, ErrNoPackageKey
	}
	aead, err := keyWrapper(cfg)
	if err != nil {
		return nil, err
	}
	key, err := aead.Open(nil, w.Nonce, w.Ciphertext, []byte(cfg.ServerCode))
	if err != nil {
		return nil, fmt.Errorf("the stored package key cannot be unwrapped (state file from another machine or licence?): %w", err)
	}
	return key, nil
}

// keyWrapper derives the key-wrapping AEAD from this machine's raw machine
// id (never written to the data directory) and the licence token. A copy of
// the data directory taken elsewhere, a backup on a USB stick say, does not
// reveal the package key; root on the lab server itself can, as it can read
// the answers: that is the threat model (docs/ARCHITECTURE.md).
func keyWrapper(cfg *Config) (cipher.AEAD, error) {
	h := sha256.New()
	h.Write([]byte("labagent package key wrap v1\x00"))
	h.Write([]byte(rawMachineID()))
	h.Write([]byte{0})
	h.Write([]byte(cfg.LicenseToken))
	block, err := aes.NewCipher(h.Sum(nil))
	if err != nil {
		return nil, fmt.Errorf("package key wrapper: %w", err)
	}
	return cipher.NewGCM(block)
}
