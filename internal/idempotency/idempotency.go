// Package idempotency makes creating calls safe to retry: a client sends an
// Idempotency-Key header with a POST that creates something, and a retry
// with the same key and the same body gets the first answer again instead
// of creating a second order, link or exam (the semantics of the IETF
// httpapi draft "The Idempotency-Key HTTP Header Field").
//
// The receipts are kept in the store, so that every portal instance sharing
// it answers a retry the same way, whichever instance the first attempt
// reached. docs/api/README.md, "Retries and Idempotency-Key", says what a
// client sees.
package idempotency

import (
	"context"
	"time"
)

// Header is the request header that carries the key.
const Header = "Idempotency-Key"

// ReplayedHeader is set to "true" on an answer that repeats the first one.
const ReplayedHeader = "Idempotent-Replayed"

// Receipt is what the store keeps of one key: a claim while its first
// request runs, then that request's answer.
type Receipt struct {
	// Token identifies the claim: only the request that made it finishes
	// or releases it.
	Token string
	// Done is set once the answer is kept.
	Done bool
	// Fingerprint is the SHA-256 of the first request's query and body, set
	// when Done.
	Fingerprint []byte
	// Status, ContentType, Location and Body are the first answer, set when
	// Done.
	Status      int
	ContentType string
	Location    string
	Body        []byte
	// LeaseUntil is when an unfinished claim may be taken over: the request
	// that made it is taken to have died (its process killed).
	LeaseUntil time.Time
	// ExpiresAt is when the receipt is forgotten and the key may be used
	// again.
	ExpiresAt time.Time
}

// Store keeps the receipts. Both stores implement it (the storage
// conformance suite checks them). id is an opaque string of at most 64
// bytes, derived from the caller, the route and the key.
type Store interface {
	// ClaimIdempotencyKey claims id for a request when no receipt is kept
	// for it, when its receipt expired at or before now, or when it is an
	// unfinished claim whose lease ended at or before now: it stores claim
	// (Done false) and reports true. Otherwise it changes nothing and
	// returns the receipt kept, and false. Claims of one id by several
	// instances at once give it to exactly one.
	ClaimIdempotencyKey(ctx context.Context, id string, claim Receipt, now time.Time) (Receipt, bool, error)
	// FinishIdempotencyKey keeps answer (Done true) as id's receipt when id
	// is still claimed with answer.Token, and does nothing otherwise (the
	// claim was taken over or released).
	FinishIdempotencyKey(ctx context.Context, id string, answer Receipt) error
	// ReleaseIdempotencyKey forgets id's unfinished claim made with token,
	// so that a retry runs the request again; it does nothing otherwise.
	ReleaseIdempotencyKey(ctx context.Context, id, token string) error
	// PruneIdempotencyKeys removes the receipts that expired at or before
	// now, and returns how many.
	PruneIdempotencyKeys(ctx context.Context, now time.Time) (int, error)
}

// PruneEvery is how often RunPrune removes expired receipts.
const PruneEvery = time.Hour

// RunPrune removes, every PruneEvery until ctx ends, the receipts that
// expired. Failures are logged by report.
func RunPrune(ctx context.Context, st Store, report func(error)) {
	t := time.NewTicker(PruneEvery)
	defer t.Stop()
	for {
		if _, err := st.PruneIdempotencyKeys(ctx, time.Now()); err != nil && ctx.Err() == nil {
			report(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
