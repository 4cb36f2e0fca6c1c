package exam_test

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
)

// TestExamAnalysis: GET /api/v1/admin/exams/{id}/analysis answers the
// item analysis of the pushed answers (its shape checked against the
// OpenAPI description by the harness): the fixture's essay, worth no
// points, is skipped; undefined figures are null; an unknown school is 404
// UNKNOWN_SCHOOL, an unknown exam 404 NOT_FOUND; graders are refused.
func TestExamAnalysis(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		lab, examID, students := pushFixture(h)
		path := "/api/v1/admin/exams/" + examID + "/analysis"
		none := h.Op("GET", path, nil).Expect(200).M()["data"].(map[string]any)
		if none["students"].(float64) != 0 || none["alpha"] != nil || len(none["items"].([]any)) != 4 {
			t.Fatalf("before any push: %v", none)
		}

		ani, budi := students["ani.lestari"], students["budi.santoso"]
		at := "2026-12-01T08:00:00Z"
		raw := httpapitest.AnswersJSON(
			httpapitest.AnswerRec{ExamID: examID, MemberID: ani, QuestionID: "q1", Answer: "b", AnsweredAt: at},
			httpapitest.AnswerRec{ExamID: examID, MemberID: ani, QuestionID: "q3", Answer: "false", AnsweredAt: at},
			httpapitest.AnswerRec{ExamID: examID, MemberID: ani, QuestionID: "q5", Answer: "Karena...", AnsweredAt: at},
			httpapitest.AnswerRec{ExamID: examID, MemberID: budi, QuestionID: "q1", Answer: "a", AnsweredAt: at},
			httpapitest.AnswerRec{ExamID: examID, MemberID: budi, QuestionID: "q3", Answer: "false", AnsweredAt: at},
		)
		h.As(lab, "POST", "/api/v1/sync/push-answers", httpapitest.EncodePush(httpapitest.NewPush(lab, raw, 5))).Expect(200)

		data := h.Op("GET", path, nil).Expect(200).M()["data"].(map[string]any)
		if data["students"].(float64) != 2 || data["exam_title"] != "Matematika Dasar" {
			t.Fatalf("analysis: %v", data)
		}
		skipped := data["skipped"].([]any)
		if len(skipped) != 1 || skipped[0].(map[string]any)["question_id"] != "q5" || skipped[0].(map[string]any)["pending"].(float64) != 0 {
			t.Fatalf("skipped = %v", skipped)
		}
		items := data["items"].([]any)
		q1 := items[0].(map[string]any)
		if q1["id"] != "q1" || q1["number"].(float64) != 1 || q1["text"] != "1 + 1 = ?" || q1["facility"].(float64) != 0.5 {
			t.Fatalf("q1 = %v", q1)
		}
		q3 := items[2].(map[string]any)
		if q3["facility"].(float64) != 1 || q3["item_rest"] != nil || q3["flags"].([]any)[len(q3["flags"].([]any))-1] != "all_correct" {
			t.Fatalf("q3 = %v", q3)
		}
		// The table teachers paste: CSV in Indonesian, xlsx in English.
		csvRes := h.Op("GET", path+"?format=csv", nil).Expect(200)
		recs, err := csv.NewReader(bytes.NewReader(csvRes.Body)).ReadAll()
		if err != nil || csvRes.Header.Get("Content-Type") != "text/csv; charset=utf-8" || len(recs) != 6 ||
			recs[0][2] != "Soal" || recs[1][1] != "q1" || recs[5][1] != "q5" || !strings.Contains(csvRes.Header.Get("Content-Disposition"), "analisis-") {
			t.Fatalf("csv (%v): %q", err, recs)
		}
		xl := h.Op("GET", path+"?format=xlsx&lang=en", nil).Expect(200)
		book, err := excelize.OpenReader(bytes.NewReader(xl.Body))
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := book.GetCellValue("Questions", "C1"); v != "Question" {
			t.Errorf("xlsx heading %q", v)
		}
		h.Op("GET", path+"?format=pdf", nil).ExpectError(400, "INVALID_QUERY")
		h.Op("GET", path+"?format=csv&lang=fr", nil).ExpectError(400, "INVALID_QUERY")
		h.Op("GET", path+"?npsn=99999999", nil).ExpectError(404, "UNKNOWN_SCHOOL")
		h.Op("GET", path+"?academic_year=2019/2020", nil).ExpectError(404, "UNKNOWN_ACADEMIC_YEAR")
		// A region, by the schools' newest licences.
		h.Op("GET", path+"?region=Jawa%20Barat", nil).ExpectError(404, "UNKNOWN_REGION")
		lic := map[string]any{"npsn": httpapitest.NPSNA, "school_name": "SMA Negeri 1 Bandung", "region": "Jawa Barat/Kota Bandung",
			"hardware_id": "hw-region", "max_students": 500, "duration_days": 365, "operating_mode": "OFFLINE"}
		h.Op("POST", "/api/v1/licenses/generate", lic).Expect(201)
		inRegion := h.Op("GET", path+"?region=jawa%20barat", nil).Expect(200).M()["data"].(map[string]any)
		if inRegion["region"] != "jawa barat" || inRegion["students"].(float64) != 2 {
			t.Fatalf("region = %v", inRegion)
		}
		h.Op("GET", path+"?region=Bali", nil).ExpectError(404, "UNKNOWN_REGION")
		listed := h.Op("GET", "/api/v1/licenses?npsn="+httpapitest.NPSNA, nil).Expect(200).M()["data"].([]any)
		if listed[0].(map[string]any)["region"] != "Jawa Barat/Kota Bandung" {
			t.Errorf("the newest licence lists %v", listed[0])
		}
		lic["region"] = "Jawa Barat\nKota Bandung"
		h.Op("POST", "/api/v1/licenses/generate", lic).ExpectError(400, "VALIDATION_FAILED")
		h.Op("GET", "/api/v1/admin/exams/no-such-exam/analysis", nil).ExpectError(404, "NOT_FOUND")
		class := h.Op("GET", path+"?npsn="+httpapitest.NPSNA+"&kelas=XII%20IPA%201", nil).Expect(200).M()["data"].(map[string]any)
		if class["kelas"] != "XII IPA 1" || class["students"].(float64) != 2 {
			t.Fatalf("class = %v", class)
		}
		_, grader := h.NewGrader("guru.analisis")
		h.Req("GET", path, nil, httpapitest.Bearer(grader)...).ExpectError(403, "GRADER_FORBIDDEN")
	})
}
