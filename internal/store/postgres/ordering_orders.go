package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/ordering"
)

// This file holds the orders of ordering.Store: the tables of
// migrations/0006_ordering_orders.sql (the menu and the settings are in
// ordering_menu.go and ordering_settings.go, the ledger, of
// migrations/0009_ordering_ledger.sql, in ordering_ledger.go).

// OrderInputs returns the settings and the menu items with the ids given,
// both statements sent in one round trip.
func (s *Store) OrderInputs(ctx context.Context, itemIDs []string) (ordering.Settings, bool, []ordering.MenuItem, error) {
	var st ordering.Settings
	ok := false
	var items []ordering.MenuItem
	b := &pgx.Batch{}
	b.Queue(`SELECT settings FROM ordering_settings`).QueryRow(func(row pgx.Row) error {
		err := row.Scan(&st)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		ok = err == nil
		return err
	})
	b.Queue(`SELECT id, category_id, name, description, price, available, image_url, position, created_at, updated_at
		FROM ordering_menu_items WHERE id = ANY($1)`, itemIDs).Query(func(rows pgx.Rows) error {
		var err error
		items, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (ordering.MenuItem, error) {
			var m ordering.MenuItem
			err := row.Scan(&m.ID, &m.CategoryID, &m.Name, &m.Description, &m.Price, &m.Available, &m.ImageURL,
				&m.Position, &m.CreatedAt, &m.UpdatedAt)
			m.CreatedAt, m.UpdatedAt = m.CreatedAt.UTC(), m.UpdatedAt.UTC()
			return m, err
		})
		return err
	})
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return st, false, nil, ordErr("order inputs", err)
	}
	return st, ok, items, nil
}

// orderUTC returns o with its times in UTC.
func orderUTC(o ordering.Order) ordering.Order {
	o.CreatedAt, o.UpdatedAt, o.ExpiresAt = o.CreatedAt.UTC().Truncate(time.Microsecond), o.UpdatedAt.UTC().Truncate(time.Microsecond), utcPtr(o.ExpiresAt)
	if o.ExpiresAt != nil {
		t := o.ExpiresAt.Truncate(time.Microsecond)
		o.ExpiresAt = &t
	}
	for i := range o.History {
		o.History[i].At = o.History[i].At.UTC().Truncate(time.Microsecond)
	}
	return o
}

// invoiceArg is o's invoice id as a column value (NULL when none).
func invoiceArg(o ordering.Order) *string {
	if o.InvoiceID == "" {
		return nil
	}
	return &o.InvoiceID
}

// writeOrder updates o's row and its ledger row, in one round trip.
func writeOrder(ctx context.Context, tx pgx.Tx, o ordering.Order) error {
	body, err := json.Marshal(o)
	if err != nil {
		return fmt.Errorf("encode order: %w", err)
	}
	paidAt, method, itemsTotal, shipping := ledgerArgs(o)
	b := &pgx.Batch{}
	b.Queue(`UPDATE ordering_orders SET status = $2, invoice_id = $3, total_price = $4, updated_at = $5,
		expires_at = $6, body = $7 WHERE id = $1`, o.ID, o.Status, invoiceArg(o), o.TotalPrice, o.UpdatedAt, o.ExpiresAt, body)
	b.Queue(putLedgerSQL, o.ID, paidAt, o.OrderNumber, method, itemsTotal, shipping, o.TotalPrice, o.Status)
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("save order: %w", err)
	}
	return nil
}

// createOrderSQL takes the day's next number, inserts the order numbered
// with it (into its row and its JSON body), its ledger row when $20 (the
// paid time) is set and, when $16 is set, its message with the number in
// its text, in one statement: one round trip, one transaction. The number
// is formatted as ordering.Numbering.Number does: at least three digits.
const createOrderSQL = `
WITH c AS (
	INSERT INTO ordering_order_counters AS c (counter, n) VALUES ($1, 1)
	ON CONFLICT (counter) DO UPDATE SET n = c.n + 1 RETURNING n
), num AS (
	SELECT $2 || '-' || $3 || '-' || CASE WHEN n < 1000 THEN lpad(n::text, 3, '0') ELSE n::text END AS number FROM c
), o AS (
	INSERT INTO ordering_orders (id, order_number, user_id, status, invoice_id, total_price, created_at, updated_at,
		expires_at, body)
	SELECT $4, num.number, $5, $6, $7, $8, $9, $10, $11, jsonb_set($12::jsonb, '{orderNumber}', to_jsonb(num.number))
	FROM num RETURNING order_number
), l AS (
	INSERT INTO ordering_ledger (order_id, paid_at, order_number, method, items_total, shipping, total, status)
	SELECT $4, $20, o.order_number, $21, $22, $23, $8, $6 FROM o WHERE $20::timestamptz IS NOT NULL
), m AS (
	INSERT INTO ordering_messages (id, channel, to_number, text, order_id, status, reason, attempts, created_at, not_before)
	SELECT $13, $14, $15, replace($16, $17, o.order_number), $4, $18, '', 0, $19, $19 FROM o WHERE $16 <> ''
)
SELECT order_number FROM o`

