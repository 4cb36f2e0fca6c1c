package linkctl

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// printer writes a command's result as a table (for people) or JSON (for
// scripts).
type printer struct {
	w      io.Writer
	format string // outputTable or outputJSON
}

// newPrinter resolves the auto format: a table on a terminal, JSON
// otherwise.
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

// print writes v as indented JSON, or calls writeTable to write a table.
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

// done reports a change: JSON v, or the sentence msg on a terminal.
func (p *printer) done(v any, format string, args ...any) error {
	return p.print(v, func(t *table) { fmt.Fprintf(t.tw, format+"\n", args...) })
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

// cell formats one table cell: empty as "-", no tabs or new lines inside.
func cell(v any) string {
	var s string
	switch x := v.(type) {
	case nil:
		s = "-"
	case string:
		s = x
	case bool:
		s = map[bool]string{true: "yes", false: "no"}[x]
	case []int64:
		parts := make([]string, len(x))
		for i, n := range x {
			parts[i] = fmt.Sprint(n)
		}
		s = strings.Join(parts, ",")
	default:
		s = fmt.Sprint(x)
	}
	if s == "" {
		s = "-"
	}
	return strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s)
}

// idResult is the JSON result of a creation that returns only an id.
type idResult struct {
	ID int64 `json:"id"`
}

// okResult is the JSON result of an update or a deletion.
type okResult struct {
	ID      int64  `json:"id"`
	Message string `json:"message"`
}
