package exam_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
	"github.com/seedhq/portal/pkg/client"
)

// TestRichContentExam: an exam written in the markdown format is created
// with the problems of its texts reported (never refused for them), ships
// in a format-2 package with every text rendered, and is refused to a
// labagent that does not read format 2, with the advice to upgrade.
func TestRichContentExam(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		lab := h.NewLabServer("LAB-01", httpapitest.NPSNA)
		const pull = "/api/v1/sync/pull-questions?serverCode=LAB-01"
		h.CreateExam(httpapitest.NPSNA)
		// Plain exams keep format 1: every labagent reads them.
		h.As(lab, "GET", pull, nil).Expect(200)

		fixture := httpapitest.ExamFixture(httpapitest.NPSNA)
		qs := fixture["questions"].([]map[string]any)
		qs[0]["format"] = "markdown"
		qs[0]["text"] = "Hitung $\\frac{1}{2} + \\frac{1}{3}$ dan $\\frac{1}{$. <script>alert(1)</script>"
		qs[0]["options"] = []map[string]any{{"id": "a", "text": "$\\frac{5}{6}$"}, {"id": "b", "text": "**1**"}}
		qs[0]["answer"] = []string{"a"}
		qs[1]["format"] = "plain"
		qs[2]["format"] = "latex"
		h.Op("POST", "/api/v1/admin/exams", fixture).ExpectError(400, "VALIDATION_FAILED")
		delete(qs[2], "format")
		var created struct {
			Data struct {
				ID        string `json:"id"`
				Questions []struct {
					Format string `json:"format"`
				} `json:"questions"`
				Problems []struct {
					QuestionID string `json:"question_id"`
					Field      string `json:"field"`
					Code       string `json:"code"`
					Source     string `json:"source"`
				} `json:"problems"`
			} `json:"data"`
		}
		h.Op("POST", "/api/v1/admin/exams", fixture).Expect(201).Decode(&created)
		p := created.Data.Problems
		if len(p) != 1 || p[0].QuestionID != "q1" || p[0].Field != "text" || p[0].Code != "TEX_ERROR" || p[0].Source != `\frac{1}{` {
			t.Fatalf("problems = %+v", p)
		}
		if created.Data.Questions[0].Format != "markdown" || created.Data.Questions[1].Format != "" {
			t.Fatalf("formats = %+v (plain is stored as the default)", created.Data.Questions)
		}
		var got struct {
			Data struct {
				Problems []any `json:"problems"`
			} `json:"data"`
		}
		h.Op("GET", "/api/v1/admin/exams/"+created.Data.ID, nil).Expect(200).Decode(&got)
		if got.Data.Problems != nil {
			t.Fatalf("a read carries problems: %v", got.Data.Problems)
		}

		// A labagent that names no formats (one from before format 2) is
		// told to upgrade; one that reads format 2 gets the package.
		h.As(lab, "GET", pull, nil).ExpectError(406, "LABAGENT_UPGRADE_REQUIRED")
		h.As(lab, "GET", pull+"&format=binary", nil, "X-Package-Formats", "1").ExpectError(406, "LABAGENT_UPGRADE_REQUIRED")
		var res httpapitest.PullJSON
		h.As(lab, "GET", pull, nil, "X-Package-Formats", "1, 2").Expect(200).Decode(&res)
		pkg, err := client.DecodePackage(bytes.NewReader(res.Package), lab.PackageKey)
		if err != nil {
			t.Fatal(err)
		}
		if pkg.Format != 2 || len(pkg.Exams) != 2 {
			t.Fatalf("package format %d with %d exams", pkg.Format, len(pkg.Exams))
		}
		for _, e := range pkg.Exams {
			for _, q := range e.Questions {
				switch {
				case e.ID == created.Data.ID && q.ID == "q1":
					if q.Format != "markdown" || strings.Count(q.HTML, "<math") != 1 || !strings.Contains(q.HTML, `<code class="tex-error">`) ||
						strings.Contains(q.HTML, "<script") || !strings.Contains(q.HTML, "&lt;script&gt;") {
						t.Errorf("q1's html = %q", q.HTML)
					}
					if !strings.Contains(q.Options[0].HTML, "<mfrac>") || q.Options[1].HTML != `<p dir="auto"><strong>1</strong></p>` {
						t.Errorf("q1's options = %+v", q.Options)
					}
				case q.HTML != "" || q.Format != "":
					t.Errorf("exam %s question %s is plain but has format %q, html %q", e.ID, q.ID, q.Format, q.HTML)
				}
			}
		}
	})
}

