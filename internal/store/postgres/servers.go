package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/exam"
)

const bindingColumns = `server_code, npsn, hardware_id, license_id, bound_at`

func scanBinding(row pgx.Row) (exam.ServerBinding, error) {
	var b exam.ServerBinding
	err := row.Scan(&b.ServerCode, &b.NPSN, &b.HardwareID, &b.LicenseID, &b.BoundAt)
	return b, err
}

// BindServer returns the binding of b.ServerCode, storing b when there is
// none. A binding to another machine gives exam.ErrHardwareMismatch, to
// another school exam.ErrServerNPSNMismatch; otherwise the binding takes
// b.LicenseID and keeps its first BoundAt.
func (s *Store) BindServer(ctx context.Context, b exam.ServerBinding) (exam.ServerBinding, error) {
	var out exam.ServerBinding
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// ON CONFLICT DO UPDATE locks the existing row even when its WHERE
		// is false, so the SELECT below sees the row that failed it.
		got, err := scanBinding(tx.QueryRow(ctx, `INSERT INTO server_bindings AS sb (`+bindingColumns+`)
			VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (server_code) DO UPDATE SET license_id = excluded.license_id
			WHERE sb.hardware_id = excluded.hardware_id AND sb.npsn = excluded.npsn
			RETURNING `+bindingColumns, b.ServerCode, b.NPSN, b.HardwareID, b.LicenseID, b.BoundAt))
		if err == nil {
			out = got
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		cur, err := scanBinding(tx.QueryRow(ctx, `SELECT `+bindingColumns+` FROM server_bindings
			WHERE server_code = $1`, b.ServerCode))
		if err != nil {
			return err
		}
		if cur.HardwareID != b.HardwareID {
			return exam.ErrHardwareMismatch
		}
		return exam.ErrServerNPSNMismatch
	})
	if err != nil {
		return exam.ServerBinding{}, fmt.Errorf("postgres: bind server: %w", err)
	}
	return out, nil
}

// GetServerBinding returns the binding of the server_code.
func (s *Store) GetServerBinding(ctx context.Context, serverCode string) (exam.ServerBinding, error) {
	b, err := scanBinding(s.pool.QueryRow(ctx, `SELECT `+bindingColumns+` FROM server_bindings
		WHERE server_code = $1`, serverCode))
	if err != nil {
		return exam.ServerBinding{}, fmt.Errorf("postgres: get server binding: %w", notFound(err))
	}
	return b, nil
}

// ListServerBindings returns the bindings of a school (every binding when
// npsn is empty), ordered by server_code.
func (s *Store) ListServerBindings(ctx context.Context, npsn string) ([]exam.ServerBinding, error) {
	q := `SELECT ` + bindingColumns + ` FROM server_bindings`
	var args []any
	if npsn != "" {
		q += ` WHERE npsn = $1`
		args = append(args, npsn)
	}
	q += ` ORDER BY server_code`
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list server bindings: %w", err)
	}
	bs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (exam.ServerBinding, error) { return scanBinding(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres: list server bindings: %w", err)
	}
	return bs, nil
}

// DeleteServerBinding removes the binding; exam.ErrNotFound when there is none.
func (s *Store) DeleteServerBinding(ctx context.Context, serverCode string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM server_bindings WHERE server_code = $1`, serverCode)
	if err == nil && tag.RowsAffected() == 0 {
		err = exam.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("postgres: delete server binding: %w", err)
	}
	return nil
}
