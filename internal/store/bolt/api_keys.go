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
