package console_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/banksheet"
)

// TestBankImportEscapes: the OWASP vectors in a sheet's item titles, types,
// texts and file name show as text on the report, never as markup; the
// creation carries them as the exam's text.
func TestBankImportEscapes(t *testing.T) {
	p := newPortal(t)
	c := browser(t)
	csrf := p.signIn(t, c)
	var rows [][]string
	for i, v := range testkit.XSSVectors {
		rows = append(rows, []string{"", "single_choice", "", v, "a: " + v + "\nb: dua", "a"}, // titled by its text
			[]string{"x" + string(rune('a'+i)), v, "", "teks"}) // a type that is a vector: refused, quoted in the message
	}
	resp, page := postMultipart(t, c, p.srv.URL+"/console/exams/import", url.Values{"csrf": {csrf}},
		formFile{"file", `bank"><script>window.__xss=1</script>.xlsx`, banksheet.XLSX(t, rows...)})
	if resp.StatusCode != 200 || !strings.Contains(page, "UNSUPPORTED_TYPE") {
		t.Fatalf("import: %d %.2000s", resp.StatusCode, page)
	}
	for _, v := range append(testkit.XSSVectors, `<script>window.__xss=1</script>`) {
		if strings.Contains(page, v) {
			t.Errorf("the page holds the vector %s unescaped", v)
		}
	}
	for _, bad := range []string{"<script>", "<img src=x", "<svg onload", "<iframe", `<a href="javascript`, "<math><mtext>"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;window.__xss=1&lt;/script&gt;") {
		t.Errorf("the vectors are not shown as text")
	}

	// Refused items and no only_passed: nothing is created.
	form := url.Values{"csrf": {csrf}, "bank": {hiddenValue(t, page, "bank")}, "title": {"XSS"}, "npsn": {"20100001"},
		"starts": {"2030-01-02T07:30"}, "ends": {"2030-01-02T09:30"}, "zone": {"WIB"}, "duration": {"60"}}
	if resp, page := post(t, c, p.srv.URL+"/console/exams/import/create", form); resp.StatusCode != 422 || !strings.Contains(page, "only") {
		t.Fatalf("create with refused items: %d %.1000s", resp.StatusCode, page)
	}
	form.Set("only_passed", "1")
	if resp, page := post(t, c, p.srv.URL+"/console/exams/import/create", form); resp.StatusCode != 303 {
		t.Fatalf("create: %d %.1000s", resp.StatusCode, page)
	}
	es, err := p.exam.ListExams(t.Context(), "")
	if err != nil || len(es) != 1 || es[0].QuestionCount != len(testkit.XSSVectors) {
		t.Fatalf("exams %+v %v", es, err)
	}
	e, _ := p.exam.GetExam(t.Context(), es[0].ID)
	if e.Questions[0].Text != testkit.XSSVectors[0] {
		t.Errorf("the text is %q", e.Questions[0].Text)
	}
	// The exam's export and the template download, for operators only.
	if resp, body := get(t, c, p.srv.URL+"/console/exams/"+e.ID+"/export?format=xlsx"); resp.StatusCode != 200 || !strings.HasPrefix(body, "PK") ||
		!strings.Contains(resp.Header.Get("Content-Disposition"), "attachment") {
		t.Errorf("export: %d %q", resp.StatusCode, resp.Header)
	}
	if resp, _ := get(t, c, p.srv.URL+"/console/exams/import/template.xlsx"); resp.StatusCode != 200 {
		t.Errorf("template: %d", resp.StatusCode)
	}
	if resp, _ := get(t, browser(t), p.srv.URL+"/console/exams/import/template.xlsx"); resp.StatusCode == 200 {
		t.Errorf("template without signing in: %d", resp.StatusCode)
	}
	if resp, _ := postMultipart(t, c, p.srv.URL+"/console/exams/import", url.Values{}, formFile{"file", "b.xlsx", []byte("x")}); resp.StatusCode != 403 {
		t.Errorf("import without the CSRF token: %d", resp.StatusCode)
	}
}

// hiddenValue returns the unescaped value of the page's hidden field name.
func hiddenValue(t *testing.T, page, name string) string {
	t.Helper()
	attr := `name="` + name + `" value="`
	i := strings.Index(page, attr)
	if i < 0 {
		t.Fatalf("no field %s", name)
	}
	v := page[i+len(attr):]
	v = v[:strings.Index(v, `"`)]
	r := strings.NewReplacer("&#34;", `"`, "&quot;", `"`, "&lt;", "<", "&gt;", ">", "&#39;", "'", "&amp;", "&", "&#43;", "+")
	return r.Replace(v)
}

// TestBankImportMissingMedia: a question whose image cannot be stored is
// refused on the console's report, and kept (changed) when the operator
// ticks "keep questions whose image or audio is missing"; the creation
// carries what the upload decided.
func TestBankImportMissingMedia(t *testing.T) {
	p := newPortal(t)
	c := browser(t)
	csrf := p.signIn(t, c)
	bank := []byte(`<quiz><question type="essay"><name><text>peta</text></name><questiontext format="html"><text><![CDATA[<p>Lihat peta.</p>` +
		`<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="Peta">]]></text></questiontext></question>` +
		`<question type="essay"><name><text>teks</text></name><questiontext format="html"><text>Jelaskan.</text></questiontext></question></quiz>`)
	resp, page := postMultipart(t, c, p.srv.URL+"/console/exams/import", url.Values{"csrf": {csrf}}, formFile{"file", "bank.xml", bank})
	if resp.StatusCode != 200 || !strings.Contains(page, "<code>MEDIA_NOT_FOUND</code>") || !strings.Contains(page, `name="allow_missing_media"`) {
		t.Fatalf("import: %d %.3000s", resp.StatusCode, page)
	}
	if carried := hiddenValue(t, page, "bank"); strings.Contains(carried, "q001") || !strings.Contains(carried, "q002") {
		t.Errorf("the creation carries %s", carried)
	}
	resp, page = postMultipart(t, c, p.srv.URL+"/console/exams/import", url.Values{"csrf": {csrf}, "allow_missing_media": {"1"}},
		formFile{"file", "bank.xml", bank})
	if resp.StatusCode != 200 || strings.Contains(page, "<code>MEDIA_NOT_FOUND</code>") || !strings.Contains(hiddenValue(t, page, "bank"), "q001") {
		t.Fatalf("import allowing missing media: %d %.3000s", resp.StatusCode, page)
	}
	form := url.Values{"csrf": {csrf}, "bank": {hiddenValue(t, page, "bank")}, "title": {"Peta"}, "npsn": {"20100001"},
		"starts": {"2030-01-02T07:30"}, "ends": {"2030-01-02T09:30"}, "zone": {"WIB"}, "duration": {"60"}}
	if resp, page := post(t, c, p.srv.URL+"/console/exams/import/create", form); resp.StatusCode != 303 {
		t.Fatalf("create: %d %.1000s", resp.StatusCode, page)
	}
	if es, err := p.exam.ListExams(t.Context(), ""); err != nil || len(es) != 1 || es[0].QuestionCount != 2 {
		t.Fatalf("exams %+v %v", es, err)
	}
}
