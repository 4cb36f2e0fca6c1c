package password

import (
	"errors"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/seedhq/portal/internal/apperr"
)

// lowCost lowers Cost for the duration of a test.
func lowCost(t *testing.T) {
	t.Helper()
	old := Cost
	Cost = bcrypt.MinCost
	t.Cleanup(func() { Cost = old })
}

func TestHashAndCheck(t *testing.T) {
	if Cost != 12 {
		t.Fatalf("default Cost = %d, want 12", Cost)
	}
	lowCost(t)
	h, err := Hash("correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if c, err := bcrypt.Cost([]byte(h)); err != nil || c != bcrypt.MinCost {
		t.Fatalf("cost = %d, %v", c, err)
	}
	h2, _ := Hash("correct horse")
	if h == h2 {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	if !Check(h, "correct horse") || !Check(h2, "correct horse") {
		t.Fatal("right password rejected")
	}
	for _, wrong := range []string{"", "correct horsE", "correct horse ", "correct"} {
		if Check(h, wrong) {
			t.Errorf("wrong password %q accepted", wrong)
		}
	}
	for _, bad := range []string{"", "x", "$2a$04$short", h[:len(h)-1], strings.Replace(h, "$04$", "$99$", 1)} {
		if Check(bad, "correct horse") {
			t.Errorf("invalid hash %q accepted", bad)
		}
	}

	long := strings.Repeat("a", MaxBytes)
	hl, err := Hash(long)
	if err != nil {
		t.Fatal(err)
	}
	if !Check(hl, long) || Check(hl, long+"b") {
		t.Fatal("72-byte password: bcrypt truncation leaked through")
	}
	_, err = Hash(long + "b")
	if e := apperr.From(err); !errors.Is(err, ErrTooLong) || e == nil || e.Kind != apperr.Invalid || e.Code != "VALIDATION_FAILED" {
		t.Fatalf("73-byte password: err = %v, want a VALIDATION_FAILED invalid-input error", err)
	}
}

// TestCheckTimingOfUnknownUsers: an empty hash costs a bcrypt
// comparison at Cost, like a real one.
func TestCheckTimingOfUnknownUsers(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	old := Cost
	Cost = 8
	t.Cleanup(func() { Cost = old })
	h, err := Hash("secret")
	if err != nil {
		t.Fatal(err)
	}
	Check("", "warm up the dummy hash")
	timeIt := func(hash string) time.Duration {
		best := time.Duration(1 << 62)
		for range 3 {
			start := time.Now()
			Check(hash, "guess")
			best = min(best, time.Since(start))
		}
		return best
	}
	real, unknown := timeIt(h), timeIt("")
	if unknown < real/3 {
		t.Fatalf("unknown user took %v, a real hash %v", unknown, real)
	}
}
