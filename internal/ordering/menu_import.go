package ordering

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/seedhq/portal/internal/apperr"
)

// MaxImportRows bounds a menu import.
const MaxImportRows = 5000

// ImportColumns are the columns of a menu CSV, in any order; category,
// name and price are required, available defaults to yes.
var ImportColumns = []string{"category", "name", "description", "price", "available", "image_url"}

// ImportReport is the outcome of a menu import.
type ImportReport struct {
	CategoriesCreated int           `json:"categoriesCreated"`
	ItemsCreated      int           `json:"itemsCreated"`
	ItemsUpdated      int           `json:"itemsUpdated"`
	Errors            []ImportError `json:"errors,omitempty"`
}

// ImportError is a refused row of a menu import.
type ImportError struct {
	Row     int    `json:"row"` // 1 is the header line
	Message string `json:"message"`
}

// ImportFailedError is returned when rows are refused: nothing was written.
type ImportFailedError struct{ Report ImportReport }

func (e *ImportFailedError) Error() string {
	return fmt.Sprintf("%d rows refused, nothing imported", len(e.Report.Errors))
}

// Unwrap returns the *apperr.Error of the refusal.
func (e *ImportFailedError) Unwrap() error {
	return apperr.Errorf(apperr.Unprocessable, "IMPORT_REFUSED", "%d rows refused, nothing imported", len(e.Report.Errors))
}

// ImportMenu reads a menu CSV (ImportColumns, with a header line) and
// creates or updates its categories and items in one transaction: a
// category by its name, an item by its category and name (case aside). A
// file with any bad row imports nothing and is an *ImportFailedError
// listing every bad row.
func (s *Service) ImportMenu(ctx context.Context, r io.Reader) (ImportReport, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return ImportReport{}, apperr.New(apperr.Invalid, "INVALID_CSV", "the file is empty or not CSV: the first line names the columns")
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	for _, req := range []string{"category", "name", "price"} {
		if _, ok := col[req]; !ok {
			return ImportReport{}, apperr.Errorf(apperr.Invalid, "INVALID_CSV", "the header lacks the column %q (columns: %s)", req, strings.Join(ImportColumns, ","))
		}
	}
	cats, err := s.store.ListCategories(ctx)
	if err != nil {
		return ImportReport{}, fmt.Errorf("import menu: %w", err)
	}
	items, err := s.store.ListMenuItems(ctx)
	if err != nil {
		return ImportReport{}, fmt.Errorf("import menu: %w", err)
	}
	catByName := map[string]Category{}
	for _, c := range cats {
		catByName[strings.ToLower(c.Name)] = c
	}
	itemByKey := map[string]MenuItem{}
	for _, it := range items {
		itemByKey[it.CategoryID+"\x00"+strings.ToLower(it.Name)] = it
	}
	now := s.cfg.Now().UTC()
	var rep ImportReport
	var newCats []Category
	var puts []MenuItem
	field := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	for row := 2; ; row++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			rep.Errors = append(rep.Errors, ImportError{row, "malformed CSV: " + err.Error()})
			break
		}
		if row-1 > MaxImportRows {
			rep.Errors = append(rep.Errors, ImportError{row, fmt.Sprintf("more than %d rows", MaxImportRows)})
			break
		}
		catName := field(rec, "category")
		if err := validName("category", catName); err != nil {
			rep.Errors = append(rep.Errors, ImportError{row, apperr.From(err).Message})
			continue
		}
		price, perr := strconv.ParseInt(field(rec, "price"), 10, 64)
		available := true
		switch strings.ToLower(field(rec, "available")) {
		case "", "yes", "y", "true", "1":
		case "no", "n", "false", "0":
			available = false
		default:
			rep.Errors = append(rep.Errors, ImportError{row, "available must be yes or no"})
			continue
		}
		if perr != nil {
			rep.Errors = append(rep.Errors, ImportError{row, "price must be a whole number of rupiah"})
			continue
		}
		c, ok := catByName[strings.ToLower(catName)]
		if !ok {
			c = Category{ID: newID(), Name: catName, Position: len(catByName), CreatedAt: now}
			catByName[strings.ToLower(catName)] = c
			newCats = append(newCats, c)
		}
		m := MenuItem{CategoryID: c.ID, Name: field(rec, "name"), Description: field(rec, "description"), Price: price,
			Available: available, ImageURL: field(rec, "image_url")}
		if err := m.Validate(); err != nil {
			rep.Errors = append(rep.Errors, ImportError{row, apperr.From(err).Message})
			continue
		}
		key := c.ID + "\x00" + strings.ToLower(m.Name)
		if old, ok := itemByKey[key]; ok {
			m.ID, m.CreatedAt, m.Position = old.ID, old.CreatedAt, old.Position
			rep.ItemsUpdated++
		} else {
			m.ID, m.CreatedAt, m.Position = newID(), now, len(itemByKey)
			rep.ItemsCreated++
		}
		m.UpdatedAt = now
		itemByKey[key] = m
		puts = append(puts, m)
	}
	if len(rep.Errors) > 0 {
		return rep, &ImportFailedError{Report: rep}
	}
	if err := s.store.ImportMenu(ctx, newCats, puts); err != nil {
		return ImportReport{}, fmt.Errorf("import menu: %w", err)
	}
	rep.CategoriesCreated = len(newCats)
	s.log.Info("ordering: menu imported", "categories", rep.CategoriesCreated, "created", rep.ItemsCreated, "updated", rep.ItemsUpdated)
	return rep, nil
}
