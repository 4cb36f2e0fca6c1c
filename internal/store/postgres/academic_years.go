package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/exam"
)

const academicYearColumns = `id, name, is_active, created_at`

func scanAcademicYear(row pgx.Row) (exam.AcademicYear, error) {
	var ay exam.AcademicYear
	err := row.Scan(&ay.ID, &ay.Name, &ay.IsActive, &ay.CreatedAt)
	return ay, err
}

// CreateAcademicYear stores ay, deactivating every other year when ay is
// active; exam.ErrAcademicYearExists when the name is taken. Changes to
// academic years are serialised with an advisory lock.
func (s *Store) CreateAcademicYear(ctx context.Context, ay exam.AcademicYear) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockAcademicYears); err != nil {
			return err
		}
		if ay.IsActive {
			if _, err := tx.Exec(ctx, `UPDATE academic_years SET is_active = false WHERE is_active`); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO academic_years (`+academicYearColumns+`) VALUES ($1, $2, $3, $4)`,
			ay.ID, ay.Name, ay.IsActive, ay.CreatedAt)
		if c, ok := uniqueViolation(err); ok && c == "academic_years_name_key" {
			return exam.ErrAcademicYearExists
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: create academic year: %w", err)
	}
	return nil
}

// ActivateAcademicYear makes the year the only active one and returns it.
func (s *Store) ActivateAcademicYear(ctx context.Context, id string) (exam.AcademicYear, error) {
	var out exam.AcademicYear
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockAcademicYears); err != nil {
			return err
		}
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM academic_years WHERE id = $1)`, id).Scan(&exists); err != nil {
			return err
		}
		if !exists {
			return exam.ErrNotFound
		}
		if _, err := tx.Exec(ctx, `UPDATE academic_years SET is_active = false WHERE is_active AND id <> $1`, id); err != nil {
			return err
		}
		var err error
		out, err = scanAcademicYear(tx.QueryRow(ctx, `UPDATE academic_years SET is_active = true WHERE id = $1
			RETURNING `+academicYearColumns, id))
		return notFound(err)
	})
	if err != nil {
		return exam.AcademicYear{}, fmt.Errorf("postgres: activate academic year: %w", err)
	}
	return out, nil
}

// GetActiveAcademicYear returns the active year; exam.ErrNotFound when none is.
func (s *Store) GetActiveAcademicYear(ctx context.Context) (exam.AcademicYear, error) {
	ay, err := scanAcademicYear(s.pool.QueryRow(ctx, `SELECT `+academicYearColumns+` FROM academic_years
		WHERE is_active`))
	if err != nil {
		return exam.AcademicYear{}, fmt.Errorf("postgres: get active academic year: %w", notFound(err))
	}
	return ay, nil
}

// ListAcademicYears returns every year, newest (byte-wise greatest) name first.
func (s *Store) ListAcademicYears(ctx context.Context) ([]exam.AcademicYear, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+academicYearColumns+` FROM academic_years ORDER BY name DESC`)
	if err != nil {
		return nil, fmt.Errorf("postgres: list academic years: %w", err)
	}
	ays, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (exam.AcademicYear, error) { return scanAcademicYear(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres: list academic years: %w", err)
	}
	return ays, nil
}
