package examsrv_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/testkit"
)

// FuzzLabAPI: any body to every body-decoding route of labagent's LAN API
// (the students' sign-in, answers and flags, the proctor's sign-in,
// extensions, resets and lock lifts), with the right session, is answered
// below 500; a refusal is the {"success": false, "error", "code"} envelope.
func FuzzLabAPI(f *testing.F) {
	clk := testkit.NewClock(t0.Add(time.Minute))
	l := newLab(f, filepath.Join(f.TempDir(), "labagent.db"), 5, clk)
	token := strings.ToLower(l.token())
	student := l.signIn(1)
	student.mustOK("POST", "/api/student/exams/e1/start", nil, nil)
	proctor := l.proctor()
	anon := l.browserAt("127.0.0.7")
	type route struct {
		method, path string
		as           *browser
		seeds        []string
	}
	routes := []route{
		{"POST", "/api/student/login", anon, []string{`{"username":"s2","password":"PASS-2","token":"` + token + `"}`,
			`{"username":"s2","password":"wrong","token":"x"}`}},
		{"PUT", "/api/student/exams/e1/answers/q1", student, []string{`{"answer":"a"}`, `{"answer":"z"}`, `{"answer":1}`}},
		{"PUT", "/api/student/exams/e1/answers/sa", student, []string{`{"answer":"Jakarta"}`, `{"answer":"` + strings.Repeat("x", 5000) + `"}`}},
		{"PUT", "/api/student/exams/e1/answers/es", student, []string{`{"answer":"line 1\nline 2 \u0000"}`}},
		{"PUT", "/api/student/exams/e1/flags/q2", student, []string{`{"flagged":true}`, `{"flagged":"yes"}`}},
		{"POST", "/api/proctor/login", anon, []string{`{"password":"wrong"}`, `{"password":1}`}},
		{"POST", "/api/proctor/students/m1/extend", proctor, []string{`{"exam_id":"e1","minutes":5,"reason":"late bus"}`,
			`{"exam_id":"e1","minutes":-5}`, `{"exam_id":"nope","minutes":100000000}`}},
		{"POST", "/api/proctor/students/m2/reset", proctor, []string{`{}`, `{"exam_id":"e1"}`}},
		{"POST", "/api/proctor/locks/lift", proctor, []string{`{"address":"127.0.0.7"}`, `{"address":"::1"}`, `{"username":"s1"}`}},
	}
	for i, rt := range routes {
		for _, s := range append(rt.seeds, ``, `{}`, `null`, `[]`, `{"x":1}`, `{`, "\xff") {
			f.Add(uint8(i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, n uint8, body []byte) {
		rt := routes[int(n)%len(routes)]
		req, err := http.NewRequest(rt.method, rt.as.url+rt.path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := rt.as.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 500 {
			t.Fatalf("%s %s answered %d to %q: %s", rt.method, rt.path, resp.StatusCode, body, raw)
		}
		if resp.StatusCode < 400 {
			return
		}
		var e struct {
			Success *bool   `json:"success"`
			Error   *string `json:"error"`
			Code    string  `json:"code"`
		}
		if err := json.Unmarshal(raw, &e); err != nil || e.Success == nil || *e.Success || e.Error == nil || *e.Error == "" || e.Code == "" {
			t.Fatalf("%s %s: refusal %d is not the envelope: %s", rt.method, rt.path, resp.StatusCode, raw)
		}
	})
}
