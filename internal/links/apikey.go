package links

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// KeyPrefix starts every API key, so that leaked keys are easy to recognise.
const KeyPrefix = "lk_"

// keyBytes is the number of random bytes of a key.
const keyBytes = 32

// GenerateAPIKey returns a new API key ("lk_" and 32 random bytes in
// unpadded base64url) and the hash to store.
func GenerateAPIKey() (key, hash string, err error) {
	b := make([]byte, keyBytes)
	if _, err := rand.Read(b); err != nil {
		return "", "", fmt.Errorf("links: generate API key: %w", err)
	}
	key = KeyPrefix + base64.RawURLEncoding.EncodeToString(b)
	return key, HashAPIKey(key), nil
}

// HashAPIKey returns the lowercase hex SHA-256 of a key: what the store keeps
// and looks keys up by. Looking up by the hash of a high-entropy key reveals
// nothing usable by timing, unlike comparing keys byte by byte.
func HashAPIKey(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:])
}

// WellFormedAPIKey reports whether key has the shape GenerateAPIKey gives, so
// that garbage is refused without a store lookup.
func WellFormedAPIKey(key string) bool {
	rest, ok := strings.CutPrefix(key, KeyPrefix)
	if !ok {
		return false
	}
	b, err := base64.RawURLEncoding.DecodeString(rest)
	return err == nil && len(b) == keyBytes
}

// MinPasswordBytes is the shortest account password accepted.
const MinPasswordBytes = 8

// aliasAlphabet is the alphabet of generated aliases.
const aliasAlphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"

// GeneratedAliasLength is the length of aliases made for links without a custom one.
const GeneratedAliasLength = 7

// GenerateAlias returns a random alias of GeneratedAliasLength characters
// without look-alike characters (0, O, 1, l, I).
func GenerateAlias() (string, error) {
	b := make([]byte, GeneratedAliasLength)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("links: generate alias: %w", err)
	}
	for i := range b {
		// 256 is not a multiple of the alphabet's size: the first characters
		// are slightly likelier, which is harmless for aliases.
		b[i] = aliasAlphabet[int(b[i])%len(aliasAlphabet)]
	}
	return string(b), nil
}
