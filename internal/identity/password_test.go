package identity

import (
	"errors"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// lowBcryptCost lowers BcryptCost for the duration of a test.
func lowBcryptCost(t *testing.T) {
	t.Helper()
	old := BcryptCost
	BcryptCost = bcrypt.MinCost
	t.Cleanup(func() { BcryptCost = old })
}

func TestPasswordHashAndCheck(t *testing.T) {
	if BcryptCost != 12 {
		t.Fatalf("default BcryptCost = %d, want 12", BcryptCost)
	}
	lowBcryptCost(t)
	h, err := HashPassword("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if c, err := bcrypt.Cost([]byte(h)); err != nil || c != bcrypt.MinCost {
		t.Fatalf("cost = %d, %v", c, err)
	}
	h2, _ := HashPassword("correct horse")
	if h == h2 {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	if !CheckPassword(h, "correct horse") || !CheckPassword(h2, "correct horse") {
		t.Fatal("right password rejected")
	}
	for _, wrong := range []string{"", "correct horsE", "correct horse ", "correct"} {
		if CheckPassword(h, wrong) {
			t.Errorf("wrong password %q accepted", wrong)
		}
	}
	for _, bad := range []string{"", "x", "$2a$04$short", h[:len(h)-1], strings.Replace(h, "$04$", "$99$", 1)} {
		if CheckPassword(bad, "correct horse") {
			t.Errorf("invalid hash %q accepted", bad)
		}
	}

	long := strings.Repeat("a", MaxPasswordBytes)
	hl, err := HashPassword(long)
	if err != nil {
		t.Fatal(err)
	}
	if !CheckPassword(hl, long) || CheckPassword(hl, long+"b") {
		t.Fatal("72-byte password: bcrypt truncation leaked through")
	}
	if _, err := HashPassword(long + "b"); !errors.Is(err, ErrPasswordTooLong) {
		t.Fatalf("73-byte password: err = %v", err)
	}
}

// TestCheckPasswordTimingOfUnknownUsers: an empty hash costs a bcrypt
// comparison at BcryptCost, like a real one.
func TestCheckPasswordTimingOfUnknownUsers(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	old := BcryptCost
	BcryptCost = 8
	t.Cleanup(func() { BcryptCost = old })
	h, err := HashPassword("secret")
	if err != nil {
		t.Fatal(err)
	}
	CheckPassword("", "warm up the dummy hash")
	timeIt := func(hash string) time.Duration {
		best := time.Duration(1 << 62)
		for range 3 {
			start := time.Now()
			CheckPassword(hash, "guess")
			best = min(best, time.Since(start))
		}
		return best
	}
	real, unknown := timeIt(h), timeIt("")
	if unknown < real/3 {
		t.Fatalf("unknown user took %v, a real hash %v", unknown, real)
	}
}
