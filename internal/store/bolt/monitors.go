package bolt

import (
	"context"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/exam"
)

type monitorRecord struct {
	ID                string             `json:"id"`
	ServerCode        string             `json:"server_code"`
	NPSN              string             `json:"npsn"`
	SchoolName        string             `json:"school_name"`
	HardwareID        string             `json:"hardware_id"`
	Status            exam.MonitorStatus `json:"status"`
	ActiveExamsCount  int                `json:"active_exams_count"`
	ConnectedStudents int                `json:"connected_students"`
	PendingAnswers    int                `json:"pending_answers,omitempty"`
	ClientIP          string             `json:"client_ip"`
	ClientVersion     string             `json:"client_version"`
	LastPingAt        time.Time          `json:"last_ping_at"`
	UpdatedAt         time.Time          `json:"updated_at"`
}

func (r monitorRecord) monitor() exam.Monitor {
	return exam.Monitor{ID: r.ID, ServerCode: r.ServerCode, NPSN: r.NPSN, SchoolName: r.SchoolName,
		HardwareID: r.HardwareID, Status: r.Status, ActiveExamsCount: r.ActiveExamsCount,
		ConnectedStudents: r.ConnectedStudents, PendingAnswers: r.PendingAnswers, ClientIP: r.ClientIP, ClientVersion: r.ClientVersion,
		LastPingAt: utc(r.LastPingAt), UpdatedAt: utc(r.UpdatedAt)}
}

// UpsertMonitors writes the records of ms (distinct server codes) in one
// transaction, so one fsync for the group: each is created with its ID when
// absent, otherwise every field but ID is replaced.
func (s *Store) UpsertMonitors(ctx context.Context, ms []exam.Monitor) error {
	if len(ms) == 0 {
		return nil
	}
	return s.update(ctx, "upsert monitors", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketMonitors)
		for _, m := range ms {
			key := []byte(m.ServerCode)
			if len(key) == 0 {
				return fmt.Errorf("server_code is empty")
			}
			rec := monitorRecord{ID: m.ID, ServerCode: m.ServerCode, NPSN: m.NPSN, SchoolName: m.SchoolName,
				HardwareID: m.HardwareID, Status: m.Status, ActiveExamsCount: m.ActiveExamsCount,
				ConnectedStudents: m.ConnectedStudents, PendingAnswers: m.PendingAnswers, ClientIP: m.ClientIP, ClientVersion: m.ClientVersion,
				LastPingAt: ts(m.LastPingAt), UpdatedAt: ts(m.UpdatedAt)}
			var old monitorRecord
			found, err := getJSON(b, key, &old)
			if err != nil {
				return err
			}
			if found {
				rec.ID = old.ID
			}
			if err := putJSON(b, key, rec); err != nil {
				return err
			}
		}
		return nil
	})
}

// ListMonitors returns matching records ordered by server_code.
func (s *Store) ListMonitors(ctx context.Context, f exam.MonitorFilter) ([]exam.Monitor, error) {
	var out []exam.Monitor
	err := s.view(ctx, "list monitors", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketMonitors).ForEach(func(k, v []byte) error {
			var rec monitorRecord
			if err := decodeJSON(k, v, &rec); err != nil {
				return err
			}
			if f.NPSN == "" || rec.NPSN == f.NPSN {
				out = append(out, rec.monitor())
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
