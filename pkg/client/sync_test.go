package client_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seedhq/portal/pkg/client"
)

func TestVerifyServer(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	f := newFakePortal(t)
	f.json("POST /api/v1/sync/verify-server", 200, map[string]any{
		"success": true, "status": "VERIFIED", "server_name": "SMA 1", "server_time": "2026-11-23T08:00:00Z",
		"access_token": "srv-jwt", "access_token_expires_at": "2026-11-23T09:00:00Z",
		"package_key": base64.StdEncoding.EncodeToString(key), "heartbeat_interval_seconds": 60,
		"license": map[string]any{"license_id": "L1", "expires_at": "2027-11-23T08:00:00Z", "max_students": 300, "operating_mode": "OFFLINE"},
	})
	c := f.client(client.WithToken("old"))
	v, _, err := c.Exam.Sync.VerifyServer(context.Background(), &client.VerifyServerRequest{
		ServerCode: "LAB-1", NPSN: "20100001", HardwareID: "HW-1", LicenseToken: "lic"})
	if err != nil {
		t.Fatal(err)
	}
	r := f.last()
	mustEqualJSON(t, r.Body, `{"server_code":"LAB-1","npsn":"20100001","hardware_id":"HW-1","license_token":"lic"}`)
	if r.Header.Get("Authorization") != "" {
		t.Error("handshake sent a bearer token")
	}
	if v.Status != "VERIFIED" || v.ServerName != "SMA 1" || v.AccessToken != "srv-jwt" || !bytes.Equal(v.PackageKey, key) ||
		v.HeartbeatInterval() != time.Minute || v.License.LicenseID != "L1" || v.License.MaxStudents != 300 ||
		!v.AccessTokenExpiresAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("verification %+v", v)
	}
	if c.Token() != "old" {
		t.Error("VerifyServer changed the client's token")
	}
}

func TestVerifyServerRefused(t *testing.T) {
	f := newFakePortal(t)
	f.json("POST /api/v1/sync/verify-server", 403, map[string]any{"success": false, "error": "licence revoked", "code": "LICENSE_REVOKED"})
	_, _, err := f.client().Exam.Sync.VerifyServer(context.Background(), &client.VerifyServerRequest{})
	if !errors.Is(err, &client.Error{Code: client.CodeLicenseRevoked}) || !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("err = %v", err)
	}
}

// packageServer emulates GET /api/v1/sync/pull-questions as the portal
// serves it: JSON by default, bytes (with Range) for format=binary, ETag
// the checksum of the bytes.
type packageServer struct {
	data    atomic.Pointer[[]byte]
	version string
	cutAt   atomic.Int64 // >0: binary answers stop after this many body bytes
}

func (p *packageServer) set(b []byte) { p.data.Store(&b) }

func (p *packageServer) sum() string {
	s := sha256.Sum256(*p.data.Load())
	return hex.EncodeToString(s[:])
}

func (p *packageServer) install(f *fakePortal) {
	f.handle("GET /api/v1/sync/pull-questions", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("serverCode") != "LAB-1" {
			writeJSON(w, 403, map[string]any{"success": false, "error": "serverCode is not yours", "code": "SERVER_MISMATCH"})
			return
		}
		data, sum := *p.data.Load(), p.sum()
		etag := `"` + sum + `"`
		h := w.Header()
		h.Set("ETag", etag)
		h.Set("X-Checksum-SHA256", sum)
		h.Set("X-Package-Version", p.version)
		binary := r.URL.Query().Get("format") == "binary" || strings.Contains(r.Header.Get("Accept"), "application/octet-stream")
		if !binary {
			if r.Header.Get("If-None-Match") == etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			writeJSON(w, 200, map[string]any{"success": true, "server_code": "LAB-1", "npsn": "20100001", "version": p.version,
				"checksum_sha256": sum, "size": len(data), "encryption": "AES-256-GCM-STREAM",
				"generated_at": "2026-11-23T08:00:00Z", "package": data})
			return
		}
		h.Set("Content-Type", "application/octet-stream")
		var body io.ReadSeeker = bytes.NewReader(data)
		if cut := p.cutAt.Load(); cut > 0 {
			body = &cutReader{ReadSeeker: body, w: w, left: cut}
		}
		http.ServeContent(w, r, "", time.Time{}, body)
	})
}

