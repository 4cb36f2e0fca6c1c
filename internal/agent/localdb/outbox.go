package localdb

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/pkg/client"
)

// Batch is a sealed push: answers taken out of the outbox under an
// Idempotency-Key that never changes, so that however often the push is
// retried (after a timeout, a crash, an export to USB) the portal stores it
// once. A batch leaves the database only when the portal's receipt arrives.
type Batch struct {
	Seq            uint64          `json:"seq"`
	IdempotencyKey string          `json:"idempotency_key"`
	SealedAt       time.Time       `json:"sealed_at"`
	Answers        []client.Answer `json:"answers"`
}

// Receipt is the portal's acknowledgement of a batch.
type Receipt struct {
	IdempotencyKey string    `json:"idempotency_key"`
	SyncID         string    `json:"sync_id"`
	Duplicate      bool      `json:"duplicate"`
	Records        int       `json:"records"`
	ReceivedAt     time.Time `json:"received_at"`
	AckedAt        time.Time `json:"acked_at"`
}

// MaxBatchBytes bounds the encoded answers of one batch, well under the
// portal's 32 MiB push limit: a batch of long essays holds fewer answers.
const MaxBatchBytes = 16 << 20

// MetaLastReceipt is the meta key of the last receipt (a Receipt).
const MetaLastReceipt = "last_receipt"

// NextBatch returns the oldest sealed batch; when there is none, it seals up
// to max answers of the outbox into a new one first. It returns nil when
// nothing waits.
func (d *DB) NextBatch(ctx context.Context, max int, now time.Time) (*Batch, error) {
	if b, err := d.firstBatch(); err != nil || b != nil {
		return b, err
	}
	batches, err := d.seal(ctx, max, 1, now)
	if err != nil || len(batches) == 0 {
		return nil, err
	}
	return &batches[0], nil
}

// SealAll seals every answer of the outbox into batches of at most max
// answers and returns every sealed batch, oldest first.
func (d *DB) SealAll(ctx context.Context, max int, now time.Time) ([]Batch, error) {
	if _, err := d.seal(ctx, max, -1, now); err != nil {
		return nil, err
	}
	return d.Batches()
}

// Batches returns every sealed batch, oldest first.
func (d *DB) Batches() ([]Batch, error) {
	var out []Batch
	err := d.view(func(tx *bbolt.Tx) error {
		return forEachJSON(tx.Bucket(bucketBatches), nil, func(_ []byte, b Batch) error {
			out = append(out, b)
			return nil
		})
	})
	return out, err
}

func (d *DB) firstBatch() (*Batch, error) {
	var out *Batch
	err := d.view(func(tx *bbolt.Tx) error {
		k, raw := tx.Bucket(bucketBatches).Cursor().First()
		if k == nil {
			return nil
		}
		out = new(Batch)
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("localdb: decode batch %x: %w", k, err)
		}
		return nil
	})
	return out, err
}

// seal moves up to count batches of at most max answers (and MaxBatchBytes)
// from the outbox
// into sealed batches (count < 0: all of them) and returns the new batches.
func (d *DB) seal(ctx context.Context, max, count int, now time.Time) ([]Batch, error) {
	if max <= 0 {
		return nil, fmt.Errorf("localdb: seal: batch size %d", max)
	}
	var out []Batch
	err := d.update(ctx, func(tx *bbolt.Tx) error {
		out = out[:0]
		ob, bb := tx.Bucket(bucketOutbox), tx.Bucket(bucketBatches)
		for count < 0 || len(out) < count {
			c := ob.Cursor()
			var answers []client.Answer
			var keys [][]byte
			size := 0
			for k, raw := c.First(); k != nil && len(answers) < max; k, raw = c.Next() {
				if size += len(raw) + 1; len(answers) > 0 && size > MaxBatchBytes {
					break
				}
				var a client.Answer
				if err := json.Unmarshal(raw, &a); err != nil {
					return fmt.Errorf("localdb: decode outbox %x: %w", k, err)
				}
				answers = append(answers, a)
				keys = append(keys, k)
			}
			if len(answers) == 0 {
				return nil
			}
			for _, k := range keys {
				if err := ob.Delete(k); err != nil {
					return err
				}
			}
			seq, err := bb.NextSequence()
			if err != nil {
				return err
			}
			b := Batch{Seq: seq, IdempotencyKey: newIdempotencyKey(), SealedAt: now.UTC(), Answers: answers}
			if err := putJSON(bb, seqKey(seq), b); err != nil {
				return err
			}
			out = append(out, b)
		}
		return nil
	})
	return out, err
}

