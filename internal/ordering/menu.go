package ordering

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seedhq/portal/internal/apperr"
)

// Category is a section of the menu ("Coffee", "Snacks").
type Category struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Position  int       `json:"position"`
	CreatedAt time.Time `json:"createdAt"`
}

// MenuItem is a dish or drink. Price is in the smallest unit of the
// currency (rupiah: no fraction), as every amount of this API.
type MenuItem struct {
	ID          string    `json:"id"`
	CategoryID  string    `json:"categoryId"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Price       int64     `json:"price"`
	Available   bool      `json:"available"`
	ImageURL    string    `json:"imageUrl"`
	Position    int       `json:"position"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// Menu limits.
const (
	MaxNameLen        = 100
	MaxDescriptionLen = 1000
	MaxPrice          = 100_000_000 // 100 million rupiah: a typing mistake beyond
	MaxImageURLLen    = 2048
)

// Errors of the menu.
var (
	ErrCategoryNotFound = apperr.New(apperr.NotFound, "CATEGORY_NOT_FOUND", "no such menu category")
	ErrMenuItemNotFound = apperr.New(apperr.NotFound, "MENU_ITEM_NOT_FOUND", "no such menu item")
	ErrCategoryNotEmpty = apperr.New(apperr.Conflict, "CATEGORY_NOT_EMPTY", "the category still has items: move or delete them first")
)

func invalidMenu(format string, args ...any) error {
	return apperr.Errorf(apperr.Invalid, "INVALID_MENU_ITEM", format, args...)
}

// validName checks a required name of at most MaxNameLen characters.
func validName(what, s string) error {
	switch n := utf8.RuneCountInString(strings.TrimSpace(s)); {
	case n == 0:
		return invalidMenu("%s is required", what)
	case n > MaxNameLen:
		return invalidMenu("%s is longer than %d characters", what, MaxNameLen)
	}
	return nil
}

// Validate checks an item as it is to be stored.
func (m *MenuItem) Validate() error {
	m.Name, m.Description, m.ImageURL = strings.TrimSpace(m.Name), strings.TrimSpace(m.Description), strings.TrimSpace(m.ImageURL)
	if err := validName("name", m.Name); err != nil {
		return err
	}
	if utf8.RuneCountInString(m.Description) > MaxDescriptionLen {
		return invalidMenu("description is longer than %d characters", MaxDescriptionLen)
	}
	if m.Price < 0 || m.Price > MaxPrice {
		return invalidMenu("price must be an integer amount of rupiah from 0 to %d", MaxPrice)
	}
	if m.CategoryID == "" {
		return invalidMenu("categoryId is required")
	}
	if m.ImageURL != "" {
		u, err := url.Parse(m.ImageURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || len(m.ImageURL) > MaxImageURLLen {
			return invalidMenu("imageUrl must be an http(s) URL of at most %d characters", MaxImageURLLen)
		}
	}
	return nil
}

// Menu is the catalogue as customers browse it: categories in order, each
// with its items in order.
type Menu struct {
	Categories []MenuSection `json:"categories"`
}

// MenuSection is a category with its items.
type MenuSection struct {
	Category
	Items []MenuItem `json:"items"`
}

// Menu returns the catalogue; with availableOnly, the items that can be
// ordered now.
func (s *Service) Menu(ctx context.Context, availableOnly bool) (Menu, error) {
	cats, err := s.store.ListCategories(ctx)
	if err != nil {
		return Menu{}, fmt.Errorf("menu: %w", err)
	}
	items, err := s.store.ListMenuItems(ctx)
	if err != nil {
		return Menu{}, fmt.Errorf("menu: %w", err)
	}
	m := Menu{Categories: make([]MenuSection, len(cats))}
	index := make(map[string]int, len(cats))
	for i, c := range cats {
		m.Categories[i] = MenuSection{Category: c, Items: []MenuItem{}}
		index[c.ID] = i
	}
	for _, it := range items {
		if availableOnly && !it.Available {
			continue
		}
		if i, ok := index[it.CategoryID]; ok {
			m.Categories[i].Items = append(m.Categories[i].Items, it)
		}
	}
	return m, nil
}

// CategoryInput is a category as an admin writes it.
type CategoryInput struct {
	Name     string
	Position int
}

// CreateCategory adds a category.
func (s *Service) CreateCategory(ctx context.Context, in CategoryInput) (Category, error) {
	if err := validName("name", in.Name); err != nil {
		return Category{}, err
	}
	c := Category{ID: newID(), Name: strings.TrimSpace(in.Name), Position: in.Position, CreatedAt: s.cfg.Now().UTC()}
	if err := s.store.PutCategory(ctx, c); err != nil {
		return Category{}, fmt.Errorf("create category: %w", err)
	}
	return c, nil
}

// UpdateCategory renames or moves the category id.
func (s *Service) UpdateCategory(ctx context.Context, id string, in CategoryInput) (Category, error) {
	if err := validName("name", in.Name); err != nil {
		return Category{}, err
	}
	cats, err := s.store.ListCategories(ctx)
	if err != nil {
		return Category{}, fmt.Errorf("update category: %w", err)
	}
	for _, c := range cats {
		if c.ID == id {
			c.Name, c.Position = strings.TrimSpace(in.Name), in.Position
			if err := s.store.PutCategory(ctx, c); err != nil {
				return Category{}, fmt.Errorf("update category: %w", err)
			}
			return c, nil
		}
	}
	return Category{}, ErrCategoryNotFound
}

// DeleteCategory removes an empty category.
func (s *Service) DeleteCategory(ctx context.Context, id string) error {
	return s.store.DeleteCategory(ctx, id)
}

// CreateMenuItem adds an item to the menu.
func (s *Service) CreateMenuItem(ctx context.Context, m MenuItem) (MenuItem, error) {
	if err := m.Validate(); err != nil {
		return MenuItem{}, err
	}
	now := s.cfg.Now().UTC()
	m.ID, m.CreatedAt, m.UpdatedAt = newID(), now, now
	if err := s.store.PutMenuItem(ctx, m); err != nil {
		return MenuItem{}, err
	}
	return m, nil
}

// UpdateMenuItem replaces the item id's fields with m's.
func (s *Service) UpdateMenuItem(ctx context.Context, id string, m MenuItem) (MenuItem, error) {
	if err := m.Validate(); err != nil {
		return MenuItem{}, err
	}
	items, err := s.store.ListMenuItems(ctx)
	if err != nil {
		return MenuItem{}, fmt.Errorf("update menu item: %w", err)
	}
	for _, old := range items {
		if old.ID == id {
			m.ID, m.CreatedAt, m.UpdatedAt = id, old.CreatedAt, s.cfg.Now().UTC()
			if err := s.store.PutMenuItem(ctx, m); err != nil {
				return MenuItem{}, err
			}
			return m, nil
		}
	}
	return MenuItem{}, ErrMenuItemNotFound
}

// DeleteMenuItem removes an item; orders keep their own copy of it.
func (s *Service) DeleteMenuItem(ctx context.Context, id string) error {
	return s.store.DeleteMenuItem(ctx, id)
}
