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

// This file holds the menu, settings, orders and ledger of ordering.Store:
// the tables of migrations/0006_ordering_orders.sql and
// migrations/0009_ordering_ledger.sql.

// ListCategories returns the categories by position, then name.
func (s *Store) ListCategories(ctx context.Context) ([]ordering.Category, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, name, position, created_at FROM ordering_categories
		ORDER BY position, name, id`)
	if err != nil {
		return nil, ordErr("list categories", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ordering.Category, error) {
		var c ordering.Category
		err := row.Scan(&c.ID, &c.Name, &c.Position, &c.CreatedAt)
		c.CreatedAt = c.CreatedAt.UTC()
		return c, err
	})
	if err != nil {
		return nil, ordErr("list categories", err)
	}
	return out, nil
}

const putCategorySQL = `INSERT INTO ordering_categories (id, name, position, created_at) VALUES ($1, $2, $3, $4)
	ON CONFLICT (id) DO UPDATE SET name = excluded.name, position = excluded.position`

// PutCategory creates or replaces a category.
func (s *Store) PutCategory(ctx context.Context, c ordering.Category) error {
	if _, err := s.pool.Exec(ctx, putCategorySQL, c.ID, c.Name, c.Position, c.CreatedAt); err != nil {
		return ordErr("put category", err)
	}
	return nil
}

// ImportMenu puts categories and items in one transaction.
func (s *Store) ImportMenu(ctx context.Context, cats []ordering.Category, items []ordering.MenuItem) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		for _, c := range cats {
			if _, err := tx.Exec(ctx, putCategorySQL, c.ID, c.Name, c.Position, c.CreatedAt); err != nil {
				return err
			}
		}
		for _, m := range items {
			if _, err := tx.Exec(ctx, putMenuItemSQL, m.ID, m.CategoryID, m.Name, m.Description, m.Price, m.Available,
				m.ImageURL, m.Position, m.CreatedAt, m.UpdatedAt); err != nil {
				return err
			}
		}
		return nil
	})
	if _, ok := foreignKeyViolation(err); ok {
		return ordErr("import menu", ordering.ErrCategoryNotFound)
	}
	if err != nil {
		return ordErr("import menu", err)
	}
	return nil
}

// DeleteCategory removes an empty category.
func (s *Store) DeleteCategory(ctx context.Context, id string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM ordering_categories WHERE id = $1`, id)
	if _, ok := foreignKeyViolation(err); ok {
		return ordErr("delete category", ordering.ErrCategoryNotEmpty)
	}
	if err != nil {
		return ordErr("delete category", err)
	}
	if tag.RowsAffected() == 0 {
		return ordErr("delete category", ordering.ErrCategoryNotFound)
	}
	return nil
}

// ListMenuItems returns the items by category position, item position, name.
func (s *Store) ListMenuItems(ctx context.Context) ([]ordering.MenuItem, error) {
	rows, err := s.pool.Query(ctx, `SELECT m.id, m.category_id, m.name, m.description, m.price, m.available,
			m.image_url, m.position, m.created_at, m.updated_at
		FROM ordering_menu_items m JOIN ordering_categories c ON c.id = m.category_id
		ORDER BY c.position, m.category_id, m.position, m.name, m.id`)
	if err != nil {
		return nil, ordErr("list menu items", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ordering.MenuItem, error) {
		var m ordering.MenuItem
		err := row.Scan(&m.ID, &m.CategoryID, &m.Name, &m.Description, &m.Price, &m.Available, &m.ImageURL,
			&m.Position, &m.CreatedAt, &m.UpdatedAt)
		m.CreatedAt, m.UpdatedAt = m.CreatedAt.UTC(), m.UpdatedAt.UTC()
		return m, err
	})
	if err != nil {
		return nil, ordErr("list menu items", err)
	}
	return out, nil
}

const putMenuItemSQL = `INSERT INTO ordering_menu_items (id, category_id, name, description, price, available,
		image_url, position, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
	ON CONFLICT (id) DO UPDATE SET category_id = excluded.category_id, name = excluded.name,
		description = excluded.description, price = excluded.price, available = excluded.available,
		image_url = excluded.image_url, position = excluded.position, updated_at = excluded.updated_at`

// PutMenuItem creates or replaces an item of an existing category.
func (s *Store) PutMenuItem(ctx context.Context, m ordering.MenuItem) error {
	_, err := s.pool.Exec(ctx, putMenuItemSQL,
		m.ID, m.CategoryID, m.Name, m.Description, m.Price, m.Available, m.ImageURL, m.Position, m.CreatedAt, m.UpdatedAt)
	if _, ok := foreignKeyViolation(err); ok {
		return ordErr("put menu item", ordering.ErrCategoryNotFound)
	}
	if err != nil {
		return ordErr("put menu item", err)
	}
	return nil
}

// DeleteMenuItem removes an item.
func (s *Store) DeleteMenuItem(ctx context.Context, id string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM ordering_menu_items WHERE id = $1`, id)
	if err != nil {
		return ordErr("delete menu item", err)
	}
	if tag.RowsAffected() == 0 {
		return ordErr("delete menu item", ordering.ErrMenuItemNotFound)
	}
	return nil
}

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

// GetSettings returns the shop's settings.
func (s *Store) GetSettings(ctx context.Context) (ordering.Settings, bool, error) {
	var st ordering.Settings
	err := s.pool.QueryRow(ctx, `SELECT settings FROM ordering_settings`).Scan(&st)
	if errors.Is(err, pgx.ErrNoRows) {
		return st, false, nil
	}
	if err != nil {
		return st, false, ordErr("get settings", err)
	}
	return st, true, nil
}

// PutSettings replaces the shop's settings.
func (s *Store) PutSettings(ctx context.Context, st ordering.Settings) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO ordering_settings (id, settings) VALUES (true, $1)
		ON CONFLICT (id) DO UPDATE SET settings = excluded.settings`, st)
	if err != nil {
		return ordErr("put settings", err)
	}
	return nil
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
