package labwire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// mustRefusal fails unless err is an *ExportError of sentinel with a
// message.
func mustRefusal(t *testing.T, err, sentinel error) {
	t.Helper()
	var e *ExportError
	if !errors.As(err, &e) || !errors.Is(err, sentinel) || e.Message == "" {
		t.Fatalf("refusal %T %v, want an *ExportError of %v", err, err, sentinel)
	}
}

// FuzzAnswerExportHeader: the clear header line of an answer export file
// is refused (ErrExportInvalid), or it is a valid header (format,
// encryption, server code, school, checksum, size in range) that encodes
// and reads back to itself.
func FuzzAnswerExportHeader(f *testing.F) {
	valid := `{"format":"labagent-answers/1","server_code":"LAB-01","npsn":"20100001","license_id":"lic_1",` +
		`"exported_at":"2026-12-01T10:00:00Z","batches":1,"records":2,"encryption":"AES-256-GCM-STREAM",` +
		`"checksum_sha256":"` + strings.Repeat("ab", 32) + `","size":100}`
	for _, s := range []string{valid + "\n", valid, valid + "\nbody", strings.Replace(valid, `"size":100`, `"size":0`, 1) + "\n",
		strings.Replace(valid, `"batches":1`, `"batches":-1`, 1) + "\n", strings.Replace(valid, `labagent-answers/1`, `labagent-answers/2`, 1) + "\n",
		strings.Replace(valid, `"npsn":"20100001"`, `"npsn":"2010000"`, 1) + "\n", strings.Replace(valid, `}`, `,"x":1}`, 1) + "\n",
		strings.Replace(valid, strings.Repeat("ab", 32), strings.Repeat("AB", 32), 1) + "\n", "\n", "", "{}\n", "null\n",
		`{"format":"labagent-answers/1"} {}` + "\n", strings.Repeat(" ", 5000) + "\n", strings.Replace(valid, `"size":100`, `"size":1e3`, 1) + "\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ReadAnswerExportHeader(bufio.NewReaderSize(bytes.NewReader(data), MaxAnswerExportHeader))
		if err != nil {
			mustRefusal(t, err, ErrExportInvalid)
			return
		}
		if h.Format != AnswerExportFormat || h.Encryption != AnswerExportEncryption || !ValidServerCode(h.ServerCode) ||
			!ValidNPSN(h.NPSN) || !ValidChecksum(h.Checksum) || h.Size <= 0 || h.Size > MaxAnswerExportSize || h.Batches < 0 || h.Records < 0 {
			t.Fatalf("accepted header %+v", h)
		}
		line, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ReadAnswerExportHeader(bufio.NewReader(bytes.NewReader(append(line, '\n'))))
		if err != nil || !again.AnswerExportManifest.equal(h.AnswerExportManifest) ||
			again.Encryption != h.Encryption || again.Checksum != h.Checksum || again.Size != h.Size {
			t.Fatalf("header %s reads back as %+v, %v", line, again, err)
		}
	})
}

// exportManifest is the manifest of the fuzzed bodies.
var exportManifest = AnswerExportManifest{Format: AnswerExportFormat, ServerCode: "LAB-01", NPSN: "20100001", LicenseID: "lic_1",
	ExportedAt: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Batches: 2, Records: 3}

// FuzzAnswerExportBody: the decrypted body of an answer export file is
// refused (ErrExportCorrupt), or holds exactly the manifest's batches
// and records, each batch with its idempotency key.
func FuzzAnswerExportBody(f *testing.F) {
	manifest, _ := json.Marshal(exportManifest)
	b1 := `{"idempotency_key":"k1","sealed_at":"2026-12-01T09:00:00Z","checksum_sha256":"` + strings.Repeat("0", 64) +
		`","total_records":2,"answers":[{"exam_id":"e","member_id":"m","question_id":"q","answer":"a","answered_at":"2026-12-01T08:00:00Z"},{}]}`
	b2 := `{"idempotency_key":"k2","sealed_at":"2026-12-01T09:01:00Z","checksum_sha256":"x","total_records":1,"answers":[1]}`
	m := string(manifest)
	for _, s := range []string{m + "\n" + b1 + "\n" + b2 + "\n", m + b1 + b2, m + "\n" + b1 + "\n", m + "\n", "", m[:20],
		m + "\n" + strings.Replace(b1, `"k1"`, `""`, 1) + "\n" + b2, m + "\n" + b1 + "\n" + b2 + "\n" + b2, m + "\n" + b1 + "\n" + b2 + "\nx",
		strings.Replace(m, `"records":3`, `"records":4`, 1) + b1 + b2, m + "\n" + strings.Replace(b1, `}`, `,"x":1}`, 1) + b2,
		m + "\n" + strings.Replace(b1, `"total_records":2`, `"total_records":-1`, 1) + b2, m + "[]"} {
		f.Add([]byte(s))
	}
	h := AnswerExportHeader{AnswerExportManifest: exportManifest, Encryption: AnswerExportEncryption}
	f.Fuzz(func(t *testing.T, plain []byte) {
		var batches []AnswerExportLine
		err := ReadAnswerExportBody(bytes.NewReader(plain), h, func(b AnswerExportLine) error {
			batches = append(batches, b)
			return nil
		})
		if err != nil {
			mustRefusal(t, err, ErrExportCorrupt)
			return
		}
		records := 0
		for _, b := range batches {
			if b.IdempotencyKey == "" {
				t.Fatal("a batch without its key")
			}
			records += b.TotalRecords
		}
		if len(batches) != exportManifest.Batches || records != exportManifest.Records {
			t.Fatalf("%d batches of %d records accepted", len(batches), records)
		}
	})
}