// CreateOrder stores o with the next number of its day and its message,
// in one statement.
func (s *Store) CreateOrder(ctx context.Context, o ordering.Order, n ordering.Numbering, message *ordering.OutboundMessage) (ordering.Order, error) {
	o = orderUTC(o)
	body, err := json.Marshal(o)
	if err != nil {
		return ordering.Order{}, ordErr("create order", fmt.Errorf("encode order: %w", err))
	}
	var m ordering.OutboundMessage
	if message != nil {
		m = *message
	}
	paidAt, method, itemsTotal, shipping := ledgerArgs(o)
	if err := s.pool.QueryRow(ctx, createOrderSQL, n.Counter(), n.Prefix, n.Day, o.ID, o.UserID, o.Status, invoiceArg(o),
		o.TotalPrice, o.CreatedAt, o.UpdatedAt, o.ExpiresAt, body, m.ID, m.Channel, m.To, m.Text, ordering.OrderNumberMark,
		m.Status, m.CreatedAt, paidAt, method, itemsTotal, shipping).Scan(&o.OrderNumber); err != nil {
		return ordering.Order{}, ordErr("create order", err)
	}
	return o, nil
}

func scanOrder(row pgx.Row) (ordering.Order, error) {
	var o ordering.Order
	var body []byte
	if err := row.Scan(&body); errors.Is(err, pgx.ErrNoRows) {
		return o, ordering.ErrOrderNotFound
	} else if err != nil {
		return o, err
	}
	if err := json.Unmarshal(body, &o); err != nil {
		return o, fmt.Errorf("decode order: %w", err)
	}
	return orderUTC(o), nil
}

// GetOrder returns an order.
func (s *Store) GetOrder(ctx context.Context, id string) (ordering.Order, error) {
	o, err := scanOrder(s.pool.QueryRow(ctx, `SELECT body FROM ordering_orders WHERE id = $1`, id))
	if err != nil {
		return o, ordErr("get order", err)
	}
	return o, nil
}

// GetOrderByInvoice returns the order of a provider invoice.
func (s *Store) GetOrderByInvoice(ctx context.Context, invoiceID string) (ordering.Order, error) {
	o, err := scanOrder(s.pool.QueryRow(ctx, `SELECT body FROM ordering_orders WHERE invoice_id = $1`, invoiceID))
	if err != nil {
		return o, ordErr("get order by invoice", err)
	}
	return o, nil
}

// ListOrders returns the orders q selects, by creation time.
func (s *Store) ListOrders(ctx context.Context, q ordering.OrderQuery) ([]ordering.Order, error) {
	dir := "ASC"
	if q.NewestFirst {
		dir = "DESC"
	}
	limit := any(nil)
	if q.Limit > 0 {
		limit = q.Limit
	}
	statuses := make([]string, len(q.Statuses))
	for i, st := range q.Statuses {
		statuses[i] = string(st)
	}
	rows, err := s.pool.Query(ctx, `SELECT body FROM ordering_orders
		WHERE ($1 = '' OR user_id = $1) AND (cardinality($2::text[]) = 0 OR status = ANY($2))
		ORDER BY created_at `+dir+`, id `+dir+` LIMIT $3`, q.UserID, statuses, limit)
	if err != nil {
		return nil, ordErr("list orders", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ordering.Order, error) { return scanOrder(row) })
	if err != nil {
		return nil, ordErr("list orders", err)
	}
	return out, nil
}

// UpdateOrder loads an order (locked), calls fn and saves it.
func (s *Store) UpdateOrder(ctx context.Context, id string, fn func(*ordering.Order) error) (ordering.Order, error) {
	var o ordering.Order
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		if o, err = scanOrder(tx.QueryRow(ctx, `SELECT body FROM ordering_orders WHERE id = $1 FOR UPDATE`, id)); err != nil {
			return err
		}
		before := o
		if err := fn(&o); err != nil {
			return err
		}
		if o.ID != before.ID || o.UserID != before.UserID || o.OrderNumber != before.OrderNumber {
			return errors.New("an order's id, user and number do not change")
		}
		o = orderUTC(o)
		return writeOrder(ctx, tx, o)
	})
	if err != nil {
		return o, ordErr("update order", err)
	}
	return o, nil
}
