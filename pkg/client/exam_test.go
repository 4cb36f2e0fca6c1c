package client_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/pkg/client"
)

// endpointCase is one call of the exam API against the fake portal: the
// request it must send and the answer it must decode.
type endpointCase struct {
	name   string
	method string
	path   string // escaped path
	query  string // url.Values.Encode order (sorted keys)
	body   string // expected JSON body; "" for none
	cred   string // "bearer", "apikey" or ""
	status int    // answered; 200 when 0
	answer string // answered JSON
	call   func(context.Context, *client.Client) (any, *client.Response, error)
	want   any // the value the call must return (compared with reflect.DeepEqual)
}

var (
	t0 = time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	t1 = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
)

const licenseJSON = `{"license_id":"L1","npsn":"20100001","school_name":"SMA 1","hardware_id":"HW-1",
	"max_students":300,"operating_mode":"SEMI_OFFLINE","issued_at":"2026-11-23T08:00:00Z",
	"expires_at":"2026-11-23T10:00:00Z","revoked_at":null,"status":"active","license_token":"tok"}`

var wantLicense = &client.License{LicenseID: "L1", NPSN: "20100001", SchoolName: "SMA 1", HardwareID: "HW-1",
	MaxStudents: 300, OperatingMode: client.ModeSemiOffline, IssuedAt: t0, ExpiresAt: t1, Status: "active", LicenseToken: "tok"}

func ptr[T any](v T) *T { return &v }

