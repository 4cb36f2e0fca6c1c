package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/ordering"
)

func testOrderingMenu(t *testing.T, s ordering.Store) {
	ctx := t.Context()
	drinks := ordering.Category{ID: "c-drinks", Name: "Drinks", Position: 2, CreatedAt: ordT0}
	food := ordering.Category{ID: "c-food", Name: "Food", Position: 1, CreatedAt: ordT0}
	mustOK(t, "PutCategory", s.PutCategory(ctx, drinks))
	mustOK(t, "PutCategory", s.PutCategory(ctx, food))
	cats, err := s.ListCategories(ctx)
	mustOK(t, "ListCategories", err)
	check(t, "categories", cats, []ordering.Category{food, drinks})

	tea := ordering.MenuItem{ID: "m-tea", CategoryID: "c-drinks", Name: "Teh manis", Price: 5000, Available: true, CreatedAt: ordT0, UpdatedAt: ordT0}
	rice := ordering.MenuItem{ID: "m-rice", CategoryID: "c-food", Name: "Nasi goreng", Description: "pedas", Price: 25000, Available: true,
		ImageURL: "https://img.example/r.jpg", Position: 1, CreatedAt: ordT0, UpdatedAt: ordT0}
	mustOK(t, "PutMenuItem", s.PutMenuItem(ctx, tea))
	mustOK(t, "PutMenuItem", s.PutMenuItem(ctx, rice))
	if err := s.PutMenuItem(ctx, ordering.MenuItem{ID: "m-x", CategoryID: "nope", Name: "x", CreatedAt: ordT0, UpdatedAt: ordT0}); !errors.Is(err, ordering.ErrCategoryNotFound) {
		t.Fatalf("PutMenuItem in a missing category: %v", err)
	}
	tea.Available, tea.Price, tea.UpdatedAt = false, 6000, ordT0.Add(time.Hour)
	mustOK(t, "PutMenuItem update", s.PutMenuItem(ctx, tea))
	items, err := s.ListMenuItems(ctx)
	mustOK(t, "ListMenuItems", err)
	check(t, "items (food first)", items, []ordering.MenuItem{rice, tea})
	st, ok, got, err := s.OrderInputs(ctx, []string{"m-rice", "nope"})
	mustOK(t, "OrderInputs", err)
	if ok {
		t.Fatalf("OrderInputs: settings %+v, want none set", st)
	}
	check(t, "order inputs", got, []ordering.MenuItem{rice})
	if err := s.DeleteCategory(ctx, "c-drinks"); !errors.Is(err, ordering.ErrCategoryNotEmpty) {
		t.Fatalf("DeleteCategory with items: %v", err)
	}
	mustOK(t, "DeleteMenuItem", s.DeleteMenuItem(ctx, "m-tea"))
	if err := s.DeleteMenuItem(ctx, "m-tea"); !errors.Is(err, ordering.ErrMenuItemNotFound) {
		t.Fatalf("DeleteMenuItem again: %v", err)
	}
	mustOK(t, "DeleteCategory", s.DeleteCategory(ctx, "c-drinks"))
	if err := s.DeleteCategory(ctx, "c-drinks"); !errors.Is(err, ordering.ErrCategoryNotFound) {
		t.Fatalf("DeleteCategory again: %v", err)
	}
}
