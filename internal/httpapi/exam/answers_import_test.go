package exam_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
	"github.com/seedhq/portal/pkg/labwire"
)

type answerImportJSON struct {
	Success    bool      `json:"success"`
	ServerCode string    `json:"server_code"`
	NPSN       string    `json:"npsn"`
	LicenseID  string    `json:"license_id"`
	ExportedAt time.Time `json:"exported_at"`
	Checksum   string    `json:"checksum_sha256"`
	Records    int       `json:"records"`
	Accepted   int       `json:"accepted"`
	Duplicates int       `json:"duplicates"`
	Rejected   int       `json:"rejected"`
	Batches    []struct {
		IdempotencyKey string `json:"idempotency_key"`
		Records        int    `json:"records"`
		Outcome        string `json:"outcome"`
		SyncID         string `json:"sync_id"`
		Duplicate      bool   `json:"duplicate"`
		Code           string `json:"code"`
		Message        string `json:"message"`
	} `json:"batches"`
}

// exportFile writes an answer export file of lab's with one batch per
// answers array (the exact bytes a push would send), keyed key-1, key-2...
func exportFile(t *testing.T, lab httpapitest.LabServer, answers ...string) []byte {
	t.Helper()
	e := labwire.AnswerExport{ServerCode: lab.Code, NPSN: lab.NPSN, LicenseID: "lic", ExportedAt: time.Now()}
	for i, raw := range answers {
		e.Batches = append(e.Batches, labwire.AnswerExportBatch{
			IdempotencyKey: fmt.Sprintf("key-%d", i+1), SealedAt: time.Now(), Answers: json.RawMessage(raw)})
	}
	var buf bytes.Buffer
	if _, err := labwire.WriteAnswerExport(&buf, lab.PackageKey, e); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const importPath = "/api/v1/admin/answers/import"

var octetStream = []string{"Content-Type", "application/octet-stream"}

func TestImportAnswers(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		lab, examID, students := pushFixture(h)
		ani, budi := students["ani.lestari"], students["budi.santoso"]
		at := "2026-12-01T08:00:00Z"
		batch1 := httpapitest.AnswersJSON(httpapitest.AnswerRec{ExamID: examID, MemberID: ani, QuestionID: "q1", Answer: "b", AnsweredAt: at}, httpapitest.AnswerRec{ExamID: examID, MemberID: ani, QuestionID: "q2", Answer: "c,a", AnsweredAt: at})
		batch2 := httpapitest.AnswersJSON(httpapitest.AnswerRec{ExamID: examID, MemberID: budi, QuestionID: "q1", Answer: "a", AnsweredAt: at})
		rejected := httpapitest.AnswersJSON(httpapitest.AnswerRec{ExamID: examID, MemberID: budi, QuestionID: "q99", Answer: "a", AnsweredAt: at})
		file := exportFile(t, lab, batch1, rejected, batch2)

		var res answerImportJSON
		h.Op("POST", importPath, file, octetStream...).Expect(200).Decode(&res)
		if !res.Success || res.ServerCode != "LAB-01" || res.NPSN != httpapitest.NPSNA || res.LicenseID != "lic" || res.Records != 4 ||
			res.Accepted != 2 || res.Duplicates != 0 || res.Rejected != 1 || len(res.Batches) != 3 || len(res.Checksum) != 64 {
			t.Fatalf("import = %+v", res)
		}
		if b := res.Batches[0]; b.IdempotencyKey != "key-1" || b.Outcome != "accepted" || b.SyncID == "" || b.Records != 2 || b.Duplicate || b.Code != "" {
			t.Errorf("batch 1 = %+v", b)
		}
		if b := res.Batches[1]; b.Outcome != "rejected" || b.Code != "UNKNOWN_QUESTION" || !strings.Contains(b.Message, "q99") || b.SyncID != "" {
			t.Errorf("batch 2 = %+v", b)
		}
		if r := h.Results(examID); len(r.Results) != 2 {
			t.Fatalf("results after import = %+v", r)
		}

		// Again, without a Content-Type: every batch a duplicate (the
		// rejected one is rejected again), nothing stored twice.
		var again answerImportJSON
		h.Op("POST", importPath, file).Expect(200).Decode(&again)
		if again.Accepted != 0 || again.Duplicates != 2 || again.Rejected != 1 ||
			!again.Batches[0].Duplicate || again.Batches[0].SyncID != res.Batches[0].SyncID {
			t.Fatalf("second import = %+v", again)
		}

		// The lab's own push of a batch later is a duplicate of the import.
		var pr pushResult
		h.As(lab, "POST", "/api/v1/sync/push-answers", httpapitest.EncodePush(httpapitest.NewPush(lab, batch2, 1)), "Idempotency-Key", "key-3").Expect(200).Decode(&pr)
		if !pr.Duplicate || pr.SyncID != res.Batches[2].SyncID {
			t.Fatalf("push after import = %+v, want the import's %s", pr, res.Batches[2].SyncID)
		}

		// The sync log has each batch as a push of LAB-01.
		var logs struct {
			Success bool          `json:"success"`
			Data    []syncLogJSON `json:"data"`
		}
		h.Op("GET", "/api/v1/admin/sync-logs?server_code=LAB-01", nil).Decode(&logs)
		got := map[string]int{}
		for _, l := range logs.Data {
			if l.Action == "push_results" {
				got[l.Outcome+" "+l.IdempotencyKey]++
			}
		}
		want := map[string]int{"accepted key-1": 1, "accepted key-3": 1, "rejected key-2": 2, "duplicate key-1": 1, "duplicate key-3": 2}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("push_results log = %v, want %v", got, want)
		}
	})
}