func examCases() []endpointCase {
	issued := &client.IssuedLicense{LicenseToken: "tok", License: wantLicense}
	issued.Payload.LicenseID, issued.Payload.ExpiresAt, issued.Payload.Signature = "L1", t1, "c2ln"
	revoked := *wantLicense
	revoked.RevokedAt, revoked.Status = ptr(t1), "revoked"

	return []endpointCase{
		{
			name: "login", method: "POST", path: "/api/v1/auth/login",
			body:   `{"username":"admin","password":"s3cret"}`,
			answer: `{"success":true,"token":"jwt","expires_at":"2026-11-23T10:00:00Z","user":{"id":"u1","username":"admin","name":"Admin","role":"SUPER_ADMIN"}}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Auth.Login(ctx, "admin", "s3cret"))
			},
			want: &client.LoginResult{Token: "jwt", ExpiresAt: t1, User: client.Operator{ID: "u1", Username: "admin", Name: "Admin", Role: "SUPER_ADMIN"}},
		},
		{
			name: "me", method: "GET", path: "/api/v1/auth/me", cred: "bearer",
			answer: `{"success":true,"user":{"id":"u1","username":"admin","name":"Admin","role":"OPERATOR"}}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Auth.Me(ctx))
			},
			want: &client.Operator{ID: "u1", Username: "admin", Name: "Admin", Role: "OPERATOR"},
		},
		{
			name: "licenses generate", method: "POST", path: "/api/v1/licenses/generate", cred: "bearer", status: 201,
			body: `{"npsn":"20100001","school_name":"SMA 1","hardware_id":"HW-1","max_students":300,"duration_days":365,"operating_mode":"SEMI_OFFLINE"}`,
			answer: `{"success":true,"license_token":"tok","payload":{"license_id":"L1","expires_at":"2026-11-23T10:00:00Z","signature":"c2ln"},
				"license":` + licenseJSON + `}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Licenses.Generate(ctx, &client.LicenseRequest{NPSN: "20100001", SchoolName: "SMA 1",
					HardwareID: "HW-1", MaxStudents: 300, DurationDays: 365, OperatingMode: client.ModeSemiOffline}))
			},
			want: issued,
		},
		{
			name: "licenses list", method: "GET", path: "/api/v1/licenses", query: "npsn=20100001", cred: "bearer",
			answer: `{"success":true,"data":[` + licenseJSON + `]}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Licenses.List(ctx, &client.LicenseListOptions{NPSN: "20100001"}))
			},
			want: []*client.License{wantLicense},
		},
		{
			name: "licenses list, no filter", method: "GET", path: "/api/v1/licenses", cred: "bearer",
			answer: `{"success":true,"data":[]}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Licenses.List(ctx, nil))
			},
			want: []*client.License{},
		},
		{
			name: "licenses revoke", method: "POST", path: "/api/v1/licenses/L1/revoke", cred: "bearer",
			answer: `{"success":true,"data":` + strings.Replace(strings.Replace(licenseJSON, `"revoked_at":null`, `"revoked_at":"2026-11-23T10:00:00Z"`, 1), `"active"`, `"revoked"`, 1) + `}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Licenses.Revoke(ctx, "L1"))
			},
			want: &revoked,
		},
		{
			name: "heartbeat", method: "POST", path: "/api/v1/sync/heartbeat", cred: "bearer",
			body:   `{"server_code":"LAB-1","connected_students":31,"active_exams_count":2,"client_version":"1.0.0","status":"online"}`,
			answer: `{"success":true,"server_time":"2026-11-23T08:00:00Z","interval_seconds":60}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Sync.Heartbeat(ctx, &client.HeartbeatRequest{ServerCode: "LAB-1", ConnectedStudents: 31,
					ActiveExamsCount: 2, ClientVersion: "1.0.0", Status: client.MonitorOnline}))
			},
			want: &client.HeartbeatResponse{ServerTime: t0, IntervalSeconds: 60},
		},
		{
			name: "monitors", method: "GET", path: "/api/v1/admin/monitors", query: "npsn=20100001&status=offline", cred: "bearer",
			answer: `{"success":true,"data":[{"id":"m1","server_code":"LAB-1","npsn":"20100001","school_name":"SMA 1","hardware_id":"HW-1",
				"status":"offline","active_exams_count":1,"connected_students":0,"client_ip":"10.0.0.2","client_version":"1.0.0",
				"last_ping_at":"2026-11-23T08:00:00Z","updated_at":"2026-11-23T10:00:00Z"}]}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Admin.ListMonitors(ctx, &client.MonitorListOptions{NPSN: "20100001", Status: client.MonitorOffline}))
			},
			want: []*client.Monitor{{ID: "m1", ServerCode: "LAB-1", NPSN: "20100001", SchoolName: "SMA 1", HardwareID: "HW-1",
				Status: "offline", ActiveExamsCount: 1, ClientIP: "10.0.0.2", ClientVersion: "1.0.0", LastPingAt: t0, UpdatedAt: t1}},
		},
		{
			name: "sync logs", method: "GET", path: "/api/v1/admin/sync-logs",
			query: "limit=50&npsn=20100001&server_code=LAB-1&status=rejected", cred: "bearer",
			answer: `{"success":true,"data":[{"sync_id":"s1","action":"push_results","server_code":"LAB-1","npsn":"20100001",
				"record_count":3,"checksum_sha256":"ab","idempotency_key":"k","outcome":"rejected","error_code":"CHECKSUM_MISMATCH",
				"received_at":"2026-11-23T08:00:00Z"}]}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Admin.ListSyncLogs(ctx, &client.SyncLogListOptions{NPSN: "20100001", ServerCode: "LAB-1",
					Status: client.OutcomeRejected, Limit: 50}))
			},
			want: []*client.SyncLog{{SyncID: "s1", Action: client.ActionPushResults, ServerCode: "LAB-1", NPSN: "20100001",
				RecordCount: 3, ChecksumSHA256: "ab", IdempotencyKey: "k", Outcome: "rejected", ErrorCode: client.CodeChecksumMismatch, ReceivedAt: t0}},
		},
		{
			name: "servers", method: "GET", path: "/api/v1/admin/servers", query: "npsn=20100001", cred: "bearer",
			answer: `{"success":true,"data":[{"server_code":"LAB-1","npsn":"20100001","hardware_id":"HW-1","license_id":"L1","bound_at":"2026-11-23T08:00:00Z"}]}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Admin.ListServers(ctx, &client.ServerListOptions{NPSN: "20100001"}))
			},
			want: []*client.ServerBinding{{ServerCode: "LAB-1", NPSN: "20100001", HardwareID: "HW-1", LicenseID: "L1", BoundAt: t0}},
		},
		{
			name: "server reset", method: "DELETE", path: "/api/v1/admin/servers/LAB-1", cred: "bearer",
			answer: `{"success":true,"message":"server binding reset"}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				resp, err := c.Exam.Admin.ResetServer(ctx, "LAB-1")
				return nil, resp, err
			},
		},
		{
			name: "exam create", method: "POST", path: "/api/v1/admin/exams", cred: "bearer", status: 201,
			body: `{"title":"Math","subject":"math","npsn":["20100001"],"starts_at":"2026-11-23T08:00:00Z","ends_at":"2026-11-23T10:00:00Z",
				"duration_minutes":90,"questions":[{"id":"q1","type":"single_choice","text":"1+1?","options":[{"id":"a","text":"2"},{"id":"b","text":"3"}],
				"answer":["a"],"points":1},{"id":"q2","type":"essay","text":"Why?","points":2}]}`,
			answer: `{"success":true,"data":{"id":"e1","title":"Math","subject":"math","npsn":["20100001"],"starts_at":"2026-11-23T08:00:00Z",
				"ends_at":"2026-11-23T10:00:00Z","duration_minutes":90,"question_count":2,"created_at":"2026-11-23T08:00:00Z",
				"questions":[{"id":"q1","type":"single_choice","text":"1+1?","options":[{"id":"a","text":"2"},{"id":"b","text":"3"}],"answer":["a"],"points":1},
				{"id":"q2","type":"essay","text":"Why?","options":[],"answer":[],"points":2}]}}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				wib := time.FixedZone("WIB", 7*3600)
				return call3(c.Exam.Admin.CreateExam(ctx, &client.ExamRequest{Title: "Math", Subject: "math", NPSN: []string{"20100001"},
					StartsAt: t0.In(wib), EndsAt: t1.In(wib), DurationMinutes: 90, Questions: []client.Question{
						{ID: "q1", Type: client.SingleChoice, Text: "1+1?", Options: []client.QuestionOption{{ID: "a", Text: "2"}, {ID: "b", Text: "3"}}, Answer: []string{"a"}, Points: 1},
						{ID: "q2", Type: client.Essay, Text: "Why?", Points: 2},
					}}))
			},
			want: &client.Exam{ID: "e1", Title: "Math", Subject: "math", NPSN: []string{"20100001"}, StartsAt: t0, EndsAt: t1,
				DurationMinutes: 90, QuestionCount: 2, CreatedAt: t0, Questions: []client.Question{
					{ID: "q1", Type: client.SingleChoice, Text: "1+1?", Options: []client.QuestionOption{{ID: "a", Text: "2"}, {ID: "b", Text: "3"}}, Answer: []string{"a"}, Points: 1},
					{ID: "q2", Type: client.Essay, Text: "Why?", Options: []client.QuestionOption{}, Answer: []string{}, Points: 2},
				}},
		},
		{
			name: "exam list", method: "GET", path: "/api/v1/admin/exams", query: "npsn=20100001", cred: "bearer",
			answer: `{"success":true,"data":[{"id":"e1","title":"Math","subject":"math","npsn":["20100001"],"starts_at":"2026-11-23T08:00:00Z",
				"ends_at":"2026-11-23T10:00:00Z","duration_minutes":90,"question_count":2,"created_at":"2026-11-23T08:00:00Z"}]}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Admin.ListExams(ctx, &client.ExamListOptions{NPSN: "20100001"}))
			},
			want: []*client.Exam{{ID: "e1", Title: "Math", Subject: "math", NPSN: []string{"20100001"}, StartsAt: t0, EndsAt: t1,
				DurationMinutes: 90, QuestionCount: 2, CreatedAt: t0}},
		},
		{
			name: "exam get", method: "GET", path: "/api/v1/admin/exams/e1", cred: "bearer",
			answer: `{"success":true,"data":{"id":"e1","questions":[{"id":"q1","type":"true_false","text":"Sky is blue","answer":["true"],"points":1}]}}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Admin.GetExam(ctx, "e1"))
			},
			want: &client.Exam{ID: "e1", Questions: []client.Question{{ID: "q1", Type: client.TrueFalse, Text: "Sky is blue", Answer: []string{"true"}, Points: 1}}},
		},
		{
			name: "exam delete", method: "DELETE", path: "/api/v1/admin/exams/e1", cred: "bearer",
			answer: `{"success":true,"message":"exam deleted"}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				resp, err := c.Exam.Admin.DeleteExam(ctx, "e1")
				return nil, resp, err
			},
		},
		{
			name: "exam results", method: "GET", path: "/api/v1/admin/exams/e1/results", cred: "bearer",
			answer: `{"success":true,"data":{"exam_id":"e1","max_score":3,"results":[{"member_id":"m1","nama":"Ani","username":"ani",
				"kelas":"XII-1","score":2.5,"answered":3,"correct":2}]}}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Admin.ExamResults(ctx, "e1"))
			},
			want: &client.ExamResults{ExamID: "e1", MaxScore: 3, Results: []client.MemberResult{{MemberID: "m1", Nama: "Ani",
				Username: "ani", Kelas: "XII-1", Score: 2.5, Answered: 3, Correct: 2}}},
		},
		{
			name: "login cards JSON", method: "GET", path: "/api/v1/admin/login-cards", query: "format=json&npsn=20100001", cred: "bearer",
			answer: `{"success":true,"data":[{"member_id":"m1","npsn":"20100001","kelas":"XII-1","nama":"Ani","username":"ani","nisn":"001","exam_password":"ABCD2345"}]}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Admin.LoginCards(ctx, "20100001"))
			},
			want: []*client.LoginCard{{MemberID: "m1", NPSN: "20100001", Kelas: "XII-1", Nama: "Ani", Username: "ani", NISN: "001", ExamPassword: "ABCD2345"}},
		},
		{
			name: "reset exam password", method: "POST", path: "/api/v1/admin/members/m1/reset-exam-password", cred: "bearer",
			answer: `{"success":true,"data":{"member_id":"m1","username":"ani","exam_password":"WXYZ2345"}}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Admin.ResetExamPassword(ctx, "m1"))
			},
			want: &client.ExamPassword{MemberID: "m1", Username: "ani", ExamPassword: "WXYZ2345"},
		},
		{
			name: "import members JSON", method: "POST", path: "/api/v1/admin/members/import", query: "npsn=20100001", cred: "bearer",
			body: `{"members":[{"nama":"Ani","role":"siswa","nisn":"001","kelas":"XII-1"},{"npsn":"20100002","nama":"Budi","username":"budi",
				"email":"b@x.id","dapodik_id":"d","nip":"p","nik":"k","academic_year_name":"2025/2026","google_email":"b@g.id"}]}`,
			answer: `{"success":true,"created":1,"updated":0,"rejected":1,"rows":[{"row":1,"member_id":"m1","action":"created","code":"","message":""},
				{"row":2,"member_id":"","action":"rejected","code":"VALIDATION_FAILED","message":"kelas is required"}]}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Admin.ImportMembers(ctx, []client.MemberInput{
					{Nama: "Ani", Role: "siswa", NISN: "001", Kelas: "XII-1"},
					{NPSN: "20100002", Nama: "Budi", Username: "budi", Email: "b@x.id", DapodikID: "d", NIP: "p", NIK: "k",
						AcademicYearName: "2025/2026", GoogleEmail: "b@g.id"},
				}, &client.ImportOptions{NPSN: "20100001"}))
			},
			want: &client.ImportReport{Created: 1, Rejected: 1, Rows: []client.ImportRow{
				{Row: 1, MemberID: "m1", Action: "created"},
				{Row: 2, Action: "rejected", Code: client.CodeValidationFailed, Message: "kelas is required"}}},
		},
		{
			name: "import members JSON, empty", method: "POST", path: "/api/v1/admin/members/import", cred: "bearer",
			body:   `{"members":[]}`,
			answer: `{"success":true,"created":0,"updated":0,"rejected":0,"rows":[]}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Admin.ImportMembers(ctx, nil, nil))
			},
			want: &client.ImportReport{Rows: []client.ImportRow{}},
		},
		{
			name: "academic year create", method: "POST", path: "/api/v1/admin/academic-years", cred: "bearer", status: 201,
			body:   `{"name":"2025/2026","is_active":true}`,
			answer: `{"success":true,"data":{"id":"y1","name":"2025/2026","is_active":true,"created_at":"2026-11-23T08:00:00Z"}}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Admin.CreateAcademicYear(ctx, "2025/2026", true))
			},
			want: &client.AcademicYear{ID: "y1", Name: "2025/2026", IsActive: true, CreatedAt: t0},
		},
		{
			name: "academic years list", method: "GET", path: "/api/v1/admin/academic-years", cred: "bearer",
			answer: `{"success":true,"data":[{"id":"y1","name":"2025/2026","is_active":false,"created_at":"2026-11-23T08:00:00Z"}]}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Admin.ListAcademicYears(ctx))
			},
			want: []*client.AcademicYear{{ID: "y1", Name: "2025/2026", CreatedAt: t0}},
		},
		{
			name: "academic year activate", method: "POST", path: "/api/v1/admin/academic-years/y1/activate", cred: "bearer",
			answer: `{"success":true,"data":{"id":"y1","name":"2025/2026","is_active":true,"created_at":"2026-11-23T08:00:00Z"}}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Admin.ActivateAcademicYear(ctx, "y1"))
			},
			want: &client.AcademicYear{ID: "y1", Name: "2025/2026", IsActive: true, CreatedAt: t0},
		},
		{
			name: "api key create", method: "POST", path: "/api/v1/admin/api-keys", cred: "bearer", status: 201,
			body:   `{"name":"sis"}`,
			answer: `{"success":true,"data":{"id":"k1","name":"sis","prefix":"pk_ab","created_at":"2026-11-23T08:00:00Z","revoked_at":null,"last_used_at":null},"key":"pk_abcdef"}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Admin.CreateAPIKey(ctx, "sis"))
			},
			want: &client.APIKey{ID: "k1", Name: "sis", Prefix: "pk_ab", CreatedAt: t0, Key: "pk_abcdef"},
		},
		{
			name: "api keys list", method: "GET", path: "/api/v1/admin/api-keys", cred: "bearer",
			answer: `{"success":true,"data":[{"id":"k1","name":"sis","prefix":"pk_ab","created_at":"2026-11-23T08:00:00Z","last_used_at":"2026-11-23T10:00:00Z"}]}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Admin.ListAPIKeys(ctx))
			},
			want: []*client.APIKey{{ID: "k1", Name: "sis", Prefix: "pk_ab", CreatedAt: t0, LastUsedAt: ptr(t1)}},
		},
		{
			name: "api key revoke", method: "DELETE", path: "/api/v1/admin/api-keys/k1", cred: "bearer",
			answer: `{"success":true,"data":{"id":"k1","name":"sis","prefix":"pk_ab","created_at":"2026-11-23T08:00:00Z","revoked_at":"2026-11-23T10:00:00Z"}}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Admin.RevokeAPIKey(ctx, "k1"))
			},
			want: &client.APIKey{ID: "k1", Name: "sis", Prefix: "pk_ab", CreatedAt: t0, RevokedAt: ptr(t1)},
		},
		{
			name: "active academic year", method: "GET", path: "/api/v1/academic-year/active", cred: "apikey",
			answer: `{"success":true,"data":{"id":"y1","name":"2025/2026","is_active":true,"created_at":"2026-11-23T08:00:00Z"},"meta":{"app_name":"Portal"}}`,
			call: func(ctx context.Context, c *client.Client) (any, *client.Response, error) {
				return call3(c.Exam.Directory.ActiveAcademicYear(ctx))
			},
			want: &client.AcademicYear{ID: "y1", Name: "2025/2026", IsActive: true, CreatedAt: t0},
		},
	}
}

