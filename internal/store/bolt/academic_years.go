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

type yearRecord struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	IsActive  bool      `json:"is_active"`
	CreatedAt time.Time `json:"created_at"`
}

func (r yearRecord) year() exam.AcademicYear {
	return exam.AcademicYear{ID: r.ID, Name: r.Name, IsActive: r.IsActive, CreatedAt: utc(r.CreatedAt)}
}

// setActiveYear makes id the only active year (none when id is empty).
func setActiveYear(b *bbolt.Bucket, id string) error {
	type change struct {
		key []byte
		rec yearRecord
	}
	var changes []change
	err := b.ForEach(func(k, v []byte) error {
		var rec yearRecord
		if err := decodeJSON(k, v, &rec); err != nil {
			return err
		}
		if active := rec.ID == id; rec.IsActive != active {
			rec.IsActive = active
			changes = append(changes, change{[]byte(rec.ID), rec})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, c := range changes { // bbolt forbids writes while iterating
		if err := putJSON(b, c.key, c.rec); err != nil {
			return err
		}
	}
	return nil
}

// CreateAcademicYear stores ay; when ay.IsActive it deactivates every other
// year. exam.ErrAcademicYearExists on a taken name.
func (s *Store) CreateAcademicYear(ctx context.Context, ay exam.AcademicYear) error {
	return s.update(ctx, "create academic year", func(tx *bbolt.Tx) error {
		years, byName := tx.Bucket(bucketYears), tx.Bucket(bucketYearsByName)
		if byName.Get([]byte(ay.Name)) != nil {
			return fmt.Errorf("academic year %q: %w", ay.Name, exam.ErrAcademicYearExists)
		}
		if ay.ID == "" || years.Get([]byte(ay.ID)) != nil {
			return fmt.Errorf("academic year id %q is empty or taken", ay.ID)
		}
		if ay.IsActive {
			if err := setActiveYear(years, ""); err != nil {
				return err
			}
		}
		rec := yearRecord{ID: ay.ID, Name: ay.Name, IsActive: ay.IsActive, CreatedAt: ts(ay.CreatedAt)}
		if err := putJSON(years, []byte(ay.ID), rec); err != nil {
			return err
		}
		return byName.Put([]byte(ay.Name), []byte(ay.ID))
	})
}

// ActivateAcademicYear makes the year the only active one and returns it.
func (s *Store) ActivateAcademicYear(ctx context.Context, id string) (exam.AcademicYear, error) {
	var out exam.AcademicYear
	err := s.update(ctx, "activate academic year", func(tx *bbolt.Tx) error {
		years := tx.Bucket(bucketYears)
		var rec yearRecord
		found, err := getJSON(years, []byte(id), &rec)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("academic year %q: %w", id, exam.ErrNotFound)
		}
		if err := setActiveYear(years, id); err != nil {
			return err
		}
		rec.IsActive = true
		out = rec.year()
		return nil
	})
	return out, err
}

// GetActiveAcademicYear returns the active year; exam.ErrNotFound when none is.
func (s *Store) GetActiveAcademicYear(ctx context.Context) (exam.AcademicYear, error) {
	var out exam.AcademicYear
	err := s.view(ctx, "get active academic year", func(tx *bbolt.Tx) error {
		found := false
		err := tx.Bucket(bucketYears).ForEach(func(k, v []byte) error {
			var rec yearRecord
			if err := decodeJSON(k, v, &rec); err != nil {
				return err
			}
			if rec.IsActive {
				out, found = rec.year(), true
			}
			return nil
		})
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("active academic year: %w", exam.ErrNotFound)
		}
		return nil
	})
	return out, err
}

// ListAcademicYears returns every year, newest name first.
func (s *Store) ListAcademicYears(ctx context.Context) ([]exam.AcademicYear, error) {
	var out []exam.AcademicYear
	err := s.view(ctx, "list academic years", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketYears).ForEach(func(k, v []byte) error {
			var rec yearRecord
			if err := decodeJSON(k, v, &rec); err != nil {
				return err
			}
			out = append(out, rec.year())
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b exam.AcademicYear) int { return cmp.Compare(b.Name, a.Name) })
	return out, nil
}
