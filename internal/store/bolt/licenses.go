package bolt

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/exam"
)

type licenseRecord struct {
	ID            string     `json:"id"`
	NPSN          string     `json:"npsn"`
	SchoolName    string     `json:"school_name"`
	Region        string     `json:"region,omitempty"`
	HardwareID    string     `json:"hardware_id"`
	MaxStudents   int        `json:"max_students"`
	OperatingMode string     `json:"operating_mode"`
	IssuedAt      time.Time  `json:"issued_at"`
	ExpiresAt     time.Time  `json:"expires_at"`
	RevokedAt     *time.Time `json:"revoked_at,omitempty"`
	Token         string     `json:"token"`
}

func licenseRecordOf(l exam.License) licenseRecord {
	return licenseRecord{ID: l.ID, NPSN: l.NPSN, SchoolName: l.SchoolName, Region: l.Region, HardwareID: l.HardwareID,
		MaxStudents: l.MaxStudents, OperatingMode: l.OperatingMode, IssuedAt: ts(l.IssuedAt),
		ExpiresAt: ts(l.ExpiresAt), RevokedAt: tsPtr(l.RevokedAt), Token: l.Token}
}

func (r licenseRecord) license() exam.License {
	return exam.License{ID: r.ID, NPSN: r.NPSN, SchoolName: r.SchoolName, Region: r.Region, HardwareID: r.HardwareID,
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
