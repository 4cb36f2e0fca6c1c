package exam_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
	"github.com/seedhq/portal/pkg/client"
)

// TestClozeAndNumericExam: numeric and cloze questions are created through
// the API with their keys normalised (a decimal comma kept as a point),
// refused clearly when malformed, shipped only in a format-4 package whose
// question blobs carry the blanks without keys, refused to a labagent that
// does not read format 4, and pushed answers typed with either decimal
// separator earn each right blank's points in the results.
func TestClozeAndNumericExam(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		students := h.ImportStudents(httpapitest.NPSNA, "Ani Lestari", "Budi Santoso")
		lab := h.NewLabServer("LAB-01", httpapitest.NPSNA)
		fixture := httpapitest.ExamFixture(httpapitest.NPSNA)
		fixture["questions"] = []map[string]any{
			{"id": "n1", "type": "numeric", "text": "2,5 × 3 = ?", "answer": []string{"7,5"}, "points": 2},
			{"id": "n2", "type": "numeric", "text": "π ≈ ?", "answer": []string{"3.14159"}, "tolerance": 1, "tolerance_mode": "relative"},
			{"id": "c1", "type": "cloze", "format": "markdown",
				"text": "Ibu kota Indonesia adalah [[kota]]; luas Jawa [[luas]] ribu km²; Jawa di [[arah]] Kalimantan.",
				"blanks": []map[string]any{
					{"id": "kota", "kind": "text", "answer": []string{"Jakarta"}},
					{"id": "luas", "kind": "number", "answer": []string{"128,3"}, "tolerance": 0.5, "points": 2},
					{"id": "arah", "kind": "choice", "options": []map[string]any{{"id": "u", "text": "utara"}, {"id": "s", "text": "selatan"}},
						"answer": []string{"s"}},
				}},
		}
		var created struct {
			Data struct {
				ID        string `json:"id"`
				Questions []struct {
					Answer []string `json:"answer"`
					Points float64  `json:"points"`
					Blanks []struct {
						Answer []string `json:"answer"`
						Points float64  `json:"points"`
					} `json:"blanks"`
				} `json:"questions"`
			} `json:"data"`
		}
		h.Op("POST", "/api/v1/admin/exams", fixture).Expect(201).Decode(&created)
		qs := created.Data.Questions
		if qs[0].Answer[0] != "7.5" || qs[2].Points != 4 || qs[2].Blanks[1].Answer[0] != "128.3" || qs[2].Blanks[0].Points != 1 {
			t.Fatalf("created = %+v", qs)
		}
		for _, mutate := range []func(q map[string]any){
			func(q map[string]any) { q["type"], q["answer"] = "numeric", []string{"tujuh"} },
			func(q map[string]any) { q["text"] = "Ibu kota [[kota]] dan [[arah]]." },
			func(q map[string]any) { delete(q, "format") },
			func(q map[string]any) { q["type"], q["answer"], q["tolerance"] = "short_answer", []string{"x"}, 1 },
		} {
			bad := httpapitest.ExamFixture(httpapitest.NPSNA)
			q := map[string]any{}
			for k, v := range fixture["questions"].([]map[string]any)[2] {
				q[k] = v
			}
			mutate(q)
			bad["questions"] = []map[string]any{q}
			h.Op("POST", "/api/v1/admin/exams", bad).ExpectError(400, "VALIDATION_FAILED")
		}

		// Only a labagent that reads format 4 gets the school's package.
		const pull = "/api/v1/sync/pull-questions?serverCode=LAB-01"
		for _, formats := range []string{"", "1, 2", "1, 2, 3"} {
			h.As(lab, "GET", pull, nil, "X-Package-Formats", formats).ExpectError(406, "LABAGENT_UPGRADE_REQUIRED")
		}
		var res httpapitest.PullJSON
		h.As(lab, "GET", pull, nil, "X-Package-Formats", client.PackageFormats).Expect(200).Decode(&res)
		pkg, err := client.DecodePackage(bytes.NewReader(res.Package), lab.PackageKey)
		if err != nil {
			t.Fatal(err)
		}
		if pkg.Format != 4 || len(pkg.Exams) != 1 || len(pkg.Exams[0].QuestionBlobs) != 3 {
			t.Fatalf("package format %d, exams %+v", pkg.Format, pkg.Exams)
		}
		b := pkg.Exams[0].QuestionBlobs[2]
		var c client.PackageQuestion
		if err := client.OpenContentBlob(b, h.Req("GET", "/"+b.URL, nil).Expect(200).Body, &c); err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(c)
		if c.Type != client.Cloze || len(c.Blanks) != 3 || c.Blanks[2].Options[1].Text != "selatan" || c.Points != 4 ||
			!strings.Contains(c.HTML, `<span class="blank" data-blank="luas"></span>`) ||
			strings.Contains(string(raw), "Jakarta") || strings.Contains(string(raw), "128") || strings.Contains(string(raw), "tolerance") {
			t.Fatalf("packaged cloze question leaks or lacks something: %s", raw)
		}

		at := "2026-12-01T08:00:00Z"
		id, ani, budi := created.Data.ID, students["ani.lestari"], students["budi.santoso"]
		rawAnswers := httpapitest.AnswersJSON(
			httpapitest.AnswerRec{ExamID: id, MemberID: ani, QuestionID: "n1", Answer: "7,50", AnsweredAt: at}, httpapitest.AnswerRec{ExamID: id, MemberID: ani, QuestionID: "n2", Answer: "3,14", AnsweredAt: at},
			httpapitest.AnswerRec{ExamID: id, MemberID: ani, QuestionID: "c1", Answer: `{"kota":"jakarta","luas":"128,0","arah":"s"}`, AnsweredAt: at}, // all right: 2+1+4
			httpapitest.AnswerRec{ExamID: id, MemberID: budi, QuestionID: "n1", Answer: "7.6", AnsweredAt: at}, httpapitest.AnswerRec{ExamID: id, MemberID: budi, QuestionID: "n2", Answer: "3", AnsweredAt: at},
			httpapitest.AnswerRec{ExamID: id, MemberID: budi, QuestionID: "c1", Answer: `{"kota":"Bandung","luas":"1.283","arah":"s"}`, AnsweredAt: at}, // arah only: 1
		)
		h.As(lab, "POST", "/api/v1/sync/push-answers", httpapitest.EncodePush(httpapitest.NewPush(lab, rawAnswers, 6))).Expect(200)
		r := h.Results(id)
		if r.MaxScore != 7 || len(r.Results) != 2 {
			t.Fatalf("results = %+v", r)
		}
		if a, b := r.Results[0], r.Results[1]; a.Score != 7 || a.Correct != 3 || b.Score != 1 || b.Correct != 0 || b.Answered != 3 {
			t.Fatalf("scores: ani %+v, budi %+v", a, b)
		}
	})
}
