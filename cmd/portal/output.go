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
	// outputCSV streams CSV; only commands annotated with csvOutput take it.
	outputCSV = "csv"
)

// csvOutput is the annotation of the commands that take --output csv.
const csvOutput = "output-csv"

// printer and table are the shared command-line output (internal/cliout).
type (
	printer = cliout.Printer
	table   = cliout.Rows
)

// newPrinter resolves the auto format: a table on a terminal, JSON otherwise.
func newPrinter(w io.Writer, format string) *printer { return cliout.NewPrinter(w, format) }
