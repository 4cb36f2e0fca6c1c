package exam

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/pkg/labwire"
)

func TestScore(t *testing.T) {
	tests := []struct {
		name    string
		q       Question
		answer  string
		correct bool
	}{
		{"single right", Question{Type: SingleChoice, Answer: []string{"b"}, Points: 2}, "b", true},
		{"single wrong", Question{Type: SingleChoice, Answer: []string{"b"}, Points: 2}, "a", false},
		{"multiple any order", Question{Type: MultipleChoice, Answer: []string{"a", "c"}, Points: 1}, "c, a", true},
		{"multiple subset", Question{Type: MultipleChoice, Answer: []string{"a", "c"}, Points: 1}, "a", false},
		{"multiple repeated", Question{Type: MultipleChoice, Answer: []string{"a", "c"}, Points: 1}, "a,c,a", true},
		{"true false", Question{Type: TrueFalse, Answer: []string{"false"}, Points: 1}, "false", true},
		{"short answer spacing and case", Question{Type: ShortAnswer, Answer: []string{"Jakarta Pusat"}, Points: 1}, "  jakarta   PUSAT ", true},
		{"short answer wrong", Question{Type: ShortAnswer, Answer: []string{"Jakarta"}, Points: 1}, "Bandung", false},
		{"essay never scored", Question{Type: Essay, Points: 5}, "anything", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, pts := Score(tt.q, tt.answer)
			if ok != tt.correct {
				t.Fatalf("Score = %v, want %v", ok, tt.correct)
			}
			if want := map[bool]float64{true: tt.q.Points}[ok]; pts != want {
				t.Fatalf("points = %v, want %v", pts, want)
			}
		})
	}
}

func validExam() Exam {
	start := time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC)
	return Exam{
		Title: "Matematika", NPSNs: []string{"20100002", "20100001", "20100002"},
		StartsAt: start, EndsAt: start.Add(3 * time.Hour), DurationMinutes: 90,
		Questions: []Question{
			{ID: "q1", Type: SingleChoice, Text: "1+1?", Options: []Option{{"a", "1"}, {"b", "2"}}, Answer: []string{"b"}},
			{ID: "q2", Type: MultipleChoice, Text: "primes", Options: []Option{{"a", "2"}, {"b", "4"}, {"c", "5"}}, Answer: []string{"c", "a"}},
			{ID: "q3", Type: Essay, Text: "explain"},
		},
	}
}

func TestValidateExamNormalises(t *testing.T) {
	e := validExam()
	if err := ValidateExam(&e); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(e.NPSNs, ","); got != "20100001,20100002" {
		t.Errorf("npsn list = %s, want sorted and de-duplicated", got)
	}
	if got := strings.Join(e.Questions[1].Answer, ","); got != "a,c" {
		t.Errorf("multiple_choice key = %s, want sorted", got)
	}
	if e.Questions[0].Points != 1 || e.Questions[2].Points != 0 {
		t.Errorf("default points: got %v and %v", e.Questions[0].Points, e.Questions[2].Points)
	}
	if e.QuestionCount != 3 {
		t.Errorf("QuestionCount = %d", e.QuestionCount)
	}
}

func TestValidateExamRejects(t *testing.T) {
	tests := map[string]func(*Exam){
		"no title":           func(e *Exam) { e.Title = "" },
		"bad npsn":           func(e *Exam) { e.NPSNs = []string{"123"} },
		"no schools":         func(e *Exam) { e.NPSNs = nil },
		"ends before starts": func(e *Exam) { e.EndsAt = e.StartsAt },
		"duration too long":  func(e *Exam) { e.DurationMinutes = 500 },
		"no questions":       func(e *Exam) { e.Questions = nil },
		"duplicate question": func(e *Exam) { e.Questions[1].ID = "q1" },
		"answer not option":  func(e *Exam) { e.Questions[0].Answer = []string{"z"} },
		"two single answers": func(e *Exam) { e.Questions[0].Answer = []string{"a", "b"} },
		"unknown type":       func(e *Exam) { e.Questions[0].Type = "matching" },
		"essay with key":     func(e *Exam) { e.Questions[2].Answer = []string{"x"} },
		"true_false key":     func(e *Exam) { e.Questions[0] = Question{ID: "t", Type: TrueFalse, Text: "x", Answer: []string{"yes"}} },
		"comma in option id": func(e *Exam) { e.Questions[0].Options[0].ID = "a,b" },
		"negative points":    func(e *Exam) { e.Questions[0].Points = -1 },
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			e := validExam()
			mutate(&e)
			err := ValidateExam(&e)
			if err == nil || !strings.Contains(err.Error(), "VALIDATION_FAILED") {
				t.Fatalf("ValidateExam = %v, want VALIDATION_FAILED", err)
			}
		})
	}
}

