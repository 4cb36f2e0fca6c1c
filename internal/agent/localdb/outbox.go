package localdb

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/jsonx"
	"github.com/seedhq/portal/pkg/client"
)

// Batch is a sealed push: a run of outbox entries given an Idempotency-Key
// that never changes, so that however often the push is retried (after a
// timeout, a crash, an export to USB) the portal stores it once. Its entries
// leave the outbox only when the portal's receipt arrives.
type Batch struct {
	Seq            uint64          `json:"seq"`
	IdempotencyKey string          `json:"idempotency_key"`
	SealedAt       time.Time       `json:"sealed_at"`
	Answers        []client.Answer `json:"answers"`
}

// batchRecord is a Batch as stored: the range of outbox sequences it covers,
// not the answers. Sealing and acknowledging are small writes, so a push of
// thousands of answers never holds up the students' saves; the acknowledged
// entries are then deleted a chunk at a time (purge).
type batchRecord struct {
	Seq            uint64    `json:"seq"`
	IdempotencyKey string    `json:"idempotency_key"`
	SealedAt       time.Time `json:"sealed_at"`
	First          uint64    `json:"first"` // outbox sequences, inclusive
	Last           uint64    `json:"last"`
	Count          int       `json:"count"`
	Acked          bool      `json:"acked,omitempty"` // receipt received; entries being purged
}

// purgeChunk is how many outbox entries one purge transaction deletes.
const purgeChunk = 256

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

// NextBatch returns the oldest sealed batch not yet acknowledged; when there
// is none, it seals up to max answers of the outbox into a new one first. It
// returns nil when nothing waits.
func (d *DB) NextBatch(ctx context.Context, max int, now time.Time) (*Batch, error) {
	if err := d.purgeAcked(ctx); err != nil {
		return nil, err
	}
	recs, err := d.batchRecords()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		rec, err := d.sealOne(ctx, max, now)
		if err != nil || rec == nil {
			return nil, err
		}
		recs = append(recs, *rec)
	}
	b, err := d.loadBatch(recs[0])
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// SealAll seals every answer of the outbox into batches of at most max
// answers and returns every batch not yet acknowledged, oldest first.
func (d *DB) SealAll(ctx context.Context, max int, now time.Time) ([]Batch, error) {
	for {
		rec, err := d.sealOne(ctx, max, now)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			return d.Batches()
		}
	}
}

// Batches returns every batch not yet acknowledged, oldest first.
func (d *DB) Batches() ([]Batch, error) {
	recs, err := d.batchRecords()
	if err != nil {
		return nil, err
	}
	out := make([]Batch, 0, len(recs))
	for _, r := range recs {
		b, err := d.loadBatch(r)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// batchRecords returns the records of the batches not yet acknowledged.
func (d *DB) batchRecords() ([]batchRecord, error) {
	var out []batchRecord
	err := d.view(func(tx *bbolt.Tx) error {
		return forEachJSON(tx.Bucket(bucketBatches), nil, func(_ []byte, r batchRecord) error {
			if !r.Acked {
				out = append(out, r)
			}
			return nil
		})
	})
	return out, err
}

// loadBatch reads the answers of a batch from the outbox.
func (d *DB) loadBatch(r batchRecord) (Batch, error) {
	b := Batch{Seq: r.Seq, IdempotencyKey: r.IdempotencyKey, SealedAt: r.SealedAt, Answers: make([]client.Answer, 0, r.Count)}
	err := d.view(func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketOutbox).Cursor()
		for k, raw := c.Seek(seqKey(r.First)); k != nil && binary.BigEndian.Uint64(k) <= r.Last; k, raw = c.Next() {
			var a client.Answer
			if err := jsonx.Unmarshal(raw, &a); err != nil {
				return fmt.Errorf("localdb: decode outbox %x: %w", k, err)
			}
			b.Answers = append(b.Answers, a)
		}
		return nil
	})
	if err == nil && len(b.Answers) != r.Count {
		err = fmt.Errorf("localdb: batch %d holds %d answers, %d recorded", r.Seq, len(b.Answers), r.Count)
	}
	return b, err
}

