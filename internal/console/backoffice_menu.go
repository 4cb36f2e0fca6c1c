package console

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	ord "github.com/seedhq/portal/internal/ordering"
)

// categoryForm is a category's form as typed.
type categoryForm struct{ ID, Name, Position string }

// itemForm is a menu item's form as typed.
type itemForm struct {
	ID, CategoryID, Name, Description, Price, ImageURL, Position string
	Available                                                    bool
}

// categoryRow is a category on the menu page: as stored, its form (the
// typed values after a refused change, Open then) and its items.
type categoryRow struct {
	Category ord.Category
	Form     categoryForm
	Open     bool
	Items    []itemRow
}

// itemRow is an item on the menu page, as categoryRow.
type itemRow struct {
	Item ord.MenuItem
	Form itemForm
	Open bool
}

// menuView is the menu page's data.
type menuView struct {
	office
	Categories  []categoryRow
	NewCategory categoryForm
	NewItem     itemForm
	// Import is the report of the CSV just imported (or refused).
	Import        *ord.ImportReport
	ImportRefused bool
	// editCategory and editItem are a refused change, shown in its row.
	editCategory *categoryForm
	editItem     *itemForm
}

// ImportColumns names the columns of a menu CSV.
func (menuView) ImportColumns() string { return strings.Join(ord.ImportColumns, ", ") }

// itemFields is what the template of an item's fields gets: the page's
// view (its texts), the form and the categories to choose from.
type itemFields struct {
	view
	Form       itemForm
	Categories []categoryRow
}

// Fields returns the data of an item form's fields.
func (mv menuView) Fields(v view, f itemForm) itemFields { return itemFields{v, f, mv.Categories} }

// newItemForm is the empty item form: available.
var newItemForm = itemForm{Available: true}

// menuPage serves GET /console/shop/menu.
func (c *console) menuPage(w http.ResponseWriter, r *http.Request) {
	c.renderMenu(w, r, http.StatusOK, menuView{NewItem: newItemForm}, nil)
}

// renderMenu renders the menu page: every category and item (available or
// not) with its form, and err, if any.
func (c *console) renderMenu(w http.ResponseWriter, r *http.Request, status int, mv menuView, err error) {
	mv.office = c.newOffice(r.Context())
	m, merr := c.ordering.Service.Menu(r.Context(), false)
	if err == nil {
		err = merr
	}
	for _, sec := range m.Categories {
		row := categoryRow{Category: sec.Category, Form: categoryForm{ID: sec.ID, Name: sec.Name, Position: strconv.Itoa(sec.Position)}}
		if e := mv.editCategory; e != nil && e.ID == sec.ID {
			row.Form, row.Open = *e, true
		}
		for _, it := range sec.Items {
			ir := itemRow{Item: it, Form: itemForm{ID: it.ID, CategoryID: it.CategoryID, Name: it.Name, Description: it.Description,
				Price: strconv.FormatInt(it.Price, 10), ImageURL: it.ImageURL, Position: strconv.Itoa(it.Position), Available: it.Available}}
			if e := mv.editItem; e != nil && e.ID == it.ID {
				ir.Form, ir.Open = *e, true
			}
			row.Items = append(row.Items, ir)
		}
		mv.Categories = append(mv.Categories, row)
	}
	c.officeRender(w, r, "office_menu", status, mv, err)
}

// errPosition refuses a position that is not a whole number.
var errPosition = formError("position must be a whole number")

// categoryFromForm reads a category form.
func categoryFromForm(r *http.Request, id string) (categoryForm, ord.CategoryInput, error) {
	f := categoryForm{ID: id, Name: r.PostFormValue("name"), Position: strings.TrimSpace(r.PostFormValue("position"))}
	pos, ok := parseWhole(f.Position)
	if !ok {
		return f, ord.CategoryInput{}, errPosition
	}
	return f, ord.CategoryInput{Name: f.Name, Position: int(pos)}, nil
}

// createCategory serves POST /console/shop/menu/categories (name,
// position).
func (c *console) createCategory(w http.ResponseWriter, r *http.Request) {
	f, in, err := categoryFromForm(r, "")
	if err == nil {
		_, err = c.ordering.Service.CreateCategory(r.Context(), in)
	}
	if err != nil {
		c.renderMenu(w, r, apperr.KindOf(err).Status(), menuView{NewCategory: f, NewItem: newItemForm}, err)
		return
	}
	http.Redirect(w, r, "/console/shop/menu", http.StatusSeeOther)
}