// cutReader aborts the response after left bytes have been read.
type cutReader struct {
	io.ReadSeeker
	w    http.ResponseWriter
	left int64
}

func (c *cutReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		http.NewResponseController(c.w).Flush()
		panic(http.ErrAbortHandler)
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.ReadSeeker.Read(p)
	c.left -= int64(n)
	return n, err
}

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	rand.Read(b)
	return b
}

func TestPullQuestionsJSON(t *testing.T) {
	f := newFakePortal(t)
	ps := &packageServer{version: "v1"}
	ps.set(randomBytes(t, 3000))
	ps.install(f)
	c := f.client(client.WithToken("srv"))
	ctx := context.Background()

	pkg, _, err := c.Exam.Sync.PullQuestions(ctx, "LAB-1", "")
	if err != nil {
		t.Fatal(err)
	}
	r := f.last()
	if r.RawQuery != "serverCode=LAB-1" || r.Header.Get("If-None-Match") != "" || r.Header.Get("Authorization") != "Bearer srv" {
		t.Errorf("request %q %v", r.RawQuery, r.Header)
	}
	if pkg.NotModified || !bytes.Equal(pkg.Package, *ps.data.Load()) || pkg.Size != 3000 || pkg.ChecksumSHA256 != ps.sum() ||
		pkg.Version != "v1" || pkg.Encryption != client.PackageEncryption || pkg.NPSN != "20100001" || !pkg.GeneratedAt.Equal(t0) {
		t.Errorf("package %+v", pkg)
	}

	// The checksum known: 304, bare or quoted.
	for _, known := range []string{ps.sum(), `"` + ps.sum() + `"`} {
		pkg, resp, err := c.Exam.Sync.PullQuestions(ctx, "LAB-1", known)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 304 || !pkg.NotModified || pkg.Package != nil || pkg.ChecksumSHA256 != ps.sum() || pkg.Version != "v1" {
			t.Errorf("not modified: %+v", pkg)
		}
		if got := f.last().Header.Get("If-None-Match"); got != `"`+ps.sum()+`"` {
			t.Errorf("If-None-Match = %q", got)
		}
	}

	// A changed package is sent again.
	old := ps.sum()
	ps.set(randomBytes(t, 10))
	pkg, _, err = c.Exam.Sync.PullQuestions(ctx, "LAB-1", old)
	if err != nil || pkg.NotModified || len(pkg.Package) != 10 {
		t.Fatalf("changed package: %+v, %v", pkg, err)
	}

	// Another server's code.
	_, _, err = c.Exam.Sync.PullQuestions(ctx, "LAB-2", "")
	if !errors.Is(err, &client.Error{Code: client.CodeServerMismatch}) {
		t.Errorf("other server: %v", err)
	}
}

func TestPullQuestionsChecksumMismatch(t *testing.T) {
	f := newFakePortal(t)
	data := []byte("encrypted bytes")
	sum := sha256.Sum256(data)
	f.json("GET /api/v1/sync/pull-questions", 200, map[string]any{"success": true, "checksum_sha256": strings.Repeat("0", 64), "size": len(data), "package": data})
	if _, _, err := f.client().Exam.Sync.PullQuestions(context.Background(), "LAB-1", ""); !errors.Is(err, client.ErrChecksumMismatch) {
		t.Errorf("wrong checksum: %v", err)
	}
	f2 := newFakePortal(t)
	f2.json("GET /api/v1/sync/pull-questions", 200, map[string]any{"success": true, "checksum_sha256": hex.EncodeToString(sum[:]), "size": len(data) + 1, "package": data})
	if _, _, err := f2.client().Exam.Sync.PullQuestions(context.Background(), "LAB-1", ""); !errors.Is(err, client.ErrChecksumMismatch) {
		t.Errorf("wrong size: %v", err)
	}
}

