package bolt

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/exam"
)

// GetOrCreateSecret returns the value stored under name, storing value first
// when there is none. Write transactions are serialised, so concurrent callers
// all get the value stored first.
func (s *Store) GetOrCreateSecret(ctx context.Context, name string, value []byte) ([]byte, error) {
	var out []byte
	err := s.update(ctx, "get or create secret "+name, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketSecrets)
		if v := b.Get([]byte(name)); v != nil {
			out = bytes.Clone(v)
			return nil
		}
		out = bytes.Clone(value)
		if out == nil {
			out = []byte{}
		}
		return b.Put([]byte(name), bytes.Clone(out))
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

type userRecord struct {
	ID           string    `json:"id"`
	Username     string    `json:"username"`
	Name         string    `json:"name"`
	Role         exam.Role `json:"role"`
	PasswordHash string    `json:"password_hash"`
	CreatedAt    time.Time `json:"created_at"`
}

func (r userRecord) user() exam.User {
	return exam.User{ID: r.ID, Username: r.Username, Name: r.Name, Role: r.Role, PasswordHash: r.PasswordHash,
		CreatedAt: utc(r.CreatedAt)}
}

// CreateUser stores u; exam.ErrUsernameTaken when the username exists,
// compared case-insensitively.
func (s *Store) CreateUser(ctx context.Context, u exam.User) error {
	return s.update(ctx, "create user", func(tx *bbolt.Tx) error {
		users, byName := tx.Bucket(bucketUsers), tx.Bucket(bucketUsersByName)
		name := []byte(strings.ToLower(u.Username))
		if byName.Get(name) != nil {
			return fmt.Errorf("username %q: %w", u.Username, exam.ErrUsernameTaken)
		}
		if u.ID == "" || users.Get([]byte(u.ID)) != nil {
			return fmt.Errorf("user id %q is empty or taken", u.ID)
		}
		rec := userRecord{ID: u.ID, Username: u.Username, Name: u.Name, Role: u.Role, PasswordHash: u.PasswordHash,
			CreatedAt: ts(u.CreatedAt)}
		if err := putJSON(users, []byte(u.ID), rec); err != nil {
			return err
		}
		return byName.Put(name, []byte(u.ID))
	})
}

// GetUser returns the user with the id.
func (s *Store) GetUser(ctx context.Context, id string) (exam.User, error) {
	var u exam.User
	err := s.view(ctx, "get user", func(tx *bbolt.Tx) error {
		var err error
		u, err = getUser(tx, id)
		return err
	})
	return u, err
}

func getUser(tx *bbolt.Tx, id string) (exam.User, error) {
	var rec userRecord
	found, err := getJSON(tx.Bucket(bucketUsers), []byte(id), &rec)
	if err != nil {
		return exam.User{}, err
	}
	if !found {
		return exam.User{}, fmt.Errorf("user %q: %w", id, exam.ErrNotFound)
	}
	return rec.user(), nil
}

// GetUserByUsername returns the user with the username, compared case-insensitively.
func (s *Store) GetUserByUsername(ctx context.Context, username string) (exam.User, error) {
	var u exam.User
	err := s.view(ctx, "get user by username", func(tx *bbolt.Tx) error {
		id := tx.Bucket(bucketUsersByName).Get([]byte(strings.ToLower(username)))
		if id == nil {
			return fmt.Errorf("username %q: %w", username, exam.ErrNotFound)
		}
		var err error
		u, err = getUser(tx, string(id))
		return err
	})
	return u, err
}

// CountUsers returns the number of operator accounts.
func (s *Store) CountUsers(ctx context.Context) (int, error) {
	n := 0
	err := s.view(ctx, "count users", func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketUsers).Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			n++
		}
		return nil
	})
	return n, err
}

