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

// officeCategoryForm is a category's form as typed.
type officeCategoryForm struct{ ID, Name, Position string }

// officeItemForm is a menu item's form as typed.
type officeItemForm struct {
	ID, CategoryID, Name, Description, Price, ImageURL, Position string
	Available                                                    bool
}

// officeCategoryRow is a category on the menu page: as stored, its form (the
// typed values after a refused change, Open then) and its items.
type officeCategoryRow struct {
	Category ord.Category
	Form     officeCategoryForm
	Open     bool
	Items    []officeItemRow
}

// officeItemRow is an item on the menu page, as officeCategoryRow.
type officeItemRow struct {
	Item ord.MenuItem
	Form officeItemForm
	Open bool
}

// officeMenuView is the menu page's data.
type officeMenuView struct {
	office
	Categories  []officeCategoryRow
	NewCategory officeCategoryForm
	NewItem     officeItemForm
	// Import is the report of the CSV just imported (or refused).
	Import        *ord.ImportReport
	ImportRefused bool
	// editCategory and editItem are a refused change, shown in its row.
	editCategory *officeCategoryForm
	editItem     *officeItemForm
}

// ImportColumns names the columns of a menu CSV.
func (officeMenuView) ImportColumns() string { return strings.Join(ord.ImportColumns, ", ") }

// officeItemFields is what the template of an item's fields gets: the page's
// view (its texts), the form and the categories to choose from.
type officeItemFields struct {
	view
	Form       officeItemForm
	Categories []officeCategoryRow
}

// Fields returns the data of an item form's fields.
func (mv officeMenuView) Fields(v view, f officeItemForm) officeItemFields {
	return officeItemFields{v, f, mv.Categories}
}

// newOfficeItemForm is the empty item form: available.
var newOfficeItemForm = officeItemForm{Available: true}

// officeMenuPage serves GET /console/shop/menu.
func (c *console) officeMenuPage(w http.ResponseWriter, r *http.Request) {
	c.renderOfficeMenu(w, r, http.StatusOK, officeMenuView{NewItem: newOfficeItemForm}, nil)
}

