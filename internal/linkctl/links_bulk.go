package linkctl

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/internal/cmdutil"
	"github.com/seedhq/portal/pkg/client"
)

// Columns of the links CSV. Import reads the writable ones; export writes
// them all, so that an export can be imported again.
var (
	importColumns   = []string{"url", "custom", "domain", "description", "expiry", "title", "password", "campaign", "pixels", "channels"}
	exportColumns   = []string{"id", "url", "custom", "domain", "description", "expiry", "title", "campaign", "pixels", "channels", "shorturl", "clicks", "unique_clicks", "password_protected", "date"}
	readOnlyColumns = map[string]bool{"id": true, "shorturl": true, "clicks": true, "unique_clicks": true, "password_protected": true, "date": true}
)

// importResult is the outcome of one CSV row.
type importResult struct {
	Row      int    `json:"row"` // line of the file, the header being 1
	URL      string `json:"url"`
	ID       int64  `json:"id,omitempty"`
	ShortURL string `json:"shorturl,omitempty"`
	Error    string `json:"error,omitempty"`
}

// linksImportOptions are the options of "links import".
type linksImportOptions struct {
	*Globals
	File string // "-" for stdin
	// now and sleep are the clock the import paces itself by: time.Now
	// and sleepCtx when nil. Tests replace them.
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
}

func newLinksImportCmd(g *Globals) *cobra.Command {
	o := &linksImportOptions{Globals: g}
	return &cobra.Command{
		Use:   "import FILE.csv",
		Short: "Create a short link for every row of a CSV file",
		Long: `Create a short link for every row of a CSV file ("-" for stdin) whose header
names its columns: url (required), custom, domain (a branded domain id),
description, expiry, title, password, campaign (an id), pixels and channels
(ids separated by ";"). The columns id, shorturl, clicks, unique_clicks,
password_protected and date of "links export" are ignored, so an export can
be imported again.

Each row is reported (a table on a terminal, JSON otherwise); a failed row
does not stop the import, but the exit status is 1 when any row failed. The
import keeps to the API's rate limit: it waits for X-RateLimit-Reset when
no request is left, and waits out 429 answers; with --no-wait it does not
wait but stops at the first 429 (exit 5), the rows before it created. On a
terminal a progress bar is drawn on stderr.

With --idempotency-key KEY, row N is created with the key KEY-row-N: an
import cut short (a lost connection, a crash) and run again with the same
file and key within 24 hours creates each row once, answering the rows
already created with their first answer.`,
		Args: exactArgs("FILE.csv"),
		RunE: g.apiRun(func(ctx context.Context, c *client.Client, args []string) error {
			o.File = args[0]
			return runLinksImport(ctx, o, c)
		}),
	}
}

// csvRow is one data row of an import with its line number.
type csvRow struct {
	line   int
	fields map[string]string
}

// readImportCSV reads the header and rows of an import file.
func readImportCSV(r io.Reader) ([]csvRow, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, cmdutil.Usagef("the CSV file is empty: it needs a header with at least the url column")
	}
	if err != nil {
		return nil, cmdutil.Usagef("CSV header: %v", err)
	}
	known := map[string]bool{}
	for _, c := range importColumns {
		known[c] = true
	}
	seen := map[string]bool{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		header[i] = h
		if !known[h] && !readOnlyColumns[h] {
			return nil, cmdutil.Usagef("CSV header: unknown column %q (known: %s)", h, strings.Join(importColumns, ", "))
		}
		if seen[h] {
			return nil, cmdutil.Usagef("CSV header: column %q twice", h)
		}
		seen[h] = true
	}
	if !seen["url"] {
		return nil, cmdutil.Usagef("CSV header: no url column")
	}
	var rows []csvRow
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, cmdutil.Usagef("CSV: %v", err)
		}
		line, _ := cr.FieldPos(0) // only after a record was read: FieldPos panics otherwise
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a blank line
		}
		f := map[string]string{}
		for i, v := range rec {
			if i < len(header) {
				f[header[i]] = strings.TrimSpace(v)
			}
		}
		rows = append(rows, csvRow{line: line, fields: f})
	}
	return rows, nil
}

