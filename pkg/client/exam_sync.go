package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/seedhq/portal/pkg/labwire"
)

// VerifyServerRequest is the body of a lab server's handshake.
type VerifyServerRequest struct {
	// ServerCode names the lab server: 1..64 of [A-Za-z0-9._-].
	ServerCode   string `json:"server_code"`
	NPSN         string `json:"npsn"`
	HardwareID   string `json:"hardware_id"`
	LicenseToken string `json:"license_token"`
}

// Verification is the answer of a successful handshake.
type Verification struct {
	// Status is VERIFIED.
	Status string `json:"status"`
	// ServerName is the licence's school name.
	ServerName string    `json:"server_name"`
	ServerTime time.Time `json:"server_time"`
	// AccessToken is the lab-server JWT (1 h) for the other sync
	// endpoints; pass it to SetToken.
	AccessToken          string    `json:"access_token"`
	AccessTokenExpiresAt time.Time `json:"access_token_expires_at"`
	// PackageKey is the school's 32-byte AES-256 package key, for
	// NewPackageDecrypter (sent in standard base64).
	PackageKey               []byte `json:"package_key"`
	HeartbeatIntervalSeconds int    `json:"heartbeat_interval_seconds"`
	// License is the licence the server verified with.
	License VerifiedLicense `json:"license"`
}

// VerifiedLicense is the licence part of a handshake's answer.
type VerifiedLicense struct {
	LicenseID     string    `json:"license_id"`
	ExpiresAt     time.Time `json:"expires_at"`
	MaxStudents   int       `json:"max_students"`
	OperatingMode string    `json:"operating_mode"`
}

// HeartbeatInterval returns HeartbeatIntervalSeconds as a duration.
func (v *Verification) HeartbeatInterval() time.Duration {
	return time.Duration(v.HeartbeatIntervalSeconds) * time.Second
}

// VerifyServer is a lab server's handshake (POST /api/v1/sync/verify-server,
// the licence token in the body is the credential). It does not set the
// access token on the Client: call c.SetToken(v.AccessToken).
//
// Refusals: 401 CodeLicenseInvalid, 403 CodeLicenseRevoked,
// CodeLicenseExpired, CodeNPSNMismatch, CodeHardwareMismatch.
func (s *ExamSyncService) VerifyServer(ctx context.Context, req *VerifyServerRequest) (*Verification, *Response, error) {
	if req == nil {
		return nil, nil, errorf("verify server: nil request")
	}
	out := new(Verification)
	resp, err := s.client.exam(ctx, http.MethodPost, "sync/verify-server", nil, req, out, credNone)
	if err != nil {
		return nil, resp, err
	}
	return out, resp, nil
}

// EncryptedPackage is the JSON form of a package pull.
type EncryptedPackage struct {
	ServerCode string `json:"server_code"`
	NPSN       string `json:"npsn"`
	// Version is the lowercase hex SHA-256 of the plaintext package (see
	// Package.Version).
	Version string `json:"version"`
	// ChecksumSHA256 is the lowercase hex SHA-256 of the encrypted bytes,
	// also the package's ETag.
	ChecksumSHA256 string `json:"checksum_sha256"`
	// Size is the number of encrypted bytes.
	Size int64 `json:"size"`
	// Encryption is AES-256-GCM-STREAM.
	Encryption  string    `json:"encryption"`
	GeneratedAt time.Time `json:"generated_at"`
	// Package is the encrypted bytes (sent in standard base64), checked
	// against Size and ChecksumSHA256. Open it with NewPackageDecrypter or
	// DecodePackage and the handshake's PackageKey.
	Package []byte `json:"package"`

	// NotModified is true when the portal answered 304 to the known
	// checksum: the package did not change, and only ChecksumSHA256 (and
	// Version when the portal sends it) is set.
	NotModified bool `json:"-"`
}