// ListUsers returns every account, ordered by username.
func (s *Store) ListUsers(ctx context.Context) ([]exam.User, error) {
	var out []exam.User
	err := s.view(ctx, "list users", func(tx *bbolt.Tx) error {
		c := tx.Bucket(bucketUsersByName).Cursor()
		for _, id := c.First(); id != nil; _, id = c.Next() {
			u, err := getUser(tx, string(id))
			if err != nil {
				return err
			}
			out = append(out, u)
		}
		return nil
	})
	return out, err
}

type licenseRecord struct {
	ID            string     `json:"id"`
	NPSN          string     `json:"npsn"`
	SchoolName    string     `json:"school_name"`
	HardwareID    string     `json:"hardware_id"`
	MaxStudents   int        `json:"max_students"`
	OperatingMode string     `json:"operating_mode"`
	IssuedAt      time.Time  `json:"issued_at"`
	ExpiresAt     time.Time  `json:"expires_at"`
	RevokedAt     *time.Time `json:"revoked_at,omitempty"`
	Token         string     `json:"token"`
}

func licenseRecordOf(l exam.License) licenseRecord {
	return licenseRecord{ID: l.ID, NPSN: l.NPSN, SchoolName: l.SchoolName, HardwareID: l.HardwareID,
		MaxStudents: l.MaxStudents, OperatingMode: l.OperatingMode, IssuedAt: ts(l.IssuedAt),
		ExpiresAt: ts(l.ExpiresAt), RevokedAt: tsPtr(l.RevokedAt), Token: l.Token}
}

func (r licenseRecord) license() exam.License {
	return exam.License{ID: r.ID, NPSN: r.NPSN, SchoolName: r.SchoolName, HardwareID: r.HardwareID,
		MaxStudents: r.MaxStudents, OperatingMode: r.OperatingMode, IssuedAt: utc(r.IssuedAt),
		ExpiresAt: utc(r.ExpiresAt), RevokedAt: utcPtr(r.RevokedAt), Token: r.Token}
}

// CreateLicense stores l.
func (s *Store) CreateLicense(ctx context.Context, l exam.License) error {
	return s.update(ctx, "create license", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketLicenses)
		if l.ID == "" || b.Get([]byte(l.ID)) != nil {
			return fmt.Errorf("licence id %q is empty or taken", l.ID)
		}
		return putJSON(b, []byte(l.ID), licenseRecordOf(l))
	})
}

// GetLicense returns the licence with the id.
func (s *Store) GetLicense(ctx context.Context, id string) (exam.License, error) {
	var l exam.License
	err := s.view(ctx, "get license", func(tx *bbolt.Tx) error {
		var rec licenseRecord
		found, err := getJSON(tx.Bucket(bucketLicenses), []byte(id), &rec)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("licence %q: %w", id, exam.ErrNotFound)
		}
		l = rec.license()
		return nil
	})
	return l, err
}

// ListLicenses returns matching licences, newest IssuedAt first (then
// greatest ID first).
func (s *Store) ListLicenses(ctx context.Context, f exam.LicenseFilter) ([]exam.License, error) {
	var out []exam.License
	err := s.view(ctx, "list licenses", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketLicenses).ForEach(func(k, v []byte) error {
			var rec licenseRecord
			if err := decodeJSON(k, v, &rec); err != nil {
				return err
			}
			if f.NPSN == "" || rec.NPSN == f.NPSN {
				out = append(out, rec.license())
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b exam.License) int {
		return cmp.Or(b.IssuedAt.Compare(a.IssuedAt), cmp.Compare(b.ID, a.ID))
	})
	return out, nil
}

// RevokeLicense marks the licence revoked at the given time, keeping the
// first revocation time, and returns it.
func (s *Store) RevokeLicense(ctx context.Context, id string, at time.Time) (exam.License, error) {
	var l exam.License
	err := s.update(ctx, "revoke license", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketLicenses)
		var rec licenseRecord
		found, err := getJSON(b, []byte(id), &rec)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("licence %q: %w", id, exam.ErrNotFound)
		}
		if rec.RevokedAt == nil {
			rec.RevokedAt = tsPtr(&at)
			if err := putJSON(b, []byte(id), rec); err != nil {
				return err
			}
		}
		l = rec.license()
		return nil
	})
	return l, err
}

