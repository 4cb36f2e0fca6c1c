// Package blobgc is the garbage collection of the blob store: it deletes
// the blobs nothing refers to any more, once they have been unreferenced for
// the whole retention period, so that a lab server still fetching the blobs
// of a package it pulled before the package changed finds them.
//
// A run (Collector.Run), under a lock that one collector at a time holds
// (MarkStore.TryLockBlobGC; on PostgreSQL an advisory lock shared by every
// portal instance):
//
//  1. lists the blob store under each source's prefix (Source.Prefix);
//  2. asks each source which keys under its prefix it refers to
//     (Referrer.ReferencedBlobs);
//  3. marks each listed blob that is not referred to and has no mark with
//     the run's time, clears the mark of each referred-to blob, and of each
//     marked blob that is no longer listed;
//  4. deletes each blob marked for at least the retention period whose
//     LastModified is also at least the retention period old (a blob just
//     uploaded for a package not saved yet is never taken);
//  5. reports each referred-to blob missing from the store (a blob deleted
//     by hand, or in the very run in which an edit brought it back) and asks
//     its source to store it again (Repairer).
//
// Nothing is changed before the listing and the references are read whole:
// a blob store or database that fails on the way ends the run with an error
// and no mark or blob changed. docs/object-storage.md, "Retention and
// garbage collection", gives the reasons.
package blobgc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/seedhq/portal/internal/blobstore"
)

// Retention periods and the interval of the periodic collection.
const (
	// DefaultRetention is how long a blob stays after nothing refers to it
	// any more (the setting blob-retention).
	DefaultRetention = 168 * time.Hour
	// MinRetention is the shortest retention accepted: a lab server may
	// fetch a package's blobs hours after it pulled the package.
	MinRetention = 24 * time.Hour
	// DefaultInterval is how often the portal collects (blob-gc-interval).
	DefaultInterval = time.Hour
)

// ErrRetentionTooShort is returned by New for a retention under MinRetention.
var ErrRetentionTooShort = fmt.Errorf("blob retention must be at least %s", MinRetention)

// Referrer is a domain that refers to blobs under one prefix.
type Referrer interface {
	// ReferencedBlobs returns every key (with its prefix) the domain refers
	// to now. Keys outside the source's prefix are ignored.
	ReferencedBlobs(ctx context.Context) ([]string, error)
}

// Repairer is a Referrer that can tell who refers to blobs and store again
// the ones that are missing.
type Repairer interface {
	Referrer
	// BlobOwners returns, for each of keys, what refers to it (school
	// numbers, order ids), for the log.
	BlobOwners(ctx context.Context, keys []string) (map[string][]string, error)
	// RepairBlobs stores again the missing blobs keys, which it refers to.
	RepairBlobs(ctx context.Context, keys []string) error
}

// MarkStore keeps the collection's bookkeeping and its lock. The portal's
// own store implements it (bbolt and PostgreSQL).
type MarkStore interface {
	// BlobGCMarks returns every mark: a blob's key and the time since
	// which collections have found it unreferenced.
	BlobGCMarks(ctx context.Context) (map[string]time.Time, error)
	// UpdateBlobGCMarks sets the marks of set (key -> since) and removes
	// those of clear, in one transaction.
	UpdateBlobGCMarks(ctx context.Context, set map[string]time.Time, clear []string) error
	// TryLockBlobGC takes the collection's lock unless another collector
	// holds it (ok false). unlock releases it.
	TryLockBlobGC(ctx context.Context) (unlock func(), ok bool, err error)
}

// Source is a domain's prefix of blob keys and what it refers to there.
type Source struct {
	// Name names the source in logs ("exam", "receipts", "logos").
	Name string
	// Prefix is the prefix of the source's keys, ending in "/".
	Prefix string
	// Refs answers which of the keys it refers to.
	Refs Referrer
}

