package linkctl

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/cmdutil"
)

// FuzzReadImportCSV: a links CSV is refused with a usage error (exit 2),
// or read into rows whose columns are the header's, on increasing lines
// after the header; written out again as CSV, the rows read back the same;
// a row's creation request, when it builds, has a URL and positive ids.
func FuzzReadImportCSV(f *testing.F) {
	for _, s := range []string{
		"url,custom,domain,description,expiry,title,password,campaign,pixels,channels\n" +
			"https://example.com/a,promo,1,A link,2027-01-01 00:00:00,Title,secret,2,1;2,3\n" +
			"https://example.com/b,,,,,,,,,\n",
		"\ufeffURL , Custom\n https://example.com , x \n\n",
		"id,url,shorturl,clicks,unique_clicks,password_protected,date\n1,https://example.com,https://s.test/a,3,2,false,2026-01-01\n",
		"url\n\"https://example.com/\"\"quoted\"\"\"\n\"multi\nline\"\n",
		"url,url\nx,y\n", "custom\nx\n", "url,bogus\nx,y\n", "", "\n", "url\n\"unterminated\n", "url,pixels\nhttps://e.com,1;-2\n",
		"url,domain\nhttps://e.com,abc\n", "url\nhttps://e.com,extra,fields\n", "url;custom\nx;y\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := readImportCSV(bytes.NewReader(data))
		if err != nil {
			if !cmdutil.IsUsageError(err) {
				t.Fatalf("refusal %T %v is not a usage error", err, err)
			}
			return
		}
		var header []string
		seen := map[string]bool{}
		last := 1
		for _, r := range rows {
			if r.line <= last {
				t.Fatalf("row on line %d after line %d", r.line, last)
			}
			last = r.line
			for k, v := range r.fields {
				if !seen[k] {
					seen[k] = true
					header = append(header, k)
				}
				if v != strings.TrimSpace(v) {
					t.Fatalf("field %s = %q not trimmed", k, v)
				}
			}
			if req, err := r.request(); err == nil {
				if req.URL == "" || req.Domain < 0 || req.Campaign < 0 {
					t.Fatalf("request %+v", req)
				}
				for _, id := range append(req.Pixels, req.Channels...) {
					if id <= 0 {
						t.Fatalf("id %d in %+v", id, req)
					}
				}
			}
		}
		if len(rows) == 0 {
			return
		}
		if !seen["url"] {
			header = append(header, "url")
		}
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		w.Write(header)
		var want []map[string]string
		for _, r := range rows {
			rec := make([]string, len(header))
			blank := true
			for i, h := range header {
				rec[i] = r.fields[h]
				blank = blank && rec[i] == ""
			}
			if !blank {
				w.Write(rec)
				want = append(want, r.fields)
			}
		}
		w.Flush()
		again, err := readImportCSV(&buf)
		if err != nil {
			t.Fatalf("rows written out again are refused: %v\n%s", err, buf.Bytes())
		}
		if len(again) != len(want) {
			t.Fatalf("%d rows read back as %d\n%s", len(want), len(again), buf.Bytes())
		}
		for i := range want {
			got := again[i].fields
			for _, h := range header {
				if got[h] != want[i][h] {
					t.Fatalf("row %d: %v read back as %v", i, want[i], got)
				}
			}
			if len(got) > len(header) {
				t.Fatalf("row %d: extra columns %v", i, got)
			}
		}
	})
}
