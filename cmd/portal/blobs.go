package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/seedhq/portal/internal/blobgc"
	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/blobstore/s3"
	"github.com/seedhq/portal/internal/config"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/ordering"
)

// blobPingTimeout bounds the start-up check of object storage.
const blobPingTimeout = 30 * time.Second

// blobStoreURL reads and checks blob-store: empty (the portal's own store)
// or an s3:// URL (docs/object-storage.md).
func blobStoreURL(r *config.Reader) string {
	s := r.String("blob-store")
	if s == "" {
		return ""
	}
	if _, err := s3.ParseURL(s); err != nil {
		r.Fail("blob-store", "%v (want empty for the portal's own store, or s3://BUCKET[/PREFIX][?OPTION=VALUE&...])", err)
		return ""
	}
	return s
}

// blobsOf is a store that keeps blobs itself (bbolt, PostgreSQL).
type blobsOf interface {
	Blobs() blobstore.Store
}

// openBlobStore returns the blob store of o.BlobStore: object storage,
// checked once with Ping (a failure is a start-up error naming the cause),
// or, when empty, the blobs kept in st itself.
func openBlobStore(ctx context.Context, o serveOptions, st store, logger *slog.Logger) (blobstore.Store, error) {
	if o.BlobStore == "" {
		own, ok := st.(blobsOf)
		if !ok {
			return nil, fmt.Errorf("this store keeps no blobs: configure blob-store")
		}
		logger.Info("blob store opened", "kind", "store")
		return own.Blobs(), nil
	}
	cfg, err := s3.ParseURL(o.BlobStore)
	if err != nil {
		return nil, fmt.Errorf("blob store: %w", err)
	}
	bs, err := s3.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("blob store: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, blobPingTimeout)
	defer cancel()
	if err := bs.Ping(pctx); err != nil {
		// Not wrapped (%v): the command line's error report would take the
		// network error inside for one of a portal it calls.
		return nil, fmt.Errorf("blob store s3://%s/%s cannot be used: %v", cfg.Bucket, cfg.Prefix, err)
	}
	logger.Info("blob store opened", "kind", "s3", "bucket", cfg.Bucket, "prefix", cfg.Prefix, "endpoint", cfg.Endpoint)
	if own, ok := st.(blobsOf); ok {
		if err := moveBlobs(ctx, own.Blobs(), bs, logger); err != nil {
			return nil, fmt.Errorf("move the blobs kept in the portal's store to s3://%s/%s: %w", cfg.Bucket, cfg.Prefix, err)
		}
	}
	return bs, nil
}

// blobGCOptions reads and checks blob-retention and blob-gc-interval.
func blobGCOptionsFrom(r *config.Reader) (retention, interval time.Duration) {
	retention = r.Duration("blob-retention", 0, 100*365*24*time.Hour)
	if retention != 0 && retention < blobgc.MinRetention {
		r.Fail("blob-retention", "must be at least %s: lab servers fetch a package's blobs hours after they pull it, got %s",
			blobgc.MinRetention, retention)
	}
	interval = r.Duration("blob-gc-interval", 0, 30*24*time.Hour)
	if interval != 0 && interval < time.Minute {
		r.Fail("blob-gc-interval", "must be 0 (no periodic collection) or at least 1m, got %s", interval)
	}
	return retention, interval
}

// newBlobCollector returns the garbage collection of blobs: the exam
// blobs of the packages (exam.ExamBlobKeyPrefix), the payment receipts and
// the QR logos.
func newBlobCollector(st store, blobs blobstore.Store, svc *exam.Service, linkSvc *links.Service, ord *ordering.Service,
	retention time.Duration, logger *slog.Logger) (*blobgc.Collector, error) {
	c, err := blobgc.New(blobgc.Config{Blobs: blobs, Marks: st, Retention: retention, Log: logger, Sources: []blobgc.Source{
		{Name: "exam", Prefix: exam.ExamBlobKeyPrefix, Refs: svc},
		{Name: "receipts", Prefix: ordering.ReceiptKeyPrefix, Refs: ord},
		{Name: "logos", Prefix: links.LogoKeyPrefix, Refs: linkSvc},
	}})
	if err != nil {
		return nil, fmt.Errorf("blob garbage collection: %w", err)
	}
	return c, nil
}

// moveBlobs moves every blob of from into to: the blobs an instance kept in
// its own store (receipts, logos, exam blobs) before blob-store named
// object storage. Each is put when to lacks it, checked there, then deleted
// from from, so that a start-up that stops half-way moves the rest next
// time and no blob is ever in neither store.
func moveBlobs(ctx context.Context, from, to blobstore.Store, logger *slog.Logger) error {
	var moved, bytes int64
	for info, err := range from.List(ctx, "") {
		if err != nil {
			return err
		}
		got, err := to.Stat(ctx, info.Key)
		if errors.Is(err, blobstore.ErrNotFound) {
			err = copyBlob(ctx, from, to, info)
			if err == nil {
				got, err = to.Stat(ctx, info.Key)
			}
		}
		if err != nil {
			return fmt.Errorf("blob %s: %w", info.Key, err)
		}
		if got.Size != info.Size {
			return fmt.Errorf("blob %s: %d bytes in object storage, %d in the portal's store", info.Key, got.Size, info.Size)
		}
		if err := from.Delete(ctx, info.Key); err != nil {
			return fmt.Errorf("blob %s: %w", info.Key, err)
		}
		moved++
		bytes += info.Size
	}
	if moved > 0 {
		logger.Info("blobs moved from the portal's store to object storage", "blobs", moved, "bytes", bytes)
	}
	return nil
}

// copyBlob puts the blob info describes of from into to.
func copyBlob(ctx context.Context, from, to blobstore.Store, info blobstore.Info) error {
	rc, _, err := from.Open(ctx, info.Key)
	if err != nil {
		return err
	}
	defer rc.Close()
	return to.Put(ctx, info.Key, rc, info.Size)
}
