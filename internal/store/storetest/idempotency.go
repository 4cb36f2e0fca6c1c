package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/idempotency"
)

// claimFor returns a claim made at now with token, a lease of a minute and
// a day to live.
func claimFor(token string, now time.Time) idempotency.Receipt {
	return idempotency.Receipt{Token: token, LeaseUntil: now.Add(time.Minute), ExpiresAt: now.Add(24 * time.Hour)}
}

func testIdempotencyKeys(t *testing.T, s Store) {
	ctx := t.Context()
	claim := func(id, token string, now time.Time) (idempotency.Receipt, bool) {
		t.Helper()
		r, ok, err := s.ClaimIdempotencyKey(ctx, id, claimFor(token, now), now)
		mustOK(t, "ClaimIdempotencyKey "+id, err)
		return r, ok
	}

	if r, ok := claim("a", "t1", at(0)); !ok || r.Token != "" {
		t.Fatalf("first claim of a: claimed %v, receipt %+v; want claimed and no receipt", ok, r)
	}
	// While the claim holds, a second claim gets the unfinished claim.
	r, ok := claim("a", "t2", at(time.Second))
	if ok {
		t.Fatal("a second claim within the lease was granted")
	}
	check(t, "the unfinished claim", r, idempotency.Receipt{Token: "t1", LeaseUntil: at(time.Minute).UTC(), ExpiresAt: at(24 * time.Hour).UTC()})

	// Another request's token neither finishes nor releases it.
	mustOK(t, "FinishIdempotencyKey with another token", s.FinishIdempotencyKey(ctx, "a",
		idempotency.Receipt{Token: "t2", Done: true, Status: 201, ExpiresAt: at(24 * time.Hour)}))
	mustOK(t, "ReleaseIdempotencyKey with another token", s.ReleaseIdempotencyKey(ctx, "a", "t2"))
	if r, _ := claim("a", "t3", at(2*time.Second)); r.Token != "t1" || r.Done {
		t.Fatalf("after another token's finish and release: %+v, want t1's unfinished claim", r)
	}

	// Finished, the answer is kept whole.
	answer := idempotency.Receipt{Token: "t1", Done: true, Fingerprint: []byte{1, 2, 3}, Status: 201,
		ContentType: "application/json", Location: "/api/orders/7", Body: []byte(`{"id":7}`), ExpiresAt: at(24 * time.Hour)}
	mustOK(t, "FinishIdempotencyKey", s.FinishIdempotencyKey(ctx, "a", answer))
	r, ok = claim("a", "t4", at(2*time.Minute)) // the lease ended, the answer holds
	if ok {
		t.Fatal("a finished key was claimed again before it expired")
	}
	want := answer
	want.LeaseUntil, want.ExpiresAt = at(time.Minute).UTC(), at(24*time.Hour).UTC()
	check(t, "the kept answer", r, want)
	// A finished receipt is not released, nor finished again.
	mustOK(t, "ReleaseIdempotencyKey of a finished key", s.ReleaseIdempotencyKey(ctx, "a", "t1"))
	mustOK(t, "FinishIdempotencyKey again", s.FinishIdempotencyKey(ctx, "a",
		idempotency.Receipt{Token: "t1", Done: true, Status: 200, ExpiresAt: at(24 * time.Hour)}))
	r, _ = claim("a", "t5", at(3*time.Minute))
	check(t, "the answer after a release and a second finish", r, want)

	// Expired, the key is claimed anew.
	if r, ok := claim("a", "t6", at(24*time.Hour)); !ok || r.Token != "" {
		t.Fatalf("claim of an expired key: claimed %v, receipt %+v", ok, r)
	}

	// A released claim may be claimed at once.
	claim("b", "u1", at(0))
	mustOK(t, "ReleaseIdempotencyKey", s.ReleaseIdempotencyKey(ctx, "b", "u1"))
	if _, ok := claim("b", "u2", at(time.Second)); !ok {
		t.Fatal("a released key was not claimed again")
	}
	// An unfinished claim whose lease ended is taken over; the first
	// request's late answer is then not kept.
	if _, ok := claim("b", "u3", at(time.Second+time.Minute)); !ok {
		t.Fatal("an unfinished claim whose lease ended was not taken over")
	}
	mustOK(t, "late FinishIdempotencyKey", s.FinishIdempotencyKey(ctx, "b",
		idempotency.Receipt{Token: "u2", Done: true, Status: 200, ExpiresAt: at(24 * time.Hour)}))
	if r, _ := claim("b", "u4", at(time.Minute+2*time.Second)); r.Token != "u3" || r.Done {
		t.Fatalf("after the first request's late answer: %+v, want u3's unfinished claim", r)
	}

	// Prune removes what expired, and only that.
	claim("c", "v1", at(0))
	n, err := s.PruneIdempotencyKeys(ctx, at(24*time.Hour+time.Second))
	mustOK(t, "PruneIdempotencyKeys", err)
	if n != 1 {
		t.Fatalf("PruneIdempotencyKeys removed %d receipts, want 1 (c)", n)
	}
	if r, ok := claim("a", "t7", at(24*time.Hour+2*time.Second)); ok || r.Token != "t6" {
		t.Fatalf("a after the prune: claimed %v, receipt %+v; want t6's claim kept", ok, r)
	}
}

// testIdempotencyKeysConcurrent claims one key from many goroutines at
// once: exactly one gets it.
func testIdempotencyKeysConcurrent(t *testing.T, s Store) {
	const n = 16
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		claimed int
	)
	for i := range n {
		wg.Go(func() {
			_, ok, err := s.ClaimIdempotencyKey(t.Context(), "k", claimFor(string(rune('a'+i)), at(0)), at(0))
			if err != nil {
				t.Errorf("ClaimIdempotencyKey: %v", err)
				return
			}
			if ok {
				mu.Lock()
				claimed++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if claimed != 1 {
		t.Fatalf("%d of %d concurrent claims were granted, want 1", claimed, n)
	}
}
