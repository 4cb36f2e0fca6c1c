package agent

import (
	"context"
	"fmt"
	"time"

	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/pkg/client"
)

// PushResult is the outcome of PushNow.
type PushResult struct {
	// Batches and Answers count what the portal acknowledged.
	Batches int `json:"batches"`
	Answers int `json:"answers"`
	// Duplicates counts the batches the portal already had (a retry after a
	// lost receipt); their answers were not stored twice.
	Duplicates int    `json:"duplicates"`
	LastSyncID string `json:"last_sync_id,omitempty"`
	// Pending is what still waits for the portal afterwards.
	Pending int `json:"pending"`
}

// pushLoop pushes at start, every PushInterval and soon after a Kick,
// backing off after failures. Kicks wait while the portal is failing.
func (s *Syncer) pushLoop(ctx context.Context) {
	t := time.NewTimer(0)
	defer t.Stop()
	failures := 0
	for {
		kick := s.kick
		if failures > 0 {
			kick = nil // a student saving must not defeat the backoff
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-kick:
			// Let the rest of the classroom's saves join this push.
			select {
			case <-ctx.Done():
				return
			case <-time.After(s.o.PushDelay):
			}
			drain(s.kick)
		}
		_, err := s.push(ctx)
		next := s.o.PushInterval
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			s.fail(ctx, opPush, err)
			failures++
			next = s.retryDelay(failures, err, refused(err))
		} else {
			failures = 0
		}
		t.Reset(next)
	}
}

// PushNow pushes every pending answer now and returns what the portal
// acknowledged, handshaking first if needed. It stops at the first batch
// that fails (the batch stays queued) and returns the error.
func (s *Syncer) PushNow(ctx context.Context) (PushResult, error) {
	res, err := s.push(ctx)
	if err != nil {
		s.fail(ctx, opPush, err)
	}
	return res, err
}

// push sends the sealed batches of the outbox, oldest first, until none is
// left. Each batch keeps the Idempotency-Key it was sealed with, so a batch
// pushed again after a lost receipt (a timeout, a kill) is stored once by
// the portal; a batch leaves localdb only with the portal's receipt.
//
// A batch the portal refuses (4xx such as 422 UNKNOWN_EXAM: an exam deleted
// or unassigned on the portal) is never dropped: the refusal is recorded as
// last_error with its code and the batch is retried slowly (SlowRetry),
// blocking the batches behind it, until the operator fixes the portal side
// or exports the outbox. Students' answers are never lost to a refusal.
func (s *Syncer) push(ctx context.Context) (PushResult, error) {
	s.pushMu.Lock()
	defer s.pushMu.Unlock()
	var res PushResult
	busy := false
	defer func() {
		if busy {
			s.setBusy(-1)
		}
	}()
	for {
		b, err := s.db.NextBatch(ctx, s.o.PushBatchSize, s.Now())
		if err != nil {
			return s.pushResult(res), fmt.Errorf("seal a batch of answers: %w", err)
		}
		if b == nil {
			break
		}
		if !busy {
			busy = true
			s.setBusy(1)
		}
		var rc *client.PushReceipt
		err = s.call(ctx, opPush, callTimeout, func(cctx context.Context, c *client.Client) error {
			var err error
			rc, _, err = c.Exam.Sync.PushAnswers(cctx, &client.PushAnswersRequest{
				ServerCode: s.cfg.ServerCode, NPSN: s.cfg.NPSN, Answers: b.Answers, IdempotencyKey: b.IdempotencyKey,
			})
			return err
		})
		if err != nil {
			if refused(err) {
				err = fmt.Errorf("the portal refused batch %d (%d answers, Idempotency-Key %s; kept, retried later, exportable): %w",
					b.Seq, len(b.Answers), b.IdempotencyKey, err)
			} else {
				err = fmt.Errorf("push batch %d (%d answers): %w", b.Seq, len(b.Answers), err)
			}
			return s.pushResult(res), err
		}
		if rc.SyncID == "" {
			// A 200 that is no receipt (an empty body, "{}": a proxy or a
			// captive portal answering for the portal) acknowledges
			// nothing: the batch stays and is pushed again.
			return s.pushResult(res), fmt.Errorf("push batch %d (%d answers): the answer is not a receipt (no sync_id); the batch is kept",
				b.Seq, len(b.Answers))
		}
		records := rc.RecordCount
		if records == 0 {
			records = len(b.Answers)
		}
		receipt := localdb.Receipt{
			IdempotencyKey: b.IdempotencyKey, SyncID: rc.SyncID, Duplicate: rc.Duplicate,
			Records: records, ReceivedAt: rc.ReceivedAt, AckedAt: s.Now(),
		}
		// The receipt is in hand: record it even if ctx ends now.
		if err := s.db.AckBatch(context.WithoutCancel(ctx), b.Seq, receipt); err != nil {
			return s.pushResult(res), fmt.Errorf("acknowledge batch %d: %w", b.Seq, err)
		}
		res.Batches++
		res.Answers += len(b.Answers)
		res.LastSyncID = rc.SyncID
		if rc.Duplicate {
			res.Duplicates++
		}
		s.log.InfoContext(ctx, "answers pushed", "answers", len(b.Answers), "sync_id", rc.SyncID,
			"duplicate", rc.Duplicate, "idempotency_key", b.IdempotencyKey)
		s.update(ctx, func(st *syncState) {
			st.LastPushAt = s.Now()
			delete(st.Errors, opPush)
		})
	}
	s.succeed(ctx, opPush)
	return s.pushResult(res), nil
}

func (s *Syncer) pushResult(res PushResult) PushResult {
	if n, err := s.db.Pending(); err == nil {
		res.Pending = n
	}
	return res
}
