package exam_test

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/banksheet"
)

// bankReportJSON is the answer to an import.
type bankReportJSON struct {
	Data struct {
		Format   string `json:"format"`
		Imported int    `json:"imported"`
		Changed  int    `json:"changed"`
		Refused  int    `json:"refused"`
		Items    []struct {
			Position int    `json:"position"`
			Title    string `json:"title"`
			Status   string `json:"status"`
			Code     string `json:"code"`
		} `json:"items"`
		Questions []map[string]any `json:"questions"`
		Exam      *struct {
			ID        string           `json:"id"`
			Questions []map[string]any `json:"questions"`
		} `json:"exam"`
	} `json:"data"`
}

// TestExamImportAndExport: a spreadsheet bank with its media in a zip is
// previewed, refused for its refused row, created from the rows that
// passed, exported and read back the same.
func TestExamImportAndExport(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		xlsx := banksheet.XLSX(t,
			[]string{"q1", "single_choice", "", "Ibu kota?", "a: Jakarta\nb: Medan", "a"},
			[]string{"q2", "essay", "markdown", "Amati ![peta](peta.png) dan $x^2$."},
			[]string{"q3", "hotspot", "", "Klik"},
		)
		var z bytes.Buffer
		zw := zip.NewWriter(&z)
		w, _ := zw.Create("soal.xlsx")
		w.Write(xlsx)
		w, _ = zw.Create("peta.png")
		w.Write(testkit.PNG(20, 20, 4))
		zw.Close()

		var prev bankReportJSON
		h.Op("POST", "/api/v1/admin/exams/import", z.Bytes(), "Content-Type", "application/zip").Expect(200).Decode(&prev)
		if prev.Data.Format != "xlsx" || prev.Data.Imported != 2 || prev.Data.Refused != 1 || len(prev.Data.Questions) != 2 ||
			prev.Data.Items[2].Position != 4 || prev.Data.Items[2].Code != "UNSUPPORTED_TYPE" {
			t.Fatalf("preview %+v", prev.Data)
		}
		before := len(h.Op("GET", "/api/v1/admin/exams", nil).Expect(200).M()["data"].([]any))
		start := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
		qs := url.Values{"mode": {"create"}, "format": {"xlsx"}, "title": {"Bank IPA"}, "npsn": {httpapitest.NPSNA},
			"starts_at": {start.Format(time.RFC3339)}, "ends_at": {start.Add(2 * time.Hour).Format(time.RFC3339)}, "duration_minutes": {"60"}}
		h.Op("POST", "/api/v1/admin/exams/import?"+qs.Encode(), z.Bytes()).ExpectError(422, "BANK_HAS_REFUSED_ITEMS")
		if n := len(h.Op("GET", "/api/v1/admin/exams", nil).Expect(200).M()["data"].([]any)); n != before {
			t.Fatalf("a refused creation created an exam: %d exams, %d before", n, before)
		}
		qs.Set("only_passed", "true")
		var made bankReportJSON
		h.Op("POST", "/api/v1/admin/exams/import?"+qs.Encode(), z.Bytes()).Expect(201).Decode(&made)
		if made.Data.Exam == nil || len(made.Data.Exam.Questions) != 2 {
			t.Fatalf("created %+v", made.Data)
		}
		id := made.Data.Exam.ID

		exp := h.Op("GET", "/api/v1/admin/exams/"+id+"/export?format=xlsx", nil).Expect(200)
		if cd := exp.Header.Get("Content-Disposition"); !strings.Contains(cd, "attachment") || !strings.HasSuffix(cd, `.xlsx"`) {
			t.Fatalf("Content-Disposition %q", cd)
		}
		var back bankReportJSON
		h.Op("POST", "/api/v1/admin/exams/import?format=xlsx", exp.Body).Expect(200).Decode(&back)
		if back.Data.Imported != 2 || back.Data.Refused != 0 || back.Data.Questions[1]["text"] != made.Data.Exam.Questions[1]["text"] {
			t.Fatalf("export read back %+v", back.Data)
		}
		h.Op("GET", "/api/v1/admin/exams/"+id+"/export?format=csv", nil).ExpectError(400, "UNKNOWN_FORMAT")
		h.Op("GET", "/api/v1/admin/exams/nope/export?format=xlsx", nil).ExpectError(404, "NOT_FOUND")
		// The exam as Moodle XML and as a QTI 3.0 package, each read back
		// with nothing refused.
		moodleXML := h.Op("GET", "/api/v1/admin/exams/"+id+"/export?format=moodle", nil).Expect(200)
		qtiZip := h.Op("GET", "/api/v1/admin/exams/"+id+"/export?format=qti", nil).Expect(200)
		if !bytes.Contains(moodleXML.Body, []byte("<quiz>")) || !bytes.HasPrefix(qtiZip.Body, []byte("PK")) {
			t.Fatalf("exports: moodle %.100q, qti %.20q", moodleXML.Body, qtiZip.Body)
		}
		for format, body := range map[string][]byte{"moodle": moodleXML.Body, "qti": qtiZip.Body} {
			var back struct {
				Data struct{ Imported, Changed, Refused int } `json:"data"`
			}
			h.Op("POST", "/api/v1/admin/exams/import?format="+format, body).Expect(200).Decode(&back)
			if back.Data.Refused != 0 || back.Data.Imported+back.Data.Changed == 0 {
				t.Fatalf("the %s export read back: %+v", format, back.Data)
			}
		}

		tpl := h.Op("GET", "/api/v1/admin/exams/import/template.xlsx", nil).Expect(200)
		if !bytes.HasPrefix(tpl.Body, []byte("PK")) || !strings.Contains(tpl.Header.Get("Content-Type"), "spreadsheetml") {
			t.Fatalf("template %q", tpl.Header)
		}
		h.Op("POST", "/api/v1/admin/exams/import", "no bank").ExpectError(400, "INVALID_BANK")
		h.Op("POST", "/api/v1/admin/exams/import?mode=publish", xlsx).ExpectError(400, "INVALID_MODE")
		h.Req("POST", "/api/v1/admin/exams/import", xlsx).ExpectError(401, "UNAUTHORIZED")
		h.Req("GET", "/api/v1/admin/exams/import/template.xlsx", nil).ExpectError(401, "UNAUTHORIZED")
	})
}

