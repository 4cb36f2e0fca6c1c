package linkctl

import (
	"io"

	"github.com/seedhq/portal/internal/cliout"
)

// printer and table are the shared command-line output (internal/cliout).
type (
	printer = cliout.Printer
	table   = cliout.Rows
)

// newPrinter resolves the auto format: a table on a terminal, JSON
// otherwise.
func newPrinter(w io.Writer, format string) *printer { return cliout.NewPrinter(w, format) }

// idResult is the JSON result of a creation that returns only an id.
type idResult struct {
	ID int64 `json:"id"`
}

// shortURLResult is the JSON result of creating or updating a short link:
// the API answers its id and short URL only.
type shortURLResult struct {
	ID       int64  `json:"id"`
	ShortURL string `json:"shorturl"`
}

// okResult is the JSON result of an update or a deletion.
type okResult struct {
	ID      int64  `json:"id"`
	Message string `json:"message"`
}
