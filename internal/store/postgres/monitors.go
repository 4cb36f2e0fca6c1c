package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/exam"
)

const monitorColumns = `id, server_code, npsn, school_name, hardware_id, status, active_exams_count,
	connected_students, client_ip, client_version, last_ping_at, updated_at, pending_answers`

func scanMonitor(row pgx.Row) (exam.Monitor, error) {
	var m exam.Monitor
	err := row.Scan(&m.ID, &m.ServerCode, &m.NPSN, &m.SchoolName, &m.HardwareID, &m.Status,
		&m.ActiveExamsCount, &m.ConnectedStudents, &m.ClientIP, &m.ClientVersion, &m.LastPingAt, &m.UpdatedAt,
		&m.PendingAnswers)
	return m, err
}

// UpsertMonitors writes the records of ms (distinct server codes) in one
// statement: each is created with its ID when absent, otherwise every field
// but ID is replaced. Rows are written in server-code order, so that two
// groups written at once lock their common rows in the same order and never
// deadlock. Every lab server's heartbeat makes this write, and the next
// heartbeat replaces it, so it does not wait for the WAL to reach the disk
// (the lazy pool): a crash of the database may lose the last fraction of a
// second of heartbeats.
func (s *Store) UpsertMonitors(ctx context.Context, ms []exam.Monitor) error {
	if len(ms) == 0 {
		return nil
	}
	ms = slices.SortedFunc(slices.Values(ms), func(a, b exam.Monitor) int { return strings.Compare(a.ServerCode, b.ServerCode) })
	n := len(ms)
	var (
		ids, codes, npsns, schools, hardware, statuses = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		ips, versions                                  = make([]string, n), make([]string, n)
		exams, students, pending                       = make([]int32, n), make([]int32, n), make([]int32, n)
		pings, updated                                 = make([]time.Time, n), make([]time.Time, n)
	)
	for i, m := range ms {
		ids[i], codes[i], npsns[i], schools[i], hardware[i], statuses[i] = m.ID, m.ServerCode, m.NPSN, m.SchoolName, m.HardwareID, string(m.Status)
		ips[i], versions[i] = m.ClientIP, m.ClientVersion
		exams[i], students[i], pending[i] = int32(m.ActiveExamsCount), int32(m.ConnectedStudents), int32(m.PendingAnswers)
		pings[i], updated[i] = m.LastPingAt, m.UpdatedAt
	}
	_, err := s.lazy.Exec(ctx, `INSERT INTO monitors AS m (`+monitorColumns+`)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[],
			$8::int[], $9::text[], $10::text[], $11::timestamptz[], $12::timestamptz[], $13::int[])
		ON CONFLICT (server_code) DO UPDATE SET
			npsn = excluded.npsn, school_name = excluded.school_name, hardware_id = excluded.hardware_id,
			status = excluded.status, active_exams_count = excluded.active_exams_count,
			connected_students = excluded.connected_students, client_ip = excluded.client_ip,
			client_version = excluded.client_version, last_ping_at = excluded.last_ping_at,
			updated_at = excluded.updated_at, pending_answers = excluded.pending_answers`,
		ids, codes, npsns, schools, hardware, statuses, exams, students, ips, versions, pings, updated, pending)
	if err != nil {
		return fmt.Errorf("postgres: upsert %d monitors: %w", n, err)
	}
	return nil
}

// ListMonitors returns matching records ordered by server_code.
func (s *Store) ListMonitors(ctx context.Context, f exam.MonitorFilter) ([]exam.Monitor, error) {
	q := `SELECT ` + monitorColumns + ` FROM monitors`
	var args []any
	if f.NPSN != "" {
		q += ` WHERE npsn = $1`
		args = append(args, f.NPSN)
	}
	q += ` ORDER BY server_code`
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list monitors: %w", err)
	}
	ms, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (exam.Monitor, error) { return scanMonitor(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres: list monitors: %w", err)
	}
	return ms, nil
}
