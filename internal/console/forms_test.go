package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/links"
)

// TestFormNewlines: browsers send a textarea's newlines as CRLF; every
// console form (the exam editor's, the back office's, the QR designer's
// multipart one) stores them as "\n", and a lone CR too. The exam editor
// keeps the seconds of its times, and reads times without them.
func TestFormNewlines(t *testing.T) {
	ctx := t.Context()
	p := newPortal(t)
	c := browser(t)
	csrf := p.signIn(t, c)

	form := examFormValues(csrf)
	form.Set("q.0.text", "Baris satu\r\nBaris dua\rBaris tiga")
	form.Set("q.0.options", "a: 3\r\nb: 4\r\n")
	form.Set("starts", "2026-12-01T07:30:15")
	if resp, body := post(t, c, p.srv.URL+"/console/exams/new", form); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d\n%s", resp.StatusCode, body)
	}
	es, _ := p.exam.ListExams(ctx, "")
	if len(es) != 1 {
		t.Fatalf("exams: %d", len(es))
	}
	e, err := p.exam.GetExam(ctx, es[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if q := e.Questions[0]; q.Text != "Baris satu\nBaris dua\nBaris tiga" || q.Options[1].Text != "4" {
		t.Fatalf("stored question: %q %+v", q.Text, q.Options)
	}
	if want := time.Date(2026, 12, 1, 0, 30, 15, 0, time.UTC); !e.StartsAt.Equal(want) ||
		!e.EndsAt.Equal(time.Date(2026, 12, 1, 2, 30, 0, 0, time.UTC)) {
		t.Fatalf("times: %v %v", e.StartsAt, e.EndsAt)
	}
	_, body := get(t, c, p.srv.URL+"/console/exams/"+e.ID+"/edit")
	for _, want := range []string{`value="2026-12-01T07:30:15" required`, `value="2026-12-01T09:30:00" required`, `step="1"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the editor lacks %q", want)
		}
	}

	s := newOfficeShop(t)
	item := url.Values{"category": {s.coffee.CategoryID}, "name": {"Es kopi"}, "price": {"15000"}, "available": {"1"},
		"description": {"Kopi dingin\r\ndengan gula aren\rdan es"}}
	if resp, body := s.post(officeAdmin, "/console/shop/menu", "/console/shop/menu/items", item); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("new item: %d\n%.400s", resp.StatusCode, body)
	}
	m, _ := s.shop.Menu(ctx, false)
	var desc string
	for _, it := range m.Categories[0].Items {
		if it.Name == "Es kopi" {
			desc = it.Description
		}
	}
	if desc != "Kopi dingin\ndengan gula aren\ndan es" {
		t.Fatalf("stored description: %q", desc)
	}

	mc := browser(t)
	mcsrf := p.signInMarketer(t, mc, p.anaKey)
	design := url.Values{"csrf": {mcsrf}, "type": {"text"}, "name": {"Catatan"}, "d_text": {"Baris satu\r\nBaris dua"},
		"foreground": {"#102a43"}, "background": {"#ffffff"}}
	if resp, body := postMultipart(t, mc, p.srv.URL+"/console/links/qr/new?type=text", design); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("save a QR code: %d\n%.400s", resp.StatusCode, body)
	}
	l, _ := p.links.ListQRs(ctx, p.ana.ID, links.Page{})
	if l.Total != 1 || !strings.Contains(string(l.Items[0].Data), `Baris satu\nBaris dua`) || strings.Contains(string(l.Items[0].Data), `\r`) {
		t.Fatalf("stored QR data: %+v", l.Items)
	}
}
