package identity

import (
	"fmt"
	"sync"

	"golang.org/x/crypto/bcrypt"

	"github.com/seedhq/portal/internal/apperr"
)

// BcryptCost is the bcrypt cost of HashPassword. It is a variable only so
// that tests can lower it; production code leaves it at 12.
var BcryptCost = 12

// MaxPasswordBytes is the longest operator password bcrypt can hash: it
// ignores every byte after the 72nd, so longer passwords are refused.
const MaxPasswordBytes = 72

// ErrPasswordTooLong is returned by HashPassword for a password over
// MaxPasswordBytes bytes.
var ErrPasswordTooLong = apperr.New(apperr.Invalid, "VALIDATION_FAILED", "password must be at most 72 bytes")

// HashPassword returns a bcrypt hash of an operator password at BcryptCost.
func HashPassword(password string) (string, error) {
	if len(password) > MaxPasswordBytes {
		return "", ErrPasswordTooLong
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), BcryptCost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(h), nil
}

// bcryptDummies holds, per cost, a hash that CheckPassword compares against
// when the stored hash is missing or invalid.
var bcryptDummies sync.Map // int -> []byte

// bcryptDummy returns a valid bcrypt hash at BcryptCost, made once per cost.
func bcryptDummy() []byte {
	cost := BcryptCost
	if h, ok := bcryptDummies.Load(cost); ok {
		return h.([]byte)
	}
	h, err := bcrypt.GenerateFromPassword([]byte("no user has this password"), cost)
	if err != nil {
		// Only an out-of-range cost gets here; fall back to a valid one so
		// that the comparison still takes time.
		h, _ = bcrypt.GenerateFromPassword([]byte("no user has this password"), bcrypt.DefaultCost)
	}
	actual, _ := bcryptDummies.LoadOrStore(cost, h)
	return actual.([]byte)
}

// CheckPassword reports whether password matches the bcrypt hash, in constant
// time with respect to the password. An empty or invalid hash (an unknown
// user) returns false after a bcrypt comparison at BcryptCost, so that unknown
// users cannot be told apart from wrong passwords by timing. Passwords over
// MaxPasswordBytes never match.
func CheckPassword(hash, password string) bool {
	if _, err := bcrypt.Cost([]byte(hash)); err != nil {
		_ = bcrypt.CompareHashAndPassword(bcryptDummy(), []byte(password))
		return false
	}
	ok := bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
	return ok && len(password) <= MaxPasswordBytes
}
