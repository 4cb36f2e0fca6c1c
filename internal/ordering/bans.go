package ordering

import (
	"time"
)

// BanKind says what a ban record counts: a messenger number or a client
// address.
type BanKind string

// The kinds of ban records.
const (
	BanNumber  BanKind = "number"
	BanAddress BanKind = "address"
)

// BanKey names one ban record.
type BanKey struct {
	Kind  BanKind `json:"kind"`
	Value string  `json:"value"`
}

// Ban is the login-attempt record of a number or an address: the spec's
// login ban record, kept for addresses too.
type Ban struct {
	ID string `json:"id"`
	BanKey
	// Attempts is the number of logins since the last verified one (within
	// AttemptWindow of each other).
	Attempts int `json:"attempts"`
	// Level is 0 (none), 1 (one hour), 2 (a day) or 3 (permanent, listed
	// for review).
	Level int `json:"banLevel"`
	// BanUntil is when a level 1 or 2 ban ends; nil for none and level 3.
	BanUntil      *time.Time `json:"banUntil"`
	LastAttemptAt time.Time  `json:"lastAttemptAt"`
	CreatedAt     time.Time  `json:"createdAt"`
}

// The ban ladder (docs/api/ordering.md, "Bans").
const (
	// MaxUnverified is the number of consecutive unverified logins of a
	// number after which the next one is refused and the number banned.
	MaxUnverified = 3
	// MaxUnverifiedAddress is the same for a client address. An address is
	// often shared by many customers (a carrier's NAT, an office, a campus
	// Wi-Fi): it bans after more unverified logins, and never permanently
	// (level 2 at most), so that strangers behind one address cannot lock
	// out everyone else there for good.
	MaxUnverifiedAddress = 20
	// AttemptWindow: a login more than this after the previous one starts
	// the count of consecutive unverified logins afresh.
	AttemptWindow = time.Hour
	// LevelMemory: a subject with no login attempt for this long starts
	// again at level 0.
	LevelMemory = 30 * 24 * time.Hour
	// Level1Ban and Level2Ban are how long the bans of levels 1 and 2 last.
	Level1Ban = time.Hour
	Level2Ban = 24 * time.Hour
)

// Active reports whether b refuses logins at now.
func (b *Ban) Active(now time.Time) bool {
	return b.Level >= 3 || b.BanUntil != nil && now.Before(*b.BanUntil)
}

// RetryAfter is how long until b stops refusing logins: 0 when it does not,
// and -1 for a permanent ban.
func (b *Ban) RetryAfter(now time.Time) time.Duration {
	switch {
	case b.Level >= 3:
		return -1
	case b.BanUntil != nil && now.Before(*b.BanUntil):
		return b.BanUntil.Sub(now)
	}
	return 0
}

// attempt applies a login attempt at now to b and reports whether the
// login may go ahead:
//
//   - during an active ban the attempt is refused and raises the level: a
//     level 1 ban becomes level 2 (a day from now), a level 2 ban level 3
//     (permanent, for review);
//   - otherwise, after MaxUnverified consecutive unverified logins
//     (MaxUnverifiedAddress for an address), the attempt is refused and the
//     subject goes one level up (level 1 the first time, then 2, then 3; an
//     address stops at 2), the count starting again;
//   - otherwise the attempt counts and goes ahead.
//
// The count restarts after AttemptWindow without an attempt, and the level
// after LevelMemory.
func (b *Ban) attempt(now time.Time) bool {
	limit := MaxUnverified
	if b.Kind == BanAddress {
		limit = MaxUnverifiedAddress
	}
	if b.Level >= 3 {
		b.LastAttemptAt = now
		return false
	}
	if b.Active(now) {
		b.raise(now)
		b.LastAttemptAt = now
		return false
	}
	if now.Sub(b.LastAttemptAt) > LevelMemory {
		b.Level = 0
	}
	if now.Sub(b.LastAttemptAt) > AttemptWindow {
		b.Attempts = 0
	}
	b.LastAttemptAt = now
	if b.Attempts >= limit {
		b.Attempts = 0
		b.raise(now)
		return false
	}
	b.Attempts++
	return true
}

// raise moves b one level up from now: at most 3 for a number, 2 for an
// address.
func (b *Ban) raise(now time.Time) {
	top := 3
	if b.Kind == BanAddress {
		top = 2
	}
	b.Level = min(b.Level+1, top)
	switch b.Level {
	case 1:
		until := now.Add(Level1Ban)
		b.BanUntil = &until
	case 2:
		until := now.Add(Level2Ban)
		b.BanUntil = &until
	default:
		b.BanUntil = nil
	}
}

// verified records a verified login: the count of unverified ones restarts.
func (b *Ban) verified() { b.Attempts = 0 }

// proven records that the number sent a message to the shop, which proves
// it is the sender's: its level 1 and 2 bans end and its count restarts, so
// that a stranger who knows a customer's number cannot lock the customer
// out. A level 3 ban stays for the owner to review.
func (b *Ban) proven() {
	b.Attempts = 0
	if b.Level < 3 {
		b.Level, b.BanUntil = 0, nil
	}
}

// lift ends any ban of b, level 3 included (an owner's decision).
func (b *Ban) lift() { b.Attempts, b.Level, b.BanUntil = 0, 0, nil }
