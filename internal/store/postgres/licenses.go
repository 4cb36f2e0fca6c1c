package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/exam"
)

const licenseColumns = `id, npsn, school_name, hardware_id, max_students, operating_mode,
	issued_at, expires_at, revoked_at, token, region`

func scanLicense(row pgx.Row) (exam.License, error) {
	var l exam.License
	err := row.Scan(&l.ID, &l.NPSN, &l.SchoolName, &l.HardwareID, &l.MaxStudents, &l.OperatingMode,
		&l.IssuedAt, &l.ExpiresAt, &l.RevokedAt, &l.Token, &l.Region)
	return l, err
}

// CreateLicense stores l.
func (s *Store) CreateLicense(ctx context.Context, l exam.License) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO licenses (`+licenseColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		l.ID, l.NPSN, l.SchoolName, l.HardwareID, l.MaxStudents, l.OperatingMode,
		l.IssuedAt, l.ExpiresAt, l.RevokedAt, l.Token, l.Region)
	if err != nil {
		return fmt.Errorf("postgres: create license: %w", err)
	}
	return nil
}

// GetLicense returns the licence with the id.
func (s *Store) GetLicense(ctx context.Context, id string) (exam.License, error) {
	l, err := scanLicense(s.pool.QueryRow(ctx, `SELECT `+licenseColumns+` FROM licenses WHERE id = $1`, id))
	if err != nil {
		return exam.License{}, fmt.Errorf("postgres: get license: %w", notFound(err))
	}
	return l, nil
}

// ListLicenses returns matching licences, newest IssuedAt first (then by id,
// descending, for equal times).
func (s *Store) ListLicenses(ctx context.Context, f exam.LicenseFilter) ([]exam.License, error) {
	q := `SELECT ` + licenseColumns + ` FROM licenses`
	var args []any
	if f.NPSN != "" {
		q += ` WHERE npsn = $1`
		args = append(args, f.NPSN)
	}
	q += ` ORDER BY issued_at DESC, id DESC`
	rows, err := s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list licenses: %w", err)
	}
	ls, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (exam.License, error) { return scanLicense(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres: list licenses: %w", err)
	}
	return ls, nil
}

// RevokeLicense marks the licence revoked at the given time, keeping an
// earlier revocation time, and returns it.
func (s *Store) RevokeLicense(ctx context.Context, id string, at time.Time) (exam.License, error) {
	l, err := scanLicense(s.pool.QueryRow(ctx, `UPDATE licenses SET revoked_at = coalesce(revoked_at, $2)
		WHERE id = $1 RETURNING `+licenseColumns, id, at))
	if err != nil {
		return exam.License{}, fmt.Errorf("postgres: revoke license: %w", notFound(err))
	}
	return l, nil
}
