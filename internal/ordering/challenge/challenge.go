// Package challenge is the anti-bot check of the ordering service's
// messenger login: POST /api/auth/login carries a challengeToken, and the
// login handler hands it to a Verifier before it issues a login token.
//
// # Proof of work by default
//
// The built-in Verifier, PoW, is a self-hosted proof of work shaped as
// ALTCHA's (v1, SHA-256) challenges are, so that ALTCHA's browser widget
// should solve it too (not yet tried against the widget). It needs no third-party account, no secret from anyone but the
// portal itself and no network access, so it works on a fresh `make run`
// and in tests. The server picks a random number n in [0, maxnumber], sends
// the client sha256(salt + n) and an HMAC of it, and the client finds n by
// brute force. A human pays this once per login and does not notice it; a
// bot that tries thousands of numbers per minute pays it thousands of times.
// It does not stop a determined attacker with hardware to spare: it raises
// the price of each attempt, and the login bans of the ordering service do
// the rest. Cloudflare Turnstile and hCaptcha are offered as remote
// verifiers (NewSiteVerify) for deployments that want a managed check.
//
// # Difficulty
//
// The difficulty is maxnumber: the client tries on average maxnumber/2
// hashes, at most maxnumber+1. DefaultMaxNumber is 50,000. ALTCHA's
// published benchmark of its widget (altcha.org/docs/complexity) solves
// 100,000 in 0.83 s on an iPhone 12 mini and 2.5 s on a Samsung Galaxy A14,
// so 50,000 takes on average about 0.2 s on the former and 0.6 s on the
// latter, and at worst twice that. Solve, this package's Go solver, took on
// average 2.5 to 3.6 ms for 50,000 on the development machine (one core of
// an AMD EPYC with SHA extensions: 100 to 150 ns a hash; BenchmarkSolve,
// -cpu 1), and up to 9 ms while other jobs loaded it; a bot in native code
// pays that per attempt. Verify takes about 3 µs (BenchmarkVerify).
//
// # Expiry and single use
//
// A challenge carries its expiry in its salt (salt "<random>?expires=<unix>&",
// as ALTCHA does; the trailing "&" keeps digits of the number from being
// read as part of the expiry) and is refused after DefaultExpiry, 5 minutes,
// unless WithExpiry says otherwise. A solved challenge is accepted once: PoW
// records it in a SpentStore until it expires, and a second use fails with
// ErrFailed. The default store is in memory (NewMemorySpent), which is right
// for one portal instance; several instances must share a store
// (WithSpentStore), backed by bbolt or PostgreSQL.
package challenge

import (
	"context"

	"github.com/seedhq/portal/internal/apperr"
)

// Verifier checks the challenge token a client sent with its login. It is
// the one interface the login handler consumes: PoW and SiteVerify
// implement it.
type Verifier interface {
	// Verify returns nil when token proves that the client solved a
	// challenge, an error that errors.Is ErrMissing, ErrFailed or
	// ErrUnavailable when it does not or cannot be checked, and any other
	// error for an internal failure (a SpentStore that cannot be written).
	// remoteIP is the client's address, passed on to remote verifiers.
	Verify(ctx context.Context, token, remoteIP string) error
}

// The errors of Verify. Each is an *apperr.Error, so the HTTP edge maps it
// to a status (400, 403, 503) and a stable code without knowing this
// package; Verify wraps them with the detail, which is for the logs.
var (
	// ErrMissing is returned for an empty token.
	ErrMissing = apperr.New(apperr.Invalid, "CHALLENGE_REQUIRED", "challengeToken is required: solve the anti-bot challenge first")
	// ErrFailed is returned for a token that is invalid, wrong, expired or
	// already used.
	ErrFailed = apperr.New(apperr.Forbidden, "CHALLENGE_FAILED", "the anti-bot challenge was not solved, has expired or was already used: solve a new one")
	// ErrUnavailable is returned when a remote verifier could not be
	// reached or could not check the token; the caller answers 503.
	ErrUnavailable = apperr.New(apperr.Unavailable, "CHALLENGE_UNAVAILABLE", "the anti-bot check is unavailable: try again shortly")
)
