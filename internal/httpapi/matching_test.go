package httpapi_test

import (
	"bytes"
	"encoding/csv"
	"io"
	"strings"
	"testing"

	"github.com/seedhq/portal/pkg/client"
)

// TestMatchingExam: a matching question (menjodohkan) scored "partial" is
// created through the API, refused with a clear message when its key gives
// one response to two premises, shipped in a format-2 package with its
// premises and responses rendered and without its key, and pushed answers
// are scored in the results and the answer CSV.
func TestMatchingExam(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		students := h.importStudents(npsnA, "Ani Lestari", "Budi Santoso")
		lab := h.newLabServer("LAB-01", npsnA)
		question := func() map[string]any {
			return map[string]any{"id": "m1", "type": "matching", "format": "markdown", "points": 3, "scoring": "partial",
				"text":      "Jodohkan provinsi dengan ibu kotanya.",
				"premises":  []map[string]any{{"id": "p1", "text": "Jawa Barat"}, {"id": "p2", "text": "Jawa Timur"}, {"id": "p3", "text": "Bali $x^2$"}},
				"responses": []map[string]any{{"id": "r1", "text": "Surabaya"}, {"id": "r2", "text": "Denpasar"}, {"id": "r3", "text": "Bandung"}, {"id": "r4", "text": "Semarang"}},
				"answer":    []string{"p3=r2", "p1=r3", "p2=r1"}}
		}
		fixture := examFixture(npsnA)
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
		h.op("POST", "/api/v1/admin/exams", fixture).expect(201).decode(&created)
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
			bad := examFixture(npsnA)
			bad["questions"] = []map[string]any{q}
			h.op("POST", "/api/v1/admin/exams", bad).expectError(400, "VALIDATION_FAILED")
		}
		msg := examFixture(npsnA)
		q := question()
		q["answer"] = []string{"p1=r3", "p2=r3", "p3=r2"}
		msg["questions"] = []map[string]any{q}
		if m := h.op("POST", "/api/v1/admin/exams", msg).expectError(400, "VALIDATION_FAILED").m(); !strings.Contains(m["error"].(string), `response "r3" is given to premise "p1" and "p2", and may be used once`) {
			t.Errorf("refusal message: %v", m["error"])
		}
		// With reuse_responses the same key is stored.
		reuse := examFixture(npsnA)
		q["reuse_responses"] = true
		reuse["questions"] = []map[string]any{q}
		h.op("POST", "/api/v1/admin/exams", reuse).expect(201)

		// The package ships premises and responses rendered, never the key.
		var res pullJSON
		h.as(lab, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-01", nil, "X-Package-Formats", "1, 2").expect(200).decode(&res)
		pkg, err := client.DecodePackage(bytes.NewReader(res.Package), lab.packageKey)
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
		dr, err := client.NewPackageDecrypter(lab.packageKey, bytes.NewReader(res.Package))
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
		raw := answersJSON(
			answerRec{created.Data.ID, students["ani.lestari"], "m1", "p1=r3,p2=r1,p3=r2", at}, // all right: 3
			answerRec{created.Data.ID, students["budi.santoso"], "m1", "p1=r3,p3=r1", at},      // 1 of 3: 1
		)
		h.as(lab, "POST", "/api/v1/sync/push-answers", encodePush(newPush(lab, raw, 2))).expect(200)
		r := h.results(created.Data.ID)
		if r.MaxScore != 3 || len(r.Results) != 2 {
			t.Fatalf("results = %+v", r)
		}
		if a, b := r.Results[0], r.Results[1]; a.Score != 3 || a.Correct != 1 || b.Score != 1 || b.Correct != 0 || b.Answered != 1 {
			t.Fatalf("scores: ani %+v, budi %+v", a, b)
		}
		resp := h.op("GET", "/api/v1/admin/exams/"+created.Data.ID+"/answers?format=csv", nil).expect(200)
		rows, err := csv.NewReader(bytes.NewReader(resp.body)).ReadAll()
		if err != nil || len(rows) != 3 {
			t.Fatalf("CSV: %v\n%s", err, resp.body)
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
