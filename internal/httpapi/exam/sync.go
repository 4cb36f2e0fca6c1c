package exam

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/respond"
)

type verifyServerRequest struct {
	ServerCode   string `json:"server_code"`
	NPSN         string `json:"npsn"`
	HardwareID   string `json:"hardware_id"`
	LicenseToken string `json:"license_token"`
}

type verifiedLicense struct {
	LicenseID     string    `json:"license_id"`
	ExpiresAt     time.Time `json:"expires_at"`
	MaxStudents   int       `json:"max_students"`
	OperatingMode string    `json:"operating_mode"`
}

// verifyServer handles POST /api/v1/sync/verify-server: the handshake of a
// lab server, which carries its licence token in the body and receives an
// access token and its school's package key.
func (a *api) verifyServer(w http.ResponseWriter, r *http.Request) {
	var req verifyServerRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	v, err := a.svc.VerifyServer(r.Context(), exam.VerifyInput{
		ServerCode: req.ServerCode, NPSN: req.NPSN, HardwareID: req.HardwareID,
		LicenseToken: req.LicenseToken, ClientIP: respond.ClientIP(r.Context()),
	})
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, struct {
		Success                  bool            `json:"success"`
		Status                   string          `json:"status"`
		ServerName               string          `json:"server_name"`
		ServerTime               time.Time       `json:"server_time"`
		AccessToken              string          `json:"access_token"`
		AccessTokenExpiresAt     time.Time       `json:"access_token_expires_at"`
		PackageKey               string          `json:"package_key"`
		HeartbeatIntervalSeconds int64           `json:"heartbeat_interval_seconds"`
		License                  verifiedLicense `json:"license"`
	}{
		Success:                  true,
		Status:                   "VERIFIED",
		ServerName:               v.ServerName,
		ServerTime:               v.ServerTime.UTC(),
		AccessToken:              v.AccessToken,
		AccessTokenExpiresAt:     v.AccessTokenExpiresAt.UTC(),
		PackageKey:               base64.StdEncoding.EncodeToString(v.PackageKey),
		HeartbeatIntervalSeconds: int64(v.HeartbeatInterval / time.Second),
		License: verifiedLicense{
			LicenseID: v.License.ID, ExpiresAt: v.License.ExpiresAt.UTC(),
			MaxStudents: v.License.MaxStudents, OperatingMode: v.License.OperatingMode,
		},
	})
}

// packageHead is the JSON form of a pull, but for its "package" field, which
// is streamed after it.
type packageHead struct {
	Success     bool      `json:"success"`
	ServerCode  string    `json:"server_code"`
	NPSN        string    `json:"npsn"`
	Version     string    `json:"version"`
	Checksum    string    `json:"checksum_sha256"`
	Size        int64     `json:"size"`
	Encryption  string    `json:"encryption"`
	GeneratedAt time.Time `json:"generated_at"`
}

// pullQuestions handles GET /api/v1/sync/pull-questions?serverCode= (server
// token): the school's current encrypted package, as JSON with the bytes in
// base64 (default) or as the bytes themselves (Accept:
// application/octet-stream or format=binary), with Range support. The
// package is streamed from the store, never read into memory.
func (a *api) pullQuestions(w http.ResponseWriter, r *http.Request) {
	id := serverFrom(r.Context())
	q := r.URL.Query()
	if err := exam.CheckServer(id, q.Get("serverCode"), ""); err != nil {
		a.writeError(w, r, err)
		return
	}
	binary, err := wantsBinary(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	formats := r.Header.Get(exam.PackageFormatsHeader)
	meta, err := a.svc.Package(r.Context(), id.NPSN, exam.ReadsPackageFormat(formats, exam.BlobsPackageFormat))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	if !exam.ReadsPackageFormat(formats, meta.Format) {
		a.writeError(w, r, exam.ErrLabagentTooOld)
		return
	}
	etag := `"` + meta.Checksum + `"`
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Checksum-SHA256", meta.Checksum)
	h.Set("X-Package-Version", meta.Version)

	if !binary && etagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	pkg, err := a.svc.OpenPackage(r.Context(), meta)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	defer pkg.Close()

	if binary {
		h.Set("Content-Type", "application/octet-stream")
		h.Set("Accept-Ranges", "bytes")
		sw := &statusWriter{ResponseWriter: w}
		// ServeContent answers Range, If-Range, If-None-Match and
		// If-Modified-Since (with the ETag set above) and streams the reader.
		http.ServeContent(sw, r, "", meta.GeneratedAt, pkg)
		if sw.status == http.StatusOK || sw.status == http.StatusPartialContent {
			a.svc.LogPull(r.Context(), id, meta)
		}
		return
	}

	head, err := json.Marshal(packageHead{
		Success: true, ServerCode: id.ServerCode, NPSN: meta.NPSN, Version: meta.Version,
		Checksum: meta.Checksum, Size: meta.Size, Encryption: "AES-256-GCM-STREAM",
		GeneratedAt: meta.GeneratedAt.UTC(),
	})
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	head = append(head[:len(head)-1], `,"package":"`...)
	const tail = "\"}\n"
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.FormatInt(int64(len(head))+int64(base64.StdEncoding.EncodedLen(int(meta.Size)))+int64(len(tail)), 10))
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(head); err != nil {
		return // the client went away
	}
	enc := base64.NewEncoder(base64.StdEncoding, w)
	n, err := io.Copy(enc, pkg)
	if err == nil && n != meta.Size {
		err = fmt.Errorf("package has %d bytes, meta says %d", n, meta.Size)
	}
	if err == nil {
		err = enc.Close()
	}
	if err == nil {
		_, err = io.WriteString(w, tail)
	}
	if err != nil {
		// The status is sent: cut the response so that the client sees a
		// truncated body rather than a complete-looking one.
		a.log.WarnContext(r.Context(), "package stream failed",
			"request_id", respond.RequestID(r.Context()), "npsn", meta.NPSN, "err", err)
		panic(http.ErrAbortHandler)
	}
	a.svc.LogPull(r.Context(), id, meta)
}

