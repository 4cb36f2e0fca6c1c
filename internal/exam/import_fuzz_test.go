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
	"github.com/seedhq/portal/pkg/labwire"
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

// FuzzAnswerExportFile: a whole answer export file, altered anywhere, is
// refused with a 4xx (the header as EXPORT_INVALID, the body as
// CHECKSUM_MISMATCH or EXPORT_CORRUPT), or is read as exactly the batches
// labagent wrote: the file is tamper-evident.
func FuzzAnswerExportFile(f *testing.F) {
	key := bytes.Repeat([]byte{7}, 32)
	batches := []labwire.AnswerExportBatch{
		{IdempotencyKey: "0123456789abcdef0123456789abcdef", SealedAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC),
			Answers: json.RawMessage(`[{"exam_id":"e1","member_id":"m1","question_id":"q1","answer":"b","answered_at":"2026-12-01T08:00:00Z"}]`)},
		{IdempotencyKey: "fedcba9876543210fedcba9876543210", SealedAt: time.Date(2026, 12, 1, 9, 5, 0, 0, time.UTC),
			Answers: json.RawMessage(`[{"exam_id":"e1","member_id":"m2","question_id":"q1","answer":"a","answered_at":"2026-12-01T08:01:00Z"},` +
				`{"exam_id":"e1","member_id":"m2","question_id":"q2","answer":"c","answered_at":"2026-12-01T08:02:00Z"}]`)},
	}
	var file bytes.Buffer
	if _, err := labwire.WriteAnswerExport(&file, key, labwire.AnswerExport{ServerCode: "LAB-01", NPSN: "20100001", LicenseID: "lic_1",
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
		var got []labwire.AnswerExportLine
		err := func() error {
			br := bufio.NewReaderSize(bytes.NewReader(data), labwire.MaxAnswerExportHeader)
			h, err := labwire.ReadAnswerExportHeader(br)
			if err != nil {
				return exportRefusal(err)
			}
			sp, err := svc.spoolExport(br, h)
			if err != nil {
				return err
			}
			defer func() {
				sp.Close()
				os.Remove(sp.Name())
			}()
			plain, err := labwire.NewPackageDecrypter(sp, key)
			if err != nil {
				return err
			}
			return exportRefusal(labwire.ReadAnswerExportBody(plain, h, func(b labwire.AnswerExportLine) error {
				got = append(got, b)
				return nil
			}))
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
				b.Checksum != labwire.ChecksumSHA256(batches[i].Answers) {
				t.Fatalf("batch %d read as %+v", i, b)
			}
		}
	})
}
