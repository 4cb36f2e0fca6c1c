package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/ordering"
)

// This file holds the outbound queue of ordering.Store: the tables of
// migrations/0007_ordering_messages.sql (the gate is in ordering_gate.go).

const messageColumns = `id, channel, to_number, text, coalesce(order_id, ''), status, reason, attempts, created_at,
	not_before, sent_at, coalesce(lease_owner, ''), lease_until`

func scanMessage(row pgx.Row) (ordering.OutboundMessage, error) {
	var m ordering.OutboundMessage
	err := row.Scan(&m.ID, &m.Channel, &m.To, &m.Text, &m.OrderID, &m.Status, &m.Reason, &m.Attempts, &m.CreatedAt,
		&m.NotBefore, &m.SentAt, &m.LeaseOwner, &m.LeaseUntil)
	m.CreatedAt, m.NotBefore, m.SentAt, m.LeaseUntil = m.CreatedAt.UTC(), m.NotBefore.UTC(), utcPtr(m.SentAt), utcPtr(m.LeaseUntil)
	return m, err
}

// EnqueueMessage stores a new outbound message.
func (s *Store) EnqueueMessage(ctx context.Context, m ordering.OutboundMessage) error {
	if err := insertMessage(ctx, s.pool, m); err != nil {
		return ordErr("enqueue message", err)
	}
	return nil
}

const insertMessageSQL = `INSERT INTO ordering_messages (id, channel, to_number, text, order_id, status, reason,
	attempts, created_at, not_before) VALUES ($1, $2, $3, $4, nullif($5, ''), $6, $7, $8, $9, $10)`

// messageArgs are the arguments of insertMessageSQL for m.
func messageArgs(m ordering.OutboundMessage) []any {
	return []any{m.ID, m.Channel, m.To, m.Text, m.OrderID, m.Status, m.Reason, m.Attempts, m.CreatedAt, m.NotBefore}
}

// insertMessage inserts m with q (the pool or a transaction).
func insertMessage(ctx context.Context, q querier, m ordering.OutboundMessage) error {
	_, err := q.Exec(ctx, insertMessageSQL, messageArgs(m)...)
	if err != nil {
		return fmt.Errorf("insert message: %w", err)
	}
	return nil
}

// ClaimMessage marks interrupted sends FAILED, then leases the oldest due
// QUEUED message to owner; concurrent claimers skip each other's rows.
func (s *Store) ClaimMessage(ctx context.Context, now time.Time, lease time.Duration, owner string) (ordering.OutboundMessage, bool, error) {
	var m ordering.OutboundMessage
	found := false
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE ordering_messages SET status = 'FAILED',
				reason = 'interrupted while sending: not sent again (it may have gone out)', lease_owner = NULL, lease_until = NULL
			WHERE status = 'SENDING' AND lease_until < $1`, now); err != nil {
			return fmt.Errorf("fail interrupted sends: %w", err)
		}
		var err error
		m, err = scanMessage(tx.QueryRow(ctx, `UPDATE ordering_messages SET status = 'SENDING', lease_owner = $2, lease_until = $3
			WHERE id = (SELECT id FROM ordering_messages WHERE status = 'QUEUED' AND not_before <= $1
				ORDER BY not_before, id LIMIT 1 FOR UPDATE SKIP LOCKED)
			RETURNING `+messageColumns, now, owner, now.Add(lease)))
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		found = err == nil
		return err
	})
	if err != nil {
		return m, false, ordErr("claim message", err)
	}
	return m, found, nil
}

// FinishMessage updates a message leased to owner.
func (s *Store) FinishMessage(ctx context.Context, id, owner string, fn func(*ordering.OutboundMessage) error) (ordering.OutboundMessage, error) {
	var m ordering.OutboundMessage
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		m, err = scanMessage(tx.QueryRow(ctx, `SELECT `+messageColumns+` FROM ordering_messages
			WHERE id = $1 AND status = 'SENDING' AND lease_owner = $2 FOR UPDATE`, id, owner))
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("message %s is not leased to %s", id, owner)
		}
		if err != nil {
			return err
		}
		if err := fn(&m); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE ordering_messages SET status = $2, reason = $3, attempts = $4, not_before = $5,
			sent_at = $6, lease_owner = nullif($7, ''), lease_until = $8 WHERE id = $1`,
			id, m.Status, m.Reason, m.Attempts, m.NotBefore, m.SentAt, m.LeaseOwner, m.LeaseUntil)
		return err
	})
	if err != nil {
		return m, ordErr("finish message", err)
	}
	return m, nil
}

// ListMessages returns the latest messages, newest first.
func (s *Store) ListMessages(ctx context.Context, limit int) ([]ordering.OutboundMessage, error) {
	lim := any(nil)
	if limit > 0 {
		lim = limit
	}
	rows, err := s.pool.Query(ctx, `SELECT `+messageColumns+` FROM ordering_messages ORDER BY created_at DESC, id DESC LIMIT $1`, lim)
	if err != nil {
		return nil, ordErr("list messages", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ordering.OutboundMessage, error) { return scanMessage(row) })
	if err != nil {
		return nil, ordErr("list messages", err)
	}
	return out, nil
}

// PruneMessages removes the finished messages created before before.
func (s *Store) PruneMessages(ctx context.Context, before time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM ordering_messages WHERE created_at < $1 AND status IN ('SENT', 'DROPPED', 'FAILED')`, before)
	if err != nil {
		return 0, ordErr("prune messages", err)
	}
	return tag.RowsAffected(), nil
}