// wantsBinary reports whether a pull asks for the raw bytes: format=binary,
// or an Accept header naming application/octet-stream.
func wantsBinary(r *http.Request) (bool, error) {
	switch f := r.URL.Query().Get("format"); f {
	case "binary":
		return true, nil
	case "json":
		return false, nil
	case "":
	default:
		return false, respond.InvalidQuery("format must be json or binary, not %q", f)
	}
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err == nil && mt == "application/octet-stream" {
			return true, nil
		}
	}
	return false, nil
}

// etagMatches applies the weak comparison of If-None-Match (RFC 9110 13.1.2).
func etagMatches(header, etag string) bool {
	header = strings.TrimSpace(header)
	if header == "" {
		return false
	}
	if header == "*" {
		return true
	}
	for _, t := range strings.Split(header, ",") {
		if strings.TrimPrefix(strings.TrimSpace(t), "W/") == etag {
			return true
		}
	}
	return false
}

// statusWriter remembers the status of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

type pushRequest struct {
	ServerCode   string `json:"server_code"`
	NPSN         string `json:"npsn"`
	Checksum     string `json:"checksum_sha256"`
	TotalRecords int    `json:"total_records"`
	// Answers keeps the exact bytes of the value as sent: the checksum
	// covers them, not a re-encoding.
	Answers json.RawMessage `json:"answers"`
}

// pushAnswers handles POST /api/v1/sync/push-answers (server token): a
// checksummed batch of students' answers, idempotent by Idempotency-Key or
// by checksum.
func (a *api) pushAnswers(w http.ResponseWriter, r *http.Request) {
	var req pushRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	receipt, err := a.svc.PushAnswers(r.Context(), serverFrom(r.Context()), exam.PushInput{
		ServerCode: req.ServerCode, NPSN: req.NPSN, Checksum: req.Checksum,
		TotalRecords: req.TotalRecords, Answers: req.Answers,
		IdempotencyKey: r.Header.Get("Idempotency-Key"),
	})
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, struct {
		Success     bool      `json:"success"`
		Message     string    `json:"message"`
		SyncID      string    `json:"sync_id"`
		Duplicate   bool      `json:"duplicate"`
		ReceivedAt  time.Time `json:"received_at"`
		RecordCount int       `json:"record_count"` // (ext)
	}{
		Success:     true,
		Message:     fmt.Sprintf("%d records received", receipt.RecordCount),
		SyncID:      receipt.SyncID,
		Duplicate:   receipt.Duplicate,
		ReceivedAt:  receipt.ReceivedAt.UTC(),
		RecordCount: receipt.RecordCount,
	})
}

type heartbeatRequest struct {
	ServerCode        string `json:"server_code"`
	ConnectedStudents int    `json:"connected_students"`
	ActiveExamsCount  int    `json:"active_exams_count"`
	PendingAnswers    int    `json:"pending_answers"` // (ext)
	ClientVersion     string `json:"client_version"`
	Status            string `json:"status"`
}

// heartbeat handles POST /api/v1/sync/heartbeat (server token): a status ping
// that updates the server's monitor record.
func (a *api) heartbeat(w http.ResponseWriter, r *http.Request) {
	var req heartbeatRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	res, err := a.svc.Heartbeat(r.Context(), serverFrom(r.Context()), exam.HeartbeatInput{
		ServerCode: req.ServerCode, ConnectedStudents: req.ConnectedStudents,
		ActiveExamsCount: req.ActiveExamsCount, PendingAnswers: req.PendingAnswers, ClientVersion: req.ClientVersion,
		Status: exam.MonitorStatus(req.Status), ClientIP: respond.ClientIP(r.Context()),
	})
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.JSON(w, http.StatusOK, struct {
		Success         bool      `json:"success"`
		ServerTime      time.Time `json:"server_time"`
		IntervalSeconds int64     `json:"interval_seconds"`
	}{true, res.ServerTime.UTC(), int64(res.Interval / time.Second)})
}
