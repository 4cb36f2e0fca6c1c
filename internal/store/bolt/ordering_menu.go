package bolt

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/ordering"
)

// listJSON decodes every value of the bucket.
func listJSON[T any](tx *bbolt.Tx, bucket []byte) ([]T, error) {
	var out []T
	err := tx.Bucket(bucket).ForEach(func(k, v []byte) error {
		var x T
		if err := decodeJSON(k, v, &x); err != nil {
			return err
		}
		out = append(out, x)
		return nil
	})
	return out, err
}

// ListCategories returns the categories by position, then name.
func (s *Store) ListCategories(ctx context.Context) ([]ordering.Category, error) {
	var out []ordering.Category
	err := s.view(ctx, "list categories", func(tx *bbolt.Tx) error {
		var err error
		out, err = listJSON[ordering.Category](tx, bucketOrdCategories)
		return err
	})
	slices.SortFunc(out, func(a, b ordering.Category) int {
		return cmp.Or(cmp.Compare(a.Position, b.Position), strings.Compare(a.Name, b.Name), strings.Compare(a.ID, b.ID))
	})
	return out, err
}

// PutCategory creates or replaces a category.
func (s *Store) PutCategory(ctx context.Context, c ordering.Category) error {
	c.CreatedAt = ts(c.CreatedAt)
	return s.update(ctx, "put category", func(tx *bbolt.Tx) error {
		return putJSON(tx.Bucket(bucketOrdCategories), []byte(c.ID), c)
	})
}

// DeleteCategory removes an empty category.
func (s *Store) DeleteCategory(ctx context.Context, id string) error {
	return s.update(ctx, "delete category", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketOrdCategories)
		if b.Get([]byte(id)) == nil {
			return ordering.ErrCategoryNotFound
		}
		items, err := listJSON[ordering.MenuItem](tx, bucketOrdMenuItems)
		if err != nil {
			return err
		}
		if slices.ContainsFunc(items, func(m ordering.MenuItem) bool { return m.CategoryID == id }) {
			return ordering.ErrCategoryNotEmpty
		}
		return b.Delete([]byte(id))
	})
}

// ListMenuItems returns the items by category position, item position, name.
func (s *Store) ListMenuItems(ctx context.Context) ([]ordering.MenuItem, error) {
	var items []ordering.MenuItem
	pos := map[string]int{}
	err := s.view(ctx, "list menu items", func(tx *bbolt.Tx) error {
		cats, err := listJSON[ordering.Category](tx, bucketOrdCategories)
		if err != nil {
			return err
		}
		for _, c := range cats {
			pos[c.ID] = c.Position
		}
		items, err = listJSON[ordering.MenuItem](tx, bucketOrdMenuItems)
		return err
	})
	slices.SortFunc(items, func(a, b ordering.MenuItem) int {
		return cmp.Or(cmp.Compare(pos[a.CategoryID], pos[b.CategoryID]), strings.Compare(a.CategoryID, b.CategoryID),
			cmp.Compare(a.Position, b.Position), strings.Compare(a.Name, b.Name), strings.Compare(a.ID, b.ID))
	})
	return items, err
}

// PutMenuItem creates or replaces an item of an existing category.
func (s *Store) PutMenuItem(ctx context.Context, m ordering.MenuItem) error {
	m.CreatedAt, m.UpdatedAt = ts(m.CreatedAt), ts(m.UpdatedAt)
	return s.update(ctx, "put menu item", func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketOrdCategories).Get([]byte(m.CategoryID)) == nil {
			return ordering.ErrCategoryNotFound
		}
		return putJSON(tx.Bucket(bucketOrdMenuItems), []byte(m.ID), m)
	})
}

// ImportMenu puts categories and items in one transaction.
func (s *Store) ImportMenu(ctx context.Context, cats []ordering.Category, items []ordering.MenuItem) error {
	return s.update(ctx, "import menu", func(tx *bbolt.Tx) error {
		for _, c := range cats {
			c.CreatedAt = ts(c.CreatedAt)
			if err := putJSON(tx.Bucket(bucketOrdCategories), []byte(c.ID), c); err != nil {
				return err
			}
		}
		for _, m := range items {
			if tx.Bucket(bucketOrdCategories).Get([]byte(m.CategoryID)) == nil {
				return ordering.ErrCategoryNotFound
			}
			m.CreatedAt, m.UpdatedAt = ts(m.CreatedAt), ts(m.UpdatedAt)
			if err := putJSON(tx.Bucket(bucketOrdMenuItems), []byte(m.ID), m); err != nil {
				return err
			}
		}
		return nil
	})
}

// DeleteMenuItem removes an item.
func (s *Store) DeleteMenuItem(ctx context.Context, id string) error {
	return s.update(ctx, "delete menu item", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketOrdMenuItems)
		if b.Get([]byte(id)) == nil {
			return ordering.ErrMenuItemNotFound
		}
		return b.Delete([]byte(id))
	})
}
