package console

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// mountBackOffice serves the shop's back-office pages (point of sale,
// payments, menu, settings, ledger, users, bans) under /console/shop/.
func (c *console) mountBackOffice(r chi.Router, cop *http.CrossOriginProtection) {}
