package bolt

import (
	"context"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/ordering"
)

var settingsKey = []byte("settings")

// GetSettings returns the shop's settings.
func (s *Store) GetSettings(ctx context.Context) (ordering.Settings, bool, error) {
	var st ordering.Settings
	var ok bool
	err := s.view(ctx, "get settings", func(tx *bbolt.Tx) error {
		var err error
		ok, err = getJSON(tx.Bucket(bucketOrdSettings), settingsKey, &st)
		return err
	})
	return st, ok, err
}

// PutSettings replaces the shop's settings.
func (s *Store) PutSettings(ctx context.Context, st ordering.Settings) error {
	return s.update(ctx, "put settings", func(tx *bbolt.Tx) error {
		return putJSON(tx.Bucket(bucketOrdSettings), settingsKey, st)
	})
}
