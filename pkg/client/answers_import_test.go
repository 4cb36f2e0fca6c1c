package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/password"
	"github.com/seedhq/portal/pkg/client"
	"github.com/seedhq/portal/pkg/labwire"
)

func TestImportAnswersRequest(t *testing.T) {
	f := newFakePortal(t)
	f.json("POST /api/v1/admin/answers/import", 200, map[string]any{"success": true, "server_code": "LAB-01", "npsn": "20100001",
		"license_id": "lic", "exported_at": "2026-12-01T10:00:00Z", "checksum_sha256": "ab", "records": 3,
		"accepted": 1, "duplicates": 0, "rejected": 1, "batches": []any{
			map[string]any{"idempotency_key": "k1", "records": 2, "outcome": "accepted", "sync_id": "s1", "duplicate": false, "code": "", "message": ""},
			map[string]any{"idempotency_key": "k2", "records": 1, "outcome": "rejected", "sync_id": "", "duplicate": false, "code": "UNKNOWN_EXAM", "message": "no"},
		}})
	body := []byte("{\"format\":\"labagent-answers/1\"}\n\x00\x01binary\n")
	res, _, err := f.client(client.WithToken("jwt")).Exam.Admin.ImportAnswers(context.Background(), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if res.ServerCode != "LAB-01" || res.Accepted != 1 || res.Rejected != 1 || len(res.Batches) != 2 ||
		res.Batches[1].Code != client.CodeUnknownExam || !res.ExportedAt.Equal(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("result %+v", res)
	}
	r := f.last()
	if !bytes.Equal(r.Body, body) || r.Header.Get("Content-Type") != "application/octet-stream" || r.Header.Get("Authorization") != "Bearer jwt" {
		t.Errorf("request body %q Content-Type %q Authorization %q", r.Body, r.Header.Get("Content-Type"), r.Header.Get("Authorization"))
	}

	if _, _, err := f.client().Exam.Admin.ImportAnswers(context.Background(), nil); err == nil {
		t.Error("nil reader: no error")
	}
}

// TestImportAnswersRealPortal imports a file like labagent's into the real
// portal on both stores: stored once, safe to repeat, a duplicate of the
// lab's later push, and a damaged copy refused with a code.
func TestImportAnswersRealPortal(t *testing.T) {
	old := password.Cost
	password.Cost = 4
	t.Cleanup(func() { password.Cost = old })
	for _, so := range itStores {
		t.Run(so.name, func(t *testing.T) {
			base, _ := newRealPortal(t, so.open(t))
			ctx := t.Context()
			op := mustClient(t, base)
			login, _, err := op.Exam.Auth.Login(ctx, itAdminUser, itAdminPassword)
			must(t, "login", err)
			op.SetToken(login.Token)

			issued, _, err := op.Exam.Licenses.Generate(ctx, &client.LicenseRequest{NPSN: itNPSN, SchoolName: "SMA Negeri 1",
				HardwareID: "HW-LAB-1", MaxStudents: 50, DurationDays: 30, OperatingMode: client.ModeOffline})
			must(t, "generate licence", err)
			start := time.Now().Truncate(time.Second)
			ex, _, err := op.Exam.Admin.CreateExam(ctx, &client.ExamRequest{Title: "Fisika", Subject: "FIS", NPSN: []string{itNPSN},
				StartsAt: start, EndsAt: start.Add(2 * time.Hour), DurationMinutes: 60,
				Questions: []client.Question{{ID: "q1", Type: client.SingleChoice, Text: "g?", Points: 1,
					Options: []client.QuestionOption{{ID: "a", Text: "9.8"}, {ID: "b", Text: "1"}}, Answer: []string{"a"}}}})
			must(t, "create exam", err)
			lab := mustClient(t, base)
			v, _, err := lab.Exam.Sync.VerifyServer(ctx, &client.VerifyServerRequest{
				ServerCode: "LAB-1", NPSN: itNPSN, HardwareID: "HW-LAB-1", LicenseToken: issued.LicenseToken})
			must(t, "verify server", err)
			lab.SetToken(v.AccessToken)

			// The file as labagent writes it: answers marshalled as a push
			// marshals them.
			answers := []client.Answer{
				{ExamID: ex.ID, MemberID: "m1", QuestionID: "q1", Answer: "a", AnsweredAt: start},
				{ExamID: ex.ID, MemberID: "m2", QuestionID: "q1", Answer: "b", AnsweredAt: start},
			}
			raw, _ := json.Marshal(answers)
			var file bytes.Buffer
			_, err = labwire.WriteAnswerExport(&file, v.PackageKey, labwire.AnswerExport{ServerCode: "LAB-1", NPSN: itNPSN,
				LicenseID: issued.Payload.LicenseID, ExportedAt: time.Now(),
				Batches: []labwire.AnswerExportBatch{{IdempotencyKey: "labagent-k1", SealedAt: time.Now(), Answers: raw}}})
			must(t, "write export", err)

			res, _, err := op.Exam.Admin.ImportAnswers(ctx, bytes.NewReader(file.Bytes()))
			must(t, "import answers", err)
			if res.Accepted != 1 || res.Records != 2 || len(res.Batches) != 1 || res.Batches[0].Outcome != client.OutcomeAccepted ||
				res.LicenseID != issued.Payload.LicenseID {
				t.Fatalf("import = %+v", res)
			}
			again, _, err := op.Exam.Admin.ImportAnswers(ctx, bytes.NewReader(file.Bytes()))
			must(t, "import answers again", err)
			if again.Duplicates != 1 || !again.Batches[0].Duplicate || again.Batches[0].SyncID != res.Batches[0].SyncID {
				t.Fatalf("second import = %+v", again)
			}
			rc, _, err := lab.Exam.Sync.PushAnswers(ctx, &client.PushAnswersRequest{ServerCode: "LAB-1", NPSN: itNPSN,
				Answers: answers, IdempotencyKey: "labagent-k1"})
			must(t, "push after import", err)
			if !rc.Duplicate || rc.SyncID != res.Batches[0].SyncID {
				t.Fatalf("push after import = %+v", rc)
			}
			results, _, err := op.Exam.Admin.ExamResults(ctx, ex.ID)
			must(t, "results", err)
			if len(results.Results) != 2 {
				t.Fatalf("results = %+v", results)
			}

			damaged := bytes.Clone(file.Bytes())
			damaged[len(damaged)-1] ^= 1
			_, _, err = op.Exam.Admin.ImportAnswers(ctx, bytes.NewReader(damaged))
			if !errors.Is(err, &client.Error{Code: client.CodeChecksumMismatch}) || !errors.Is(err, client.ErrUnprocessable) {
				t.Fatalf("damaged file: %v", err)
			}
			_, _, err = op.Exam.Admin.ImportAnswers(ctx, bytes.NewReader([]byte("not an export\n")))
			if !errors.Is(err, &client.Error{Code: client.CodeExportInvalid}) {
				t.Fatalf("not an export: %v", err)
			}
		})
	}
}