// call3 turns a (value, *Response, error) result into (any, ...), keeping
// a nil pointer an untyped nil.
func call3[T any](v T, resp *client.Response, err error) (any, *client.Response, error) {
	return v, resp, err
}

func TestExamEndpoints(t *testing.T) {
	for _, tc := range examCases() {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakePortal(t)
			status := tc.status
			if status == 0 {
				status = http.StatusOK
			}
			f.handle(tc.method+" "+tc.path, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				io.WriteString(w, tc.answer)
			})
			c := f.client(client.WithToken("jwt"), client.WithAPIKey("key"))
			got, resp, err := tc.call(context.Background(), c)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if resp == nil || resp.StatusCode != status {
				t.Fatalf("response %+v, want status %d", resp, status)
			}
			r := f.last()
			if r.Method != tc.method || r.RawPath != tc.path || r.RawQuery != tc.query {
				t.Errorf("request %s %s?%s, want %s %s?%s", r.Method, r.RawPath, r.RawQuery, tc.method, tc.path, tc.query)
			}
			if tc.body == "" {
				if len(r.Body) != 0 {
					t.Errorf("body %q, want none", r.Body)
				}
			} else {
				if ct := r.Header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type = %q", ct)
				}
				mustEqualJSON(t, r.Body, tc.body)
			}
			if a := r.Header.Get("Accept"); a != "application/json" {
				t.Errorf("Accept = %q", a)
			}
			wantAuth, wantKey := "", ""
			switch tc.cred {
			case "bearer":
				wantAuth = "Bearer jwt"
			case "apikey":
				wantKey = "key"
			}
			if r.Header.Get("Authorization") != wantAuth || r.Header.Get("X-API-Key") != wantKey {
				t.Errorf("credentials %q %q, want %q %q", r.Header.Get("Authorization"), r.Header.Get("X-API-Key"), wantAuth, wantKey)
			}
			if tc.want != nil && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("result\n got %#v\nwant %#v", deref(got), deref(tc.want))
			}
		})
	}
}