// Config configures a Collector.
type Config struct {
	// Blobs is the blob store collected.
	Blobs blobstore.Store
	// Marks keeps the marks and the lock.
	Marks MarkStore
	// Sources are the prefixes collected; blobs under no source's prefix
	// are never touched.
	Sources []Source
	// Retention is how long a blob stays unreferenced before it is deleted
	// (DefaultRetention when 0; at least MinRetention).
	Retention time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Log receives a summary per run and the errors (discarded when nil).
	Log *slog.Logger
}

// Collector runs collections. It is safe for concurrent use: runs take the
// store's lock.
type Collector struct {
	cfg Config
}

// New returns a Collector; an error when the configuration is incomplete or
// the retention shorter than MinRetention.
func New(cfg Config) (*Collector, error) {
	if cfg.Blobs == nil || cfg.Marks == nil {
		return nil, errors.New("blobgc: a blob store and a mark store are needed")
	}
	if cfg.Retention == 0 {
		cfg.Retention = DefaultRetention
	}
	if cfg.Retention < MinRetention {
		return nil, fmt.Errorf("blobgc: %w (it is %s)", ErrRetentionTooShort, cfg.Retention)
	}
	for _, s := range cfg.Sources {
		if s.Refs == nil || !strings.HasSuffix(s.Prefix, "/") {
			return nil, fmt.Errorf("blobgc: source %q needs a referrer and a prefix ending in /", s.Name)
		}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Collector{cfg: cfg}, nil
}

// Retention returns the retention period.
func (c *Collector) Retention() time.Duration { return c.cfg.Retention }

// Options are a run's options.
type Options struct {
	// DryRun reads and reports but changes nothing: no mark is written, no
	// blob deleted, no missing blob stored again.
	DryRun bool
}

// Deletion is a blob a run deleted, or would delete in a dry run.
type Deletion struct {
	Key string
	// Size is the blob's size in bytes.
	Size int64
	// Since is when collections first found it unreferenced.
	Since time.Time
}

// Missing is a blob that something refers to but the store does not have.
type Missing struct {
	Key string
	// Owners are what refers to it, as the source names them (for exam
	// blobs the schools' numbers); empty when the source cannot tell.
	Owners []string
}

// Report is what a run found and did.
type Report struct {
	// Skipped is true when another collector held the lock: nothing was done.
	Skipped bool
	// DryRun is the option the run had.
	DryRun bool
	// Listed counts the blobs under the sources' prefixes.
	Listed int
	// Referenced counts the listed blobs that something refers to.
	Referenced int
	// Marked counts the blobs found unreferenced for the first time (marked
	// by this run, or to be in a dry run).
	Marked int
	// Unmarked counts the marks cleared: blobs referenced again or gone.
	Unmarked int
	// Waiting counts the unreferenced blobs kept because their retention has
	// not passed yet.
	Waiting int
	// Deleted are the blobs deleted (in a dry run: that would be).
	Deleted []Deletion
	// BytesFreed is the sum of their sizes.
	BytesFreed int64
	// Missing are the referenced blobs the store does not have.
	Missing []Missing
	// Errors counts the failures that did not end the run (a delete or a
	// repair that failed).
	Errors int
}

// Run runs one collection and logs its summary. A failure that ends the run
// (the blob store or the database unreachable while reading) returns the
// error, logged, with nothing changed; failures after that (a delete, a
// repair) are logged and counted in Report.Errors, and the run goes on.
func (c *Collector) Run(ctx context.Context, opts Options) (Report, error) {
	rep := Report{DryRun: opts.DryRun}
	start := time.Now()
	err := c.run(ctx, opts, &rep)
	attrs := []any{"dry_run", opts.DryRun, "listed", rep.Listed, "referenced", rep.Referenced, "marked", rep.Marked,
		"unmarked", rep.Unmarked, "waiting", rep.Waiting, "deleted", len(rep.Deleted), "bytes_freed", rep.BytesFreed,
		"missing", len(rep.Missing), "errors", rep.Errors, "duration", time.Since(start).Round(time.Millisecond)}
	switch {
	case err != nil && ctx.Err() != nil:
		c.cfg.Log.InfoContext(ctx, "blob gc interrupted: nothing more changed", append(attrs, "err", err)...)
	case err != nil:
		c.cfg.Log.ErrorContext(ctx, "blob gc failed: nothing more changed", append(attrs, "err", err)...)
	case rep.Skipped:
		c.cfg.Log.InfoContext(ctx, "blob gc skipped: another instance is collecting")
	default:
		c.cfg.Log.InfoContext(ctx, "blob gc done", attrs...)
	}
	return rep, err
}

func (c *Collector) run(ctx context.Context, opts Options, rep *Report) error {
	unlock, ok, err := c.cfg.Marks.TryLockBlobGC(ctx)
	if err != nil {
		return fmt.Errorf("blob gc: lock: %w", err)
	}
	if !ok {
		rep.Skipped = true
		return nil
	}
	defer unlock()
	now := c.cfg.Now().UTC()

	// Read everything first: a failure here changes nothing.
	listed := map[string]blobstore.Info{}
	for _, src := range c.cfg.Sources {
		for info, err := range c.cfg.Blobs.List(ctx, src.Prefix) {
			if err != nil {
				return fmt.Errorf("blob gc: list %s: %w", src.Prefix, err)
			}
			listed[info.Key] = info
		}
	}
	refs, err := c.references(ctx)
	if err != nil {
		return err
	}
	marks, err := c.cfg.Marks.BlobGCMarks(ctx)
	if err != nil {
		return fmt.Errorf("blob gc: read marks: %w", err)
	}

	set := map[string]time.Time{}
	var clear []string
	var doomed []Deletion
	for _, key := range slices.Sorted(maps.Keys(listed)) {
		info := listed[key]
		since, marked := marks[key]
		switch {
		case refs[key] != nil:
			rep.Referenced++
			if marked {
				clear = append(clear, key)
			}
		case !marked:
			set[key] = now
		case now.Sub(since) >= c.cfg.Retention && now.Sub(info.LastModified) >= c.cfg.Retention:
			doomed = append(doomed, Deletion{Key: key, Size: info.Size, Since: since})
		default:
			rep.Waiting++
		}
	}
	rep.Listed = len(listed)
	rep.Marked = len(set)
	// Marks of blobs gone from the store (deleted by hand, or by a run
	// whose clearing failed) go too.
	for key := range marks {
		if _, ok := listed[key]; !ok && c.source(key) != nil {
			clear = append(clear, key)
		}
	}
	rep.Unmarked = len(clear)

	// Referenced but not listed: missing, unless it was stored since the
	// listing (a new package's blob).
	var missing []string
	for key := range refs {
		if _, ok := listed[key]; ok {
			continue
		}
		switch _, err := c.cfg.Blobs.Stat(ctx, key); {
		case errors.Is(err, blobstore.ErrNotFound):
			missing = append(missing, key)
		case err != nil:
			return fmt.Errorf("blob gc: stat %s: %w", key, err)
		}
	}

	if opts.DryRun {
		rep.Deleted = doomed
		for _, d := range doomed {
			rep.BytesFreed += d.Size
		}
		c.reportMissing(ctx, rep, missing, refs, false)
		return nil
	}

	if err := c.cfg.Marks.UpdateBlobGCMarks(ctx, set, clear); err != nil {
		return fmt.Errorf("blob gc: write marks: %w", err)
	}
	var deleted []string
	for _, d := range doomed {
		if err := c.cfg.Blobs.Delete(ctx, d.Key); err != nil {
			if errors.Is(err, blobstore.ErrUnavailable) || ctx.Err() != nil {
				c.clearDeleted(ctx, rep, deleted)
				return fmt.Errorf("blob gc: delete %s: %w", d.Key, err)
			}
			rep.Errors++
			c.cfg.Log.ErrorContext(ctx, "blob gc: delete failed", "key", d.Key, "err", err)
			continue
		}
		c.cfg.Log.InfoContext(ctx, "blob gc: deleted", "key", d.Key, "size", d.Size,
			"unreferenced_since", d.Since.Format(time.RFC3339))
		deleted = append(deleted, d.Key)
		rep.Deleted = append(rep.Deleted, d)
		rep.BytesFreed += d.Size
	}
	c.clearDeleted(ctx, rep, deleted)

	// A blob deleted in this run that something refers to again now (an
	// edit brought its content back while the run was deleting) is missing.
	if len(deleted) > 0 {
		again, err := c.references(ctx)
		if err != nil {
			rep.Errors++
			c.cfg.Log.ErrorContext(ctx, "blob gc: read references again after deleting", "err", err)
		}
		for _, key := range deleted {
			if again[key] != nil {
				missing = append(missing, key)
				refs[key] = again[key]
			}
		}
	}
	c.reportMissing(ctx, rep, missing, refs, true)
	return nil
}

// clearDeleted clears the marks of the deleted blobs; a failure leaves them
// for the next run, which clears marks of blobs no longer listed.
func (c *Collector) clearDeleted(ctx context.Context, rep *Report, deleted []string) {
	if len(deleted) == 0 {
		return
	}
	if err := c.cfg.Marks.UpdateBlobGCMarks(context.WithoutCancel(ctx), nil, deleted); err != nil {
		rep.Errors++
		c.cfg.Log.ErrorContext(ctx, "blob gc: clear the marks of deleted blobs", "err", err)
	}
}

// references returns every key the sources refer to, each with its source.
func (c *Collector) references(ctx context.Context) (map[string]*Source, error) {
	refs := map[string]*Source{}
	for i := range c.cfg.Sources {
		src := &c.cfg.Sources[i]
		keys, err := src.Refs.ReferencedBlobs(ctx)
		if err != nil {
			return nil, fmt.Errorf("blob gc: references of %s: %w", src.Name, err)
		}
		for _, k := range keys {
			if strings.HasPrefix(k, src.Prefix) {
				refs[k] = src
			}
		}
	}
	return refs, nil
}

// source returns the source whose prefix key has, or nil.
func (c *Collector) source(key string) *Source {
	for i := range c.cfg.Sources {
		if strings.HasPrefix(key, c.cfg.Sources[i].Prefix) {
			return &c.cfg.Sources[i]
		}
	}
	return nil
}

// reportMissing logs each missing blob with its owners and, when repair is
// set, has its source store it again.
func (c *Collector) reportMissing(ctx context.Context, rep *Report, missing []string, refs map[string]*Source, repair bool) {
	if len(missing) == 0 {
		return
	}
	slices.Sort(missing)
	missing = slices.Compact(missing)
	bySource := map[*Source][]string{}
	for _, key := range missing {
		bySource[refs[key]] = append(bySource[refs[key]], key)
	}
	for _, src := range slices.SortedFunc(maps.Keys(bySource), func(a, b *Source) int { return cmp.Compare(a.Prefix, b.Prefix) }) {
		keys := bySource[src]
		var owners map[string][]string
		rp, canRepair := src.Refs.(Repairer)
		if canRepair {
			var err error
			if owners, err = rp.BlobOwners(ctx, keys); err != nil {
				rep.Errors++
				c.cfg.Log.ErrorContext(ctx, "blob gc: who refers to missing blobs", "source", src.Name, "err", err)
			}
		}
		for _, key := range keys {
			rep.Missing = append(rep.Missing, Missing{Key: key, Owners: owners[key]})
			c.cfg.Log.ErrorContext(ctx, "blob gc: a referenced blob is missing from the blob store",
				"key", key, "source", src.Name, "referred_to_by", strings.Join(owners[key], ","), "repair", repair && canRepair)
		}
		if !repair || !canRepair {
			continue
		}
		if err := rp.RepairBlobs(ctx, keys); err != nil {
			rep.Errors++
			c.cfg.Log.ErrorContext(ctx, "blob gc: store missing blobs again", "source", src.Name, "err", err)
			continue
		}
		c.cfg.Log.InfoContext(ctx, "blob gc: missing blobs stored again", "source", src.Name, "count", len(keys))
	}
}

// Loop runs a collection every interval until ctx ends (the first one
// interval after the start). A failed run is logged and the next one comes
// on time.
func (c *Collector) Loop(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_, _ = c.Run(ctx, Options{})
		}
	}
}