// newIdempotencyKey returns a random key: keys must never repeat, even after
// the state file is lost and the server enrolled again.
func newIdempotencyKey() string {
	var b [16]byte
	rand.Read(b[:])
	return fmt.Sprintf("labagent-%x", b)
}

// AckBatch removes the batch the portal acknowledged and records its receipt,
// in one transaction. Acknowledging a batch already gone is not an error.
func (d *DB) AckBatch(ctx context.Context, seq uint64, r Receipt) error {
	raw, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("localdb: encode receipt: %w", err)
	}
	return d.update(ctx, func(tx *bbolt.Tx) error {
		bb := tx.Bucket(bucketBatches)
		n, err := batchSize(bb.Get(seqKey(seq)))
		if err != nil {
			return err
		}
		if err := bb.Delete(seqKey(seq)); err != nil {
			return err
		}
		if err := addPending(tx, -n); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put([]byte(MetaLastReceipt), raw)
	})
}

// batchSize counts the answers of an encoded batch (0 for none).
func batchSize(raw []byte) (int, error) {
	if raw == nil {
		return 0, nil
	}
	var b struct {
		Answers []json.RawMessage `json:"answers"`
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		return 0, fmt.Errorf("localdb: decode batch: %w", err)
	}
	return len(b.Answers), nil
}

// keyPending holds, in the meta bucket, the number of answer saves not yet
// acknowledged by the portal (8 bytes, big endian): kept by SaveAnswer and
// AckBatch so that status never walks a million-entry outbox.
var keyPending = []byte("pending_count")

func addPending(tx *bbolt.Tx, delta int) error {
	mb := tx.Bucket(bucketMeta)
	n := int64(0)
	if v := mb.Get(keyPending); len(v) == 8 {
		n = int64(binary.BigEndian.Uint64(v))
	}
	n += int64(delta)
	if n < 0 {
		n = 0
	}
	return mb.Put(keyPending, seqKey(uint64(n)))
}

// countPending counts the waiting answers the slow way, for a file written
// before keyPending existed.
func countPending(tx *bbolt.Tx) (int, error) {
	n := tx.Bucket(bucketOutbox).Stats().KeyN
	err := tx.Bucket(bucketBatches).ForEach(func(_, v []byte) error {
		c, err := batchSize(v)
		n += c
		return err
	})
	return n, err
}

// Pending counts the answers waiting for the portal: in the outbox and in
// sealed batches.
func (d *DB) Pending() (int, error) {
	n := 0
	err := d.view(func(tx *bbolt.Tx) error {
		v := tx.Bucket(bucketMeta).Get(keyPending)
		if len(v) != 8 {
			var err error
			n, err = countPending(tx)
			return err
		}
		n = int(binary.BigEndian.Uint64(v))
		return nil
	})
	return n, err
}

// Counts are totals for the status report.
type Counts struct {
	Answers  int `json:"answers"`  // answers saved (one per student and question)
	Pending  int `json:"pending"`  // answer saves waiting for the portal
	Sessions int `json:"sessions"` // open sessions
	Attempts int `json:"attempts"`
}

// Counts returns the totals of the status report.
func (d *DB) Counts() (Counts, error) {
	var c Counts
	err := d.view(func(tx *bbolt.Tx) error {
		c.Answers = tx.Bucket(bucketAnswers).Stats().KeyN
		c.Sessions = tx.Bucket(bucketSessions).Stats().KeyN
		c.Attempts = tx.Bucket(bucketAttempts).Stats().KeyN
		return nil
	})
	if err != nil {
		return c, err
	}
	c.Pending, err = d.Pending()
	return c, err
}
