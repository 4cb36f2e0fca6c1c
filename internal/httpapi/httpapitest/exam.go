package httpapitest

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/pkg/client"
)

// NewAPIKey creates a directory API key and returns it and its id.
func (h *Harness) NewAPIKey(name string) (key, id string) {
	h.T.Helper()
	var res struct {
		Success bool `json:"success"`
		Data    struct {
			ID         string     `json:"id"`
			Name       string     `json:"name"`
			Prefix     string     `json:"prefix"`
			CreatedAt  time.Time  `json:"created_at"`
			RevokedAt  *time.Time `json:"revoked_at"`
			LastUsedAt *time.Time `json:"last_used_at"`
		} `json:"data"`
		Key string `json:"key"`
	}
	h.Op("POST", "/api/v1/admin/api-keys", map[string]string{"name": name}).Expect(201).Decode(&res)
	if res.Key == "" || res.Data.ID == "" || res.Data.Name != name || !strings.HasPrefix(res.Key, res.Data.Prefix) {
		h.T.Fatalf("api key = %+v", res)
	}
	return res.Key, res.Data.ID
}

// EssayAnswerJSON is one answer of GET .../questions/{q}/answers.
type EssayAnswerJSON struct {
	Code      string     `json:"code"`
	MemberID  string     `json:"member_id"`
	Nama      string     `json:"nama"`
	Answer    string     `json:"answer"`
	MaxPoints float64    `json:"max_points"`
	Graded    bool       `json:"graded"`
	Grade     *GradeJSON `json:"grade"`
}

// GradeJSON is the grade of an essay answer.
type GradeJSON struct {
	Points         float64 `json:"points"`
	Comment        string  `json:"comment"`
	GraderID       string  `json:"grader_id"`
	GraderUsername string  `json:"grader_username"`
	Version        int     `json:"version"`
}

// NewGrader creates a grader account and returns its id and token.
func (h *Harness) NewGrader(username string) (id, token string) {
	h.T.Helper()
	var g struct {
		Data struct {
			ID      string   `json:"id"`
			Role    string   `json:"role"`
			ExamIDs []string `json:"exam_ids"`
		} `json:"data"`
	}
	h.Op("POST", "/api/v1/admin/graders", map[string]string{"username": username, "name": "Guru " + username,
		"password": "rahasia-guru-1"}).Expect(201).Decode(&g)
	if g.Data.Role != "GRADER" || g.Data.ExamIDs == nil || len(g.Data.ExamIDs) != 0 {
		h.T.Fatalf("created grader = %+v", g.Data)
	}
	var login struct {
		Token string `json:"token"`
	}
	h.Req("POST", "/api/v1/auth/login", map[string]string{"username": username, "password": "rahasia-guru-1"}).Expect(200).Decode(&login)
	return g.Data.ID, login.Token
}

// EssayAnswers lists the essay answers at path as token sees them, with
// the counts of graded answers and answers to grade.
func (h *Harness) EssayAnswers(token, path string) (as []EssayAnswerJSON, graded, toGrade int) {
	h.T.Helper()
	var res struct {
		Data []EssayAnswerJSON `json:"data"`
		Meta struct {
			Total, Graded int
			ToGrade       int `json:"to_grade"`
		} `json:"meta"`
	}
	h.Req("GET", path, nil, Bearer(token)...).Expect(200).Decode(&res)
	if res.Meta.Total != len(res.Data) || res.Meta.Graded+res.Meta.ToGrade != res.Meta.Total {
		h.T.Fatalf("meta %+v does not add up for %d answers", res.Meta, len(res.Data))
	}
	return res.Data, res.Meta.Graded, res.Meta.ToGrade
}