type bindingRecord struct {
	ServerCode string    `json:"server_code"`
	NPSN       string    `json:"npsn"`
	HardwareID string    `json:"hardware_id"`
	LicenseID  string    `json:"license_id"`
	BoundAt    time.Time `json:"bound_at"`
}

func (r bindingRecord) binding() exam.ServerBinding {
	return exam.ServerBinding{ServerCode: r.ServerCode, NPSN: r.NPSN, HardwareID: r.HardwareID,
		LicenseID: r.LicenseID, BoundAt: utc(r.BoundAt)}
}

// BindServer returns the binding of b.ServerCode, storing b when there is
// none. A binding to another HardwareID gives exam.ErrHardwareMismatch (even
// when the school differs too), to another school exam.ErrServerNPSNMismatch;
// otherwise LicenseID follows b.LicenseID and BoundAt stays.
func (s *Store) BindServer(ctx context.Context, b exam.ServerBinding) (exam.ServerBinding, error) {
	var out exam.ServerBinding
	err := s.update(ctx, "bind server", func(tx *bbolt.Tx) error {
		bucket := tx.Bucket(bucketServers)
		key := []byte(b.ServerCode)
		var rec bindingRecord
		found, err := getJSON(bucket, key, &rec)
		if err != nil {
			return err
		}
		switch {
		case !found:
			if b.ServerCode == "" {
				return fmt.Errorf("server_code is empty")
			}
			rec = bindingRecord{ServerCode: b.ServerCode, NPSN: b.NPSN, HardwareID: b.HardwareID,
				LicenseID: b.LicenseID, BoundAt: ts(b.BoundAt)}
		case rec.HardwareID != b.HardwareID:
			return fmt.Errorf("server %q: %w", b.ServerCode, exam.ErrHardwareMismatch)
		case rec.NPSN != b.NPSN:
			return fmt.Errorf("server %q: %w", b.ServerCode, exam.ErrServerNPSNMismatch)
		case rec.LicenseID == b.LicenseID:
			out = rec.binding()
			return nil
		default:
			rec.LicenseID = b.LicenseID
		}
		out = rec.binding()
		return putJSON(bucket, key, rec)
	})
	return out, err
}

// GetServerBinding returns the binding of the server_code.
func (s *Store) GetServerBinding(ctx context.Context, serverCode string) (exam.ServerBinding, error) {
	var out exam.ServerBinding
	err := s.view(ctx, "get server binding", func(tx *bbolt.Tx) error {
		var rec bindingRecord
		found, err := getJSON(tx.Bucket(bucketServers), []byte(serverCode), &rec)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("server %q: %w", serverCode, exam.ErrNotFound)
		}
		out = rec.binding()
		return nil
	})
	return out, err
}

// ListServerBindings returns the bindings of a school (all when npsn is
// empty), ordered by server_code.
func (s *Store) ListServerBindings(ctx context.Context, npsn string) ([]exam.ServerBinding, error) {
	var out []exam.ServerBinding
	err := s.view(ctx, "list server bindings", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketServers).ForEach(func(k, v []byte) error {
			var rec bindingRecord
			if err := decodeJSON(k, v, &rec); err != nil {
				return err
			}
			if npsn == "" || rec.NPSN == npsn {
				out = append(out, rec.binding())
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteServerBinding removes the binding; exam.ErrNotFound when there is none.
func (s *Store) DeleteServerBinding(ctx context.Context, serverCode string) error {
	return s.update(ctx, "delete server binding", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketServers)
		if b.Get([]byte(serverCode)) == nil {
			return fmt.Errorf("server %q: %w", serverCode, exam.ErrNotFound)
		}
		return b.Delete([]byte(serverCode))
	})
}