// TestExamImportMissingMedia: a Moodle question whose figure is a data:
// URI is created with its image; one whose figure cannot be stored is
// refused MEDIA_NOT_FOUND (so no exam asks about a chart nobody sees)
// unless allow_missing_media=true keeps it, changed.
func TestExamImportMissingMedia(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		essay := func(name, img string) string {
			return `<question type="essay"><name><text>` + name + `</text></name><questiontext format="html"><text><![CDATA[<p>Perhatikan grafik.</p>` +
				img + `]]></text></questiontext></question>`
		}
		chart := base64.StdEncoding.EncodeToString(testkit.PNG(12, 8, 7))
		bank := []byte(`<quiz>` + essay("grafik", `<img src="data:image/png;base64,`+chart+`" alt="Grafik">`) +
			essay("gif", `<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="Peta">`) + `</quiz>`)

		var prev bankReportJSON
		h.Op("POST", "/api/v1/admin/exams/import?format=moodle", bank).Expect(200).Decode(&prev)
		if prev.Data.Imported != 1 || prev.Data.Refused != 1 || prev.Data.Items[1].Code != "MEDIA_NOT_FOUND" ||
			len(prev.Data.Questions) != 1 || !strings.Contains(prev.Data.Questions[0]["text"].(string), "![Grafik](media:") {
			t.Fatalf("preview %+v", prev.Data)
		}
		start := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
		qs := url.Values{"mode": {"create"}, "format": {"moodle"}, "title": {"Grafik"}, "npsn": {httpapitest.NPSNA},
			"starts_at": {start.Format(time.RFC3339)}, "ends_at": {start.Add(2 * time.Hour).Format(time.RFC3339)}, "duration_minutes": {"60"}}
		h.Op("POST", "/api/v1/admin/exams/import?"+qs.Encode(), bank).ExpectError(422, "BANK_HAS_REFUSED_ITEMS")

		qs.Set("allow_missing_media", "true")
		var made bankReportJSON
		h.Op("POST", "/api/v1/admin/exams/import?"+qs.Encode(), bank).Expect(201).Decode(&made)
		if made.Data.Changed != 1 || made.Data.Refused != 0 || made.Data.Exam == nil || len(made.Data.Exam.Questions) != 2 {
			t.Fatalf("created with allow_missing_media %+v", made.Data)
		}
		qs.Set("allow_missing_media", "maybe")
		h.Op("POST", "/api/v1/admin/exams/import?"+qs.Encode(), bank).ExpectError(400, "VALIDATION_ERROR")
	})
}

// TestExamImportCategories: the category path of each Moodle question is
// kept through the created exam's store and its Moodle export.
func TestExamImportCategories(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		q := func(name string) string {
			return `<question type="essay"><name><text>` + name + `</text></name><questiontext format="html"><text>` + name + `</text></questiontext></question>`
		}
		cat := func(p string) string {
			return `<question type="category"><category><text>` + p + `</text></category></question>`
		}
		bank := []byte(`<quiz>` + cat("$course$/top/Matematika/Aljabar") + q("a") + cat("$course$/top/Matematika/Geometri") + q("b") + `</quiz>`)
		start := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
		qs := url.Values{"mode": {"create"}, "format": {"moodle"}, "npsn": {httpapitest.NPSNA},
			"starts_at": {start.Format(time.RFC3339)}, "ends_at": {start.Add(2 * time.Hour).Format(time.RFC3339)}, "duration_minutes": {"60"}}
		var made bankReportJSON
		h.Op("POST", "/api/v1/admin/exams/import?"+qs.Encode(), bank).Expect(201).Decode(&made)
		var got struct {
			Data struct {
				Questions []struct {
					Category string `json:"category"`
				} `json:"questions"`
			} `json:"data"`
		}
		h.Op("GET", "/api/v1/admin/exams/"+made.Data.Exam.ID, nil).Expect(200).Decode(&got)
		if len(got.Data.Questions) != 2 || got.Data.Questions[0].Category != "Matematika/Aljabar" || got.Data.Questions[1].Category != "Matematika/Geometri" {
			t.Fatalf("stored questions %+v", got.Data.Questions)
		}
		exp := h.Op("GET", "/api/v1/admin/exams/"+made.Data.Exam.ID+"/export?format=moodle", nil).Expect(200)
		if !bytes.Contains(exp.Body, []byte("$course$/top/Matematika/Geometri")) {
			t.Fatalf("export %.2000s", exp.Body)
		}
	})
}
