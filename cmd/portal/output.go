package main

import (
	"io"

	"github.com/seedhq/portal/internal/cliout"
)

// Output formats of the admin commands.
const (
	outputAuto  = cliout.Auto
	outputTable = cliout.Table
	outputJSON  = cliout.JSON
)

// printer and table are the shared command-line output (internal/cliout).
type (
	printer = cliout.Printer
	table   = cliout.Rows
)

// newPrinter resolves the auto format: a table on a terminal, JSON otherwise.
func newPrinter(w io.Writer, format string) *printer { return cliout.NewPrinter(w, format) }
