package labwire

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
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

var (
	npsnPattern       = regexp.MustCompile(`^[0-9]{8}$`)
	serverCodePattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)
)

// ValidNPSN reports whether s is a national school number (8 digits).
func ValidNPSN(s string) bool { return npsnPattern.MatchString(s) }

// ValidServerCode reports whether s is a lab server's code: 1 to 64
// letters, digits, dots, dashes or underscores.
func ValidServerCode(s string) bool { return serverCodePattern.MatchString(s) }

// MaxIdempotencyKeyLen is the longest Idempotency-Key accepted.
const MaxIdempotencyKeyLen = 200

// ValidIdempotencyKey reports whether k is an acceptable Idempotency-Key
// (of a push, of a batch of an answer export file): 1 to
// MaxIdempotencyKeyLen printable ASCII characters, not only spaces. A UUID,
// as most clients send, is one.
func ValidIdempotencyKey(k string) bool {
	if len(k) > MaxIdempotencyKeyLen || strings.TrimSpace(k) == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}
