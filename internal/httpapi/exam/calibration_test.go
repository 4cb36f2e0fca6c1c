package exam_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
)

// TestExamCalibration: GET /api/v1/admin/exams/{id}/calibration answers
// the IRT calibration of the pushed answers (its shape checked against the
// OpenAPI description by the harness): before any answer a note and no
// items; after, every question but the essay, a partly right answer
// counting as wrong; the 2PL on request, which these few students cannot
// identify (a note, no items); an unknown model is 400
// UNKNOWN_MODEL, an unknown exam 404; graders are refused.
func TestExamCalibration(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		names := []string{"Ani Lestari", "Budi Santoso", "Citra Dewi", "Dedi Kurnia", "Eka Putri", "Fajar Nugroho", "Gita Sari", "Hadi Wijaya"}
		students := h.ImportStudents(httpapitest.NPSNA, names...)
		examID := h.CreateExam(httpapitest.NPSNA)
		lab := h.NewLabServer("LAB-01", httpapitest.NPSNA)
		path := "/api/v1/admin/exams/" + examID + "/calibration"
		none := h.Op("GET", path, nil).Expect(200).M()["data"].(map[string]any)
		if none["students"].(float64) != 0 || none["note"] == "" || len(none["items"].([]any)) != 0 || none["log_likelihood"] != nil ||
			none["started_at"] == nil || none["finished_at"] == nil {
			t.Fatalf("before any push: %v", none)
		}
		// latest=true fits nothing: the calibration just made, and none
		// yet with the other model; no run goes on.
		latest := h.Op("GET", path+"?latest=true", nil).Expect(200).M()["data"].(map[string]any)
		if latest["note_code"] != none["note_code"] || latest["finished_at"] != none["finished_at"] || latest["started_at"] != none["started_at"] || latest["run"] != nil {
			t.Fatalf("latest: %v, made: %v", latest, none)
		}
		noneYet := h.Op("GET", path+"?model=2pl&latest=1", nil).Expect(200).M()["data"].(map[string]any)
		if noneYet["note_code"] != "none_yet" || noneYet["model"] != "2pl" || noneYet["started_at"] != nil || noneYet["finished_at"] != nil || len(noneYet["items"].([]any)) != 0 {
			t.Fatalf("latest 2pl before any: %v", noneYet)
		}
		h.Op("GET", path+"?latest=soon", nil).ExpectError(400, "INVALID_QUERY")
		h.Op("GET", path+"?latest=true&model=3pl", nil).ExpectError(400, "UNKNOWN_MODEL")
		h.Op("GET", "/api/v1/admin/exams/no-such-exam/calibration?latest=true", nil).ExpectError(404, "NOT_FOUND")

		// Each student's answers to q1 to q4: right (1), wrong (0), partly
		// right (p, q2 only: wrong here), blank (-).
		patterns := []string{"1111", "11p0", "1101", "1010", "0110", "1000", "0100", "00p-"}
		right := map[string][2]string{"q1": {"b", "a"}, "q2": {"a,c", "b"}, "q3": {"false", "true"}, "q4": {"Jakarta", "Bandung"}}
		var recs []httpapitest.AnswerRec
		at := "2026-12-01T08:00:00Z"
		for i, p := range patterns {
			id := students[strings.ToLower(strings.ReplaceAll(names[i], " ", "."))]
			for j, c := range p {
				q := fmt.Sprint("q", j+1)
				var v string
				switch c {
				case '1':
					v = right[q][0]
				case '0':
					v = right[q][1]
				case 'p':
					v = "a"
				default:
					continue
				}
				recs = append(recs, httpapitest.AnswerRec{ExamID: examID, MemberID: id, QuestionID: q, Answer: v, AnsweredAt: at})
			}
		}
		h.As(lab, "POST", "/api/v1/sync/push-answers", httpapitest.EncodePush(httpapitest.NewPush(lab, httpapitest.AnswersJSON(recs...), len(recs)))).Expect(200)

		data := h.Op("GET", path, nil).Expect(200).M()["data"].(map[string]any)
		if data["students"].(float64) != 8 || data["model"] != "rasch" || data["note"] != "" || !data["converged"].(bool) {
			t.Fatalf("calibration: %v", data)
		}
		items := data["items"].([]any)
		if len(items) != 4 || len(data["information"].([]any)) != 81 {
			t.Fatalf("%d items, %d information points", len(items), len(data["information"].([]any)))
		}
		answered := []float64{8, 8, 8, 7}
		for j, raw := range items {
			it := raw.(map[string]any)
			if it["question_id"] != fmt.Sprint("q", j+1) || !it["calibrated"].(bool) || it["difficulty"] == nil || it["answered"].(float64) != answered[j] {
				t.Errorf("item %d: %v", j, it)
			}
		}
		// q1 (6 of 8 right) is easier than q4 (2 of 7 right).
		if d1, d4 := items[0].(map[string]any)["difficulty"].(float64), items[3].(map[string]any)["difficulty"].(float64); d1 >= d4 {
			t.Errorf("difficulties q1 %v, q4 %v", d1, d4)
		}
		if sk := data["skipped"].([]any); len(sk) != 1 || sk[0].(map[string]any)["question_id"] != "q5" {
			t.Errorf("skipped %v", sk)
		}
		// Eight students cannot identify a 2PL: a question splits them
		// perfectly, and the answer says which and suggests Rasch.
		two := h.Op("GET", path+"?model=2pl", nil).Expect(200).M()["data"].(map[string]any)
		if two["model"] != "2pl" || len(two["items"].([]any)) != 0 || !strings.Contains(two["note"].(string), "Rasch") || two["note_code"] != "unbounded" || two["log_likelihood"] != nil {
			t.Fatalf("2pl: %v", two)
		}
		if l := h.Op("GET", path+"?model=2pl&latest=true", nil).Expect(200).M()["data"].(map[string]any); l["note_code"] != "unbounded" || l["finished_at"] != two["finished_at"] {
			t.Fatalf("latest 2pl: %v", l)
		}
		h.Op("GET", path+"?model=3pl", nil).ExpectError(400, "UNKNOWN_MODEL")
		h.Op("GET", "/api/v1/admin/exams/no-such-exam/calibration", nil).ExpectError(404, "NOT_FOUND")
		_, grader := h.NewGrader("guru.kalibrasi")
		h.Req("GET", path, nil, httpapitest.Bearer(grader)...).ExpectError(403, "GRADER_FORBIDDEN")

		// Keeping: the 2PL gives no fit (409, saying why, nothing kept);
		// the Rasch fit's parameters go with the four questions, shown on
		// the exam.
		h.Op("POST", path+"?model=2pl", nil).ExpectError(409, "NOT_CALIBRATED")
		h.Op("POST", path+"?model=3pl", nil).ExpectError(400, "UNKNOWN_MODEL")
		h.Req("POST", path, nil, httpapitest.Bearer(grader)...).ExpectError(403, "GRADER_FORBIDDEN")
		kept := h.Op("POST", path, nil).Expect(200).M()["data"].(map[string]any)
		if kept["kept"].(float64) != 4 || kept["anchored"].(float64) != 0 || kept["population_mean"].(float64) != 0 || kept["population_sd"].(float64) != 1 {
			t.Fatalf("kept: %v", kept)
		}
		ex := h.Op("GET", "/api/v1/admin/exams/"+examID, nil).Expect(200).M()["data"].(map[string]any)
		for j, raw := range ex["questions"].([]any) {
			q := raw.(map[string]any)
			p, ok := q["calibrated"].(map[string]any)
			if j == 4 { // q5, the essay, was skipped
				if ok {
					t.Errorf("the essay kept %v", p)
				}
				continue
			}
			want := items[j].(map[string]any)["difficulty"].(float64)
			if !ok || p["model"] != "rasch" || p["exam_id"] != examID || p["difficulty"].(float64) != want {
				t.Errorf("question %d kept %v, want difficulty %v", j+1, q["calibrated"], want)
			}
		}
		h.Op("POST", "/api/v1/admin/exams/no-such-exam/calibration", nil).ExpectError(404, "NOT_FOUND")
	})
}