// PullQuestions fetches the school's current exam package as JSON, its bytes
// decoded (GET /api/v1/sync/pull-questions, lab-server JWT). serverCode
// must be the token's. knownChecksum, when not empty, is the checksum (or
// ETag) of the package the caller holds: an unchanged package then answers
// 304 and the result has NotModified set and no bytes.
//
// The bytes are checked against the announced size and checksum; a
// mismatch gives ErrChecksumMismatch. For large packages and resumable
// downloads use DownloadPackage.
func (s *ExamSyncService) PullQuestions(ctx context.Context, serverCode, knownChecksum string) (*EncryptedPackage, *Response, error) {
	q := url.Values{"serverCode": {serverCode}}
	req, err := s.client.newRequest(ctx, http.MethodGet, examPrefix+"sync/pull-questions", q, nil, credBearer)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("X-Package-Formats", PackageFormats)
	if etag := quoteETag(knownChecksum); etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	out := new(EncryptedPackage)
	resp, err := s.client.do(ctx, req, out, decodeExamError)
	if err != nil {
		return nil, resp, err
	}
	if resp.StatusCode == http.StatusNotModified {
		sum := resp.Header.Get("X-Checksum-SHA256")
		if sum == "" {
			sum = unquoteETag(resp.Header.Get("ETag"))
		}
		if sum == "" {
			sum = unquoteETag(knownChecksum)
		}
		return &EncryptedPackage{ServerCode: serverCode, ChecksumSHA256: sum,
			Version: resp.Header.Get("X-Package-Version"), NotModified: true}, resp, nil
	}
	if int64(len(out.Package)) != out.Size {
		return nil, resp, fmt.Errorf("%w: got %d bytes, the portal announced %d", ErrChecksumMismatch, len(out.Package), out.Size)
	}
	sum := sha256.Sum256(out.Package)
	if got := hex.EncodeToString(sum[:]); !strings.EqualFold(got, out.ChecksumSHA256) {
		return nil, resp, fmt.Errorf("%w: got %s, the portal announced %s", ErrChecksumMismatch, got, out.ChecksumSHA256)
	}
	return out, resp, nil
}

// DownloadOptions are the conditions of a binary package download.
type DownloadOptions struct {
	// Offset is the number of bytes of the package the caller already
	// holds (from an earlier, cut download); the download resumes there
	// with "Range: bytes=<Offset>-". 0 downloads the whole package.
	Offset int64
	// IfRange is the ETag (or bare checksum) of the package the partial
	// copy belongs to, sent as If-Range with a resumed download so that a
	// package that changed meanwhile is not spliced onto the old bytes:
	// the download then fails with ErrPackageChanged. Always set it when
	// Offset > 0.
	IfRange string
	// IfNoneMatch is the ETag (or bare checksum) of a complete package the
	// caller holds; an unchanged package answers 304. Only sent when
	// Offset is 0.
	IfNoneMatch string
}

// PackageDownload describes a binary package download.
type PackageDownload struct {
	// Status is the HTTP status: 200 (whole package), 206 (the rest from
	// Offset), 304 (not modified) or 416 (nothing left: the copy was
	// already complete).
	Status int
	// Offset is the position in the package of the first byte written.
	Offset int64
	// Written is the number of bytes written to the writer, also when the
	// download was cut: resume at Offset+Written.
	Written int64
	// Size is the size of the whole package, when known.
	Size int64
	// ChecksumSHA256 is the SHA-256 (lowercase hex) of the whole
	// encrypted package, and ETag the package's entity tag: keep it for
	// IfRange and IfNoneMatch.
	ChecksumSHA256 string
	ETag           string
	// Version is the SHA-256 of the plaintext package.
	Version string
	// Verified is true when the whole package went through the writer
	// (Status 200) and its SHA-256 matched ChecksumSHA256. A resumed
	// download cannot be verified here: hash the assembled file.
	Verified bool
}

// NotModified reports whether the portal answered 304 to IfNoneMatch.
func (d *PackageDownload) NotModified() bool { return d.Status == http.StatusNotModified }

// Complete reports whether the caller now holds the whole package: the
// bytes before Offset plus those written.
func (d *PackageDownload) Complete() bool {
	return d.Status != http.StatusNotModified && d.Size > 0 && d.Offset+d.Written == d.Size
}