// TestStatementGridExam: a statement grid (pilihan ganda kompleks) scored
// "partial" is created through the API, shipped in a format-2 package with
// its statements and columns, and a pushed answer earns its share of the
// points in the results.
func TestStatementGridExam(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		students := h.ImportStudents(httpapitest.NPSNA, "Ani Lestari", "Budi Santoso")
		lab := h.NewLabServer("LAB-01", httpapitest.NPSNA)
		fixture := httpapitest.ExamFixture(httpapitest.NPSNA)
		fixture["questions"] = []map[string]any{{"id": "g1", "type": "statement_grid", "format": "markdown", "points": 4,
			"scoring": "partial", "text": "Benar atau salah?",
			"statements": []map[string]any{{"id": "s1", "text": "$2$ prima"}, {"id": "s2", "text": "9 prima"},
				{"id": "s3", "text": "1 prima"}, {"id": "s4", "text": "11 prima"}},
			"answer": []string{"s1=true", "s2=false", "s3=false", "s4=true"}}}
		var created struct {
			Data struct {
				ID        string `json:"id"`
				Questions []struct {
					Columns []struct{ ID, Text string } `json:"columns"`
					Answer  []string                    `json:"answer"`
				} `json:"questions"`
			} `json:"data"`
		}
		h.Op("POST", "/api/v1/admin/exams", fixture).Expect(201).Decode(&created)
		if q := created.Data.Questions[0]; len(q.Columns) != 2 || q.Columns[0].ID != "true" || len(q.Answer) != 4 {
			t.Fatalf("created grid = %+v", q)
		}
		bad := httpapitest.ExamFixture(httpapitest.NPSNA)
		bad["questions"] = []map[string]any{{"id": "g1", "type": "statement_grid", "text": "?",
			"statements": []map[string]any{{"id": "s1", "text": "a"}}, "answer": []string{"s1=maybe"}}}
		h.Op("POST", "/api/v1/admin/exams", bad).ExpectError(400, "VALIDATION_FAILED")

		// The package ships the grid, which only format 2 carries.
		h.As(lab, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-01", nil).ExpectError(406, "LABAGENT_UPGRADE_REQUIRED")
		var res httpapitest.PullJSON
		h.As(lab, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-01", nil, "X-Package-Formats", "1, 2").Expect(200).Decode(&res)
		pkg, err := client.DecodePackage(bytes.NewReader(res.Package), lab.PackageKey)
		if err != nil {
			t.Fatal(err)
		}
		g := pkg.Exams[0].Questions[0]
		if pkg.Format != 2 || g.Type != client.StatementGrid || len(g.Statements) != 4 || len(g.Columns) != 2 ||
			!strings.Contains(g.Statements[0].HTML, "<math") || g.Columns[1].HTML != `<p dir="auto">Salah</p>` {
			t.Fatalf("packaged grid = %+v", g)
		}

		at := "2026-12-01T08:00:00Z"
		raw := httpapitest.AnswersJSON(
			httpapitest.AnswerRec{ExamID: created.Data.ID, MemberID: students["ani.lestari"], QuestionID: "g1", Answer: "s1=true,s2=false,s3=false,s4=true", AnsweredAt: at}, // all right: 4
			httpapitest.AnswerRec{ExamID: created.Data.ID, MemberID: students["budi.santoso"], QuestionID: "g1", Answer: "s1=true,s2=true,s4=true", AnsweredAt: at},          // 2 of 4: 2
		)
		h.As(lab, "POST", "/api/v1/sync/push-answers", httpapitest.EncodePush(httpapitest.NewPush(lab, raw, 2))).Expect(200)
		r := h.Results(created.Data.ID)
		if r.MaxScore != 4 || len(r.Results) != 2 {
			t.Fatalf("results = %+v", r)
		}
		if a, b := r.Results[0], r.Results[1]; a.Score != 4 || a.Correct != 1 || b.Score != 2 || b.Correct != 0 || b.Answered != 1 {
			t.Fatalf("scores: ani %+v, budi %+v", a, b)
		}
	})
}
