package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/ordering"
)

func queueKey(m ordering.OutboundMessage) []byte {
	return append(binary.BigEndian.AppendUint64(nil, uint64(m.NotBefore.UnixNano())), m.ID...)
}

func msgRec(m ordering.OutboundMessage) ordering.OutboundMessage {
	m.CreatedAt, m.NotBefore, m.SentAt = ts(m.CreatedAt), ts(m.NotBefore), tsPtr(m.SentAt)
	return m
}

// putMessage saves m and its index entries, replacing those of old (nil
// for a new message).
func putMessage(tx *bbolt.Tx, old *ordering.OutboundMessage, m ordering.OutboundMessage) error {
	q, sending := tx.Bucket(bucketOrdMsgQueue), tx.Bucket(bucketOrdMsgSending)
	if old != nil {
		if err := q.Delete(queueKey(*old)); err != nil {
			return err
		}
		if err := sending.Delete([]byte(old.ID)); err != nil {
			return err
		}
	}
	switch m.Status {
	case ordering.MessageQueued:
		if err := q.Put(queueKey(m), nil); err != nil {
			return err
		}
	case ordering.MessageSending:
		if err := sending.Put([]byte(m.ID), nil); err != nil {
			return err
		}
	}
	return putJSON(tx.Bucket(bucketOrdMessages), []byte(m.ID), m)
}

// EnqueueMessage stores a new outbound message.
func (s *Store) EnqueueMessage(ctx context.Context, m ordering.OutboundMessage) error {
	m = msgRec(m)
	return s.update(ctx, "enqueue message", func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketOrdMessages).Get([]byte(m.ID)) != nil {
			return fmt.Errorf("message %s exists", m.ID)
		}
		return putMessage(tx, nil, m)
	})
}

func getMessage(tx *bbolt.Tx, id []byte) (ordering.OutboundMessage, bool, error) {
	var m ordering.OutboundMessage
	ok, err := getJSON(tx.Bucket(bucketOrdMessages), id, &m)
	return m, ok, err
}

// interrupted is the reason of a message whose sender stopped while it was
// SENDING.
const interrupted = "interrupted while sending: not sent again (it may have gone out)"

// ClaimMessage leases the oldest due QUEUED message to owner.
func (s *Store) ClaimMessage(ctx context.Context, now time.Time, lease time.Duration, owner string) (ordering.OutboundMessage, bool, error) {
	var out ordering.OutboundMessage
	var found bool
	// The sender asks every second: look first, so that an idle queue costs
	// no write (and no fsync).
	busy := false
	if err := s.view(ctx, "claim message", func(tx *bbolt.Tx) error {
		k, _ := tx.Bucket(bucketOrdMsgQueue).Cursor().First()
		sk, _ := tx.Bucket(bucketOrdMsgSending).Cursor().First()
		busy = sk != nil || k != nil && int64(binary.BigEndian.Uint64(k[:8])) <= now.UnixNano()
		return nil
	}); err != nil || !busy {
		return out, false, err
	}
	err := s.update(ctx, "claim message", func(tx *bbolt.Tx) error {
		var stale [][]byte
		if err := tx.Bucket(bucketOrdMsgSending).ForEach(func(k, _ []byte) error {
			stale = append(stale, bytes.Clone(k))
			return nil
		}); err != nil {
			return err
		}
		for _, id := range stale {
			m, ok, err := getMessage(tx, id)
			if err != nil || !ok || m.LeaseUntil == nil || !m.LeaseUntil.Before(now) {
				if err != nil {
					return err
				}
				continue
			}
			old := m
			m.Status, m.Reason, m.LeaseOwner, m.LeaseUntil = ordering.MessageFailed, interrupted, "", nil
			if err := putMessage(tx, &old, m); err != nil {
				return err
			}
		}
		k, _ := tx.Bucket(bucketOrdMsgQueue).Cursor().First()
		if k == nil || int64(binary.BigEndian.Uint64(k[:8])) > now.UnixNano() {
			return nil
		}
		m, ok, err := getMessage(tx, k[8:])
		if err != nil || !ok {
			return fmt.Errorf("queued message %s: missing record (%v)", k[8:], err)
		}
		old := m
		until := ts(now.Add(lease))
		m.Status, m.LeaseOwner, m.LeaseUntil = ordering.MessageSending, owner, &until
		found, out = true, m
		return putMessage(tx, &old, m)
	})
	return out, found, err
}

// FinishMessage updates a message leased to owner.
func (s *Store) FinishMessage(ctx context.Context, id, owner string, fn func(*ordering.OutboundMessage) error) (ordering.OutboundMessage, error) {
	var m ordering.OutboundMessage
	err := s.update(ctx, "finish message", func(tx *bbolt.Tx) error {
		var ok bool
		var err error
		if m, ok, err = getMessage(tx, []byte(id)); err != nil {
			return err
		}
		if !ok || m.Status != ordering.MessageSending || m.LeaseOwner != owner {
			return fmt.Errorf("message %s is not leased to %s", id, owner)
		}
		old := m
		if err := fn(&m); err != nil {
			return err
		}
		m = msgRec(m)
		return putMessage(tx, &old, m)
	})
	return m, err
}

// ListMessages returns the latest messages, newest first.
func (s *Store) ListMessages(ctx context.Context, limit int) ([]ordering.OutboundMessage, error) {
	var out []ordering.OutboundMessage
	err := s.view(ctx, "list messages", func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketOrdMessages).Cursor()
		for k, v := c.Last(); k != nil && (limit <= 0 || len(out) < limit); k, v = c.Prev() {
			var m ordering.OutboundMessage
			if err := decodeJSON(k, v, &m); err != nil {
				return err
			}
			out = append(out, m)
		}
		return nil
	})
	return out, err
}

// PruneMessages removes the finished messages created before before.
func (s *Store) PruneMessages(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.update(ctx, "prune messages", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketOrdMessages)
		var doomed [][]byte
		if err := b.ForEach(func(k, v []byte) error {
			var m ordering.OutboundMessage
			if err := decodeJSON(k, v, &m); err != nil {
				return err
			}
			if m.CreatedAt.Before(before) && m.Status != ordering.MessageQueued && m.Status != ordering.MessageSending {
				doomed = append(doomed, bytes.Clone(k))
			}
			return nil
		}); err != nil {
			return err
		}
		for _, k := range doomed {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		n = int64(len(doomed))
		return nil
	})
	return n, err
}