// deref shows what a pointer points to in failure messages.
func deref(v any) any {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
		return rv.Elem().Interface()
	}
	return v
}

// Every exam endpoint decodes the exam error envelope and returns a nil
// value with the error.
func TestExamEndpointsErrors(t *testing.T) {
	for _, tc := range examCases() {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakePortal(t)
			f.json(tc.method+" "+tc.path, http.StatusConflict, map[string]any{"success": false, "error": "clash", "code": "SOME_CONFLICT"})
			got, resp, err := tc.call(context.Background(), f.client())
			var e *client.Error
			if !errors.As(err, &e) || e.Status != 409 || e.Code != "SOME_CONFLICT" || e.Message != "clash" || !errors.Is(err, client.ErrConflict) {
				t.Fatalf("err = %v", err)
			}
			if resp == nil || resp.StatusCode != 409 {
				t.Errorf("response %v", resp)
			}
			if rv := reflect.ValueOf(got); got != nil && !rv.IsNil() {
				t.Errorf("value %#v returned with an error", got)
			}
		})
	}
}

func TestLicensePublicKey(t *testing.T) {
	pub, _, _ := ed25519.GenerateKey(nil)
	f := newFakePortal(t)
	alg, key := "Ed25519", base64.StdEncoding.EncodeToString(pub)
	f.handle("GET /api/v1/licenses/public-key", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"success": true, "algorithm": alg, "public_key": key})
	})
	c := f.client()
	got, _, err := c.Exam.Licenses.PublicKey(context.Background())
	if err != nil || !got.Equal(pub) {
		t.Fatalf("PublicKey = %x, %v", got, err)
	}
	alg = "RSA"
	if _, _, err := c.Exam.Licenses.PublicKey(context.Background()); err == nil {
		t.Error("algorithm RSA: nil error")
	}
	alg, key = "Ed25519", base64.StdEncoding.EncodeToString(pub[:16])
	if _, _, err := c.Exam.Licenses.PublicKey(context.Background()); err == nil {
		t.Error("short key: nil error")
	}
}

