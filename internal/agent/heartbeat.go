package agent

import (
	"context"
	"fmt"
	"time"

	"github.com/seedhq/portal/pkg/client"
)

// heartbeatLoop reports after each handshake and then every interval the
// portal asks for, or later when the portal's Retry-After asks for longer.
func (s *Syncer) heartbeatLoop(ctx context.Context) {
	t := time.NewTimer(s.heartbeatInterval())
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.hbNow:
		}
		err := s.heartbeat(ctx)
		drain(s.hbNow)
		next := s.heartbeatInterval()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			s.fail(ctx, opHeartbeat, err)
			next = max(next, s.retryAfter(err))
		} else {
			s.succeed(ctx, opHeartbeat)
		}
		t.Reset(next)
	}
}

func (s *Syncer) heartbeatInterval() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.HeartbeatIntervalSeconds > 0 {
		return time.Duration(s.st.HeartbeatIntervalSeconds) * time.Second
	}
	return defaultHeartbeatInterval
}

// heartbeat sends one status ping and keeps the interval and the clock skew
// the portal answers.
func (s *Syncer) heartbeat(ctx context.Context) error {
	s.mu.Lock()
	lab, status := s.lab, client.MonitorOnline
	if s.busy > 0 {
		status = client.MonitorSyncing
	}
	s.mu.Unlock()
	req := &client.HeartbeatRequest{ServerCode: s.cfg.ServerCode, ClientVersion: s.o.Version, Status: status}
	if lab != nil {
		req.ConnectedStudents, req.ActiveExamsCount = lab.ConnectedStudents(), lab.ActiveExams()
	}
	if n, err := s.db.Pending(); err == nil {
		req.PendingAnswers = n
	}
	var (
		hr     *client.HeartbeatResponse
		t0, t1 time.Time
	)
	err := s.call(ctx, opHeartbeat, callTimeout, func(cctx context.Context, c *client.Client) error {
		var err error
		t0 = s.o.Now()
		hr, _, err = c.Exam.Sync.Heartbeat(cctx, req)
		t1 = s.o.Now()
		return err
	})
	if err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	s.update(ctx, func(st *syncState) {
		s.measureSkew(st, hr.ServerTime, t0, t1)
		if hr.IntervalSeconds > 0 {
			st.HeartbeatIntervalSeconds = hr.IntervalSeconds
		}
		st.LastHeartbeatAt = s.Now()
	})
	s.log.DebugContext(ctx, "heartbeat", "status", status, "connected_students", req.ConnectedStudents,
		"active_exams", req.ActiveExamsCount, "pending_answers", req.PendingAnswers)
	return nil
}
