package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/ordering"
)

// ledgerArgs returns the values of o's ordering_ledger row (paid_at,
// method, items_total, shipping), paid_at NULL when o is not in the ledger.
func ledgerArgs(o ordering.Order) (paidAt *time.Time, method string, itemsTotal, shipping int64) {
	e, ok := o.LedgerEntry()
	if !ok {
		return nil, "", 0, 0
	}
	return &e.PaidAt, e.Method, e.ItemsTotal, e.Shipping
}

// putLedgerSQL keeps the ledger row of order $1: upserted when $2 (paid_at)
// is set, deleted when it is NULL (not paid, or refunded).
const putLedgerSQL = `
WITH d AS (
	DELETE FROM ordering_ledger WHERE order_id = $1 AND $2::timestamptz IS NULL
)
INSERT INTO ordering_ledger (order_id, paid_at, order_number, method, items_total, shipping, total, status)
SELECT $1, $2, $3, $4, $5, $6, $7, $8 WHERE $2::timestamptz IS NOT NULL
ON CONFLICT (order_id) DO UPDATE SET paid_at = excluded.paid_at, method = excluded.method,
	items_total = excluded.items_total, shipping = excluded.shipping, total = excluded.total, status = excluded.status`

// LedgerEntries returns the ledger rows of the orders paid in [from, to),
// by paid time, then order id.
func (s *Store) LedgerEntries(ctx context.Context, from, to time.Time) ([]ordering.LedgerEntry, error) {
	rows, err := s.pool.Query(ctx, `SELECT paid_at, order_number, method, items_total, shipping, total, status
		FROM ordering_ledger WHERE paid_at >= $1 AND paid_at < $2 ORDER BY paid_at, order_id`, from, to)
	if err != nil {
		return nil, ordErr("ledger entries", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ordering.LedgerEntry, error) {
		var e ordering.LedgerEntry
		err := row.Scan(&e.PaidAt, &e.OrderNumber, &e.Method, &e.ItemsTotal, &e.Shipping, &e.Total, &e.Status)
		e.PaidAt = e.PaidAt.UTC()
		return e, err
	})
	if err != nil {
		return nil, ordErr("ledger entries", err)
	}
	return out, nil
}
