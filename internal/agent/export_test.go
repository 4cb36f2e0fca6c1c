//go:build !windows

package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi"
	"github.com/seedhq/portal/internal/idempotency"
	"github.com/seedhq/portal/internal/identity"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/pkg/client"
	"github.com/seedhq/portal/pkg/labwire"
)

// exportFixture is a portal with an exam assigned to the school and a lab
// server bound by a handshake, and that server's labagent state.
type exportFixture struct {
	t      *testing.T
	url    string
	svc    *exam.Service
	store  *bolt.Store
	examID string
	cfg    *agent.Config
	db     *localdb.DB
	ver    exam.Verification
	now    time.Time
}

func newExportFixture(t *testing.T) *exportFixture {
	t.Helper()
	ctx := t.Context()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	logger := slog.New(slog.DiscardHandler)
	svc, err := exam.NewService(ctx, st, exam.Config{TempDir: t.TempDir()}, logger)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := identity.Open(ctx, st, nil, identity.Config{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(httpapi.Options{Exam: svc, Identity: ids, Idempotency: idempotency.New(st, idempotency.Options{}),
		Logger: logger, Registry: prometheus.NewRegistry()}))
	t.Cleanup(srv.Close)

	lic := mustLicense(t, svc, "HW-LAB-1", 30)
	start := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	e, err := svc.CreateExam(ctx, exam.ExamInput{
		Title: "Matematika", Subject: "MAT", NPSNs: []string{testNPSN}, StartsAt: start, EndsAt: start.Add(3 * time.Hour),
		DurationMinutes: 90,
		Questions: []exam.Question{
			{ID: "q1", Type: exam.SingleChoice, Text: "1+1?", Options: []exam.Option{{ID: "a", Text: "1"}, {ID: "b", Text: "2"}}, Answer: []string{"b"}, Points: 1},
			{ID: "q2", Type: exam.Essay, Text: "Jelaskan <a & b>"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ver, err := svc.VerifyServer(ctx, exam.VerifyInput{ServerCode: "LAB-01", NPSN: testNPSN, HardwareID: "HW-LAB-1", LicenseToken: lic.Token})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &agent.Config{PortalURL: srv.URL, ServerCode: "LAB-01", NPSN: testNPSN, HardwareID: "HW-LAB-1",
		LicenseToken: lic.Token, LicenseID: lic.ID}
	db, err := localdb.Open(filepath.Join(t.TempDir(), localdb.FileName), localdb.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := agent.SavePackageKey(ctx, db, cfg, ver.PackageKey); err != nil {
		t.Fatal(err)
	}
	return &exportFixture{t: t, url: srv.URL, svc: svc, store: st, examID: e.ID, cfg: cfg, db: db, ver: ver, now: time.Now().UTC()}
}

// answer saves a student's answer on labagent, starting the attempt first.
func (f *exportFixture) answer(examID, member, question, answer string) {
	f.t.Helper()
	ctx := f.t.Context()
	if _, err := f.db.StartAttempt(ctx, localdb.Attempt{ExamID: examID, MemberID: member, StartedAt: f.now.Add(-time.Minute), Deadline: f.now.Add(time.Hour)}); err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.db.SaveAnswer(ctx, examID, member, question, answer, f.now); err != nil {
		f.t.Fatal(err)
	}
	f.now = f.now.Add(time.Second)
}

// export runs Export and returns the file.
func (f *exportFixture) export() ([]byte, agent.ExportSummary) {
	f.t.Helper()
	var buf bytes.Buffer
	sum, err := agent.Export(f.t.Context(), f.db, f.cfg, &buf, f.now)
	if err != nil {
		f.t.Fatalf("export: %v", err)
	}
	return buf.Bytes(), sum
}

func (f *exportFixture) countAnswers() int {
	f.t.Helper()
	n, err := f.store.CountAnswers(f.t.Context(), exam.AnswerQuery{ExamID: f.examID})
	if err != nil {
		f.t.Fatal(err)
	}
	return n
}

func (f *exportFixture) pushLogs(outcome exam.SyncOutcome) int {
	f.t.Helper()
	logs, err := f.svc.ListSyncLogs(f.t.Context(), exam.SyncLogFilter{ServerCode: "LAB-01", Outcome: outcome})
	if err != nil {
		f.t.Fatal(err)
	}
	n := 0
	for _, l := range logs {
		if l.Action == exam.ActionPushResults {
			n++
		}
	}
	return n
}

// labClient returns a client carrying the lab server's access token.
func (f *exportFixture) labClient() *client.Client {
	f.t.Helper()
	c, err := client.NewClient(f.url)
	if err != nil {
		f.t.Fatal(err)
	}
	c.SetToken(f.ver.AccessToken)
	return c
}

func TestExportImport(t *testing.T) {
	f := newExportFixture(t)
	ctx := t.Context()

	// Two batches: one sealed by an earlier (failed) push, one by Export.
	f.answer(f.examID, "m1", "q1", "a")
	f.answer(f.examID, "m2", "q1", "b")
	if _, err := f.db.NextBatch(ctx, 100, f.now); err != nil {
		t.Fatal(err)
	}
	f.answer(f.examID, "m1", "q1", "b") // m1 changes her mind: newest wins
	f.answer(f.examID, "m1", "q2", "Segitiga <siku-siku> & \"sisi miring\"\n2 baris")
	file, sum := f.export()
	if sum.Batches != 2 || sum.Records != 4 || len(sum.ChecksumSHA256) != 64 {
		t.Fatalf("summary = %+v", sum)
	}
	head, _, _ := bytes.Cut(file, []byte("\n"))
	var h labwire.AnswerExportHeader
	if err := json.Unmarshal(head, &h); err != nil || h.Format != "labagent-answers/1" || h.ServerCode != "LAB-01" ||
		h.NPSN != testNPSN || h.LicenseID != f.cfg.LicenseID || h.Checksum != sum.ChecksumSHA256 || h.Encryption != "AES-256-GCM-STREAM" {
		t.Fatalf("header = %s (%v)", head, err)
	}
	// Long markers only: a two-byte one ("m1") turns up in random
	// ciphertext about once in a hundred runs.
	if bytes.Contains(file, []byte("siku-siku")) || bytes.Contains(file, []byte(`"member_id"`)) {
		t.Fatal("the file holds answers in the clear")
	}
	// The batches stay in the outbox until a push is acknowledged.
	if bs, _ := f.db.Batches(); len(bs) != 2 {
		t.Fatalf("outbox holds %d batches after export, want 2", len(bs))
	}

	res, err := f.svc.ImportAnswers(ctx, bytes.NewReader(file))
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	if res.Accepted != 2 || res.Duplicates != 0 || res.Rejected != 0 || len(res.Batches) != 2 || res.Records != 4 ||
		res.ServerCode != "LAB-01" || res.Checksum != sum.ChecksumSHA256 {
		t.Fatalf("import = %+v", res)
	}
	answers, err := f.store.ListAnswers(ctx, exam.AnswerQuery{ExamID: f.examID})
	if err != nil || len(answers) != 3 {
		t.Fatalf("answers = %+v, %v", answers, err)
	}
	byKey := map[string]string{}
	for _, a := range answers {
		byKey[a.MemberID+"/"+a.QuestionID] = a.Answer
		if a.ServerCode != "LAB-01" {
			t.Errorf("answer %+v not attributed to LAB-01", a)
		}
	}
	if byKey["m1/q1"] != "b" || byKey["m2/q1"] != "b" || !strings.Contains(byKey["m1/q2"], "<siku-siku> & \"sisi miring\"\n") {
		t.Errorf("stored answers = %v", byKey)
	}
	if n := f.pushLogs(exam.OutcomeAccepted); n != 2 {
		t.Errorf("%d accepted push_results records, want 2", n)
	}

	// Importing the same file again stores nothing.
	again, err := f.svc.ImportAnswers(ctx, bytes.NewReader(file))
	if err != nil {
		t.Fatalf("import again: %v", err)
	}
	if again.Accepted != 0 || again.Duplicates != 2 {
		t.Fatalf("second import = %+v", again)
	}
	for i, b := range again.Batches {
		if b.Outcome != exam.OutcomeDuplicate || b.SyncID != res.Batches[i].SyncID {
			t.Errorf("second import batch %d = %+v, first %+v", i, b, res.Batches[i])
		}
	}
	if n := f.countAnswers(); n != 3 {
		t.Errorf("%d answers after the second import, want 3", n)
	}
	if n := f.pushLogs(exam.OutcomeAccepted); n != 2 {
		t.Errorf("%d accepted push_results records after the second import, want 2", n)
	}

	// When the lab comes back online, its push of the exported batches is a
	// duplicate of the import: exactly once either way.
	lab := f.labClient()
	bs, _ := f.db.Batches()
	for i, b := range bs {
		rc, _, err := lab.Exam.Sync.PushAnswers(ctx, &client.PushAnswersRequest{
			ServerCode: "LAB-01", NPSN: testNPSN, Answers: b.Answers, IdempotencyKey: b.IdempotencyKey,
		})
		if err != nil {
			t.Fatalf("push of batch %d after import: %v", i, err)
		}
		if !rc.Duplicate || rc.SyncID != res.Batches[i].SyncID {
			t.Errorf("push of batch %d after import = %+v, want the import's receipt %s", i, rc, res.Batches[i].SyncID)
		}
		if err := f.db.AckBatch(ctx, b.Seq, localdb.Receipt{IdempotencyKey: b.IdempotencyKey, SyncID: rc.SyncID, Duplicate: true}); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.countAnswers(); n != 3 {
		t.Errorf("%d answers after the late pushes, want 3", n)
	}

	// Everything acknowledged: nothing left to export.
	var buf bytes.Buffer
	if _, err := agent.Export(ctx, f.db, f.cfg, &buf, f.now); !errors.Is(err, agent.ErrNothingToExport) || buf.Len() != 0 {
		t.Fatalf("export with nothing pending: %v, %d bytes written", err, buf.Len())
	}
}

// A batch pushed before the export (its receipt lost) is a duplicate in the
// import; a batch the portal refuses does not stop the others.
func TestImportBatchesAreIndependent(t *testing.T) {
	f := newExportFixture(t)
	ctx := t.Context()
	f.answer(f.examID, "m1", "q1", "a")
	pushed, err := f.db.NextBatch(ctx, 100, f.now)
	if err != nil || pushed == nil {
		t.Fatal(pushed, err)
	}
	rc, _, err := f.labClient().Exam.Sync.PushAnswers(ctx, &client.PushAnswersRequest{
		ServerCode: "LAB-01", NPSN: testNPSN, Answers: pushed.Answers, IdempotencyKey: pushed.IdempotencyKey,
	})
	if err != nil {
		t.Fatal(err)
	}
	f.answer("exam-of-another-school", "m1", "q1", "a")
	if _, err := f.db.SealAll(ctx, 100, f.now); err != nil {
		t.Fatal(err)
	}
	f.answer(f.examID, "m2", "q1", "b")
	file, sum := f.export()
	if sum.Batches != 3 {
		t.Fatalf("summary = %+v", sum)
	}
	res, err := f.svc.ImportAnswers(ctx, bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if res.Accepted != 1 || res.Duplicates != 1 || res.Rejected != 1 {
		t.Fatalf("import = %+v", res)
	}
	if b := res.Batches[0]; b.Outcome != exam.OutcomeDuplicate || b.SyncID != rc.SyncID {
		t.Errorf("batch pushed before = %+v, want a duplicate of %s", b, rc.SyncID)
	}
	if b := res.Batches[1]; b.Outcome != exam.OutcomeRejected || b.Code != "UNKNOWN_EXAM" || b.Message == "" || b.SyncID != "" {
		t.Errorf("batch of an unknown exam = %+v", b)
	}
	if b := res.Batches[2]; b.Outcome != exam.OutcomeAccepted || b.Records != 1 {
		t.Errorf("last batch = %+v", b)
	}
	if n := f.countAnswers(); n != 2 {
		t.Errorf("%d answers stored, want 2", n)
	}
	if n := f.pushLogs(exam.OutcomeRejected); n != 1 {
		t.Errorf("%d rejected push_results records, want 1", n)
	}
}

func TestImportRefusesDamagedFiles(t *testing.T) {
	f := newExportFixture(t)
	ctx := t.Context()
	f.answer(f.examID, "m1", "q1", "a")
	f.answer(f.examID, "m2", "q1", "b")
	file, _ := f.export()
	nl := bytes.IndexByte(file, '\n')
	head, body := file[:nl], file[nl+1:]

	// withHeader returns the file with its header changed by mod.
	withHeader := func(body []byte, mod func(*labwire.AnswerExportHeader)) []byte {
		var h labwire.AnswerExportHeader
		if err := json.Unmarshal(head, &h); err != nil {
			t.Fatal(err)
		}
		mod(&h)
		b, _ := json.Marshal(h)
		return append(append(b, '\n'), body...)
	}
	flipped := bytes.Clone(body)
	flipped[len(flipped)/2] ^= 0x01
	resummed := withHeader(flipped, func(h *labwire.AnswerExportHeader) { h.Checksum = labwire.ChecksumSHA256(flipped) })

	// Another portal's school key: the same header, a body under another key.
	var foreign bytes.Buffer
	if _, err := labwire.WriteAnswerExport(&foreign, bytes.Repeat([]byte{7}, 32), labwire.AnswerExport{
		ServerCode: "LAB-01", NPSN: testNPSN, LicenseID: f.cfg.LicenseID, ExportedAt: f.now,
		Batches: []labwire.AnswerExportBatch{{IdempotencyKey: "k1", Answers: json.RawMessage(`[{"exam_id":"` + f.examID + `","member_id":"m9","question_id":"q1","answer":"a","answered_at":"2026-01-01T00:00:00Z"}]`)}},
	}); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		file   []byte
		status int
		code   string
	}{
		{"one flipped byte", append(append(bytes.Clone(head), '\n'), flipped...), 422, "CHECKSUM_MISMATCH"},
		{"truncated", file[:len(file)-10], 422, "CHECKSUM_MISMATCH"},
		{"extended", append(bytes.Clone(file), 'x'), 422, "CHECKSUM_MISMATCH"},
		{"flipped byte with its checksum recomputed", resummed, 422, "EXPORT_CORRUPT"},
		{"header altered", withHeader(body, func(h *labwire.AnswerExportHeader) { h.ExportedAt = h.ExportedAt.Add(time.Hour) }), 422, "EXPORT_CORRUPT"},
		{"counts altered", withHeader(body, func(h *labwire.AnswerExportHeader) { h.Records++ }), 422, "EXPORT_CORRUPT"},
		{"encrypted under another key", foreign.Bytes(), 422, "EXPORT_CORRUPT"},
		{"server of another school", withHeader(body, func(h *labwire.AnswerExportHeader) { h.NPSN = "20100009" }), 422, "UNKNOWN_SERVER"},
		{"unknown server", withHeader(body, func(h *labwire.AnswerExportHeader) { h.ServerCode = "LAB-99" }), 422, "UNKNOWN_SERVER"},
		{"another format", withHeader(body, func(h *labwire.AnswerExportHeader) { h.Format = "labagent-answers/9" }), 400, "EXPORT_INVALID"},
		{"a package, not an export", body, 400, "EXPORT_INVALID"},
		{"empty", nil, 400, "EXPORT_INVALID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.svc.ImportAnswers(ctx, bytes.NewReader(tt.file))
			e := apperr.From(err)
			if e == nil || e.Code != tt.code || e.Kind.Status() != tt.status {
				t.Fatalf("import error = %v, want %d %s", err, tt.status, tt.code)
			}
			if n := f.countAnswers(); n != 0 {
				t.Fatalf("%d answers stored from a refused file", n)
			}
		})
	}
	// The intact file still imports.
	if res, err := f.svc.ImportAnswers(ctx, bytes.NewReader(file)); err != nil || res.Accepted != 1 {
		t.Fatalf("intact file: %+v, %v", res, err)
	}
}

func TestExportNeedsThePackageKey(t *testing.T) {
	db, err := localdb.Open(filepath.Join(t.TempDir(), localdb.FileName), localdb.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := &agent.Config{ServerCode: "LAB-01", NPSN: testNPSN, LicenseToken: "x"}
	var buf bytes.Buffer
	if _, err := agent.Export(context.Background(), db, cfg, &buf, time.Now()); !errors.Is(err, agent.ErrNoPackageKey) || buf.Len() != 0 {
		t.Fatalf("export without a package key: %v", err)
	}
}

func TestReadConfig(t *testing.T) {
	dir := t.TempDir()
	if _, err := agent.ReadConfig(dir); !errors.Is(err, agent.ErrNotEnrolled) || !strings.Contains(err.Error(), "labagent enroll") {
		t.Fatalf("ReadConfig of an empty directory: %v", err)
	}
	want := &agent.Config{PortalURL: "https://portal.example.org", ServerCode: "LAB-01", NPSN: testNPSN, LicenseToken: "tok", LicenseID: "lic"}
	if err := agent.WriteConfig(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := agent.ReadConfig(dir)
	if err != nil || fmt.Sprint(*got) != fmt.Sprint(*want) {
		t.Fatalf("ReadConfig = %+v, %v", got, err)
	}
}
