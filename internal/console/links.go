package console

import (
	"net/http"

	"github.com/go-chi/chi/v5"
)

// mountLinks serves the marketers' pages under /console/links/.
func (c *console) mountLinks(r chi.Router, cop *http.CrossOriginProtection) {}
