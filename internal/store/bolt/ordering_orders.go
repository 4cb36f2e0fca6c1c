package bolt

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/ordering"
)

// Buckets of the menu, the settings and the orders.
var (
	// bucketOrdCategories: id -> ordering.Category.
	bucketOrdCategories = []byte("ordering_categories")
	// bucketOrdMenuItems: id -> ordering.MenuItem.
	bucketOrdMenuItems = []byte("ordering_menu_items")
	// bucketOrdSettings: "settings" -> ordering.Settings.
	bucketOrdSettings = []byte("ordering_settings")
	// bucketOrdOrders: id -> ordering.Order. Ids are UUIDv7: key order is
	// creation order.
	bucketOrdOrders = []byte("ordering_orders")
	// bucketOrdOrdersByUser: user id NUL order id -> nil.
	bucketOrdOrdersByUser = []byte("ordering_orders_by_user")
	// bucketOrdOrdersByStatus: status NUL order id -> nil.
	bucketOrdOrdersByStatus = []byte("ordering_orders_by_status")
	// bucketOrdOrdersByInvoice: invoice id -> order id.
	bucketOrdOrdersByInvoice = []byte("ordering_orders_by_invoice")
	// bucketOrdCounters: counter -> 8-byte big-endian last number.
	bucketOrdCounters = []byte("ordering_order_counters")
)

// The ledger's bucket, bucketOrdLedger, is in ordering_ledger.go.

var settingsKey = []byte("settings")

func init() {
	allBuckets = append(allBuckets, bucketOrdCategories, bucketOrdMenuItems, bucketOrdSettings, bucketOrdOrders,
		bucketOrdOrdersByUser, bucketOrdOrdersByStatus, bucketOrdOrdersByInvoice, bucketOrdCounters)
}

// listJSON decodes every value of the bucket.
func listJSON[T any](tx *bbolt.Tx, bucket []byte) ([]T, error) {
	var out []T
	err := tx.Bucket(bucket).ForEach(func(k, v []byte) error {
		var x T
		if err := decodeJSON(k, v, &x); err != nil {
			return err
		}
		out = append(out, x)
		return nil
	})
	return out, err
}

// ListCategories returns the categories by position, then name.
func (s *Store) ListCategories(ctx context.Context) ([]ordering.Category, error) {
	var out []ordering.Category
	err := s.view(ctx, "list categories", func(tx *bbolt.Tx) error {
		var err error
		out, err = listJSON[ordering.Category](tx, bucketOrdCategories)
		return err
	})
	slices.SortFunc(out, func(a, b ordering.Category) int {
		return cmp.Or(cmp.Compare(a.Position, b.Position), strings.Compare(a.Name, b.Name), strings.Compare(a.ID, b.ID))
	})
	return out, err
}

// PutCategory creates or replaces a category.
func (s *Store) PutCategory(ctx context.Context, c ordering.Category) error {
	c.CreatedAt = ts(c.CreatedAt)
	return s.update(ctx, "put category", func(tx *bbolt.Tx) error {
		return putJSON(tx.Bucket(bucketOrdCategories), []byte(c.ID), c)
	})
}

// DeleteCategory removes an empty category.
func (s *Store) DeleteCategory(ctx context.Context, id string) error {
	return s.update(ctx, "delete category", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketOrdCategories)
		if b.Get([]byte(id)) == nil {
			return ordering.ErrCategoryNotFound
		}
		items, err := listJSON[ordering.MenuItem](tx, bucketOrdMenuItems)
		if err != nil {
			return err
		}
		if slices.ContainsFunc(items, func(m ordering.MenuItem) bool { return m.CategoryID == id }) {
			return ordering.ErrCategoryNotEmpty
		}
		return b.Delete([]byte(id))
	})
}

// ListMenuItems returns the items by category position, item position, name.
func (s *Store) ListMenuItems(ctx context.Context) ([]ordering.MenuItem, error) {
	var items []ordering.MenuItem
	pos := map[string]int{}
	err := s.view(ctx, "list menu items", func(tx *bbolt.Tx) error {
		cats, err := listJSON[ordering.Category](tx, bucketOrdCategories)
		if err != nil {
			return err
		}
		for _, c := range cats {
			pos[c.ID] = c.Position
		}
		items, err = listJSON[ordering.MenuItem](tx, bucketOrdMenuItems)
		return err
	})
	slices.SortFunc(items, func(a, b ordering.MenuItem) int {
		return cmp.Or(cmp.Compare(pos[a.CategoryID], pos[b.CategoryID]), strings.Compare(a.CategoryID, b.CategoryID),
			cmp.Compare(a.Position, b.Position), strings.Compare(a.Name, b.Name), strings.Compare(a.ID, b.ID))
	})
	return items, err
}

