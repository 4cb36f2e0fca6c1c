package exam_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
	"github.com/seedhq/portal/pkg/client"
)

// TestStimulusExam: an exam whose questions share stimuli is created
// through the API (a stimulus's problems reported like a question's), read
// back with them, refused when a question names a stimulus it does not
// have (nothing stored), shipped in a format-2 package with the stimuli
// rendered and each question naming its own, and updated without them.
func TestStimulusExam(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		lab := h.NewLabServer("LAB-01", httpapitest.NPSNA)
		fixture := func() map[string]any {
			f := httpapitest.ExamFixture(httpapitest.NPSNA)
			qs := f["questions"].([]map[string]any)
			qs[0]["stimulus"], qs[1]["stimulus"] = "toba", "toba"
			f["stimuli"] = []map[string]any{
				{"id": "toba", "title": "Danau Toba", "format": "markdown", "text": "| Danau | Luas |\n|--|--|\n| Toba | 1130 |\n\nRumus $\\frac{1}{$"},
				{"id": "puisi", "text": "Aku ingin hidup <seribu> tahun lagi"},
			}
			return f
		}
		var created struct {
			Data struct {
				ID        string `json:"id"`
				Questions []struct {
					Stimulus string `json:"stimulus"`
				} `json:"questions"`
				Stimuli  []client.Stimulus `json:"stimuli"`
				Problems []struct {
					QuestionID string `json:"question_id"`
					Field      string `json:"field"`
					Code       string `json:"code"`
				} `json:"problems"`
			} `json:"data"`
		}
		h.Op("POST", "/api/v1/admin/exams", fixture()).Expect(201).Decode(&created)
		d := created.Data
		if len(d.Stimuli) != 2 || d.Stimuli[0].Title != "Danau Toba" || d.Stimuli[1].Format != "" || d.Questions[0].Stimulus != "toba" ||
			d.Questions[2].Stimulus != "" {
			t.Fatalf("created = %+v", d)
		}
		if len(d.Problems) != 1 || d.Problems[0].Field != "stimuli[toba]" || d.Problems[0].Code != "TEX_ERROR" || d.Problems[0].QuestionID != "" {
			t.Fatalf("problems = %+v", d.Problems)
		}
		var got struct {
			Data struct {
				Stimuli []client.Stimulus `json:"stimuli"`
			} `json:"data"`
		}
		h.Op("GET", "/api/v1/admin/exams/"+d.ID, nil).Expect(200).Decode(&got)
		if len(got.Data.Stimuli) != 2 || got.Data.Stimuli[1].Text != "Aku ingin hidup <seribu> tahun lagi" {
			t.Fatalf("read back: %+v", got.Data.Stimuli)
		}

		for name, change := range map[string]func(f map[string]any){
			"an unknown stimulus": func(f map[string]any) { f["questions"].([]map[string]any)[2]["stimulus"] = "danau" },
			"a duplicate id":      func(f map[string]any) { f["stimuli"].([]map[string]any)[1]["id"] = "toba" },
			"no text":             func(f map[string]any) { f["stimuli"].([]map[string]any)[1]["text"] = " " },
			"a bad id":            func(f map[string]any) { f["stimuli"].([]map[string]any)[1]["id"] = "a b" },
			"another format":      func(f map[string]any) { f["stimuli"].([]map[string]any)[1]["format"] = "latex" },
			"an unknown field":    func(f map[string]any) { f["stimuli"].([]map[string]any)[1]["html"] = "<b>x</b>" },
		} {
			f := fixture()
			change(f)
			r := h.Op("POST", "/api/v1/admin/exams", f)
			if name == "an unknown field" {
				r.ExpectError(400, "INVALID_JSON")
				continue
			}
			if m := r.ExpectError(400, "VALIDATION_FAILED").M(); name == "an unknown stimulus" &&
				m["error"] != `questions[2]: stimulus "danau" is not one of the exam's stimuli` {
				t.Errorf("refusal: %v", m["error"])
			}
		}
		var list struct{ Data []any }
		h.Op("GET", "/api/v1/admin/exams", nil).Expect(200).Decode(&list)
		if len(list.Data) != 1 {
			t.Fatalf("%d exams after the refusals, want 1", len(list.Data))
		}

		// The package carries the stimuli rendered; questions name theirs.
		var res httpapitest.PullJSON
		h.As(lab, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-01", nil).ExpectError(406, "LABAGENT_UPGRADE_REQUIRED")
		h.As(lab, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-01", nil, "X-Package-Formats", "1, 2").Expect(200).Decode(&res)
		pkg, err := client.DecodePackage(bytes.NewReader(res.Package), lab.PackageKey)
		if err != nil {
			t.Fatal(err)
		}
		e := pkg.Exams[0]
		if pkg.Format != 2 || len(e.Stimuli) != 2 || !strings.Contains(e.Stimuli[0].HTML, "<td dir=\"auto\">Toba</td>") ||
			e.Stimuli[1].HTML != "" || e.Stimuli[1].Text != "Aku ingin hidup <seribu> tahun lagi" ||
			e.Questions[0].Stimulus != "toba" || e.Questions[1].Stimulus != "toba" || e.Questions[2].Stimulus != "" {
			t.Fatalf("packaged: %+v", e)
		}

		// Updated without stimuli: gone.
		f := httpapitest.ExamFixture(httpapitest.NPSNA)
		h.Op("PUT", "/api/v1/admin/exams/"+d.ID, f).Expect(200)
		got.Data.Stimuli = nil
		h.Op("GET", "/api/v1/admin/exams/"+d.ID, nil).Expect(200).Decode(&got)
		if len(got.Data.Stimuli) != 0 {
			t.Fatalf("stimuli after an update without them: %+v", got.Data.Stimuli)
		}
	})
}
