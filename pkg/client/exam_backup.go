package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
)

// CodeBackupUnsupported answers a backup asked of a portal whose data is in
// PostgreSQL (409): back that up with pg_dump.
const CodeBackupUnsupported = "BACKUP_UNSUPPORTED"

// BackupInfo describes a backup copied by Backup.
type BackupInfo struct {
	Size   int64  // bytes written
	SHA256 string // hex SHA-256 of those bytes, as the portal announced it
}

// Backup copies a consistent snapshot of the portal's embedded (bbolt)
// store to w (GET /api/v1/admin/backup; a SUPER_ADMIN's token): the whole
// file as of one moment, taken while the portal runs. The bytes are checked
// against the size the portal announces first and the SHA-256 it sends
// after them; a cut or corrupted transfer is an error, and w then holds an
// incomplete copy. A portal on PostgreSQL answers 409 with
// CodeBackupUnsupported.
func (s *ExamAdminService) Backup(ctx context.Context, w io.Writer) (*BackupInfo, *Response, error) {
	if w == nil {
		return nil, nil, errorf("backup: nil writer")
	}
	req, err := s.client.newRequest(ctx, http.MethodGet, examPrefix+"admin/backup", nil, nil, credBearer)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", "application/octet-stream")
	h := sha256.New()
	cw := &countingWriter{w: io.MultiWriter(w, h)}
	resp, err := s.client.do(ctx, req, cw, decodeExamError)
	if err != nil {
		return nil, resp, err
	}
	info := &BackupInfo{Size: cw.n, SHA256: hex.EncodeToString(h.Sum(nil))}
	want, err := strconv.ParseInt(resp.Header.Get("X-Backup-Size"), 10, 64)
	if err != nil {
		return nil, resp, errorf("backup: no valid X-Backup-Size header: %v", err)
	}
	if cw.n != want {
		return nil, resp, errorf("backup: received %d bytes, the portal announced %d", cw.n, want)
	}
	switch sum := resp.Trailer.Get("X-Backup-Sha256"); sum {
	case "":
		return nil, resp, errorf("backup: the portal sent no X-Backup-Sha256: the backup was cut short (see its log)")
	case info.SHA256:
	default:
		return nil, resp, errorf("backup: SHA-256 %s of the bytes received differs from the portal's %s", info.SHA256, sum)
	}
	return info, resp, nil
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
