package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/ordering"
)

// ListCategories returns the categories by position, then name.
func (s *Store) ListCategories(ctx context.Context) ([]ordering.Category, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, name, position, created_at FROM ordering_categories
		ORDER BY position, name, id`)
	if err != nil {
		return nil, ordErr("list categories", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ordering.Category, error) {
		var c ordering.Category
		err := row.Scan(&c.ID, &c.Name, &c.Position, &c.CreatedAt)
		c.CreatedAt = c.CreatedAt.UTC()
		return c, err
	})
	if err != nil {
		return nil, ordErr("list categories", err)
	}
	return out, nil
}

const putCategorySQL = `INSERT INTO ordering_categories (id, name, position, created_at) VALUES ($1, $2, $3, $4)
	ON CONFLICT (id) DO UPDATE SET name = excluded.name, position = excluded.position`

// PutCategory creates or replaces a category.
func (s *Store) PutCategory(ctx context.Context, c ordering.Category) error {
	if _, err := s.pool.Exec(ctx, putCategorySQL, c.ID, c.Name, c.Position, c.CreatedAt); err != nil {
		return ordErr("put category", err)
	}
	return nil
}

// ImportMenu puts categories and items in one transaction.
func (s *Store) ImportMenu(ctx context.Context, cats []ordering.Category, items []ordering.MenuItem) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		for _, c := range cats {
			if _, err := tx.Exec(ctx, putCategorySQL, c.ID, c.Name, c.Position, c.CreatedAt); err != nil {
				return err
			}
		}
		for _, m := range items {
			if _, err := tx.Exec(ctx, putMenuItemSQL, m.ID, m.CategoryID, m.Name, m.Description, m.Price, m.Available,
				m.ImageURL, m.Position, m.CreatedAt, m.UpdatedAt); err != nil {
				return err
			}
		}
		return nil
	})
	if _, ok := foreignKeyViolation(err); ok {
		return ordErr("import menu", ordering.ErrCategoryNotFound)
	}
	if err != nil {
		return ordErr("import menu", err)
	}
	return nil
}

// DeleteCategory removes an empty category.
func (s *Store) DeleteCategory(ctx context.Context, id string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM ordering_categories WHERE id = $1`, id)
	if _, ok := foreignKeyViolation(err); ok {
		return ordErr("delete category", ordering.ErrCategoryNotEmpty)
	}
	if err != nil {
		return ordErr("delete category", err)
	}
	if tag.RowsAffected() == 0 {
		return ordErr("delete category", ordering.ErrCategoryNotFound)
	}
	return nil
}

// ListMenuItems returns the items by category position, item position, name.
func (s *Store) ListMenuItems(ctx context.Context) ([]ordering.MenuItem, error) {
	rows, err := s.pool.Query(ctx, `SELECT m.id, m.category_id, m.name, m.description, m.price, m.available,
			m.image_url, m.position, m.created_at, m.updated_at
		FROM ordering_menu_items m JOIN ordering_categories c ON c.id = m.category_id
		ORDER BY c.position, m.category_id, m.position, m.name, m.id`)
	if err != nil {
		return nil, ordErr("list menu items", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ordering.MenuItem, error) {
		var m ordering.MenuItem
		err := row.Scan(&m.ID, &m.CategoryID, &m.Name, &m.Description, &m.Price, &m.Available, &m.ImageURL,
			&m.Position, &m.CreatedAt, &m.UpdatedAt)
		m.CreatedAt, m.UpdatedAt = m.CreatedAt.UTC(), m.UpdatedAt.UTC()
		return m, err
	})
	if err != nil {
		return nil, ordErr("list menu items", err)
	}
	return out, nil
}

const putMenuItemSQL = `INSERT INTO ordering_menu_items (id, category_id, name, description, price, available,
		image_url, position, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
	ON CONFLICT (id) DO UPDATE SET category_id = excluded.category_id, name = excluded.name,
		description = excluded.description, price = excluded.price, available = excluded.available,
		image_url = excluded.image_url, position = excluded.position, updated_at = excluded.updated_at`

// PutMenuItem creates or replaces an item of an existing category.
func (s *Store) PutMenuItem(ctx context.Context, m ordering.MenuItem) error {
	_, err := s.pool.Exec(ctx, putMenuItemSQL,
		m.ID, m.CategoryID, m.Name, m.Description, m.Price, m.Available, m.ImageURL, m.Position, m.CreatedAt, m.UpdatedAt)
	if _, ok := foreignKeyViolation(err); ok {
		return ordErr("put menu item", ordering.ErrCategoryNotFound)
	}
	if err != nil {
		return ordErr("put menu item", err)
	}
	return nil
}

// DeleteMenuItem removes an item.
func (s *Store) DeleteMenuItem(ctx context.Context, id string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM ordering_menu_items WHERE id = $1`, id)
	if err != nil {
		return ordErr("delete menu item", err)
	}
	if tag.RowsAffected() == 0 {
		return ordErr("delete menu item", ordering.ErrMenuItemNotFound)
	}
	return nil
}
