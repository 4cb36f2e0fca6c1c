package httpapi_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/seedhq/portal/pkg/client"
)

// TestStimulusExam: an exam whose questions share stimuli is created
// through the API (a stimulus's problems reported like a question's), read
// back with them, refused when a question names a stimulus it does not
// have (nothing stored), shipped in a format-2 package with the stimuli
// rendered and each question naming its own, and updated without them.
func TestStimulusExam(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		lab := h.newLabServer("LAB-01", npsnA)
		fixture := func() map[string]any {
			f := examFixture(npsnA)
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
		h.op("POST", "/api/v1/admin/exams", fixture()).expect(201).decode(&created)
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
		h.op("GET", "/api/v1/admin/exams/"+d.ID, nil).expect(200).decode(&got)
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
			r := h.op("POST", "/api/v1/admin/exams", f)
			if name == "an unknown field" {
				r.expectError(400, "INVALID_JSON")
				continue
			}
			if m := r.expectError(400, "VALIDATION_FAILED").m(); name == "an unknown stimulus" &&
				m["error"] != `questions[2]: stimulus "danau" is not one of the exam's stimuli` {
				t.Errorf("refusal: %v", m["error"])
			}
		}
		var list struct{ Data []any }
		h.op("GET", "/api/v1/admin/exams", nil).expect(200).decode(&list)
		if len(list.Data) != 1 {
			t.Fatalf("%d exams after the refusals, want 1", len(list.Data))
		}

		// The package carries the stimuli rendered; questions name theirs.
		var res pullJSON
		h.as(lab, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-01", nil).expectError(406, "LABAGENT_UPGRADE_REQUIRED")
		h.as(lab, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-01", nil, "X-Package-Formats", "1, 2").expect(200).decode(&res)
		pkg, err := client.DecodePackage(bytes.NewReader(res.Package), lab.packageKey)
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
		f := examFixture(npsnA)
		h.op("PUT", "/api/v1/admin/exams/"+d.ID, f).expect(200)
		got.Data.Stimuli = nil
		h.op("GET", "/api/v1/admin/exams/"+d.ID, nil).expect(200).decode(&got)
		if len(got.Data.Stimuli) != 0 {
			t.Fatalf("stimuli after an update without them: %+v", got.Data.Stimuli)
		}
	})
}
