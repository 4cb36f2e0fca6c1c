package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/jsonx"
	"github.com/seedhq/portal/internal/ordering"
)

// bucketOrdLedger is the ledger's read model: paid time (ledgerTimeKey) +
// order id -> ledgerRec, one key per order in the ledger
// (ordering.Order.LedgerEntry), kept by CreateOrder and UpdateOrder in
// their transaction. It is not in allBuckets: migrateLedger creates it,
// from the orders stored so far, when a file lacks it.
var bucketOrdLedger = []byte("ordering_ledger")

// ledgerRec is a stored ledger entry; its paid time and order id are in
// its key.
type ledgerRec struct {
	Number     string          `json:"n"`
	Method     string          `json:"m"`
	ItemsTotal int64           `json:"i"`
	Shipping   int64           `json:"s"`
	Total      int64           `json:"t"`
	Status     ordering.Status `json:"x"`
}

// ledgerTimeKey returns the 8-byte key prefix of a paid time: its Unix
// nanoseconds, big-endian with the sign bit flipped, so that byte order is
// time order.
func ledgerTimeKey(t time.Time) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8+36), uint64(t.UnixNano())^(1<<63))
}

// ledgerKey returns the key of o's ledger entry, and false when o is not
// in the ledger.
func ledgerKey(o ordering.Order) ([]byte, ordering.LedgerEntry, bool) {
	e, ok := o.LedgerEntry()
	if !ok {
		return nil, e, false
	}
	return append(ledgerTimeKey(e.PaidAt), o.ID...), e, true
}

// putLedger replaces the ledger entry of the order before (nil for a new
// order) with that of o, as stored: removed when o is not in the ledger.
func putLedger(tx *bbolt.Tx, before *ordering.Order, o ordering.Order) error {
	b := tx.Bucket(bucketOrdLedger)
	if before != nil {
		if k, _, ok := ledgerKey(*before); ok {
			if err := b.Delete(k); err != nil {
				return fmt.Errorf("ledger entry of order %s: %w", o.ID, err)
			}
		}
	}
	k, e, ok := ledgerKey(o)
	if !ok {
		return nil
	}
	v, err := json.Marshal(ledgerRec{Number: e.OrderNumber, Method: e.Method, ItemsTotal: e.ItemsTotal, Shipping: e.Shipping,
		Total: e.Total, Status: e.Status})
	if err != nil {
		return fmt.Errorf("ledger entry of order %s: %w", o.ID, err)
	}
	if err := b.Put(k, v); err != nil {
		return fmt.Errorf("ledger entry of order %s: %w", o.ID, err)
	}
	return nil
}

// migrateLedger creates bucketOrdLedger, with the entries of the orders
// stored so far, when the file lacks it (a file written before the
// ledger's read model).
func migrateLedger(tx *bbolt.Tx) error {
	if tx.Bucket(bucketOrdLedger) != nil {
		return nil
	}
	if _, err := tx.CreateBucket(bucketOrdLedger); err != nil {
		return fmt.Errorf("migrate ledger: %w", err)
	}
	err := tx.Bucket(bucketOrdOrders).ForEach(func(k, v []byte) error {
		var o ordering.Order
		if err := decodeJSON(k, v, &o); err != nil {
			return err
		}
		return putLedger(tx, nil, o)
	})
	if err != nil {
		return fmt.Errorf("migrate ledger: %w", err)
	}
	return nil
}

// LedgerEntries returns the ledger entries of the orders paid in
// [from, to), by paid time, then order id.
func (s *Store) LedgerEntries(ctx context.Context, from, to time.Time) ([]ordering.LedgerEntry, error) {
	var out []ordering.LedgerEntry
	err := s.view(ctx, "ledger entries", func(tx *bbolt.Tx) error {
		end := ledgerTimeKey(to)
		c := tx.Bucket(bucketOrdLedger).Cursor()
		for k, v := c.Seek(ledgerTimeKey(from)); k != nil; k, v = c.Next() {
			if len(k) < 8 {
				return fmt.Errorf("malformed ledger key %x", k)
			}
			if bytes.Compare(k[:8], end) >= 0 {
				break
			}
			var r ledgerRec
			if err := jsonx.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("decode ledger entry %x: %w", k, err)
			}
			paidAt := time.Unix(0, int64(binary.BigEndian.Uint64(k)^(1<<63))).UTC()
			out = append(out, ordering.LedgerEntry{PaidAt: paidAt, OrderNumber: r.Number, Method: r.Method,
				ItemsTotal: r.ItemsTotal, Shipping: r.Shipping, Total: r.Total, Status: r.Status})
		}
		return nil
	})
	return out, err
}