func TestImportAnswersRefusals(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		lab, examID, students := pushFixture(h)
		file := exportFile(t, lab, httpapitest.AnswersJSON(httpapitest.AnswerRec{ExamID: examID, MemberID: students["ani.lestari"], QuestionID: "q1", Answer: "b", AnsweredAt: "2026-12-01T08:00:00Z"}))
		nl := bytes.IndexByte(file, '\n')

		// Operators only.
		h.Req("POST", importPath, file, octetStream...).ExpectError(401, "UNAUTHORIZED")
		h.As(lab, "POST", importPath, file, octetStream...).ExpectError(401, "UNAUTHORIZED")
		h.Op("POST", importPath, file, "Content-Type", "multipart/form-data; boundary=x").ExpectError(415, "UNSUPPORTED_MEDIA_TYPE")

		flipped := bytes.Clone(file)
		flipped[len(flipped)-20] ^= 0x80
		h.Op("POST", importPath, flipped, octetStream...).ExpectError(422, "CHECKSUM_MISMATCH")
		h.Op("POST", importPath, file[:len(file)-1], octetStream...).ExpectError(422, "CHECKSUM_MISMATCH")

		// Tampered with and re-checksummed: the AEAD refuses it.
		var hdr map[string]any
		json.Unmarshal(file[:nl], &hdr)
		hdr["checksum_sha256"] = httpapitest.SHA(flipped[nl+1:])
		head, _ := json.Marshal(hdr)
		h.Op("POST", importPath, append(append(head, '\n'), flipped[nl+1:]...), octetStream...).ExpectError(422, "EXPORT_CORRUPT")

		// A file from a server the portal does not know.
		ghost := httpapitest.LabServer{Code: "LAB-GHOST", NPSN: httpapitest.NPSNA, PackageKey: lab.PackageKey}
		h.Op("POST", importPath, exportFile(t, ghost, httpapitest.AnswersJSON(httpapitest.AnswerRec{ExamID: examID, MemberID: "m", QuestionID: "q1", Answer: "b", AnsweredAt: "2026-12-01T08:00:00Z"})), octetStream...).
			ExpectError(422, "UNKNOWN_SERVER")

		h.Op("POST", importPath, "", octetStream...).ExpectError(400, "EXPORT_INVALID")
		h.Op("POST", importPath, `{"format":"labagent-answers/1"}`+"\n", octetStream...).ExpectError(400, "EXPORT_INVALID")
		h.Op("POST", importPath, strings.Repeat("x", 10000), octetStream...).ExpectError(400, "EXPORT_INVALID")

		if r := h.Results(examID); len(r.Results) != 0 {
			t.Fatalf("refused files stored answers: %+v", r.Results)
		}
	})
}

// An import of more than the default 1 MiB is accepted (the route allows 256 MiB).
func TestImportAnswersLargeFile(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		lab, examID, _ := pushFixture(h)
		essay := strings.Repeat("x", 9000)
		var batches []string
		for b := 0; b < 3; b++ {
			var recs []httpapitest.AnswerRec
			for i := 0; i < 80; i++ {
				recs = append(recs, httpapitest.AnswerRec{ExamID: examID, MemberID: fmt.Sprintf("member-%d-%03d", b, i), QuestionID: "q5", Answer: essay, AnsweredAt: "2026-12-01T08:00:00Z"})
			}
			batches = append(batches, httpapitest.AnswersJSON(recs...))
		}
		file := exportFile(t, lab, batches...)
		if len(file) < 2<<20 {
			t.Fatalf("fixture is only %d bytes", len(file))
		}
		var res answerImportJSON
		h.Op("POST", importPath, file, octetStream...).Expect(200).Decode(&res)
		if res.Accepted != 3 || res.Records != 240 {
			t.Fatalf("import = %+v", res)
		}
	})
}