func TestLoginRateLimited(t *testing.T) {
	f := newFakePortal(t)
	f.handle("POST /api/v1/auth/login", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "840")
		writeJSON(w, 429, map[string]any{"success": false, "error": "too many failed logins", "code": "TOO_MANY_ATTEMPTS"})
	})
	_, _, err := f.client().Exam.Auth.Login(context.Background(), "admin", "x")
	var e *client.Error
	if !errors.Is(err, client.ErrRateLimited) || !errors.As(err, &e) || e.RetryAfter != 840*time.Second {
		t.Fatalf("err = %#v", err)
	}
}

func TestLoginCardsCSV(t *testing.T) {
	const csv = "npsn,kelas,nama,username,nisn,exam_password\n20100001,XII-1,Ani,ani,001,ABCD2345\n"
	f := newFakePortal(t)
	f.handle("GET /api/v1/admin/login-cards", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		io.WriteString(w, csv)
	})
	var buf bytes.Buffer
	resp, err := f.client(client.WithToken("jwt")).Exam.Admin.LoginCardsCSV(context.Background(), "20100001", &buf)
	if err != nil {
		t.Fatal(err)
	}
	if buf.String() != csv || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" {
		t.Errorf("CSV %q", buf.String())
	}
	r := f.last()
	if r.RawQuery != "format=csv&npsn=20100001" || r.Header.Get("Accept") != "text/csv" || r.Header.Get("Authorization") != "Bearer jwt" {
		t.Errorf("request %q %v", r.RawQuery, r.Header)
	}
}