// sealOne seals the outbox entries after the last batch, at most max of
// them and MaxBatchBytes, into a new batch; nil when there are none.
func (d *DB) sealOne(ctx context.Context, max int, now time.Time) (*batchRecord, error) {
	if max <= 0 {
		return nil, fmt.Errorf("localdb: seal: batch size %d", max)
	}
	d.sealMu.Lock()
	defer d.sealMu.Unlock()
	// Find the range with a read: entries are only ever appended after it
	// or deleted once acknowledged, so it is still valid when written.
	var rec batchRecord
	err := d.view(func(tx *bbolt.Tx) error {
		from := uint64(0)
		if k, raw := tx.Bucket(bucketBatches).Cursor().Last(); k != nil {
			var last batchRecord
			if err := jsonx.Unmarshal(raw, &last); err != nil {
				return fmt.Errorf("localdb: decode batch %x: %w", k, err)
			}
			from = last.Last + 1
		}
		c := tx.Bucket(bucketOutbox).Cursor()
		size := 0
		for k, raw := c.Seek(seqKey(from)); k != nil && rec.Count < max; k, raw = c.Next() {
			if size += len(raw) + 1; rec.Count > 0 && size > MaxBatchBytes {
				break
			}
			seq := binary.BigEndian.Uint64(k)
			if rec.Count == 0 {
				rec.First = seq
			}
			rec.Last = seq
			rec.Count++
		}
		return nil
	})
	if err != nil || rec.Count == 0 {
		return nil, err
	}
	rec.IdempotencyKey, rec.SealedAt = newIdempotencyKey(), now.UTC()
	err = d.update(ctx, func(tx *bbolt.Tx) error {
		bb := tx.Bucket(bucketBatches)
		seq, err := bb.NextSequence()
		if err != nil {
			return err
		}
		rec.Seq = seq
		return putJSON(bb, seqKey(seq), rec)
	})
	if err != nil {
		return nil, err
	}
	return &rec, nil
}

// newIdempotencyKey returns a random key: keys must never repeat, even after
// the state file is lost and the server enrolled again.
func newIdempotencyKey() string {
	var b [16]byte
	rand.Read(b[:])
	return fmt.Sprintf("labagent-%x", b)
}

// AckBatch records the portal's receipt of a batch and removes the batch
// and its answers from the outbox. The receipt is one small transaction;
// the entries are then deleted a chunk at a time (a crash in between leaves
// them to the next NextBatch). Acknowledging a batch already gone is not an
// error.
func (d *DB) AckBatch(ctx context.Context, seq uint64, r Receipt) error {
	raw, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("localdb: encode receipt: %w", err)
	}
	err = d.update(ctx, func(tx *bbolt.Tx) error {
		bb := tx.Bucket(bucketBatches)
		var rec batchRecord
		found, err := getJSON(bb, seqKey(seq), &rec)
		if err != nil {
			return err
		}
		if found && !rec.Acked {
			rec.Acked = true
			if err := putJSON(bb, seqKey(seq), rec); err != nil {
				return err
			}
			if err := addPending(tx, -rec.Count); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketMeta).Put([]byte(MetaLastReceipt), raw)
	})
	if err != nil {
		return err
	}
	return d.purgeAcked(ctx)
}

// purgeAcked deletes the outbox entries of acknowledged batches, purgeChunk
// per transaction, then the batches' records.
func (d *DB) purgeAcked(ctx context.Context) error {
	d.sealMu.Lock()
	defer d.sealMu.Unlock()
	for {
		var acked []batchRecord
		err := d.view(func(tx *bbolt.Tx) error {
			return forEachJSON(tx.Bucket(bucketBatches), nil, func(_ []byte, r batchRecord) error {
				if r.Acked {
					acked = append(acked, r)
				}
				return nil
			})
		})
		if err != nil || len(acked) == 0 {
			return err
		}
		for _, r := range acked {
			done := false
			for !done {
				err := d.update(ctx, func(tx *bbolt.Tx) error {
					c := tx.Bucket(bucketOutbox).Cursor()
					n := 0
					k, _ := c.Seek(seqKey(r.First))
					for ; k != nil && binary.BigEndian.Uint64(k) <= r.Last && n < purgeChunk; k, _ = c.Seek(seqKey(r.First)) {
						if err := c.Delete(); err != nil {
							return err
						}
						n++
					}
					done = k == nil || binary.BigEndian.Uint64(k) > r.Last
					if done {
						return tx.Bucket(bucketBatches).Delete(seqKey(r.Seq))
					}
					return nil
				})
				if err != nil {
					return fmt.Errorf("localdb: purge batch %d: %w", r.Seq, err)
				}
			}
		}
	}
}

// batchSize counts the answers of an encoded batch record (0 for none, or
// for one already acknowledged).
func batchSize(raw []byte) (int, error) {
	if raw == nil {
		return 0, nil
	}
	var r batchRecord
	if err := jsonx.Unmarshal(raw, &r); err != nil {
		return 0, fmt.Errorf("localdb: decode batch: %w", err)
	}
	if r.Acked {
		return -r.Count, nil
	}
	return 0, nil
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

// countPending counts the waiting answers the slow way (outbox entries
// minus those of acknowledged batches not yet purged), for a file written
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