// PutMenuItem creates or replaces an item of an existing category.
func (s *Store) PutMenuItem(ctx context.Context, m ordering.MenuItem) error {
	m.CreatedAt, m.UpdatedAt = ts(m.CreatedAt), ts(m.UpdatedAt)
	return s.update(ctx, "put menu item", func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketOrdCategories).Get([]byte(m.CategoryID)) == nil {
			return ordering.ErrCategoryNotFound
		}
		return putJSON(tx.Bucket(bucketOrdMenuItems), []byte(m.ID), m)
	})
}

// ImportMenu puts categories and items in one transaction.
func (s *Store) ImportMenu(ctx context.Context, cats []ordering.Category, items []ordering.MenuItem) error {
	return s.update(ctx, "import menu", func(tx *bbolt.Tx) error {
		for _, c := range cats {
			c.CreatedAt = ts(c.CreatedAt)
			if err := putJSON(tx.Bucket(bucketOrdCategories), []byte(c.ID), c); err != nil {
				return err
			}
		}
		for _, m := range items {
			if tx.Bucket(bucketOrdCategories).Get([]byte(m.CategoryID)) == nil {
				return ordering.ErrCategoryNotFound
			}
			m.CreatedAt, m.UpdatedAt = ts(m.CreatedAt), ts(m.UpdatedAt)
			if err := putJSON(tx.Bucket(bucketOrdMenuItems), []byte(m.ID), m); err != nil {
				return err
			}
		}
		return nil
	})
}

// DeleteMenuItem removes an item.
func (s *Store) DeleteMenuItem(ctx context.Context, id string) error {
	return s.update(ctx, "delete menu item", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketOrdMenuItems)
		if b.Get([]byte(id)) == nil {
			return ordering.ErrMenuItemNotFound
		}
		return b.Delete([]byte(id))
	})
}

// OrderInputs returns the settings and the menu items with the ids given.
func (s *Store) OrderInputs(ctx context.Context, itemIDs []string) (ordering.Settings, bool, []ordering.MenuItem, error) {
	var st ordering.Settings
	var ok bool
	var items []ordering.MenuItem
	err := s.view(ctx, "order inputs", func(tx *bbolt.Tx) error {
		var err error
		if ok, err = getJSON(tx.Bucket(bucketOrdSettings), settingsKey, &st); err != nil {
			return err
		}
		for _, id := range itemIDs {
			var m ordering.MenuItem
			found, err := getJSON(tx.Bucket(bucketOrdMenuItems), []byte(id), &m)
			if err != nil {
				return err
			}
			if found {
				items = append(items, m)
			}
		}
		return nil
	})
	return st, ok, items, err
}

// GetSettings returns the shop's settings.
func (s *Store) GetSettings(ctx context.Context) (ordering.Settings, bool, error) {
	var st ordering.Settings
	var ok bool
	err := s.view(ctx, "get settings", func(tx *bbolt.Tx) error {
		var err error
		ok, err = getJSON(tx.Bucket(bucketOrdSettings), settingsKey, &st)
		return err
	})
	return st, ok, err
}

// PutSettings replaces the shop's settings.
func (s *Store) PutSettings(ctx context.Context, st ordering.Settings) error {
	return s.update(ctx, "put settings", func(tx *bbolt.Tx) error {
		return putJSON(tx.Bucket(bucketOrdSettings), settingsKey, st)
	})
}

// orderRec returns o with its times as stored.
func orderRec(o ordering.Order) ordering.Order {
	o.CreatedAt, o.UpdatedAt, o.ExpiresAt = ts(o.CreatedAt), ts(o.UpdatedAt), tsPtr(o.ExpiresAt)
	o.History = slices.Clone(o.History)
	for i := range o.History {
		o.History[i].At = ts(o.History[i].At)
	}
	return o
}

func pairKey(a, b string) []byte { return []byte(a + "\x00" + b) }

// CreateOrder stores o with the next number of its day and its message.
func (s *Store) CreateOrder(ctx context.Context, o ordering.Order, n ordering.Numbering, message *ordering.OutboundMessage) (ordering.Order, error) {
	o = orderRec(o)
	err := s.update(ctx, "create order", func(tx *bbolt.Tx) error {
		cb := tx.Bucket(bucketOrdCounters)
		var seq uint64 = 1
		if v := cb.Get([]byte(n.Counter())); len(v) == 8 {
			seq = binary.BigEndian.Uint64(v) + 1
		}
		if err := cb.Put([]byte(n.Counter()), binary.BigEndian.AppendUint64(nil, seq)); err != nil {
			return err
		}
		o.OrderNumber = n.Number(int(seq))
		if tx.Bucket(bucketOrdOrders).Get([]byte(o.ID)) != nil {
			return fmt.Errorf("order %s exists", o.ID)
		}
		if o.InvoiceID != "" {
			if err := tx.Bucket(bucketOrdOrdersByInvoice).Put([]byte(o.InvoiceID), []byte(o.ID)); err != nil {
				return err
			}
		}
		if err := tx.Bucket(bucketOrdOrdersByUser).Put(pairKey(o.UserID, o.ID), nil); err != nil {
			return err
		}
		if err := tx.Bucket(bucketOrdOrdersByStatus).Put(pairKey(string(o.Status), o.ID), nil); err != nil {
			return err
		}
		if message != nil {
			m := msgRec(*message)
			m.Text, m.OrderID = strings.ReplaceAll(m.Text, ordering.OrderNumberMark, o.OrderNumber), o.ID
			if err := putMessage(tx, nil, m); err != nil {
				return err
			}
		}
		if err := putLedger(tx, nil, o); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bucketOrdOrders), []byte(o.ID), o)
	})
	return o, err
}

