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

type apiKeyRecord struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	Hash       string     `json:"hash"`
	CreatedAt  time.Time  `json:"created_at"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
	LastUsedAt *time.Time `json:"last_used_at,omitempty"`
}

func (r apiKeyRecord) key() exam.APIKey {
	return exam.APIKey{ID: r.ID, Name: r.Name, Prefix: r.Prefix, Hash: r.Hash, CreatedAt: utc(r.CreatedAt),
		RevokedAt: utcPtr(r.RevokedAt), LastUsedAt: utcPtr(r.LastUsedAt)}
}

// CreateAPIKey stores k.
func (s *Store) CreateAPIKey(ctx context.Context, k exam.APIKey) error {
	return s.update(ctx, "create api key", func(tx *bbolt.Tx) error {
		keys, byHash := tx.Bucket(bucketAPIKeys), tx.Bucket(bucketAPIKeysByHash)
		if k.ID == "" || keys.Get([]byte(k.ID)) != nil {
			return fmt.Errorf("api key id %q is empty or taken", k.ID)
		}
		if k.Hash == "" || byHash.Get([]byte(k.Hash)) != nil {
			return fmt.Errorf("api key hash is empty or taken")
		}
		rec := apiKeyRecord{ID: k.ID, Name: k.Name, Prefix: k.Prefix, Hash: k.Hash, CreatedAt: ts(k.CreatedAt),
			RevokedAt: tsPtr(k.RevokedAt), LastUsedAt: tsPtr(k.LastUsedAt)}
		if err := putJSON(keys, []byte(k.ID), rec); err != nil {
			return err
		}
		return byHash.Put([]byte(k.Hash), []byte(k.ID))
	})
}

// GetAPIKeyByHash returns the key with the hash, revoked or not.
func (s *Store) GetAPIKeyByHash(ctx context.Context, hash string) (exam.APIKey, error) {
	var out exam.APIKey
	err := s.view(ctx, "get api key", func(tx *bbolt.Tx) error {
		id := tx.Bucket(bucketAPIKeysByHash).Get([]byte(hash))
		if id == nil {
			return fmt.Errorf("api key: %w", exam.ErrNotFound)
		}
		var rec apiKeyRecord
		found, err := getJSON(tx.Bucket(bucketAPIKeys), id, &rec)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("hash index names api key %q, which does not exist", id)
		}
		out = rec.key()
		return nil
	})
	return out, err
}

// ListAPIKeys returns every key, newest CreatedAt first (then greatest ID first).
func (s *Store) ListAPIKeys(ctx context.Context) ([]exam.APIKey, error) {
	var out []exam.APIKey
	err := s.view(ctx, "list api keys", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketAPIKeys).ForEach(func(k, v []byte) error {
			var rec apiKeyRecord
			if err := decodeJSON(k, v, &rec); err != nil {
				return err
			}
			out = append(out, rec.key())
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b exam.APIKey) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), cmp.Compare(b.ID, a.ID))
	})
	return out, nil
}

// RevokeAPIKey marks the key revoked (keeping the first time) and returns it.
func (s *Store) RevokeAPIKey(ctx context.Context, id string, at time.Time) (exam.APIKey, error) {
	var out exam.APIKey
	err := s.update(ctx, "revoke api key", func(tx *bbolt.Tx) error {
		keys := tx.Bucket(bucketAPIKeys)
		var rec apiKeyRecord
		found, err := getJSON(keys, []byte(id), &rec)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("api key %q: %w", id, exam.ErrNotFound)
		}
		if rec.RevokedAt == nil {
			rec.RevokedAt = tsPtr(&at)
			if err := putJSON(keys, []byte(id), rec); err != nil {
				return err
			}
		}
		out = rec.key()
		return nil
	})
	return out, err
}