func TestImportMembersCSV(t *testing.T) {
	const csv = "nama,kelas,nisn\nAni,XII-1,001\n"
	f := newFakePortal(t)
	f.json("POST /api/v1/admin/members/import", 200, map[string]any{"success": true, "created": 1, "updated": 0, "rejected": 0,
		"rows": []any{map[string]any{"row": 1, "member_id": "m1", "action": "created"}}})
	rep, _, err := f.client(client.WithToken("jwt")).Exam.Admin.ImportMembersCSV(context.Background(), strings.NewReader(csv), &client.ImportOptions{NPSN: "20100001"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Created != 1 || len(rep.Rows) != 1 || rep.Rows[0].MemberID != "m1" {
		t.Errorf("report %+v", rep)
	}
	r := f.last()
	if string(r.Body) != csv || r.Header.Get("Content-Type") != "text/csv" || r.RawQuery != "npsn=20100001" {
		t.Errorf("request body %q Content-Type %q query %q", r.Body, r.Header.Get("Content-Type"), r.RawQuery)
	}
}

func TestImportMembersCSVUnsupported(t *testing.T) {
	f := newFakePortal(t)
	f.json("POST /api/v1/admin/members/import", 415, map[string]any{"success": false, "error": "Content-Type must be application/json or text/csv", "code": "UNSUPPORTED_MEDIA_TYPE"})
	_, _, err := f.client().Exam.Admin.ImportMembersCSV(context.Background(), strings.NewReader("x"), nil)
	if !errors.Is(err, client.ErrUnsupportedMediaType) || !errors.Is(err, &client.Error{Code: client.CodeUnsupportedMediaType}) {
		t.Fatalf("err = %v", err)
	}
}
