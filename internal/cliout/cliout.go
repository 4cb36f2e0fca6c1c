// Package cliout is the output of the command-line tools (portal admin,
// linkctl): a result as an aligned table for people or as JSON for
// scripts, a table on a terminal and JSON otherwise unless told.
package cliout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"
)

// Output formats.
const (
	Auto  = ""      // a table on a terminal, JSON otherwise
	Table = "table" // aligned columns
	JSON  = "json"  // indented JSON
)

// IsTerminal reports whether w is a terminal (not merely a character
// device: /dev/null is not one).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Printer writes a command's result as a table or as JSON.
type Printer struct {
	w      io.Writer
	format string // Table or JSON
}

// NewPrinter returns a Printer for format, resolving Auto by whether w is a
// terminal.
func NewPrinter(w io.Writer, format string) *Printer {
	if format == Auto {
		format = JSON
		if IsTerminal(w) {
			format = Table
		}
	}
	return &Printer{w: w, format: format}
}

// JSON reports whether the printer writes JSON.
func (p *Printer) JSON() bool { return p.format == JSON }

// Print writes v as indented JSON, or calls writeTable to write a table.
func (p *Printer) Print(v any, writeTable func(t *Rows)) error {
	if p.JSON() {
		enc := json.NewEncoder(p.w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	t := &Rows{tw: tabwriter.NewWriter(p.w, 0, 4, 2, ' ', 0)}
	writeTable(t)
	return t.tw.Flush()
}

// Done reports a change: JSON v, or a sentence in table mode.
func (p *Printer) Done(v any, format string, args ...any) error {
	return p.Print(v, func(t *Rows) { fmt.Fprintf(t.tw, format+"\n", args...) })
}

// Rows writes aligned columns.
type Rows struct{ tw *tabwriter.Writer }

// Row writes one row, each cell formatted by Cell.
func (t *Rows) Row(cells ...any) {
	s := make([]string, len(cells))
	for i, c := range cells {
		s[i] = Cell(c)
	}
	fmt.Fprintln(t.tw, strings.Join(s, "\t"))
}

// Cell formats one table cell: times in UTC RFC 3339, booleans as yes/no,
// nil, zero times and empty strings as "-", lists joined by commas, no tabs
// or new lines inside.
func Cell(v any) string {
	var s string
	switch x := v.(type) {
	case nil:
		s = "-"
	case string:
		s = x
	case time.Time:
		s = formatTime(x)
	case *time.Time:
		if x != nil {
			s = formatTime(*x)
		}
	case bool:
		s = map[bool]string{true: "yes", false: "no"}[x]
	case []string:
		s = strings.Join(x, ",")
	case []int64:
		parts := make([]string, len(x))
		for i, n := range x {
			parts[i] = fmt.Sprint(n)
		}
		s = strings.Join(parts, ",")
	default:
		s = fmt.Sprint(v)
	}
	if s == "" {
		return "-"
	}
	return strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(s)
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// NetworkError describes a request that never got an answer (the portal
// down, a wrong address, a timeout) in words for people; ok is false when
// err is not such an error.
func NetworkError(err error) (msg string, ok bool) {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return "", false
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("no answer from the portal at %s in time (--timeout)", hostOf(ue.URL)), true
	}
	return fmt.Sprintf("cannot reach the portal at %s: %v", hostOf(ue.URL), ue.Err), true
}

// hostOf returns the scheme and host of a URL string.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Scheme + "://" + u.Host
}
