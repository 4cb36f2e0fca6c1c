package exam

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/apperr"
)

// mustRefusal fails unless err is an *apperr.Error of one of the kinds,
// with its code and a message: a 4xx, never an internal error.
func mustRefusal(t *testing.T, err error, code string, kinds ...apperr.Kind) *apperr.Error {
	t.Helper()
	var e *apperr.Error
	if !errors.As(err, &e) || !slices.Contains(kinds, e.Kind) || e.Message == "" || code != "" && e.Code != code {
		t.Fatalf("refusal %T %v, want code %s of kinds %v", err, err, code, kinds)
	}
	if s := e.Kind.Status(); s < 400 || s >= 500 {
		t.Fatalf("refusal %v has status %d", err, s)
	}
	return e
}

// memberColumns are the canonical names of every MemberInput field a CSV
// may set.
var memberColumns = []string{"nama", "npsn", "role", "dapodik_id", "nisn", "nip", "nik", "username", "email", "kelas",
	"academic_year_name", "google_email"}

func memberRecord(in MemberInput) []string {
	return []string{in.Nama, in.NPSN, in.Role, in.DapodikID, in.NISN, in.NIP, in.NIK, in.Username, in.Email, in.Kelas,
		in.AcademicYearName, in.GoogleEmail}
}

// FuzzParseMembersCSV: a member CSV is refused as bad input (400) or too
// many rows (413), or read into at most MaxImportRows members that, written
// again as CSV with the canonical columns, read back the same.
func FuzzParseMembersCSV(f *testing.F) {
	for _, s := range []string{
		"nama,nisn,kelas,role,npsn\nBudi Santoso,0012345678,XII IPA 1,siswa,20100001\nSiti,0012345679,XII IPA 2,siswa,20100001\n",
		"\ufeffNama Lengkap;NISN;Rombel;Peserta_Didik_ID\nBudi;0012345678;X-1;abc-123\n",
		"name,email,google_email,username,nip,nik,academic_year_name,tahun_ajaran\nGuru,g@s.sch.id,g@gmail.com,guru1,1987,3201,2026/2027,x\n",
		"nama\n\"Quoted, with comma\"\n\"Multi\nline\"\n", "nama,nisn\nonly-name\n", "nisn\n123\n", "", "\n", "nama\n",
		"nama\n\"unterminated\n", "nama,\"bad\"quote\nx,y\n", "nama;x,y\na;b,c\n", "NAMA , ROLE \n a , b \n", "nama\r\nx\r\n",
		"nama,nama\na,b\n", "nama\n\x00\n", "nama\n" + strings.Repeat("x\n", 50),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := ParseMembersCSV(bytes.NewReader(data))
		if err != nil {
			e := mustRefusal(t, err, "", apperr.Invalid, apperr.TooLarge)
			if e.Kind == apperr.TooLarge && e.Code != "TOO_MANY_ROWS" {
				t.Fatalf("too large: %v", err)
			}
			return
		}
		if len(rows) > MaxImportRows {
			t.Fatalf("%d rows accepted", len(rows))
		}
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		w.Write(memberColumns)
		for _, in := range rows {
			w.Write(memberRecord(in))
		}
		w.Flush()
		again, err := ParseMembersCSV(&buf)
		if err != nil {
			t.Fatalf("members written out again are refused: %v\n%s", err, buf.Bytes())
		}
		if !slices.Equal(rows, again) {
			t.Fatalf("members %+v read back as %+v", rows, again)
		}
	})
}