func TestDownloadPackageWhole(t *testing.T) {
	f := newFakePortal(t)
	ps := &packageServer{version: "v1"}
	ps.set(randomBytes(t, 200_000))
	ps.install(f)
	c := f.client(client.WithToken("srv"))

	var buf bytes.Buffer
	d, resp, err := c.Exam.Sync.DownloadPackage(context.Background(), "LAB-1", &buf, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := f.last()
	if r.RawQuery != "format=binary&serverCode=LAB-1" || r.Header.Get("Accept") != "application/octet-stream" ||
		r.Header.Get("Range") != "" || r.Header.Get("Authorization") != "Bearer srv" {
		t.Errorf("request %q %v", r.RawQuery, r.Header)
	}
	if !bytes.Equal(buf.Bytes(), *ps.data.Load()) {
		t.Fatal("bytes differ")
	}
	if d.Status != 200 || resp.StatusCode != 200 || d.Offset != 0 || d.Written != 200_000 || d.Size != 200_000 || !d.Verified ||
		!d.Complete() || d.NotModified() || d.ChecksumSHA256 != ps.sum() || d.ETag != `"`+ps.sum()+`"` || d.Version != "v1" {
		t.Errorf("download %+v", d)
	}

	// Not modified.
	buf.Reset()
	d, _, err = c.Exam.Sync.DownloadPackage(context.Background(), "LAB-1", &buf, &client.DownloadOptions{IfNoneMatch: d.ETag})
	if err != nil || !d.NotModified() || d.Complete() || buf.Len() != 0 || d.ChecksumSHA256 != ps.sum() {
		t.Fatalf("not modified: %+v, %v", d, err)
	}
	if f.last().Header.Get("If-None-Match") != `"`+ps.sum()+`"` {
		t.Error("If-None-Match not sent")
	}
}

// A cut download is resumed with Range and If-Range, and the pieces make
// the whole package.
func TestDownloadPackageResume(t *testing.T) {
	f := newFakePortal(t)
	ps := &packageServer{version: "v1"}
	ps.set(randomBytes(t, 300_000))
	ps.install(f)
	c := f.client(client.WithToken("srv"))
	ctx := context.Background()

	ps.cutAt.Store(100_000)
	var file bytes.Buffer
	d, _, err := c.Exam.Sync.DownloadPackage(ctx, "LAB-1", &file, nil)
	if err == nil {
		t.Fatal("cut download: nil error")
	}
	if d == nil || d.Status != 200 || d.Written != int64(file.Len()) || d.Written == 0 || d.Written > 100_000 || d.Complete() || d.Verified {
		t.Fatalf("cut download: %+v", d)
	}
	etag := d.ETag

	// Resume, cut again.
	ps.cutAt.Store(50_000)
	off := int64(file.Len())
	d, _, err = c.Exam.Sync.DownloadPackage(ctx, "LAB-1", &file, &client.DownloadOptions{Offset: off, IfRange: etag})
	if err == nil || d == nil || d.Status != 206 || d.Offset != off || d.Written != int64(file.Len())-off || d.Size != 300_000 {
		t.Fatalf("second piece: %+v, %v", d, err)
	}
	r := f.last()
	if r.Header.Get("Range") != fmt.Sprintf("bytes=%d-", off) || r.Header.Get("If-Range") != etag || r.Header.Get("If-None-Match") != "" {
		t.Errorf("resume headers %v", r.Header)
	}

	// Resume to the end, with a bare checksum as IfRange.
	ps.cutAt.Store(0)
	off = int64(file.Len())
	d, _, err = c.Exam.Sync.DownloadPackage(ctx, "LAB-1", &file, &client.DownloadOptions{Offset: off, IfRange: ps.sum(), IfNoneMatch: "ignored"})
	if err != nil || d.Status != 206 || !d.Complete() || d.Verified {
		t.Fatalf("last piece: %+v, %v", d, err)
	}
	if r := f.last(); r.Header.Get("If-Range") != `"`+ps.sum()+`"` || r.Header.Get("If-None-Match") != "" {
		t.Errorf("If-Range %q If-None-Match %q", r.Header.Get("If-Range"), r.Header.Get("If-None-Match"))
	}
	if !bytes.Equal(file.Bytes(), *ps.data.Load()) {
		t.Fatal("resumed bytes differ from the package")
	}

	// Resuming a complete copy: 416 with the size, nothing to do.
	d, _, err = c.Exam.Sync.DownloadPackage(ctx, "LAB-1", io.Discard, &client.DownloadOptions{Offset: 300_000, IfRange: etag})
	if err != nil || d.Status != 416 || !d.Complete() || d.Written != 0 {
		t.Fatalf("complete copy: %+v, %v", d, err)
	}
	// An offset past the end is an error.
	_, _, err = c.Exam.Sync.DownloadPackage(ctx, "LAB-1", io.Discard, &client.DownloadOptions{Offset: 300_001, IfRange: etag})
	if !errors.Is(err, client.ErrRangeNotSatisfiable) {
		t.Fatalf("offset past the end: %v", err)
	}
}

// When the package changed since the partial copy, If-Range makes the
// portal send the whole new package: nothing is written and the caller is
// told to restart.
func TestDownloadPackageChanged(t *testing.T) {
	f := newFakePortal(t)
	ps := &packageServer{version: "v1"}
	ps.set(randomBytes(t, 5000))
	ps.install(f)
	c := f.client()
	oldETag := `"` + ps.sum() + `"`
	ps.set(randomBytes(t, 6000))

	var buf bytes.Buffer
	d, _, err := c.Exam.Sync.DownloadPackage(context.Background(), "LAB-1", &buf, &client.DownloadOptions{Offset: 1000, IfRange: oldETag})
	if !errors.Is(err, client.ErrPackageChanged) {
		t.Fatalf("err = %v, want ErrPackageChanged", err)
	}
	if buf.Len() != 0 || d == nil || d.Status != 200 || d.Written != 0 || d.ChecksumSHA256 != ps.sum() || d.Size != 6000 {
		t.Errorf("changed: %+v, %d bytes written", d, buf.Len())
	}
}

func TestDownloadPackageErrors(t *testing.T) {
	f := newFakePortal(t)
	ps := &packageServer{}
	ps.set([]byte("x"))
	ps.install(f)
	d, _, err := f.client().Exam.Sync.DownloadPackage(context.Background(), "LAB-2", io.Discard, nil)
	if !errors.Is(err, &client.Error{Code: client.CodeServerMismatch}) || d == nil || d.Status != 403 || d.Written != 0 {
		t.Fatalf("server mismatch: %+v, %v", d, err)
	}

	// Bytes that do not match the announced checksum.
	f2 := newFakePortal(t)
	f2.handle("GET /api/v1/sync/pull-questions", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Checksum-SHA256", strings.Repeat("ab", 32))
		io.WriteString(w, "some bytes")
	})
	d, _, err = f2.client().Exam.Sync.DownloadPackage(context.Background(), "LAB-1", io.Discard, nil)
	if !errors.Is(err, client.ErrChecksumMismatch) || d.Written != 10 || d.Verified {
		t.Fatalf("checksum mismatch: %+v, %v", d, err)
	}

	// A 206 for another range than asked.
	f3 := newFakePortal(t)
	f3.handle("GET /api/v1/sync/pull-questions", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Range", "bytes 0-9/10")
		w.WriteHeader(http.StatusPartialContent)
		io.WriteString(w, "0123456789")
	})
	var buf bytes.Buffer
	_, _, err = f3.client().Exam.Sync.DownloadPackage(context.Background(), "LAB-1", &buf, &client.DownloadOptions{Offset: 5})
	if err == nil || buf.Len() != 0 {
		t.Fatalf("wrong range: %v, %d bytes written", err, buf.Len())
	}
}

