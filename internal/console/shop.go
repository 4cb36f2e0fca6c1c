package console

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// mountShop serves the shop's back office and storefront under
// /console/shop/.
func (c *console) mountShop(r chi.Router, cop *http.CrossOriginProtection) {}