// DownloadPackage streams the school's encrypted package to w (GET
// /api/v1/sync/pull-questions?format=binary, lab-server JWT), resuming
// after opts.Offset bytes when set; opts may be nil.
//
// The result says what was written: on 200, the whole package from offset
// 0, its SHA-256 verified (a mismatch gives ErrChecksumMismatch); on 206,
// the bytes from Offset to the end; on 304, nothing; on 416 with an offset
// equal to the package size, nothing (the copy was complete). A resumed
// download answered with the whole package writes nothing and gives
// ErrPackageChanged: truncate the copy and call again with Offset 0. When
// the transfer is cut, the result (never nil once the portal answered)
// still tells how much was written, and the error says why; call again
// with Offset+Written and the same IfRange.
func (s *ExamSyncService) DownloadPackage(ctx context.Context, serverCode string, w io.Writer, opts *DownloadOptions) (*PackageDownload, *Response, error) {
	q := url.Values{"serverCode": {serverCode}, "format": {"binary"}}
	return s.download(ctx, "package", "sync/pull-questions", q, w, opts, true)
}

// DownloadMedia streams one media file of the school's exams (a
// PackageMedia), encrypted with the school's package key, to w (GET
// /api/v1/sync/media/{sha256}, lab-server JWT): the same results and
// resumption as DownloadPackage, except that the encrypted bytes have no
// announced checksum (Verified stays false). Decrypt them with
// NewPackageDecrypter and check the plaintext's SHA-256 against sha256.
func (s *ExamSyncService) DownloadMedia(ctx context.Context, serverCode, sha256 string, w io.Writer, opts *DownloadOptions) (*PackageDownload, *Response, error) {
	sum, err := segment("media sha256", sha256)
	if err != nil {
		return nil, nil, err
	}
	q := url.Values{"serverCode": {serverCode}}
	return s.download(ctx, "media", "sync/media/"+sum, q, w, opts, false)
}

// DownloadBlob streams the blob b (a PackageBlob of a package of format 3:
// content encrypted once for every school) to w (GET b.URL, resolved
// against the portal's URL, so relative to it or absolute; no credential
// is sent), with the same results and resumption as DownloadPackage. The
// SHA-256 of the bytes must be b.Name: a whole download (200) is checked
// here (ErrChecksumMismatch, Verified), a resumed one cannot be: hash the
// assembled file. Decrypt the bytes with NewPackageDecrypter and b.Key, and
// check the plaintext's SHA-256.
func (s *ExamSyncService) DownloadBlob(ctx context.Context, b *PackageBlob, w io.Writer, opts *DownloadOptions) (*PackageDownload, *Response, error) {
	if b == nil || b.URL == "" {
		return nil, nil, errorf("download blob: no blob URL")
	}
	if len(b.Name) != 64 || strings.Trim(b.Name, "0123456789abcdef") != "" {
		return nil, nil, errorf("download blob: name %q is not a lowercase hex SHA-256", b.Name)
	}
	req, err := s.client.newRequest(ctx, http.MethodGet, b.URL, nil, nil, credNone)
	if err != nil {
		return nil, nil, err
	}
	return s.doDownload(ctx, "blob "+b.Name[:12], req, w, opts, func(http.Header) string { return b.Name })
}

// FetchContent fills the questions and stimuli of the exams of p, a
// package of format 3, from their blobs: it downloads each blob
// (DownloadBlob) and opens it (OpenContentBlob), in order. A package of
// format 1 or 2 carries them already and is left as it is.
func (s *ExamSyncService) FetchContent(ctx context.Context, p *Package) error {
	if p == nil {
		return errorf("fetch content: nil package")
	}
	open := func(b PackageBlob, v any) error {
		var buf bytes.Buffer
		d, _, err := s.DownloadBlob(ctx, &b, &buf, nil)
		if err != nil {
			return err
		}
		if !d.Verified {
			return errorf("fetch content: blob %s: incomplete (%d of %d bytes)", b.Name, d.Written, d.Size)
		}
		return OpenContentBlob(b, buf.Bytes(), v)
	}
	for i := range p.Exams {
		e := &p.Exams[i]
		for _, b := range e.QuestionBlobs {
			var q PackageQuestion
			if err := open(b, &q); err != nil {
				return fmt.Errorf("client: exam %s: question: %w", e.ID, err)
			}
			e.Questions = append(e.Questions, q)
		}
		for _, b := range e.StimulusBlobs {
			var st Stimulus
			if err := open(b, &st); err != nil {
				return fmt.Errorf("client: exam %s: stimulus: %w", e.ID, err)
			}
			e.Stimuli = append(e.Stimuli, st)
		}
	}
	return nil
}

