package httpapi_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/seedhq/portal/internal/blobgc"
	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi"
	"github.com/seedhq/portal/internal/httpapi/httpapitest"
	"github.com/seedhq/portal/internal/identity"
	"github.com/seedhq/portal/pkg/client"
)

// TestBlobGCRoute checks POST /api/v1/admin/blobs/gc: SUPER_ADMIN only; a
// run's report (a dry run changing nothing); 409 while another collection
// holds the lock, and on a portal without a collector.
func TestBlobGCRoute(t *testing.T) {
	ctx := t.Context()
	var st exam.Store
	var c *blobgc.Collector
	h := httpapitest.New(t, httpapitest.OpenBolt,
		httpapitest.WithStoreWrapper(func(s exam.Store) exam.Store { st = s; return s }),
		httpapitest.WithOptions(func(o *httpapi.Options) {
			o.BlobGC = func(ctx context.Context, o blobgc.Options) (blobgc.Report, error) { return c.Run(ctx, o) }
		}))
	blobs := st.(interface{ Blobs() blobstore.Store }).Blobs()
	marks := st.(blobgc.MarkStore)
	var err error
	c, err = blobgc.New(blobgc.Config{Blobs: blobs, Marks: marks,
		Sources: []blobgc.Source{{Name: "exam", Prefix: exam.ExamBlobKeyPrefix, Refs: h.Exam}}})
	if err != nil {
		t.Fatal(err)
	}
	orphan := exam.ExamBlobKey("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
	if err := blobs.Put(ctx, orphan, bytes.NewReader([]byte("sealed")), 6); err != nil {
		t.Fatal(err)
	}

	h.Req("POST", "/api/v1/admin/blobs/gc", nil).ExpectError(401, "UNAUTHORIZED")
	h.Operator()
	if _, err := h.Identity.CreateOperator(ctx, identity.OperatorInput{Username: "ops", Name: "Ops", Password: "ops-Password-1", Role: identity.RoleOperator}); err != nil {
		t.Fatal(err)
	}
	cl, err := client.NewClient(h.Server.URL)
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := cl.Exam.Auth.Login(ctx, "ops", "ops-Password-1")
	if err != nil {
		t.Fatal(err)
	}
	h.Req("POST", "/api/v1/admin/blobs/gc", nil, httpapitest.Bearer(res.Token)...).ExpectError(403, "FORBIDDEN")
	h.Op("POST", "/api/v1/admin/blobs/gc?dry_run=perhaps", nil).ExpectError(400, "INVALID_QUERY")

	var rep client.BlobGCReport
	var body struct {
		Data client.BlobGCReport `json:"data"`
	}
	h.Op("POST", "/api/v1/admin/blobs/gc?dry_run=true", nil).Expect(200).Decode(&body)
	if rep = body.Data; !rep.DryRun || rep.Listed != 1 || rep.Marked != 1 {
		t.Fatalf("dry run: %+v", rep)
	}
	if m, _ := marks.BlobGCMarks(ctx); len(m) != 0 {
		t.Fatalf("a dry run wrote marks: %v", m)
	}
	h.Op("POST", "/api/v1/admin/blobs/gc", nil).Expect(200).Decode(&body)
	if rep = body.Data; rep.DryRun || rep.Marked != 1 || len(rep.Deleted) != 0 {
		t.Fatalf("run: %+v", rep)
	}

	unlock, ok, err := marks.TryLockBlobGC(ctx)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	h.Op("POST", "/api/v1/admin/blobs/gc", nil).ExpectError(409, httpapi.CodeBlobGCRunning)
	unlock()

	bare := httpapitest.New(t, httpapitest.OpenBolt)
	bare.Op("POST", "/api/v1/admin/blobs/gc", nil).ExpectError(409, httpapi.CodeBlobGCUnavailable)
}
