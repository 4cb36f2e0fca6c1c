package ordering

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/httpapi/respond"
	ord "github.com/seedhq/portal/internal/ordering"
)

type menuResponse struct {
	Success bool `json:"success"`
	ord.Menu
}

// menu serves GET /api/menu (every signed-in role): the catalogue by
// category; customers see the items they can order now, the staff every
// item with its availability.
func (a *api) menu(w http.ResponseWriter, r *http.Request) {
	m, err := a.svc.Menu(r.Context(), userFrom(r.Context()).Role == ord.RoleCustomer)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, menuResponse{Success: true, Menu: m})
}

type categoryRequest struct {
	Name     string `json:"name"`
	Position int    `json:"position"`
}

type categoryResponse struct {
	Success  bool         `json:"success"`
	Category ord.Category `json:"category"`
}

// createCategory serves POST /api/menu/categories (ADMIN, OWNER).
func (a *api) createCategory(w http.ResponseWriter, r *http.Request) {
	var req categoryRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	c, err := a.svc.CreateCategory(r.Context(), ord.CategoryInput{Name: req.Name, Position: req.Position})
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusCreated, categoryResponse{Success: true, Category: c})
}

// updateCategory serves PUT /api/menu/categories/{id} (ADMIN, OWNER).
func (a *api) updateCategory(w http.ResponseWriter, r *http.Request) {
	var req categoryRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	c, err := a.svc.UpdateCategory(r.Context(), chi.URLParam(r, "id"), ord.CategoryInput{Name: req.Name, Position: req.Position})
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, categoryResponse{Success: true, Category: c})
}

// deleteCategory serves DELETE /api/menu/categories/{id} (ADMIN, OWNER):
// only an empty category.
func (a *api) deleteCategory(w http.ResponseWriter, r *http.Request) {
	if err := a.svc.DeleteCategory(r.Context(), chi.URLParam(r, "id")); err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, okResponse{Success: true, Message: "The category has been deleted."})
}

// menuItemRequest is a menu item as an admin writes it.
type menuItemRequest struct {
	CategoryID  string `json:"categoryId"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Price       int64  `json:"price"`
	Available   *bool  `json:"available"`
	ImageURL    string `json:"imageUrl"`
	Position    int    `json:"position"`
}

func (req menuItemRequest) item() ord.MenuItem {
	available := req.Available == nil || *req.Available
	return ord.MenuItem{CategoryID: req.CategoryID, Name: req.Name, Description: req.Description, Price: req.Price,
		Available: available, ImageURL: req.ImageURL, Position: req.Position}
}

type menuItemResponse struct {
	Success bool         `json:"success"`
	Item    ord.MenuItem `json:"item"`
}

// createMenuItem serves POST /api/menu/items (ADMIN, OWNER); available
// defaults to true.
func (a *api) createMenuItem(w http.ResponseWriter, r *http.Request) {
	var req menuItemRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	m, err := a.svc.CreateMenuItem(r.Context(), req.item())
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusCreated, menuItemResponse{Success: true, Item: m})
}

// updateMenuItem serves PUT /api/menu/items/{id} (ADMIN, OWNER): the whole
// item.
func (a *api) updateMenuItem(w http.ResponseWriter, r *http.Request) {
	var req menuItemRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	m, err := a.svc.UpdateMenuItem(r.Context(), chi.URLParam(r, "id"), req.item())
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, menuItemResponse{Success: true, Item: m})
}

// deleteMenuItem serves DELETE /api/menu/items/{id} (ADMIN, OWNER).
func (a *api) deleteMenuItem(w http.ResponseWriter, r *http.Request) {
	if err := a.svc.DeleteMenuItem(r.Context(), chi.URLParam(r, "id")); err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, okResponse{Success: true, Message: "The menu item has been deleted."})
}

type settingsResponse struct {
	Success  bool         `json:"success"`
	Settings ord.Settings `json:"settings"`
}

// settings serves GET /api/settings (ADMIN, OWNER).
func (a *api) settings(w http.ResponseWriter, r *http.Request) {
	st, err := a.svc.Settings(r.Context())
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, settingsResponse{Success: true, Settings: st})
}

// putSettings serves PUT /api/settings (ADMIN, OWNER): the whole settings.
func (a *api) putSettings(w http.ResponseWriter, r *http.Request) {
	var st ord.Settings
	if err := respond.Decode(r, &st); err != nil {
		a.writeError(w, r, err)
		return
	}
	st, err := a.svc.SetSettings(r.Context(), st)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, settingsResponse{Success: true, Settings: st})
}