// download runs a resumable binary download of what from path. With
// checksummed, the ETag (or X-Checksum-SHA256) is the SHA-256 of the
// bytes, checked on a whole download.
func (s *ExamSyncService) download(ctx context.Context, what, path string, q url.Values, w io.Writer, opts *DownloadOptions, checksummed bool) (*PackageDownload, *Response, error) {
	req, err := s.client.newRequest(ctx, http.MethodGet, examPrefix+path, q, nil, credBearer)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("X-Package-Formats", PackageFormats)
	var sum func(http.Header) string
	if checksummed {
		sum = announcedChecksum
	}
	return s.doDownload(ctx, what, req, w, opts, sum)
}

// announcedChecksum is the SHA-256 an answer announces for its bytes:
// X-Checksum-SHA256, else the ETag.
func announcedChecksum(h http.Header) string {
	if sum := strings.ToLower(h.Get("X-Checksum-SHA256")); sum != "" {
		return sum
	}
	return unquoteETag(h.Get("ETag"))
}

// doDownload sends req, a resumable binary download of what, and streams
// its bytes to w. sum, when not nil, gives from the answer's headers the
// SHA-256 the whole bytes must have, checked on a whole download.
func (s *ExamSyncService) doDownload(ctx context.Context, what string, req *http.Request, w io.Writer, opts *DownloadOptions, sum func(http.Header) string) (*PackageDownload, *Response, error) {
	var o DownloadOptions
	if opts != nil {
		o = *opts
	}
	if o.Offset < 0 {
		return nil, nil, errorf("download %s: negative offset %d", what, o.Offset)
	}
	if w == nil {
		return nil, nil, errorf("download %s: nil writer", what)
	}
	req.Header.Set("Accept", "application/octet-stream")
	if o.Offset > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(o.Offset, 10)+"-")
		if etag := quoteETag(o.IfRange); etag != "" {
			req.Header.Set("If-Range", etag)
		}
	} else if etag := quoteETag(o.IfNoneMatch); etag != "" {
		req.Header.Set("If-None-Match", etag)
	}

	hr, err := s.client.send(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	defer hr.Body.Close()
	resp := newResponse(hr)
	d := &PackageDownload{
		Status:  hr.StatusCode,
		ETag:    hr.Header.Get("ETag"),
		Version: hr.Header.Get("X-Package-Version"),
	}
	if sum != nil {
		d.ChecksumSHA256 = sum(hr.Header)
	}

	switch hr.StatusCode {
	case http.StatusNotModified:
		d.Offset = o.Offset
		return d, resp, nil

	case http.StatusOK:
		d.Size = hr.ContentLength
		if o.Offset > 0 {
			io.Copy(io.Discard, io.LimitReader(hr.Body, 64<<10))
			return d, resp, ErrPackageChanged
		}
		h := sha256.New()
		n, err := io.Copy(io.MultiWriter(w, h), hr.Body)
		d.Written = n
		if err != nil {
			return d, resp, fmt.Errorf("client: download %s: cut after %d bytes: %w", what, n, err)
		}
		if d.Size < 0 {
			d.Size = n
		} else if n != d.Size {
			return d, resp, fmt.Errorf("client: download %s: cut after %d of %d bytes: %w", what, n, d.Size, io.ErrUnexpectedEOF)
		}
		if d.ChecksumSHA256 != "" {
			if got := hex.EncodeToString(h.Sum(nil)); got != d.ChecksumSHA256 {
				return d, resp, fmt.Errorf("%w: got %s, the portal announced %s", ErrChecksumMismatch, got, d.ChecksumSHA256)
			}
			d.Verified = true
		}
		return d, resp, nil

	case http.StatusPartialContent:
		first, last, size, ok := parseContentRange(hr.Header.Get("Content-Range"))
		if !ok || first != o.Offset || last < first {
			return d, resp, errorf("download %s: asked for bytes from %d, got Content-Range %q", what, o.Offset, hr.Header.Get("Content-Range"))
		}
		d.Offset, d.Size = first, size
		want := last - first + 1
		n, err := io.Copy(w, io.LimitReader(hr.Body, want))
		d.Written = n
		if err != nil {
			return d, resp, fmt.Errorf("client: download %s: cut after %d bytes: %w", what, n, err)
		}
		if n != want {
			return d, resp, fmt.Errorf("client: download %s: cut after %d of %d bytes: %w", what, n, want, io.ErrUnexpectedEOF)
		}
		return d, resp, nil

	case http.StatusRequestedRangeNotSatisfiable:
		// "bytes */<size>": with If-Range matching, an offset equal to the
		// size means the copy was already complete.
		if _, _, size, ok := parseContentRange(hr.Header.Get("Content-Range")); ok && size == o.Offset && size > 0 {
			d.Offset, d.Size = o.Offset, size
			return d, resp, nil
		}
	}
	return d, resp, newError(hr, decodeExamError)
}

