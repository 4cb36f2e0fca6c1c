package postgres

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
)

var tQRs = ownedTable[links.QRCode]{
	name: "links_qrcodes", what: "QR code",
	cols: `id, user_id, name, type, data, background, foreground, logo, COALESCE(link_id, 0), scans, created_at, updated_at`,
	scan: func(row pgx.Row) (links.QRCode, error) {
		var q links.QRCode
		var data []byte
		err := row.Scan(&q.ID, &q.UserID, &q.Name, &q.Type, &data, &q.Background, &q.Foreground, &q.Logo,
			&q.LinkID, &q.Scans, &q.CreatedAt, &q.UpdatedAt)
		if len(data) > 0 {
			q.Data = json.RawMessage(data)
		}
		return q, err
	},
}

// qrData returns the bytes stored for data (never NULL).
func qrData(data json.RawMessage) []byte {
	if data == nil {
		return []byte{}
	}
	return data
}

// CreateQR stores q; links.ErrNotFound when q.LinkID is set and is not one of
// the owner's links.
func (s *Store) CreateQR(ctx context.Context, q links.QRCode) (links.QRCode, error) {
	var out links.QRCode
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if q.LinkID != 0 {
			if err := mustOwn(ctx, tx, "links_links", "link", q.UserID, q.LinkID); err != nil {
				return err
			}
		}
		var err error
		out, err = tQRs.scan(tx.QueryRow(ctx, `INSERT INTO links_qrcodes
			(user_id, name, type, data, background, foreground, logo, link_id, scans, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING `+tQRs.cols,
			q.UserID, q.Name, q.Type, qrData(q.Data), q.Background, q.Foreground, q.Logo, nullID(q.LinkID),
			q.Scans, q.CreatedAt, q.UpdatedAt))
		return ownerErr(err, q.UserID)
	})
	if err != nil {
		return links.QRCode{}, linkErr("create QR code", err)
	}
	return out, nil
}

// GetQR returns the owner's QR code.
func (s *Store) GetQR(ctx context.Context, owner, id int64) (links.QRCode, error) {
	q, err := tQRs.get(ctx, s.pool, owner, id, false)
	if err != nil {
		return links.QRCode{}, linkErr("get QR code", err)
	}
	return q, nil
}

// GetQRByID returns the QR code with the id, whoever owns it.
func (s *Store) GetQRByID(ctx context.Context, id int64) (links.QRCode, error) {
	q, err := tQRs.getAny(ctx, s.pool, id)
	if err != nil {
		return links.QRCode{}, linkErr("get QR code", err)
	}
	return q, nil
}

// ListQRs returns one page of the owner's QR codes, newest first.
func (s *Store) ListQRs(ctx context.Context, owner int64, p links.Page) (links.List[links.QRCode], error) {
	return tQRs.list(ctx, s, owner, p)
}

// UpdateQR applies fn to the owner's QR code; a new LinkID must be one of the
// owner's links.
func (s *Store) UpdateQR(ctx context.Context, owner, id int64, fn func(*links.QRCode) error) (links.QRCode, error) {
	var q links.QRCode
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		old, err := tQRs.get(ctx, tx, owner, id, true)
		if err != nil {
			return err
		}
		q = old
		if err := fn(&q); err != nil {
			return err
		}
		if q.LinkID != old.LinkID && q.LinkID != 0 {
			if err := mustOwn(ctx, tx, "links_links", "link", owner, q.LinkID); err != nil {
				return err
			}
		}
		q, err = tQRs.scan(tx.QueryRow(ctx, `UPDATE links_qrcodes SET name = $2, type = $3, data = $4,
			background = $5, foreground = $6, logo = $7, link_id = $8, scans = $9, updated_at = $10
			WHERE id = $1 RETURNING `+tQRs.cols,
			id, q.Name, q.Type, qrData(q.Data), q.Background, q.Foreground, q.Logo, nullID(q.LinkID), q.Scans, q.UpdatedAt))
		return err
	})
	if err != nil {
		return links.QRCode{}, linkErr("update QR code", err)
	}
	return q, nil
}

// DeleteQR removes the owner's QR code and its visits; its channel
// assignments go with it (ON DELETE CASCADE).
func (s *Store) DeleteQR(ctx context.Context, owner, id int64) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := tQRs.remove(ctx, tx, owner, id); err != nil {
			return err
		}
		return deleteVisits(ctx, tx, visits.KindQR, id)
	})
	if err != nil {
		return linkErr("delete QR code", err)
	}
	return nil
}
