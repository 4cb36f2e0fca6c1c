package exam

import (
	"crypto/sha256"
	"encoding/hex"
)

// ChecksumSHA256 returns the lowercase hex SHA-256 of b.
func ChecksumSHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ValidChecksum reports whether s is 64 lowercase hex characters, the form of
// ChecksumSHA256.
func ValidChecksum(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