// parseContentRange reads "bytes <first>-<last>/<size>" or "bytes */<size>"
// (first and last are then -1). A size of "*" gives -1.
func parseContentRange(v string) (first, last, size int64, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(v), "bytes ")
	if !found {
		return 0, 0, 0, false
	}
	rng, total, found := strings.Cut(rest, "/")
	if !found {
		return 0, 0, 0, false
	}
	size = -1
	if total != "*" {
		n, err := strconv.ParseInt(total, 10, 64)
		if err != nil || n < 0 {
			return 0, 0, 0, false
		}
		size = n
	}
	if rng == "*" {
		return -1, -1, size, size >= 0
	}
	a, b, found := strings.Cut(rng, "-")
	if !found {
		return 0, 0, 0, false
	}
	first, err1 := strconv.ParseInt(a, 10, 64)
	last, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil || first < 0 || last < first || (size >= 0 && last >= size) {
		return 0, 0, 0, false
	}
	return first, last, size, true
}

// Answer is one student's answer to one question, as a push sends it
// (labwire.Answer).
type Answer = labwire.Answer

// PushAnswersRequest is a batch of answers to push. The client computes
// checksum_sha256 and total_records.
type PushAnswersRequest struct {
	ServerCode string
	NPSN       string
	// Answers are sent in this order, at most 50,000; their times in UTC.
	Answers []Answer
	// IdempotencyKey, when set, is sent as Idempotency-Key (1..200
	// printable ASCII characters): a retry with the same key is answered
	// with the first receipt. Without it, the checksum plays that role.
	IdempotencyKey string
}

// PushReceipt is the answer of a push.
type PushReceipt struct {
	// Message states the count of records received.
	Message string `json:"message"`
	SyncID  string `json:"sync_id"`
	// Duplicate is true when an earlier push already carried this batch
	// (same key, or same checksum from the same server): nothing was
	// stored again and SyncID is the first push's.
	Duplicate  bool      `json:"duplicate"`
	ReceivedAt time.Time `json:"received_at"`
	// RecordCount is the number of records, when the portal sends it.
	RecordCount int `json:"record_count,omitempty"`

	// ChecksumSHA256 is the checksum the client computed and sent.
	ChecksumSHA256 string `json:"-"`
}

