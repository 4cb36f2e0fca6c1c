package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/exam"
)

// This file holds the small stores: secrets, operators, licences, server
// bindings, academic years and API keys.

// GetOrCreateSecret returns the value stored under name, storing value first
// when there is none. It is race-free across instances: INSERT ... ON
// CONFLICT DO NOTHING waits for a concurrent insert of the same name and
// yields to it, then a fresh statement reads the one stored value.
func (s *Store) GetOrCreateSecret(ctx context.Context, name string, value []byte) ([]byte, error) {
	if value == nil {
		value = []byte{} // NULL is not a value
	}
	var stored []byte
	err := s.pool.QueryRow(ctx, `INSERT INTO secrets (name, value) VALUES ($1, $2)
		ON CONFLICT (name) DO NOTHING RETURNING value`, name, value).Scan(&stored)
	if errors.Is(err, pgx.ErrNoRows) {
		err = s.pool.QueryRow(ctx, `SELECT value FROM secrets WHERE name = $1`, name).Scan(&stored)
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: get or create secret %s: %w", name, err)
	}
	if stored == nil {
		stored = []byte{}
	}
	return stored, nil
}

// Users.

const userColumns = `id, username, name, role, password_hash, created_at`

func scanUser(row pgx.Row) (exam.User, error) {
	var u exam.User
	err := row.Scan(&u.ID, &u.Username, &u.Name, &u.Role, &u.PasswordHash, &u.CreatedAt)
	return u, err
}

// CreateUser stores u; exam.ErrUsernameTaken when the username exists,
// compared case-insensitively.
func (s *Store) CreateUser(ctx context.Context, u exam.User) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO users (id, username, username_key, name, role, password_hash, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		u.ID, u.Username, strings.ToLower(u.Username), u.Name, string(u.Role), u.PasswordHash, u.CreatedAt)
	if c, ok := uniqueViolation(err); ok && c == "users_username_key" {
		err = exam.ErrUsernameTaken
	}
	if err != nil {
		return fmt.Errorf("postgres: create user: %w", err)
	}
	return nil
}

// GetUser returns the user with the id.
func (s *Store) GetUser(ctx context.Context, id string) (exam.User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id))
	if err != nil {
		return exam.User{}, fmt.Errorf("postgres: get user: %w", notFound(err))
	}
	return u, nil
}

// GetUserByUsername returns the user with the username, compared
// case-insensitively.
func (s *Store) GetUserByUsername(ctx context.Context, username string) (exam.User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE username_key = $1`,
		strings.ToLower(username)))
	if err != nil {
		return exam.User{}, fmt.Errorf("postgres: get user by username: %w", notFound(err))
	}
	return u, nil
}

// CountUsers returns the number of operator accounts.
func (s *Store) CountUsers(ctx context.Context) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM users`).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: count users: %w", err)
	}
	return n, nil
}

// ListUsers returns every account, ordered by username.
func (s *Store) ListUsers(ctx context.Context) ([]exam.User, error) {
	rows, _ := s.pool.Query(ctx, `SELECT `+userColumns+` FROM users ORDER BY username_key`)
	us, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (exam.User, error) { return scanUser(row) })
	if err != nil {
		return nil, fmt.Errorf("postgres: list users: %w", err)
	}
	return us, nil
}

// Licences.

const licenseColumns = `id, npsn, school_name, hardware_id, max_students, operating_mode,
	issued_at, expires_at, revoked_at, token`

func scanLicense(row pgx.Row) (exam.License, error) {
	var l exam.License
	err := row.Scan(&l.ID, &l.NPSN, &l.SchoolName, &l.HardwareID, &l.MaxStudents, &l.OperatingMode,
		&l.IssuedAt, &l.ExpiresAt, &l.RevokedAt, &l.Token)
	return l, err
}

// CreateLicense stores l.
func (s *Store) CreateLicense(ctx context.Context, l exam.License) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO licenses (`+licenseColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		l.ID, l.NPSN, l.SchoolName, l.HardwareID, l.MaxStudents, l.OperatingMode,
		l.IssuedAt, l.ExpiresAt, l.RevokedAt, l.Token)
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

// Server bindings.

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

// Academic years.

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

// API keys.

const apiKeyColumns = `id, name, prefix, hash, created_at, revoked_at, last_used_at`

func scanAPIKey(row pgx.Row) (exam.APIKey, error) {
	var k exam.APIKey
	err := row.Scan(&k.ID, &k.Name, &k.Prefix, &k.Hash, &k.CreatedAt, &k.RevokedAt, &k.LastUsedAt)
	return k, err
}

// CreateAPIKey stores k.
func (s *Store) CreateAPIKey(ctx context.Context, k exam.APIKey) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO api_keys (`+apiKeyColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		k.ID, k.Name, k.Prefix, k.Hash, k.CreatedAt, k.RevokedAt, k.LastUsedAt)
	if err != nil {
		return fmt.Errorf("postgres: create api key: %w", err)
	}
	return nil
}

// GetAPIKeyByHash returns the key with the hash, revoked or not.
func (s *Store) GetAPIKeyByHash(ctx context.Context, hash string) (exam.APIKey, error) {
	k, err := scanAPIKey(s.pool.QueryRow(ctx, `SELECT `+apiKeyColumns+` FROM api_keys WHERE hash = $1`, hash))
	if err != nil {
		return exam.APIKey{}, fmt.Errorf("postgres: get api key: %w", notFound(err))
	}
	return k, nil
}

// ListAPIKeys returns every key, newest CreatedAt first (then by id,
// descending, for equal times).
func (s *Store) ListAPIKeys(ctx context.Context) ([]exam.APIKey, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+apiKeyColumns+` FROM api_keys ORDER BY created_at DESC, id DESC`)
	if err != nil {
		return nil, fmt.Errorf("postgres: list api keys: %w", err)
	}
	ks, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (exam.APIKey, error) { return scanAPIKey(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres: list api keys: %w", err)
	}
	return ks, nil
}

// RevokeAPIKey marks the key revoked, keeping an earlier revocation time, and
// returns it.
func (s *Store) RevokeAPIKey(ctx context.Context, id string, at time.Time) (exam.APIKey, error) {
	k, err := scanAPIKey(s.pool.QueryRow(ctx, `UPDATE api_keys SET revoked_at = coalesce(revoked_at, $2)
		WHERE id = $1 RETURNING `+apiKeyColumns, id, at))
	if err != nil {
		return exam.APIKey{}, fmt.Errorf("postgres: revoke api key: %w", notFound(err))
	}
	return k, nil
}