func TestParseMembersCSV(t *testing.T) {
	in := "\ufeffNama Lengkap;NISN;Rombel;Email;Extra\n" +
		"Budi Santoso;0012345678;XII IPA 1;Budi@Example.org;x\n" +
		"\"Siti; Aminah\";0012345679;XII IPA 2;;y\n"
	rows, err := ParseMembersCSV(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("rows = %d, want 2", len(rows))
	}
	if rows[0].Nama != "Budi Santoso" || rows[0].NISN != "0012345678" || rows[0].Kelas != "XII IPA 1" {
		t.Errorf("row 1 = %+v", rows[0])
	}
	if rows[1].Nama != "Siti; Aminah" {
		t.Errorf("quoted separator: %q", rows[1].Nama)
	}
	m, err := normaliseMember(MemberInput{NPSN: "20100001", Nama: rows[0].Nama, NISN: rows[0].NISN, Email: rows[0].Email})
	if err != nil {
		t.Fatal(err)
	}
	if m.Username != "0012345678" || m.Email != "budi@example.org" || m.Role != RoleStudent {
		t.Errorf("normalised = %+v", m)
	}
	if _, err := ParseMembersCSV(strings.NewReader("nisn,kelas\n1,2\n")); err == nil {
		t.Error("csv without nama column accepted")
	}
}

func TestNormaliseMemberRejects(t *testing.T) {
	base := MemberInput{NPSN: "20100001", Nama: "Budi", NISN: "0012345678"}
	tests := map[string]func(*MemberInput){
		"no nama":        func(m *MemberInput) { m.Nama = " " },
		"bad npsn":       func(m *MemberInput) { m.NPSN = "x" },
		"short nisn":     func(m *MemberInput) { m.NISN = "123" },
		"bad nik":        func(m *MemberInput) { m.NIK = "12345" },
		"bad email":      func(m *MemberInput) { m.Email = "not-an-email" },
		"bad year":       func(m *MemberInput) { m.AcademicYearName = "2025/2027" },
		"no identifiers": func(m *MemberInput) { m.NISN = "" },
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			in := base
			mutate(&in)
			if _, err := normaliseMember(in); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

func TestDecodeAnswers(t *testing.T) {
	raw := []byte(`[{"exam_id":"e1","member_id":"m1","question_id":"q1","answer":"b","answered_at":"2026-12-01T08:00:00Z"}]`)
	sum := labwire.ChecksumSHA256(raw)
	recs, err := DecodeAnswers(raw, sum, 1)
	if err != nil || len(recs) != 1 || recs[0].Answer != "b" {
		t.Fatalf("DecodeAnswers = %v, %v", recs, err)
	}
	if _, err := DecodeAnswers(raw, strings.Repeat("0", 64), 1); !errors.Is(err, ErrChecksumMismatch) {
		t.Errorf("wrong checksum: %v", err)
	}
	if _, err := DecodeAnswers(raw, sum, 2); !errors.Is(err, ErrRecordCountMismatch) {
		t.Errorf("wrong count: %v", err)
	}
	spaced := []byte(" " + string(raw))
	if _, err := DecodeAnswers(spaced, sum, 1); !errors.Is(err, ErrChecksumMismatch) {
		t.Errorf("checksum must cover the exact bytes: %v", err)
	}
	unknown := []byte(`[{"exam_id":"e1","member_id":"m1","question_id":"q1","answer":"b","answered_at":"2026-12-01T08:00:00Z","x":1}]`)
	if _, err := DecodeAnswers(unknown, labwire.ChecksumSHA256(unknown), 1); err == nil {
		t.Error("unknown field accepted")
	}
}

func FuzzDecodeAnswers(f *testing.F) {
	f.Add([]byte(`[{"exam_id":"e1","member_id":"m1","question_id":"q1","answer":"b","answered_at":"2026-12-01T08:00:00Z"}]`), 1)
	f.Add([]byte(`[]`), 0)
	f.Add([]byte(`{"a":1}`), 1)
	f.Add([]byte(`[{"answered_at":"x"}]`), 1)
	f.Fuzz(func(t *testing.T, raw []byte, total int) {
		recs, err := DecodeAnswers(raw, labwire.ChecksumSHA256(raw), total)
		if err != nil {
			return
		}
		if len(recs) != total {
			t.Fatalf("accepted %d records for total %d", len(recs), total)
		}
		for _, r := range recs {
			if r.ExamID == "" || r.MemberID == "" || r.QuestionID == "" || r.AnsweredAt.IsZero() {
				t.Fatalf("accepted incomplete record %+v", r)
			}
		}
		if !json.Valid(raw) {
			t.Fatal("accepted invalid JSON")
		}
	})
}