// Decrypt opens an AES-256-GCM-STREAM body with key.
func Decrypt(t *testing.T, body, key []byte) []byte {
	t.Helper()
	dec, err := client.NewPackageDecrypter(key, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(dec)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// ImportJSON is the answer of POST /api/v1/admin/members/import.
type ImportJSON struct {
	Success  bool `json:"success"`
	Created  int  `json:"created"`
	Updated  int  `json:"updated"`
	Rejected int  `json:"rejected"`
	Rows     []struct {
		Row      int    `json:"row"`
		MemberID string `json:"member_id"`
		Action   string `json:"action"`
		Code     string `json:"code"`
		Message  string `json:"message"`
	} `json:"rows"`
}

// LoginCardsCSV fetches the CSV login cards of a school, header row first.
func (h *Harness) LoginCardsCSV(npsn string) [][]string {
	h.T.Helper()
	res := h.Op("GET", "/api/v1/admin/login-cards?npsn="+npsn+"&format=csv", nil).Expect(200)
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		h.T.Fatalf("Content-Type = %q", ct)
	}
	if cd := res.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment;") || !strings.Contains(cd, npsn) {
		h.T.Fatalf("Content-Disposition = %q", cd)
	}
	rows, err := csv.NewReader(strings.NewReader(string(res.Body))).ReadAll()
	if err != nil {
		h.T.Fatalf("login cards CSV: %v", err)
	}
	if strings.Join(rows[0], ",") != "npsn,kelas,nama,username,nisn,exam_password" {
		h.T.Fatalf("header = %v", rows[0])
	}
	return rows
}

// PullJSON is the answer of GET /api/v1/sync/pull-questions.
type PullJSON struct {
	Success     bool      `json:"success"`
	ServerCode  string    `json:"server_code"`
	NPSN        string    `json:"npsn"`
	Version     string    `json:"version"`
	Checksum    string    `json:"checksum_sha256"`
	Size        int64     `json:"size"`
	Encryption  string    `json:"encryption"`
	GeneratedAt time.Time `json:"generated_at"`
	Package     []byte    `json:"package"`
}

// SHA returns the hex SHA-256 of b.
func SHA(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// AnswerRec is one answer record of a push.
type AnswerRec struct {
	ExamID     string `json:"exam_id"`
	MemberID   string `json:"member_id"`
	QuestionID string `json:"question_id"`
	Answer     string `json:"answer"`
	AnsweredAt string `json:"answered_at"`
}

// PushBody is the body of POST /api/v1/sync/push-answers.
type PushBody struct {
	ServerCode   string          `json:"server_code"`
	NPSN         string          `json:"npsn"`
	Checksum     string          `json:"checksum_sha256"`
	TotalRecords int             `json:"total_records"`
	Answers      json.RawMessage `json:"answers"`
}

// NewPush builds a push body for answers as the exact bytes raw.
func NewPush(lab LabServer, raw string, total int) PushBody {
	return PushBody{ServerCode: lab.Code, NPSN: lab.NPSN, Checksum: SHA([]byte(raw)), TotalRecords: total, Answers: json.RawMessage(raw)}
}

// EncodePush writes the body by hand so that the answers bytes are sent
// exactly as given (json.Marshal would compact a RawMessage).
func EncodePush(p PushBody) string {
	head, _ := json.Marshal(struct {
		ServerCode   string `json:"server_code"`
		NPSN         string `json:"npsn"`
		Checksum     string `json:"checksum_sha256"`
		TotalRecords int    `json:"total_records"`
	}{p.ServerCode, p.NPSN, p.Checksum, p.TotalRecords})
	return string(head[:len(head)-1]) + `, "answers":  ` + string(p.Answers) + "}"
}

// AnswersJSON returns the records as a JSON array.
func AnswersJSON(recs ...AnswerRec) string {
	b, _ := json.Marshal(recs)
	return string(b)
}

// Results returns the exam's results as the operator reads them.
func (h *Harness) Results(examID string) ResultsJSON {
	h.T.Helper()
	var res struct {
		Success bool        `json:"success"`
		Data    ResultsJSON `json:"data"`
	}
	h.Op("GET", "/api/v1/admin/exams/"+examID+"/results", nil).Expect(200).Decode(&res)
	return res.Data
}

// ResultsJSON is the data of GET /api/v1/admin/exams/{id}/results.
type ResultsJSON struct {
	ExamID     string  `json:"exam_id"`
	MaxScore   float64 `json:"max_score"`
	AnswerRows int     `json:"answer_rows"`
	Results    []struct {
		MemberID string  `json:"member_id"`
		Nama     string  `json:"nama"`
		Username string  `json:"username"`
		Kelas    string  `json:"kelas"`
		Score    float64 `json:"score"`
		Answered int     `json:"answered"`
		Correct  int     `json:"correct"`
	} `json:"results"`
}
