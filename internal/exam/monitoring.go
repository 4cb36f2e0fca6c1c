package exam

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/seedhq/portal/internal/sortid"
)

// HeartbeatInput is the body of POST /api/v1/sync/heartbeat plus the client
// address the portal saw.
type HeartbeatInput struct {
	ServerCode        string
	ConnectedStudents int
	ActiveExamsCount  int
	PendingAnswers    int
	ClientVersion     string
	Status            MonitorStatus
	ClientIP          string
}

// HeartbeatResult answers a heartbeat.
type HeartbeatResult struct {
	ServerTime time.Time
	Interval   time.Duration
}

// Heartbeat records a status ping of an authenticated server in its monitor record.
func (s *Service) Heartbeat(ctx context.Context, id ServerIdentity, in HeartbeatInput) (HeartbeatResult, error) {
	if err := CheckServer(id, in.ServerCode, ""); err != nil {
		return HeartbeatResult{}, err
	}
	if in.Status == "" {
		in.Status = StatusOnline
	}
	switch {
	case in.Status != StatusOnline && in.Status != StatusSyncing:
		return HeartbeatResult{}, invalid("status must be online or syncing")
	case in.ConnectedStudents < 0 || in.ConnectedStudents > 1_000_000:
		return HeartbeatResult{}, invalid("connected_students must be between 0 and 1000000")
	case in.ActiveExamsCount < 0 || in.ActiveExamsCount > 100_000:
		return HeartbeatResult{}, invalid("active_exams_count must be between 0 and 100000")
	case in.PendingAnswers < 0 || in.PendingAnswers > math.MaxInt32:
		return HeartbeatResult{}, invalid("pending_answers must be between 0 and 2147483647")
	case len(in.ClientVersion) > 64:
		return HeartbeatResult{}, invalid("client_version must be at most 64 characters")
	}
	now := s.now()
	err := s.beats.write(ctx, Monitor{
		ID: sortid.New(), ServerCode: id.ServerCode, NPSN: id.NPSN, SchoolName: id.SchoolName, HardwareID: id.HardwareID,
		Status: in.Status, ActiveExamsCount: in.ActiveExamsCount, ConnectedStudents: in.ConnectedStudents,
		PendingAnswers: in.PendingAnswers, ClientIP: in.ClientIP, ClientVersion: in.ClientVersion, LastPingAt: now, UpdatedAt: now,
	})
	if err != nil {
		return HeartbeatResult{}, fmt.Errorf("heartbeat: %w", err)
	}
	return HeartbeatResult{ServerTime: now, Interval: s.cfg.HeartbeatInterval}, nil
}

// EffectiveStatus returns the status of m at time now: offline when the
// server has been silent for three heartbeat intervals, else as reported.
func EffectiveStatus(m Monitor, now time.Time, interval time.Duration) MonitorStatus {
	if now.Sub(m.LastPingAt) >= 3*interval {
		return StatusOffline
	}
	return m.Status
}

// ListMonitors returns the monitor records of a school (all when npsn is
// empty) with Status replaced by the effective status, filtered by status
// when status is not empty.
func (s *Service) ListMonitors(ctx context.Context, npsn string, status MonitorStatus) ([]Monitor, error) {
	switch status {
	case "", StatusOnline, StatusOffline, StatusSyncing:
	default:
		return nil, invalid("status must be online, offline or syncing")
	}
	ms, err := s.store.ListMonitors(ctx, MonitorFilter{NPSN: npsn})
	if err != nil {
		return nil, fmt.Errorf("list monitors: %w", err)
	}
	now := s.now()
	out := ms[:0]
	for _, m := range ms {
		m.Status = EffectiveStatus(m, now, s.cfg.HeartbeatInterval)
		if status == "" || m.Status == status {
			out = append(out, m)
		}
	}
	return out, nil
}

// ListSyncLogs returns sync log records, newest first.
func (s *Service) ListSyncLogs(ctx context.Context, f SyncLogFilter) ([]SyncLog, error) {
	switch f.Outcome {
	case "", OutcomeAccepted, OutcomeDuplicate, OutcomeRejected:
	default:
		return nil, invalid("status must be accepted, duplicate or rejected")
	}
	if f.Limit <= 0 || f.Limit > 1000 {
		f.Limit = 100
	}
	ls, err := s.store.ListSyncLogs(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("list sync logs: %w", err)
	}
	return ls, nil
}
