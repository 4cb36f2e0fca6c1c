package bolt

import (
	"context"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
)

// CreateQR stores q.
func (s *Store) CreateQR(ctx context.Context, q links.QRCode) (links.QRCode, error) {
	q.CreatedAt, q.UpdatedAt = ts(q.CreatedAt), ts(q.UpdatedAt)
	err := s.update(ctx, "create QR code", func(tx *bbolt.Tx) error {
		if q.LinkID != 0 {
			if err := tLinks.mustOwn(tx, q.UserID, q.LinkID); err != nil {
				return err
			}
		}
		id, err := insert(tx, tQRs, q.UserID, func(id int64) { q.ID = id }, &q)
		if err != nil || q.LinkID == 0 {
			return err
		}
		return tx.Bucket(bucketLinkQRsByLink).Put(id8(q.LinkID, id), nil)
	})
	return q, err
}

// GetQR returns the owner's QR code.
func (s *Store) GetQR(ctx context.Context, owner, id int64) (links.QRCode, error) {
	return getOne[links.QRCode](s, ctx, tQRs, owner, id)
}

// GetQRByID returns the QR code with the id, whoever owns it.
func (s *Store) GetQRByID(ctx context.Context, id int64) (links.QRCode, error) {
	return getAnyOne[links.QRCode](s, ctx, tQRs, id)
}

// ListQRs returns one page of the owner's QR codes.
func (s *Store) ListQRs(ctx context.Context, owner int64, p links.Page) (links.List[links.QRCode], error) {
	return listOwned[links.QRCode](s, ctx, tQRs, owner, p)
}

// UpdateQR applies fn to the owner's QR code.
func (s *Store) UpdateQR(ctx context.Context, owner, id int64, fn func(*links.QRCode) error) (links.QRCode, error) {
	var q links.QRCode
	err := s.update(ctx, "update QR code", func(tx *bbolt.Tx) error {
		old, err := getOwned[links.QRCode](tx, tQRs, owner, id)
		if err != nil {
			return err
		}
		q = old
		if err := fn(&q); err != nil {
			return err
		}
		q.ID, q.UserID, q.CreatedAt, q.UpdatedAt = old.ID, old.UserID, old.CreatedAt, ts(q.UpdatedAt)
		if q.LinkID != old.LinkID {
			idx := tx.Bucket(bucketLinkQRsByLink)
			if q.LinkID != 0 {
				if err := tLinks.mustOwn(tx, owner, q.LinkID); err != nil {
					return err
				}
				if err := idx.Put(id8(q.LinkID, id), nil); err != nil {
					return err
				}
			}
			if old.LinkID != 0 {
				if err := idx.Delete(id8(old.LinkID, id)); err != nil {
					return err
				}
			}
		}
		return putOwned(tx, tQRs, id, q)
	})
	return q, err
}

// DeleteQR removes the owner's QR code, its channel assignments and its
// visits.
func (s *Store) DeleteQR(ctx context.Context, owner, id int64) error {
	return s.update(ctx, "delete QR code", func(tx *bbolt.Tx) error {
		q, err := getOwned[links.QRCode](tx, tQRs, owner, id)
		if err != nil {
			return err
		}
		if err := unassignEverywhere(tx, links.ItemQR, id); err != nil {
			return err
		}
		if q.LinkID != 0 {
			if err := tx.Bucket(bucketLinkQRsByLink).Delete(id8(q.LinkID, id)); err != nil {
				return err
			}
		}
		if err := deleteVisits(tx, visits.KindQR, id); err != nil {
			return err
		}
		return tQRs.remove(tx, owner, id)
	})
}