func TestPushAnswers(t *testing.T) {
	f := newFakePortal(t)
	var sent struct {
		ServerCode   string          `json:"server_code"`
		NPSN         string          `json:"npsn"`
		Checksum     string          `json:"checksum_sha256"`
		TotalRecords int             `json:"total_records"`
		Answers      json.RawMessage `json:"answers"`
	}
	f.handle("POST /api/v1/sync/push-answers", func(w http.ResponseWriter, r *http.Request) {
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&sent); err != nil {
			writeJSON(w, 400, map[string]any{"success": false, "error": err.Error(), "code": "INVALID_JSON"})
			return
		}
		// The portal's rule: the checksum covers the exact bytes of "answers".
		sum := sha256.Sum256(sent.Answers)
		if hex.EncodeToString(sum[:]) != sent.Checksum {
			writeJSON(w, 422, map[string]any{"success": false, "error": "checksum mismatch", "code": "CHECKSUM_MISMATCH"})
			return
		}
		var answers []map[string]any
		json.Unmarshal(sent.Answers, &answers)
		if len(answers) != sent.TotalRecords {
			writeJSON(w, 422, map[string]any{"success": false, "error": "count", "code": "RECORD_COUNT_MISMATCH"})
			return
		}
		writeJSON(w, 200, map[string]any{"success": true, "message": fmt.Sprintf("%d records received", len(answers)),
			"sync_id": "sync-1", "duplicate": r.Header.Get("Idempotency-Key") == "again", "received_at": "2026-11-23T08:00:00Z", "record_count": len(answers)})
	})
	c := f.client(client.WithToken("srv"))
	wib := time.FixedZone("WIB", 7*3600)
	req := &client.PushAnswersRequest{ServerCode: "LAB-1", NPSN: "20100001", IdempotencyKey: "batch-1", Answers: []client.Answer{
		{ExamID: "e1", MemberID: "m1", QuestionID: "q1", Answer: "a", AnsweredAt: t0.In(wib)},
		{ExamID: "e1", MemberID: "m1", QuestionID: "q2", Answer: "a,c", AnsweredAt: t0.Add(time.Second)},
		{ExamID: "e1", MemberID: "m1", QuestionID: "q3", Answer: `<b>"quoted" & unicode é</b>`, AnsweredAt: t0.Add(1500 * time.Millisecond)},
	}}
	rec, _, err := c.Exam.Sync.PushAnswers(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	r := f.last()
	if r.Header.Get("Idempotency-Key") != "batch-1" || r.Header.Get("Authorization") != "Bearer srv" || r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", r.Header)
	}
	if sent.ServerCode != "LAB-1" || sent.NPSN != "20100001" || sent.TotalRecords != 3 || len(sent.Checksum) != 64 {
		t.Errorf("sent %+v", sent)
	}
	// Times go in UTC.
	if !strings.Contains(string(sent.Answers), `"answered_at":"2026-11-23T08:00:00Z"`) ||
		!strings.Contains(string(sent.Answers), `"answered_at":"2026-11-23T08:00:01.5Z"`) {
		t.Errorf("answers %s", sent.Answers)
	}
	if rec.SyncID != "sync-1" || rec.Duplicate || rec.Message != "3 records received" || rec.RecordCount != 3 ||
		!rec.ReceivedAt.Equal(t0) || rec.ChecksumSHA256 != sent.Checksum {
		t.Errorf("receipt %+v", rec)
	}

	// Deterministic: the same batch gives the same bytes and checksum.
	first := append([]byte(nil), r.Body...)
	req.IdempotencyKey = "again"
	rec2, _, err := c.Exam.Sync.PushAnswers(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(f.last().Body, first) || rec2.ChecksumSHA256 != rec.ChecksumSHA256 || !rec2.Duplicate {
		t.Error("a repeated push sent other bytes")
	}

	// No key, no header; no answers, an empty array.
	rec3, _, err := c.Exam.Sync.PushAnswers(context.Background(), &client.PushAnswersRequest{ServerCode: "LAB-1", NPSN: "20100001"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.last().Header["Idempotency-Key"]; ok {
		t.Error("Idempotency-Key sent without a key")
	}
	if string(sent.Answers) != "[]" || sent.TotalRecords != 0 || rec3.ChecksumSHA256 != sent.Checksum {
		t.Errorf("empty push sent %s, %d", sent.Answers, sent.TotalRecords)
	}
	emptySum := sha256.Sum256([]byte("[]"))
	if sent.Checksum != hex.EncodeToString(emptySum[:]) {
		t.Errorf("empty push checksum %s", sent.Checksum)
	}
}

func TestPushAnswersRefused(t *testing.T) {
	f := newFakePortal(t)
	f.json("POST /api/v1/sync/push-answers", 409, map[string]any{"success": false, "error": "key reused with another batch", "code": "IDEMPOTENCY_KEY_REUSED"})
	_, _, err := f.client().Exam.Sync.PushAnswers(context.Background(), &client.PushAnswersRequest{IdempotencyKey: "k"})
	if !errors.Is(err, client.ErrConflict) || !errors.Is(err, &client.Error{Code: client.CodeIdempotencyKeyReused}) {
		t.Fatalf("err = %v", err)
	}
}

func TestIntervals(t *testing.T) {
	if got := (&client.HeartbeatResponse{IntervalSeconds: 60}).Interval(); got != time.Minute {
		t.Errorf("HeartbeatResponse.Interval = %v", got)
	}
	if got := (&client.Verification{HeartbeatIntervalSeconds: 30}).HeartbeatInterval(); got != 30*time.Second {
		t.Errorf("Verification.HeartbeatInterval = %v", got)
	}
}