// renderOfficeMenu renders the menu page: every category and item (available or
// not) with its form, and err, if any.
func (c *console) renderOfficeMenu(w http.ResponseWriter, r *http.Request, status int, mv officeMenuView, err error) {
	mv.office = c.newOffice(r.Context())
	m, merr := c.ordering.Service.Menu(r.Context(), false)
	if err == nil {
		err = merr
	}
	for _, sec := range m.Categories {
		row := officeCategoryRow{Category: sec.Category, Form: officeCategoryForm{ID: sec.ID, Name: sec.Name, Position: strconv.Itoa(sec.Position)}}
		if e := mv.editCategory; e != nil && e.ID == sec.ID {
			row.Form, row.Open = *e, true
		}
		for _, it := range sec.Items {
			ir := officeItemRow{Item: it, Form: officeItemForm{ID: it.ID, CategoryID: it.CategoryID, Name: it.Name, Description: it.Description,
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

// errOfficePosition refuses a position that is not a whole number.
var errOfficePosition = officeFormError("position must be a whole number")

// officeCategoryFromForm reads a category form.
func officeCategoryFromForm(r *http.Request, id string) (officeCategoryForm, ord.CategoryInput, error) {
	f := officeCategoryForm{ID: id, Name: r.PostFormValue("name"), Position: strings.TrimSpace(r.PostFormValue("position"))}
	pos, ok := officeWhole(f.Position)
	if !ok {
		return f, ord.CategoryInput{}, errOfficePosition
	}
	return f, ord.CategoryInput{Name: f.Name, Position: int(pos)}, nil
}

// officeCreateCategory serves POST /console/shop/menu/categories (name,
// position).
func (c *console) officeCreateCategory(w http.ResponseWriter, r *http.Request) {
	f, in, err := officeCategoryFromForm(r, "")
	if err == nil {
		_, err = c.ordering.Service.CreateCategory(r.Context(), in)
	}
	if err != nil {
		c.renderOfficeMenu(w, r, apperr.KindOf(err).Status(), officeMenuView{NewCategory: f, NewItem: newOfficeItemForm}, err)
		return
	}
	http.Redirect(w, r, "/console/shop/menu", http.StatusSeeOther)
}

// officeUpdateCategory serves POST /console/shop/menu/categories/{id}.
func (c *console) officeUpdateCategory(w http.ResponseWriter, r *http.Request) {
	f, in, err := officeCategoryFromForm(r, chi.URLParam(r, "id"))
	if err == nil {
		_, err = c.ordering.Service.UpdateCategory(r.Context(), f.ID, in)
	}
	if err != nil {
		c.renderOfficeMenu(w, r, apperr.KindOf(err).Status(), officeMenuView{NewItem: newOfficeItemForm, editCategory: &f}, err)
		return
	}
	http.Redirect(w, r, "/console/shop/menu", http.StatusSeeOther)
}

// officeDeleteCategory serves POST /console/shop/menu/categories/{id}/delete: an
// empty category only (the service's rule).
func (c *console) officeDeleteCategory(w http.ResponseWriter, r *http.Request) {
	if err := c.ordering.Service.DeleteCategory(r.Context(), chi.URLParam(r, "id")); err != nil {
		c.renderOfficeMenu(w, r, apperr.KindOf(err).Status(), officeMenuView{NewItem: newOfficeItemForm}, err)
		return
	}
	http.Redirect(w, r, "/console/shop/menu", http.StatusSeeOther)
}

// errOfficePrice refuses a price that is not a whole number.
var errOfficePrice = officeFormError("price must be a whole number of rupiah")

// officeItemFromForm reads an item form.
func officeItemFromForm(r *http.Request, id string) (officeItemForm, ord.MenuItem, error) {
	f := officeItemForm{ID: id, CategoryID: r.PostFormValue("category"), Name: r.PostFormValue("name"),
		Description: r.PostFormValue("description"), Price: strings.TrimSpace(r.PostFormValue("price")),
		ImageURL: r.PostFormValue("image_url"), Position: strings.TrimSpace(r.PostFormValue("position")),
		Available: r.PostFormValue("available") != ""}
	price, ok := officeWhole(f.Price)
	if !ok || f.Price == "" {
		return f, ord.MenuItem{}, errOfficePrice
	}
	pos, ok := officeWhole(f.Position)
	if !ok {
		return f, ord.MenuItem{}, errOfficePosition
	}
	return f, ord.MenuItem{CategoryID: f.CategoryID, Name: f.Name, Description: f.Description, Price: price,
		Available: f.Available, ImageURL: f.ImageURL, Position: int(pos)}, nil
}

// officeCreateItem serves POST /console/shop/menu/items (category, name,
// description, price, available, image_url, position).
func (c *console) officeCreateItem(w http.ResponseWriter, r *http.Request) {
	f, m, err := officeItemFromForm(r, "")
	if err == nil {
		_, err = c.ordering.Service.CreateMenuItem(r.Context(), m)
	}
	if err != nil {
		c.renderOfficeMenu(w, r, apperr.KindOf(err).Status(), officeMenuView{NewItem: f}, err)
		return
	}
	http.Redirect(w, r, "/console/shop/menu", http.StatusSeeOther)
}

// officeUpdateItem serves POST /console/shop/menu/items/{id}: the whole item.
func (c *console) officeUpdateItem(w http.ResponseWriter, r *http.Request) {
	f, m, err := officeItemFromForm(r, chi.URLParam(r, "id"))
	if err == nil {
		_, err = c.ordering.Service.UpdateMenuItem(r.Context(), f.ID, m)
	}
	if err != nil {
		c.renderOfficeMenu(w, r, apperr.KindOf(err).Status(), officeMenuView{NewItem: newOfficeItemForm, editItem: &f}, err)
		return
	}
	http.Redirect(w, r, "/console/shop/menu", http.StatusSeeOther)
}

// officeDeleteItem serves POST /console/shop/menu/items/{id}/delete.
func (c *console) officeDeleteItem(w http.ResponseWriter, r *http.Request) {
	if err := c.ordering.Service.DeleteMenuItem(r.Context(), chi.URLParam(r, "id")); err != nil {
		c.renderOfficeMenu(w, r, apperr.KindOf(err).Status(), officeMenuView{NewItem: newOfficeItemForm}, err)
		return
	}
	http.Redirect(w, r, "/console/shop/menu", http.StatusSeeOther)
}

// officeImportMenu serves POST /console/shop/menu/import (multipart, file): the
// CSV through ImportMenu, all rows or none, with its report.
func (c *console) officeImportMenu(w http.ResponseWriter, r *http.Request) {
	mv := officeMenuView{NewItem: newOfficeItemForm}
	f, _, err := r.FormFile("file")
	if err != nil {
		c.renderOfficeMenu(w, r, http.StatusBadRequest, mv, officeFormError("choose a CSV file to import"))
		return
	}
	defer f.Close()
	rep, err := c.ordering.Service.ImportMenu(r.Context(), f)
	var refused *ord.ImportFailedError
	if errors.As(err, &refused) {
		mv.Import, mv.ImportRefused = &refused.Report, true
	}
	if err != nil {
		c.renderOfficeMenu(w, r, apperr.KindOf(err).Status(), mv, err)
		return
	}
	mv.Import = &rep
	c.renderOfficeMenu(w, r, http.StatusOK, mv, nil)
}
