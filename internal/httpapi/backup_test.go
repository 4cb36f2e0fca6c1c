package httpapi_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/httpapi"
	"github.com/seedhq/portal/internal/httpapi/httpapitest"
	"github.com/seedhq/portal/internal/identity"
	"github.com/seedhq/portal/pkg/client"
)

func withBackup(b httpapi.Backup) httpapitest.Option {
	return httpapitest.WithOptions(func(o *httpapi.Options) { o.Backup = b })
}

// TestBackup checks GET /api/v1/admin/backup: SUPER_ADMIN only, the size
// first and the SHA-256 as a trailer, which pkg/client checks; a stream cut
// short has no trailer and the client says so; without a backup (a
// PostgreSQL portal) 409 BACKUP_UNSUPPORTED.
func TestBackup(t *testing.T) {
	snapshot := bytes.Repeat([]byte("bbolt page "), 10_000)
	cut := false
	h := httpapitest.New(t, httpapitest.OpenBolt, withBackup(func(_ context.Context, start func(int64), w io.Writer) error {
		start(int64(len(snapshot)))
		if cut {
			w.Write(snapshot[:100])
			return errors.New("disk read error")
		}
		_, err := w.Write(snapshot)
		return err
	}))
	ctx := t.Context()

	h.Req("GET", "/api/v1/admin/backup", nil).ExpectError(401, "UNAUTHORIZED")

	// An OPERATOR may not: the copy holds every secret.
	h.Operator()
	if _, err := h.Identity.CreateOperator(ctx, identity.OperatorInput{Username: "ops", Name: "Ops", Password: "ops-Password-1", Role: identity.RoleOperator}); err != nil {
		t.Fatal(err)
	}
	c, err := client.NewClient(h.Server.URL)
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := c.Exam.Auth.Login(ctx, "ops", "ops-Password-1")
	if err != nil {
		t.Fatal(err)
	}
	h.Req("GET", "/api/v1/admin/backup", nil, httpapitest.Bearer(res.Token)...).ExpectError(403, "FORBIDDEN")

	r := h.Op("GET", "/api/v1/admin/backup", nil).Expect(200)
	if !bytes.Equal(r.Body, snapshot) || r.Header.Get("X-Backup-Size") != "110000" ||
		!strings.HasPrefix(r.Header.Get("Content-Disposition"), `attachment; filename="portal-`) {
		t.Errorf("backup: %d bytes, headers %v", len(r.Body), r.Header)
	}

	c.SetToken(h.Operator())
	var buf bytes.Buffer
	info, _, err := c.Exam.Admin.Backup(ctx, &buf)
	sum := sha256.Sum256(snapshot)
	if err != nil || info.Size != int64(len(snapshot)) || info.SHA256 != hex.EncodeToString(sum[:]) || !bytes.Equal(buf.Bytes(), snapshot) {
		t.Fatalf("client backup: %+v, %v", info, err)
	}

	cut = true
	buf.Reset()
	if _, _, err := c.Exam.Admin.Backup(ctx, &buf); err == nil || !strings.Contains(err.Error(), "received 100 bytes") {
		t.Errorf("cut backup: %v, want an error naming the short count", err)
	}

	pg := httpapitest.New(t, httpapitest.OpenBolt)
	pg.Op("GET", "/api/v1/admin/backup", nil).ExpectError(409, httpapi.CodeBackupUnsupported)
}
