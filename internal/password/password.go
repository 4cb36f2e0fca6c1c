// Package password hashes and checks the passwords people type: operator
// accounts, link-management accounts and password-protected short links. One
// mechanism for all of them: bcrypt at Cost, passwords up to MaxBytes, and a
// check that takes a bcrypt comparison's time whether or not the stored hash
// exists.
package password

import (
	"fmt"
	"sync"

	"golang.org/x/crypto/bcrypt"

	"github.com/seedhq/portal/internal/apperr"
)

// Cost is the bcrypt cost of Hash. It is a variable only so that tests can
// lower it; production code leaves it at 12.
var Cost = 12

// MaxBytes is the longest password bcrypt can hash: it ignores every byte
// after the 72nd, so longer passwords are refused rather than cut.
const MaxBytes = 72

// ErrTooLong is returned by Hash for a password over MaxBytes bytes.
var ErrTooLong = apperr.New(apperr.Invalid, "VALIDATION_FAILED", "password must be at most 72 bytes")

// Hash returns a bcrypt hash of password at Cost.
func Hash(password string) (string, error) {
	if len(password) > MaxBytes {
		return "", ErrTooLong
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), Cost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(h), nil
}

// dummies holds, per cost, the hash Check compares against when the stored
// hash is missing or invalid.
var dummies sync.Map // int -> []byte

// dummy returns a valid bcrypt hash at Cost, made once per cost.
func dummy() []byte {
	cost := Cost
	if h, ok := dummies.Load(cost); ok {
		return h.([]byte)
	}
	h, err := bcrypt.GenerateFromPassword([]byte("no account has this password"), cost)
	if err != nil {
		// Only an out-of-range cost gets here; fall back to a valid one so
		// that the comparison still takes time.
		h, _ = bcrypt.GenerateFromPassword([]byte("no account has this password"), bcrypt.DefaultCost)
	}
	actual, _ := dummies.LoadOrStore(cost, h)
	return actual.([]byte)
}

// Check reports whether password matches the bcrypt hash. An empty or invalid
// hash (an unknown account, a link without a password) returns false after a
// bcrypt comparison at Cost, so that timing does not tell it apart from a
// wrong password. Passwords over MaxBytes never match.
func Check(hash, password string) bool {
	if _, err := bcrypt.Cost([]byte(hash)); err != nil {
		_ = bcrypt.CompareHashAndPassword(dummy(), []byte(password))
		return false
	}
	ok := bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
	return ok && len(password) <= MaxBytes
}