// FuzzAnswerExportHeader: the clear header line of an answer export file
// is refused as EXPORT_INVALID (400), or it is a valid header (format,
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
		h, err := readAnswerExportHeader(bufio.NewReaderSize(bytes.NewReader(data), maxAnswerExportHeader))
		if err != nil {
			mustRefusal(t, err, ErrExportInvalid.Code, apperr.Invalid)
			return
		}
		if h.Format != AnswerExportFormat || h.Encryption != AnswerExportEncryption || !serverCodePattern.MatchString(h.ServerCode) ||
			!ValidNPSN(h.NPSN) || !ValidChecksum(h.Checksum) || h.Size <= 0 || h.Size > MaxAnswerExportSize || h.Batches < 0 || h.Records < 0 {
			t.Fatalf("accepted header %+v", h)
		}
		line, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		again, err := readAnswerExportHeader(bufio.NewReader(bytes.NewReader(append(line, '\n'))))
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
// refused as EXPORT_CORRUPT (422), or holds exactly the manifest's batches
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
		var batches []exportBatchLine
		err := readAnswerExportBody(bytes.NewReader(plain), h, func(b exportBatchLine) error {
			batches = append(batches, b)
			return nil
		})
		if err != nil {
			mustRefusal(t, err, ErrExportCorrupt.Code, apperr.Unprocessable)
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

// FuzzAnswerExportFile: a whole answer export file, altered anywhere, is
// refused with a 4xx (the header as EXPORT_INVALID, the body as
// CHECKSUM_MISMATCH or EXPORT_CORRUPT), or is read as exactly the batches
// labagent wrote: the file is tamper-evident.
func FuzzAnswerExportFile(f *testing.F) {
	key := bytes.Repeat([]byte{7}, 32)
	batches := []AnswerExportBatch{
		{IdempotencyKey: "0123456789abcdef0123456789abcdef", SealedAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC),
			Answers: json.RawMessage(`[{"exam_id":"e1","member_id":"m1","question_id":"q1","answer":"b","answered_at":"2026-12-01T08:00:00Z"}]`)},
		{IdempotencyKey: "fedcba9876543210fedcba9876543210", SealedAt: time.Date(2026, 12, 1, 9, 5, 0, 0, time.UTC),
			Answers: json.RawMessage(`[{"exam_id":"e1","member_id":"m2","question_id":"q1","answer":"a","answered_at":"2026-12-01T08:01:00Z"},` +
				`{"exam_id":"e1","member_id":"m2","question_id":"q2","answer":"c","answered_at":"2026-12-01T08:02:00Z"}]`)},
	}
	var file bytes.Buffer
	if _, err := WriteAnswerExport(&file, key, AnswerExport{ServerCode: "LAB-01", NPSN: "20100001", LicenseID: "lic_1",
		ExportedAt: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Batches: batches}); err != nil {
		f.Fatal(err)
	}
	good := file.Bytes()
	head, body, _ := bytes.Cut(good, []byte("\n"))
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add(append(slices.Clone(good), 0))
	f.Add(append(append(append([]byte(" "), head...), '\n'), body...))
	f.Add(head)
	f.Add([]byte{})
	flipped := slices.Clone(good)
	flipped[len(flipped)-5] ^= 1
	f.Add(flipped)
	svc := &Service{cfg: Config{TempDir: f.TempDir()}}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []exportBatchLine
		err := func() error {
			br := bufio.NewReaderSize(bytes.NewReader(data), maxAnswerExportHeader)
			h, err := readAnswerExportHeader(br)
			if err != nil {
				return err
			}
			sp, err := svc.spoolExport(br, h)
			if err != nil {
				return err
			}
			defer func() {
				sp.Close()
				os.Remove(sp.Name())
			}()
			plain, err := NewPackageDecrypter(sp, key)
			if err != nil {
				if errors.Is(err, ErrPackageCorrupt) {
					return ErrExportCorrupt
				}
				return err
			}
			return readAnswerExportBody(plain, h, func(b exportBatchLine) error {
				got = append(got, b)
				return nil
			})
		}()
		if err != nil {
			var e *apperr.Error
			if !errors.As(err, &e) {
				t.Fatalf("refusal %T %v is not an *apperr.Error", err, err)
			}
			switch e.Code {
			case ErrExportInvalid.Code, ErrExportCorrupt.Code, ErrChecksumMismatch.Code:
			default:
				t.Fatalf("refusal %v", err)
			}
			if s := e.Kind.Status(); s != http.StatusBadRequest && s != http.StatusUnprocessableEntity {
				t.Fatalf("refusal %v has status %d", err, s)
			}
			return
		}
		if len(got) != len(batches) {
			t.Fatalf("read %d batches, labagent wrote %d", len(got), len(batches))
		}
		for i, b := range got {
			if b.IdempotencyKey != batches[i].IdempotencyKey || !bytes.Equal(b.Answers, batches[i].Answers) ||
				b.Checksum != ChecksumSHA256(batches[i].Answers) {
				t.Fatalf("batch %d read as %+v", i, b)
			}
		}
	})
}
