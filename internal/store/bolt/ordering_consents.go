package bolt

import (
	"context"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/ordering"
)

// RecordConsent records or refreshes the consent of a number.
func (s *Store) RecordConsent(ctx context.Context, c ordering.Consent) error {
	return s.update(ctx, "record consent", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketOrdConsents)
		var old ordering.Consent
		ok, err := getJSON(b, []byte(c.Number), &old)
		if err != nil {
			return err
		}
		c.FirstAt, c.LastAt = ts(c.FirstAt), ts(c.LastAt)
		if ok {
			old.LastAt = c.LastAt
			c = old
		}
		return putJSON(b, []byte(c.Number), c)
	})
}

// GetConsent returns the consent of a number.
func (s *Store) GetConsent(ctx context.Context, number string) (ordering.Consent, bool, error) {
	var c ordering.Consent
	var ok bool
	err := s.view(ctx, "get consent", func(tx *bbolt.Tx) error {
		var err error
		ok, err = getJSON(tx.Bucket(bucketOrdConsents), []byte(number), &c)
		return err
	})
	return c, ok, err
}
