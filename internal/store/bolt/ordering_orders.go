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
