package client

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// Codes of the garbage collection of blobs (CollectBlobs).
const (
	// CodeBlobGCUnavailable answers a portal that runs no collector.
	CodeBlobGCUnavailable = "BLOB_GC_UNAVAILABLE"
	// CodeBlobGCRunning answers while another collection runs.
	CodeBlobGCRunning = "BLOB_GC_RUNNING"
)

// BlobGCReport is what a garbage collection of blobs found and did.
type BlobGCReport struct {
	// DryRun is true when nothing was changed: Deleted are the blobs that
	// would be deleted.
	DryRun bool `json:"dry_run"`
	// Listed counts the blobs under the collected prefixes.
	Listed int `json:"listed"`
	// Referenced counts those that something refers to.
	Referenced int `json:"referenced"`
	// Marked counts the blobs found unreferenced for the first time.
	Marked int `json:"marked"`
	// Unmarked counts the marks cleared (blobs referenced again or gone).
	Unmarked int `json:"unmarked"`
	// Waiting counts the unreferenced blobs kept until their retention ends.
	Waiting int `json:"waiting"`
	// Deleted are the blobs deleted.
	Deleted []BlobGCDeletion `json:"deleted"`
	// BytesFreed is the sum of their sizes.
	BytesFreed int64 `json:"bytes_freed"`
	// Missing are referenced blobs the blob store does not have.
	Missing []BlobGCMissing `json:"missing"`
	// Errors counts the failures that did not end the collection.
	Errors int `json:"errors"`
}

// BlobGCDeletion is a blob a collection deleted (or would delete).
type BlobGCDeletion struct {
	Key               string    `json:"key"`
	Size              int64     `json:"size"`
	UnreferencedSince time.Time `json:"unreferenced_since"`
}

// BlobGCMissing is a referenced blob missing from the blob store, with what
// refers to it (for exam blobs, the schools' NPSN).
type BlobGCMissing struct {
	Key          string   `json:"key"`
	ReferredToBy []string `json:"referred_to_by"`
}

// CollectBlobs runs a garbage collection of blobs now (POST
// /api/v1/admin/blobs/gc; a SUPER_ADMIN's token). With dryRun it changes
// nothing and reports what it would delete. Another collection running
// answers 409 with CodeBlobGCRunning.
func (s *ExamAdminService) CollectBlobs(ctx context.Context, dryRun bool) (*BlobGCReport, *Response, error) {
	q := url.Values{}
	if dryRun {
		q.Set("dry_run", "true")
	}
	return examData[*BlobGCReport](ctx, s.client, http.MethodPost, "admin/blobs/gc", q, nil)
}