// ids parses ids separated by ";" (or ",", or spaces).
func ids(s string) ([]int64, error) {
	var out []int64
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ',' || r == ' ' }) {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not an id", p)
		}
		out = append(out, n)
	}
	return out, nil
}

// request builds the creation request of a row.
func (r csvRow) request() (*client.LinkURLRequest, error) {
	f := r.fields
	req := &client.LinkURLRequest{URL: f["url"], Custom: f["custom"], Description: f["description"],
		Expiry: f["expiry"], Title: f["title"], Password: f["password"]}
	if req.URL == "" {
		return nil, errors.New("url is empty")
	}
	num := func(col string) (int64, error) {
		if f[col] == "" || f[col] == "0" {
			return 0, nil
		}
		n, err := strconv.ParseInt(f[col], 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%s %q is not an id", col, f[col])
		}
		return n, nil
	}
	var err error
	if req.Domain, err = num("domain"); err != nil {
		return nil, err
	}
	if req.Campaign, err = num("campaign"); err != nil {
		return nil, err
	}
	if req.Pixels, err = ids(f["pixels"]); err != nil {
		return nil, fmt.Errorf("pixels: %w", err)
	}
	if req.Channels, err = ids(f["channels"]); err != nil {
		return nil, fmt.Errorf("channels: %w", err)
	}
	return req, nil
}

// sleepCtx waits for d or the end of ctx.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pace waits, after an answer, until the rate-limit window resets (as now
// tells the time) when the answer said no request is left in it.
func pace(ctx context.Context, resp *client.Response, now func() time.Time, sleep func(context.Context, time.Duration) error) error {
	if resp == nil || resp.Rate.Limit == 0 || resp.Rate.Remaining > 0 || resp.Rate.Reset.IsZero() {
		return nil
	}
	if d := resp.Rate.Reset.Sub(now()); d > 0 {
		return sleep(ctx, d+100*time.Millisecond)
	}
	return nil
}

