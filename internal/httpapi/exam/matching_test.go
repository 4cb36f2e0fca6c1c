package exam_test

import (
	"bytes"
	"encoding/csv"
	"io"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
	"github.com/seedhq/portal/pkg/client"
)

// TestMatchingExam: a matching question (menjodohkan) scored "partial" is
// created through the API, refused with a clear message when its key gives
// one response to two premises, shipped in a format-2 package with its
// premises and responses rendered and without its key, and pushed answers
// are scored in the results and the answer CSV.
func TestMatchingExam(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		students := h.ImportStudents(httpapitest.NPSNA, "Ani Lestari", "Budi Santoso")
		lab := h.NewLabServer("LAB-01", httpapitest.NPSNA)
		question := func() map[string]any {
			return map[string]any{"id": "m1", "type": "matching", "format": "markdown", "points": 3, "scoring": "partial",
				"text":      "Jodohkan provinsi dengan ibu kotanya.",
				"premises":  []map[string]any{{"id": "p1", "text": "Jawa Barat"}, {"id": "p2", "text": "Jawa Timur"}, {"id": "p3", "text": "Bali $x^2$"}},
				"responses": []map[string]any{{"id": "r1", "text": "Surabaya"}, {"id": "r2", "text": "Denpasar"}, {"id": "r3", "text": "Bandung"}, {"id": "r4", "text": "Semarang"}},
				"answer":    []string{"p3=r2", "p1=r3", "p2=r1"}}
		}
		fixture := httpapitest.ExamFixture(httpapitest.NPSNA)
		fixture["questions"] = []map[string]any{question()}
		var created struct {
			Data struct {
				ID        string `json:"id"`
				Questions []struct {
					Premises       []struct{ ID, Text string } `json:"premises"`
					Responses      []struct{ ID, Text string } `json:"responses"`
					ReuseResponses bool                        `json:"reuse_responses"`
					Answer         []string                    `json:"answer"`
				} `json:"questions"`
			} `json:"data"`
		}
		h.Op("POST", "/api/v1/admin/exams", fixture).Expect(201).Decode(&created)
		if q := created.Data.Questions[0]; len(q.Premises) != 3 || len(q.Responses) != 4 || q.ReuseResponses ||
			strings.Join(q.Answer, ",") != "p1=r3,p2=r1,p3=r2" {
			t.Fatalf("created matching question = %+v", q)
		}
		for _, change := range []func(q map[string]any){
			func(q map[string]any) { q["answer"] = []string{"p1=r3", "p2=r3", "p3=r2"} },
			func(q map[string]any) { q["answer"] = []string{"p1=r3", "p2=r1"} },
			func(q map[string]any) { q["answer"] = []string{"p1=r3", "p2=r1", "p9=r2"} },
			func(q map[string]any) { q["responses"] = []map[string]any{{"id": "r1", "text": "x"}} },
			func(q map[string]any) { q["options"] = []map[string]any{{"id": "a", "text": "x"}} },
		} {
			q := question()
			change(q)
			bad := httpapitest.ExamFixture(httpapitest.NPSNA)
			bad["questions"] = []map[string]any{q}
			h.Op("POST", "/api/v1/admin/exams", bad).ExpectError(400, "VALIDATION_FAILED")
		}
		msg := httpapitest.ExamFixture(httpapitest.NPSNA)
		q := question()
		q["answer"] = []string{"p1=r3", "p2=r3", "p3=r2"}
		msg["questions"] = []map[string]any{q}
		if m := h.Op("POST", "/api/v1/admin/exams", msg).ExpectError(400, "VALIDATION_FAILED").M(); !strings.Contains(m["error"].(string), `response "r3" is given to premise "p1" and "p2", and may be used once`) {
			t.Errorf("refusal message: %v", m["error"])
		}
		// With reuse_responses the same key is stored.
		reuse := httpapitest.ExamFixture(httpapitest.NPSNA)
		q["reuse_responses"] = true
		reuse["questions"] = []map[string]any{q}
		h.Op("POST", "/api/v1/admin/exams", reuse).Expect(201)

		// The package ships premises and responses rendered, never the key.
		var res httpapitest.PullJSON
		h.As(lab, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-01", nil, "X-Package-Formats", "1, 2").Expect(200).Decode(&res)
		pkg, err := client.DecodePackage(bytes.NewReader(res.Package), lab.PackageKey)
		if err != nil {
			t.Fatal(err)
		}
		var m client.PackageQuestion
		for _, e := range pkg.Exams {
			if e.ID == created.Data.ID {
				m = e.Questions[0]
			}
		}
		if pkg.Format != 2 || m.Type != client.Matching || len(m.Premises) != 3 || len(m.Responses) != 4 || m.ReuseResponses ||
			!strings.Contains(m.Premises[2].HTML, "<math") || m.Responses[3].HTML != `<p dir="auto">Semarang</p>` {
			t.Fatalf("packaged matching question = %+v", m)
		}
		dr, err := client.NewPackageDecrypter(lab.PackageKey, bytes.NewReader(res.Package))
		if err != nil {
			t.Fatal(err)
		}
		plain, err := io.ReadAll(dr)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(plain, []byte("p1=r3")) || bytes.Contains(plain, []byte(`"answer"`)) {
			t.Fatal("the package carries the key")
		}

		at := "2026-12-01T08:00:00Z"
		raw := httpapitest.AnswersJSON(
			httpapitest.AnswerRec{ExamID: created.Data.ID, MemberID: students["ani.lestari"], QuestionID: "m1", Answer: "p1=r3,p2=r1,p3=r2", AnsweredAt: at}, // all right: 3
			httpapitest.AnswerRec{ExamID: created.Data.ID, MemberID: students["budi.santoso"], QuestionID: "m1", Answer: "p1=r3,p3=r1", AnsweredAt: at},      // 1 of 3: 1
		)
		h.As(lab, "POST", "/api/v1/sync/push-answers", httpapitest.EncodePush(httpapitest.NewPush(lab, raw, 2))).Expect(200)
		r := h.Results(created.Data.ID)
		if r.MaxScore != 3 || len(r.Results) != 2 {
			t.Fatalf("results = %+v", r)
		}
		if a, b := r.Results[0], r.Results[1]; a.Score != 3 || a.Correct != 1 || b.Score != 1 || b.Correct != 0 || b.Answered != 1 {
			t.Fatalf("scores: ani %+v, budi %+v", a, b)
		}
		resp := h.Op("GET", "/api/v1/admin/exams/"+created.Data.ID+"/answers?format=csv", nil).Expect(200)
		rows, err := csv.NewReader(bytes.NewReader(resp.Body)).ReadAll()
		if err != nil || len(rows) != 3 {
			t.Fatalf("CSV: %v\n%s", err, resp.Body)
		}
		byAnswer := map[string]string{}
		for _, row := range rows[1:] {
			byAnswer[row[3]] = row[7] + " " + row[8]
		}
		if byAnswer["p1=r3,p2=r1,p3=r2"] != "true 3" || byAnswer["p1=r3,p3=r1"] != "false 1" {
			t.Fatalf("CSV correct and points: %v", byAnswer)
		}
	})
}