// PushAnswers pushes a batch of answers (POST /api/v1/sync/push-answers,
// lab-server JWT). The client marshals the answers once, sends exactly
// those bytes as the "answers" value with their SHA-256 as checksum_sha256,
// and sets total_records to their number. Marshalling is deterministic, so
// a retry of the same batch sends the same bytes and checksum.
//
// Refusals: 422 CodeChecksumMismatch, CodeRecordCountMismatch,
// CodeUnknownExam, CodeUnknownQuestion; 400 CodeValidationFailed; 409
// CodeIdempotencyKeyReused.
func (s *ExamSyncService) PushAnswers(ctx context.Context, req *PushAnswersRequest) (*PushReceipt, *Response, error) {
	if req == nil {
		return nil, nil, errorf("push answers: nil request")
	}
	body, sum, err := pushBody(req)
	if err != nil {
		return nil, nil, err
	}
	hr, err := s.client.newRequest(ctx, http.MethodPost, examPrefix+"sync/push-answers", nil, json.RawMessage(body), credBearer)
	if err != nil {
		return nil, nil, err
	}
	if req.IdempotencyKey != "" {
		hr.Header.Set("Idempotency-Key", req.IdempotencyKey)
	}
	out := new(PushReceipt)
	resp, err := s.client.do(ctx, hr, out, decodeExamError)
	if err != nil {
		return nil, resp, err
	}
	out.ChecksumSHA256 = sum
	return out, resp, nil
}

// pushBody builds the push body and returns it with the checksum of its
// "answers" value, which it contains byte for byte.
func pushBody(req *PushAnswersRequest) (body []byte, checksum string, err error) {
	answers := make([]Answer, len(req.Answers))
	for i, a := range req.Answers {
		a.AnsweredAt = a.AnsweredAt.UTC()
		answers[i] = a
	}
	raw, err := json.Marshal(answers)
	if err != nil {
		return nil, "", errorf("push answers: encode answers: %w", err)
	}
	sum := sha256.Sum256(raw)
	checksum = hex.EncodeToString(sum[:])
	head, err := json.Marshal(struct {
		ServerCode   string `json:"server_code"`
		NPSN         string `json:"npsn"`
		Checksum     string `json:"checksum_sha256"`
		TotalRecords int    `json:"total_records"`
	}{req.ServerCode, req.NPSN, checksum, len(answers)})
	if err != nil {
		return nil, "", errorf("push answers: %w", err)
	}
	// head is {...}: reopen it and append the answers' exact bytes.
	body = make([]byte, 0, len(head)+len(raw)+12)
	body = append(body, head[:len(head)-1]...)
	body = append(body, `,"answers":`...)
	body = append(body, raw...)
	body = append(body, '}')
	return body, checksum, nil
}

// Monitor statuses reported by heartbeats (offline is derived by the
// portal for a server silent for three intervals).
const (
	MonitorOnline  = "online"
	MonitorSyncing = "syncing"
	MonitorOffline = "offline"
)

// HeartbeatRequest is a lab server's status ping.
type HeartbeatRequest struct {
	ServerCode        string `json:"server_code"`
	ConnectedStudents int    `json:"connected_students"`
	ActiveExamsCount  int    `json:"active_exams_count"`
	// PendingAnswers is the number of answers the server holds that the
	// portal has not acknowledged yet (an extension of the portal).
	PendingAnswers int    `json:"pending_answers,omitempty"`
	ClientVersion  string `json:"client_version"`
	// Status is MonitorOnline or MonitorSyncing.
	Status string `json:"status"`
}

// HeartbeatResponse is the answer to a heartbeat.
type HeartbeatResponse struct {
	ServerTime time.Time `json:"server_time"`
	// IntervalSeconds is the interval the portal wants between heartbeats.
	IntervalSeconds int `json:"interval_seconds"`
}

// Interval returns IntervalSeconds as a duration.
func (h *HeartbeatResponse) Interval() time.Duration {
	return time.Duration(h.IntervalSeconds) * time.Second
}

// Heartbeat sends a status ping (POST /api/v1/sync/heartbeat, lab-server
// JWT).
func (s *ExamSyncService) Heartbeat(ctx context.Context, req *HeartbeatRequest) (*HeartbeatResponse, *Response, error) {
	if req == nil {
		return nil, nil, errorf("heartbeat: nil request")
	}
	out := new(HeartbeatResponse)
	resp, err := s.client.exam(ctx, http.MethodPost, "sync/heartbeat", nil, req, out, credBearer)
	if err != nil {
		return nil, resp, err
	}
	return out, resp, nil
}
