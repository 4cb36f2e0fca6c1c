package bolt

import (
	"context"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/idempotency"
)

var _ idempotency.Store = (*Store)(nil)

// getReceipt reads id's receipt; ok is false when there is none.
func getReceipt(b *bbolt.Bucket, id string) (idempotency.Receipt, bool, error) {
	var r idempotency.Receipt
	ok, err := getJSON(b, []byte(id), &r)
	return r, ok, err
}

func putReceipt(b *bbolt.Bucket, id string, r idempotency.Receipt) error {
	r.LeaseUntil, r.ExpiresAt = r.LeaseUntil.UTC(), r.ExpiresAt.UTC()
	return putJSON(b, []byte(id), r)
}

// ClaimIdempotencyKey claims id (see idempotency.Store).
func (s *Store) ClaimIdempotencyKey(ctx context.Context, id string, claim idempotency.Receipt, now time.Time) (idempotency.Receipt, bool, error) {
	var (
		kept    idempotency.Receipt
		claimed bool
	)
	err := s.update(ctx, "claim idempotency key", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketIdempotency)
		r, ok, err := getReceipt(b, id)
		if err != nil {
			return err
		}
		if ok && now.Before(r.ExpiresAt) && (r.Done || now.Before(r.LeaseUntil)) {
			kept, claimed = r, false
			return nil
		}
		claim.Done, claim.Fingerprint, claim.Status, claim.ContentType, claim.Location, claim.Body = false, nil, 0, "", "", nil
		kept, claimed = idempotency.Receipt{}, true
		return putReceipt(b, id, claim)
	})
	if err != nil {
		return idempotency.Receipt{}, false, err
	}
	return kept, claimed, nil
}

// FinishIdempotencyKey keeps the answer of id's claim (see idempotency.Store).
func (s *Store) FinishIdempotencyKey(ctx context.Context, id string, answer idempotency.Receipt) error {
	return s.update(ctx, "finish idempotency key", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketIdempotency)
		r, ok, err := getReceipt(b, id)
		if err != nil || !ok || r.Done || r.Token != answer.Token {
			return err
		}
		answer.Done, answer.LeaseUntil = true, r.LeaseUntil
		return putReceipt(b, id, answer)
	})
}

// ReleaseIdempotencyKey forgets id's unfinished claim (see idempotency.Store).
func (s *Store) ReleaseIdempotencyKey(ctx context.Context, id, token string) error {
	return s.update(ctx, "release idempotency key", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketIdempotency)
		r, ok, err := getReceipt(b, id)
		if err != nil || !ok || r.Done || r.Token != token {
			return err
		}
		return b.Delete([]byte(id))
	})
}

// PruneIdempotencyKeys removes the expired receipts (see idempotency.Store).
func (s *Store) PruneIdempotencyKeys(ctx context.Context, now time.Time) (int, error) {
	n := 0
	err := s.update(ctx, "prune idempotency keys", func(tx *bbolt.Tx) error {
		var err error
		n, err = deleteWhere(tx.Bucket(bucketIdempotency), func(k, v []byte) bool {
			var r idempotency.Receipt
			return decodeJSON(k, v, &r) != nil || !now.Before(r.ExpiresAt)
		})
		return err
	})
	return n, err
}