// updateCategory serves POST /console/shop/menu/categories/{id}.
func (c *console) updateCategory(w http.ResponseWriter, r *http.Request) {
	f, in, err := categoryFromForm(r, chi.URLParam(r, "id"))
	if err == nil {
		_, err = c.ordering.Service.UpdateCategory(r.Context(), f.ID, in)
	}
	if err != nil {
		c.renderMenu(w, r, apperr.KindOf(err).Status(), menuView{NewItem: newItemForm, editCategory: &f}, err)
		return
	}
	http.Redirect(w, r, "/console/shop/menu", http.StatusSeeOther)
}

// deleteCategory serves POST /console/shop/menu/categories/{id}/delete: an
// empty category only (the service's rule).
func (c *console) deleteCategory(w http.ResponseWriter, r *http.Request) {
	if err := c.ordering.Service.DeleteCategory(r.Context(), chi.URLParam(r, "id")); err != nil {
		c.renderMenu(w, r, apperr.KindOf(err).Status(), menuView{NewItem: newItemForm}, err)
		return
	}
	http.Redirect(w, r, "/console/shop/menu", http.StatusSeeOther)
}

// errPrice refuses a price that is not a whole number.
var errPrice = formError("price must be a whole number of rupiah")

// itemFromForm reads an item form.
func itemFromForm(r *http.Request, id string) (itemForm, ord.MenuItem, error) {
	f := itemForm{ID: id, CategoryID: r.PostFormValue("category"), Name: r.PostFormValue("name"),
		Description: r.PostFormValue("description"), Price: strings.TrimSpace(r.PostFormValue("price")),
		ImageURL: r.PostFormValue("image_url"), Position: strings.TrimSpace(r.PostFormValue("position")),
		Available: r.PostFormValue("available") != ""}
	price, ok := parseWhole(f.Price)
	if !ok || f.Price == "" {
		return f, ord.MenuItem{}, errPrice
	}
	pos, ok := parseWhole(f.Position)
	if !ok {
		return f, ord.MenuItem{}, errPosition
	}
	return f, ord.MenuItem{CategoryID: f.CategoryID, Name: f.Name, Description: f.Description, Price: price,
		Available: f.Available, ImageURL: f.ImageURL, Position: int(pos)}, nil
}

// createItem serves POST /console/shop/menu/items (category, name,
// description, price, available, image_url, position).
func (c *console) createItem(w http.ResponseWriter, r *http.Request) {
	f, m, err := itemFromForm(r, "")
	if err == nil {
		_, err = c.ordering.Service.CreateMenuItem(r.Context(), m)
	}
	if err != nil {
		c.renderMenu(w, r, apperr.KindOf(err).Status(), menuView{NewItem: f}, err)
		return
	}
	http.Redirect(w, r, "/console/shop/menu", http.StatusSeeOther)
}

// updateItem serves POST /console/shop/menu/items/{id}: the whole item.
func (c *console) updateItem(w http.ResponseWriter, r *http.Request) {
	f, m, err := itemFromForm(r, chi.URLParam(r, "id"))
	if err == nil {
		_, err = c.ordering.Service.UpdateMenuItem(r.Context(), f.ID, m)
	}
	if err != nil {
		c.renderMenu(w, r, apperr.KindOf(err).Status(), menuView{NewItem: newItemForm, editItem: &f}, err)
		return
	}
	http.Redirect(w, r, "/console/shop/menu", http.StatusSeeOther)
}

// deleteItem serves POST /console/shop/menu/items/{id}/delete.
func (c *console) deleteItem(w http.ResponseWriter, r *http.Request) {
	if err := c.ordering.Service.DeleteMenuItem(r.Context(), chi.URLParam(r, "id")); err != nil {
		c.renderMenu(w, r, apperr.KindOf(err).Status(), menuView{NewItem: newItemForm}, err)
		return
	}
	http.Redirect(w, r, "/console/shop/menu", http.StatusSeeOther)
}

// importMenu serves POST /console/shop/menu/import (multipart, file): the
// CSV through ImportMenu, all rows or none, with its report.
func (c *console) importMenu(w http.ResponseWriter, r *http.Request) {
	mv := menuView{NewItem: newItemForm}
	f, _, err := r.FormFile("file")
	if err != nil {
		c.renderMenu(w, r, http.StatusBadRequest, mv, formError("choose a CSV file to import"))
		return
	}
	defer f.Close()
	rep, err := c.ordering.Service.ImportMenu(r.Context(), f)
	var refused *ord.ImportFailedError
	if errors.As(err, &refused) {
		mv.Import, mv.ImportRefused = &refused.Report, true
	}
	if err != nil {
		c.renderMenu(w, r, apperr.KindOf(err).Status(), mv, err)
		return
	}
	mv.Import = &rep
	c.renderMenu(w, r, http.StatusOK, mv, nil)
}
