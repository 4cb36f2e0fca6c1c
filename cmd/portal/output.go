package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// Output formats of the admin commands.
const (
	outputAuto  = ""
	outputTable = "table"
	outputJSON  = "json"
)

// printer writes a command's result as a table (for people) or JSON (for
// scripts).
type printer struct {
	w      io.Writer
	format string // outputTable or outputJSON
}

// newPrinter resolves the auto format: a table on a terminal, JSON otherwise.
func newPrinter(w io.Writer, format string) *printer {
	if format == outputAuto {
		format = outputJSON
		if isTerminal(w) {
			format = outputTable
		}
	}
	return &printer{w: w, format: format}
}

// JSON reports whether the printer writes JSON.
func (p *printer) JSON() bool { return p.format == outputJSON }

// print writes v as indented JSON, or calls table to write a table.
func (p *printer) print(v any, writeTable func(t *table)) error {
	if p.JSON() {
		enc := json.NewEncoder(p.w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	t := &table{tw: tabwriter.NewWriter(p.w, 0, 4, 2, ' ', 0)}
	writeTable(t)
	return t.tw.Flush()
}

// table writes aligned columns.
type table struct{ tw *tabwriter.Writer }

// row writes one row; each cell is formatted with cell.
func (t *table) row(cells ...any) {
	s := make([]string, len(cells))
	for i, c := range cells {
		s[i] = cell(c)
	}
	fmt.Fprintln(t.tw, strings.Join(s, "\t"))
}

// cell formats one table cell: times in UTC RFC 3339, nil pointers as "-",
// and no tabs or new lines inside.
func cell(v any) string {
	var s string
	switch x := v.(type) {
	case nil:
		s = "-"
	case string:
		s = x
	case time.Time:
		if x.IsZero() {
			s = "-"
		} else {
			s = x.UTC().Format(time.RFC3339)
		}
	case *time.Time:
		if x == nil || x.IsZero() {
			s = "-"
		} else {
			s = x.UTC().Format(time.RFC3339)
		}
	case bool:
		s = map[bool]string{true: "yes", false: "no"}[x]
	case []string:
		s = strings.Join(x, ",")
	default:
		s = fmt.Sprint(x)
	}
	if s == "" {
		s = "-"
	}
	return strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s)
}