func getOrder(tx *bbolt.Tx, id []byte) (ordering.Order, error) {
	var o ordering.Order
	ok, err := getJSON(tx.Bucket(bucketOrdOrders), id, &o)
	if err == nil && !ok {
		err = ordering.ErrOrderNotFound
	}
	return o, err
}

// GetOrder returns an order.
func (s *Store) GetOrder(ctx context.Context, id string) (ordering.Order, error) {
	var o ordering.Order
	err := s.view(ctx, "get order", func(tx *bbolt.Tx) error {
		var err error
		o, err = getOrder(tx, []byte(id))
		return err
	})
	return o, err
}

// GetOrderByInvoice returns the order of a provider invoice.
func (s *Store) GetOrderByInvoice(ctx context.Context, invoiceID string) (ordering.Order, error) {
	var o ordering.Order
	err := s.view(ctx, "get order by invoice", func(tx *bbolt.Tx) error {
		id := tx.Bucket(bucketOrdOrdersByInvoice).Get([]byte(invoiceID))
		if id == nil {
			return ordering.ErrOrderNotFound
		}
		var err error
		o, err = getOrder(tx, id)
		return err
	})
	return o, err
}

// ListOrders returns the orders q selects, by creation time.
func (s *Store) ListOrders(ctx context.Context, q ordering.OrderQuery) ([]ordering.Order, error) {
	var out []ordering.Order
	err := s.view(ctx, "list orders", func(tx *bbolt.Tx) error {
		var ids [][]byte
		switch {
		case q.UserID != "":
			prefix := pairKey(q.UserID, "")
			c := tx.Bucket(bucketOrdOrdersByUser).Cursor()
			for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
				ids = append(ids, bytes.Clone(k[len(prefix):]))
			}
		case len(q.Statuses) > 0:
			for _, st := range q.Statuses {
				prefix := pairKey(string(st), "")
				c := tx.Bucket(bucketOrdOrdersByStatus).Cursor()
				for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
					ids = append(ids, bytes.Clone(k[len(prefix):]))
				}
			}
		default:
			c := tx.Bucket(bucketOrdOrders).Cursor()
			for k, _ := c.First(); k != nil; k, _ = c.Next() {
				ids = append(ids, bytes.Clone(k))
			}
		}
		for _, id := range ids {
			o, err := getOrder(tx, id)
			if err != nil {
				return err
			}
			if len(q.Statuses) > 0 && !slices.Contains(q.Statuses, o.Status) {
				continue
			}
			out = append(out, o)
		}
		return nil
	})
	slices.SortFunc(out, func(a, b ordering.Order) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	if q.NewestFirst {
		slices.Reverse(out)
	}
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, err
}

// UpdateOrder loads an order, calls fn and saves it, keeping its indexes.
func (s *Store) UpdateOrder(ctx context.Context, id string, fn func(*ordering.Order) error) (ordering.Order, error) {
	var o ordering.Order
	err := s.update(ctx, "update order", func(tx *bbolt.Tx) error {
		var err error
		if o, err = getOrder(tx, []byte(id)); err != nil {
			return err
		}
		before := o
		if err := fn(&o); err != nil {
			return err
		}
		if o.ID != before.ID || o.UserID != before.UserID || o.OrderNumber != before.OrderNumber {
			return fmt.Errorf("an order's id, user and number do not change")
		}
		o = orderRec(o)
		byStatus := tx.Bucket(bucketOrdOrdersByStatus)
		if o.Status != before.Status {
			if err := byStatus.Delete(pairKey(string(before.Status), o.ID)); err != nil {
				return err
			}
			if err := byStatus.Put(pairKey(string(o.Status), o.ID), nil); err != nil {
				return err
			}
		}
		if o.InvoiceID != before.InvoiceID {
			inv := tx.Bucket(bucketOrdOrdersByInvoice)
			if before.InvoiceID != "" {
				if err := inv.Delete([]byte(before.InvoiceID)); err != nil {
					return err
				}
			}
			if o.InvoiceID != "" {
				if err := inv.Put([]byte(o.InvoiceID), []byte(o.ID)); err != nil {
					return err
				}
			}
		}
		if err := putLedger(tx, &before, o); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bucketOrdOrders), []byte(o.ID), o)
	})
	return o, err
}