// runLinksImport creates the links of a CSV file, row by row.
func runLinksImport(ctx context.Context, o *linksImportOptions, c *client.Client) error {
	var in io.Reader = o.In
	if o.File != "-" {
		f, err := os.Open(o.File)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	rows, err := readImportCSV(in)
	if err != nil {
		return err
	}
	now, sleep := o.now, o.sleep
	if now == nil {
		now = time.Now
	}
	if sleep == nil {
		sleep = sleepCtx
	}
	bar := newProgress(o.ErrOut, len(rows))
	results := make([]importResult, 0, len(rows))
	failed := 0
	for _, row := range rows {
		res := importResult{Row: row.line, URL: row.fields["url"]}
		req, err := row.request()
		if err == nil {
			var l *client.LinkURL
			var resp *client.Response
			rowCtx := ctx
			if o.IdempotencyKey != "" {
				rowCtx = client.WithIdempotencyKey(ctx, fmt.Sprintf("%s-row-%d", o.IdempotencyKey, row.line))
			}
			l, resp, err = c.Links.URLs.Add(rowCtx, req)
			if err == nil {
				res.ID, res.ShortURL = l.ID, l.ShortURL
			}
			if ctx.Err() != nil {
				bar.finish()
				return ctx.Err()
			}
			if o.NoWait && errors.Is(err, client.ErrRateLimited) {
				// --no-wait: stop at the first 429 (exit 5); the rows
				// before it are created, the rest are not tried.
				bar.finish()
				return fmt.Errorf("row %d: %w (%d of %d rows created before it)", row.line, err, len(results)-failed, len(rows))
			}
			if !o.NoWait {
				if perr := pace(ctx, resp, now, sleep); perr != nil {
					bar.finish()
					return perr
				}
			}
		}
		if err != nil {
			res.Error = humanError(err)
			failed++
		}
		results = append(results, res)
		bar.add(err != nil)
	}
	bar.finish()
	perr := o.printer().Print(results, func(t *table) {
		t.Row("ROW", "URL", "ID", "SHORT URL", "ERROR")
		for _, r := range results {
			id := any(r.ID)
			if r.ID == 0 {
				id = nil
			}
			t.Row(r.Row, r.URL, id, r.ShortURL, r.Error)
		}
	})
	if perr != nil {
		return perr
	}
	if failed > 0 {
		fmt.Fprintf(o.ErrOut, "error: %d of %d rows failed\n", failed, len(rows))
		return errSilent
	}
	return nil
}

// linksExportOptions are the options of "links export".
type linksExportOptions struct {
	*Globals
	File  string // "" or "-" for stdout
	Order string
}

func newLinksExportCmd(g *Globals) *cobra.Command {
	o := &linksExportOptions{Globals: g}
	cmd := &cobra.Command{
		Use:   "export [FILE.csv]",
		Short: "Write every short link (all pages) as CSV, to FILE or stdout",
		Long: `Write every short link, fetching all pages, as CSV with the columns
` + strings.Join(exportColumns, ",") + `
to FILE.csv or stdout; "links import" reads it back (the read-only columns are
ignored). Pixels and channels are ids separated by ";".`,
		Args: cobra.MaximumNArgs(1),
		RunE: g.apiRun(func(ctx context.Context, c *client.Client, args []string) error {
			if len(args) == 1 {
				o.File = args[0]
			}
			return runLinksExport(ctx, o, c)
		}),
	}
	cmd.Flags().StringVar(&o.Order, "order", "", "date (newest first, the default) or clicks")
	return cmd
}

// joinIDs formats ids separated by ";".
func joinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, n := range ids {
		s[i] = strconv.FormatInt(n, 10)
	}
	return strings.Join(s, ";")
}

// runLinksExport writes every short link as CSV.
func runLinksExport(ctx context.Context, o *linksExportOptions, c *client.Client) error {
	if o.Order != "" && o.Order != client.LinkOrderDate && o.Order != client.LinkOrderClicks {
		return cmdutil.Usagef("--order %q is not date or clicks", o.Order)
	}
	toFile := o.File != "" && o.File != "-"
	var out io.Writer = o.Out
	var f *os.File
	if toFile {
		var err error
		if f, err = os.Create(o.File); err != nil {
			return err
		}
		defer f.Close()
		out = f
	}
	w := csv.NewWriter(out)
	if err := w.Write(exportColumns); err != nil {
		return err
	}
	limit := o.Limit
	if limit == 0 {
		limit = 100
	}
	n := 0
	for l, err := range c.Links.URLs.All(ctx, &client.LinkURLListOptions{LinkListOptions: client.LinkListOptions{Limit: limit}, Order: o.Order}) {
		if err != nil {
			return err
		}
		domain, campaign := "", ""
		if l.Domain != 0 {
			domain = strconv.FormatInt(l.Domain, 10)
		}
		if l.Campaign != 0 {
			campaign = strconv.FormatInt(l.Campaign, 10)
		}
		rec := []string{strconv.FormatInt(l.ID, 10), l.LongURL, l.Alias, domain, l.Description, l.Expiry, l.Title,
			campaign, joinIDs(l.Pixels), joinIDs(l.Channels), l.ShortURL, strconv.FormatInt(l.Clicks, 10),
			strconv.FormatInt(l.UniqueClicks, 10), strconv.FormatBool(l.Password), l.Date}
		if err := w.Write(rec); err != nil {
			return err
		}
		n++
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	if toFile {
		if err := f.Close(); err != nil {
			return err
		}
		return o.printer().Done(map[string]any{"file": o.File, "links": n}, "%d links exported to %s", n, o.File)
	}
	return nil
}
