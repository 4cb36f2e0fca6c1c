package blobgc_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/blobgc"
	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/blobstore/s3"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/internal/store/postgres"
	"github.com/seedhq/portal/internal/store/postgres/postgrestest"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/s3server"
)

const retention = 7 * 24 * time.Hour

// backend is a blob store and a mark store to collect with.
type backend struct {
	blobs blobstore.Store
	marks blobgc.MarkStore
	// kill and restart make the blob store unreachable and back (S3 only).
	kill, restart func()
}

// openBolt returns the blob store and the marks of one bbolt file.
func openBolt(t *testing.T) *bolt.Store {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"), bolt.WithNoSync())
	if err != nil {
		t.Fatalf("open bolt: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// openPostgres returns a migrated store on a fresh database.
func openPostgres(t *testing.T) *postgres.Store { return postgrestest.Open(t) }

// backends runs fn on the portal's own stores (bbolt, PostgreSQL) and on
// versitygw (with the marks in bbolt).
func backends(t *testing.T, fn func(t *testing.T, b backend)) {
	t.Run("bolt", func(t *testing.T) {
		st := openBolt(t)
		fn(t, backend{blobs: st.Blobs(), marks: st})
	})
	t.Run("postgres", func(t *testing.T) {
		st := openPostgres(t)
		fn(t, backend{blobs: st.Blobs(), marks: st})
	})
	t.Run("s3", func(t *testing.T) {
		srv := s3server.Start(t)
		srv.CreateBucket(t, "blob-gc")
		cfg, err := s3.ParseURL(srv.URL("blob-gc", "portal") + "&max_retries=1")
		if err != nil {
			t.Fatal(err)
		}
		cfg.AccessKey, cfg.SecretKey = srv.AccessKey, srv.SecretKey
		bs, err := s3.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		fn(t, backend{blobs: bs, marks: openBolt(t), kill: srv.Kill, restart: srv.Restart})
	})
}

// refs is a domain whose references a test sets; it stores a missing blob
// again from the bytes it was given.
type refs struct {
	mu       sync.Mutex
	blobs    blobstore.Store
	keys     map[string][]byte // key -> its bytes
	repaired []string
	fail     error // ReferencedBlobs fails with it when set
}

func newRefs(blobs blobstore.Store) *refs { return &refs{blobs: blobs, keys: map[string][]byte{}} }

func (r *refs) set(key string, data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys[key] = data
}

func (r *refs) drop(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.keys, key)
}

// ReferencedBlobs implements blobgc.Referrer.
func (r *refs) ReferencedBlobs(context.Context) ([]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return nil, r.fail
	}
	return slices.Sorted(maps.Keys(r.keys)), nil
}

// BlobOwners implements blobgc.Repairer.
func (r *refs) BlobOwners(_ context.Context, keys []string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, k := range keys {
		out[k] = []string{"owner-of-" + k[strings.LastIndex(k, "/")+1:]}
	}
	return out, nil
}

// RepairBlobs implements blobgc.Repairer.
func (r *refs) RepairBlobs(ctx context.Context, keys []string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range keys {
		data := r.keys[k]
		if err := r.blobs.Put(ctx, k, bytes.NewReader(data), int64(len(data))); err != nil {
			return err
		}
		r.repaired = append(r.repaired, k)
	}
	return nil
}

// plainRefs is a Referrer that cannot repair.
type plainRefs struct{ *refs }

// ReferencedBlobs implements blobgc.Referrer.
func (p plainRefs) ReferencedBlobs(ctx context.Context) ([]string, error) {
	return p.refs.ReferencedBlobs(ctx)
}

func mustPut(t *testing.T, bs blobstore.Store, key string, data []byte) {
	t.Helper()
	if err := bs.Put(t.Context(), key, bytes.NewReader(data), int64(len(data))); err != nil {
		t.Fatalf("Put %s: %v", key, err)
	}
}

// keys returns the keys bs holds.
func keys(t *testing.T, bs blobstore.Store) []string {
	t.Helper()
	var out []string
	for info, err := range bs.List(t.Context(), "") {
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		out = append(out, info.Key)
	}
	return out
}

func wantKeys(t *testing.T, bs blobstore.Store, want ...string) {
	t.Helper()
	if got := keys(t, bs); !slices.Equal(got, want) {
		t.Fatalf("blobs stored: %q, want %q", got, want)
	}
}

func mustRun(t *testing.T, c *blobgc.Collector, opts blobgc.Options) blobgc.Report {
	t.Helper()
	rep, err := c.Run(t.Context(), opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return rep
}

func deletedKeys(rep blobgc.Report) []string {
	var out []string
	for _, d := range rep.Deleted {
		out = append(out, d.Key)
	}
	return out
}

// logBuffer collects a collector's log.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestCollect: an unreferenced blob survives every run within the retention
// after it was first found unreferenced and is deleted after it; a
// referenced blob, a blob referenced again, a blob just uploaded and a blob
// outside every source's prefix are never deleted; a dry run changes
// nothing; a referenced blob deleted by hand is reported and repaired.
func TestCollect(t *testing.T) {
	backends(t, func(t *testing.T, b backend) {
		ctx := t.Context()
		clock := testkit.NewClock(time.Now())
		exam, logos := newRefs(b.blobs), newRefs(b.blobs)
		var log logBuffer
		c, err := blobgc.New(blobgc.Config{Blobs: b.blobs, Marks: b.marks, Retention: retention, Now: clock.Now,
			Log:     slog.New(slog.NewTextHandler(&log, nil)),
			Sources: []blobgc.Source{{Name: "exam", Prefix: "exam/", Refs: exam}, {Name: "logos", Prefix: "logos/", Refs: plainRefs{logos}}}})
		if err != nil {
			t.Fatal(err)
		}
		q1, q1b, shared, logo := []byte("question v1"), []byte("question v2"), []byte("media"), []byte("png")
		mustPut(t, b.blobs, "exam/q1", q1)
		mustPut(t, b.blobs, "exam/media", shared)
		mustPut(t, b.blobs, "logos/l1", logo)
		mustPut(t, b.blobs, "other/keep", []byte("no source"))
		exam.set("exam/q1", q1)
		exam.set("exam/media", shared)
		logos.set("logos/l1", logo)

		rep := mustRun(t, c, blobgc.Options{})
		if rep.Listed != 3 || rep.Referenced != 3 || rep.Marked != 0 || len(rep.Deleted) != 0 || len(rep.Missing) != 0 {
			t.Fatalf("first run: %+v", rep)
		}

		// An edit: the package now names q2, not q1; the logo's code is gone.
		clock.Add(time.Hour)
		mustPut(t, b.blobs, "exam/q2", q1b)
		exam.set("exam/q2", q1b)
		exam.drop("exam/q1")
		logos.drop("logos/l1")
		rep = mustRun(t, c, blobgc.Options{})
		if rep.Marked != 2 || rep.Referenced != 2 || len(rep.Deleted) != 0 {
			t.Fatalf("run after the edit: %+v", rep)
		}
		marked := clock.Now()

		// Within the retention: kept, at every run.
		for range 6 {
			clock.Add(24 * time.Hour)
			rep = mustRun(t, c, blobgc.Options{})
			if len(rep.Deleted) != 0 || rep.Waiting != 2 || rep.Marked != 0 {
				t.Fatalf("run %s after the mark: %+v", clock.Now().Sub(marked), rep)
			}
		}
		clock.Set(marked.Add(retention - time.Minute))
		if rep = mustRun(t, c, blobgc.Options{}); len(rep.Deleted) != 0 {
			t.Fatalf("run a minute before the retention ends: %+v", rep)
		}
		wantKeys(t, b.blobs, "exam/media", "exam/q1", "exam/q2", "logos/l1", "other/keep")

		// The logo is used again: its mark goes, and it stays.
		logos.set("logos/l1", logo)
		clock.Set(marked.Add(retention))

		// A dry run reports what it would delete and deletes nothing.
		rep = mustRun(t, c, blobgc.Options{DryRun: true})
		if got := deletedKeys(rep); !slices.Equal(got, []string{"exam/q1"}) || rep.BytesFreed != int64(len(q1)) || !rep.DryRun {
			t.Fatalf("dry run: would delete %q (%d bytes), want exam/q1: %+v", got, rep.BytesFreed, rep)
		}
		wantKeys(t, b.blobs, "exam/media", "exam/q1", "exam/q2", "logos/l1", "other/keep")
		if marks, _ := b.marks.BlobGCMarks(ctx); len(marks) != 2 {
			t.Fatalf("marks after a dry run: %v, want the two of before", marks)
		}

		rep = mustRun(t, c, blobgc.Options{})
		if got := deletedKeys(rep); !slices.Equal(got, []string{"exam/q1"}) || rep.BytesFreed != int64(len(q1)) || rep.Unmarked != 1 {
			t.Fatalf("run at the end of the retention: deleted %q: %+v", got, rep)
		}
		wantKeys(t, b.blobs, "exam/media", "exam/q2", "logos/l1", "other/keep")
		if marks, _ := b.marks.BlobGCMarks(ctx); len(marks) != 0 {
			t.Fatalf("marks after the deletion: %v, want none", marks)
		}
		if !strings.Contains(log.String(), "blob gc done") || !strings.Contains(log.String(), "bytes_freed=11") {
			t.Fatalf("no summary logged:\n%s", log.String())
		}

		// The logo, unused again, starts a new retention period.
		logos.drop("logos/l1")
		mustRun(t, c, blobgc.Options{})
		clock.Add(retention - time.Hour)
		if rep = mustRun(t, c, blobgc.Options{}); len(rep.Deleted) != 0 {
			t.Fatalf("logo deleted before a full retention after it was used again: %+v", rep)
		}

		// A referenced blob deleted by hand: reported with its owners and
		// stored again.
		if err := b.blobs.Delete(ctx, "exam/q2"); err != nil {
			t.Fatal(err)
		}
		rep = mustRun(t, c, blobgc.Options{DryRun: true})
		if len(rep.Missing) != 1 || rep.Missing[0].Key != "exam/q2" || !slices.Equal(rep.Missing[0].Owners, []string{"owner-of-q2"}) {
			t.Fatalf("dry run with a blob missing: %+v", rep)
		}
		wantKeys(t, b.blobs, "exam/media", "logos/l1", "other/keep")
		rep = mustRun(t, c, blobgc.Options{})
		if len(rep.Missing) != 1 || !slices.Equal(exam.repaired, []string{"exam/q2"}) {
			t.Fatalf("run with a blob missing: %+v, repaired %q", rep, exam.repaired)
		}
		wantKeys(t, b.blobs, "exam/media", "exam/q2", "logos/l1", "other/keep")
		if !strings.Contains(log.String(), "key=exam/q2") || !strings.Contains(log.String(), "referred_to_by=owner-of-q2") {
			t.Fatalf("the missing blob is not logged with its owner:\n%s", log.String())
		}
	})
}

// TestCollectYoungBlob: a blob marked long ago whose upload is younger than
// the retention (a blob put again, or a clock behind) is never deleted.
func TestCollectYoungBlob(t *testing.T) {
	st := openBolt(t)
	clock := testkit.NewClock(time.Now().Add(-30 * 24 * time.Hour))
	c, err := blobgc.New(blobgc.Config{Blobs: st.Blobs(), Marks: st, Now: clock.Now,
		Sources: []blobgc.Source{{Name: "exam", Prefix: "exam/", Refs: newRefs(st.Blobs())}}})
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, st.Blobs(), "exam/new", []byte("uploaded, package not saved yet"))
	if rep := mustRun(t, c, blobgc.Options{}); rep.Marked != 1 {
		t.Fatalf("first run: %+v", rep)
	}
	clock.Set(time.Now()) // marked 30 days ago, uploaded just now
	if rep := mustRun(t, c, blobgc.Options{}); len(rep.Deleted) != 0 || rep.Waiting != 1 {
		t.Fatalf("a young blob marked long ago: %+v", rep)
	}
	clock.Add(retention)
	if rep := mustRun(t, c, blobgc.Options{}); len(rep.Deleted) != 1 {
		t.Fatalf("the same blob a retention later: %+v", rep)
	}
}

// TestCollectOutage: a blob store or a domain that cannot be read ends the
// run with an error and changes nothing; the next run after it is back
// does the work.
func TestCollectOutage(t *testing.T) {
	backends(t, func(t *testing.T, b backend) {
		clock := testkit.NewClock(time.Now())
		r := newRefs(b.blobs)
		c, err := blobgc.New(blobgc.Config{Blobs: b.blobs, Marks: b.marks, Now: clock.Now,
			Sources: []blobgc.Source{{Name: "exam", Prefix: "exam/", Refs: r}}})
		if err != nil {
			t.Fatal(err)
		}
		mustPut(t, b.blobs, "exam/old", []byte("old"))
		mustRun(t, c, blobgc.Options{}) // marked
		clock.Add(retention + time.Minute)

		r.fail = errors.New("database down")
		if _, err := c.Run(t.Context(), blobgc.Options{}); err == nil || !strings.Contains(err.Error(), "database down") {
			t.Fatalf("Run with the references failing: %v", err)
		}
		r.fail = nil
		wantKeys(t, b.blobs, "exam/old")

		if b.kill != nil {
			b.kill()
			_, err := c.Run(t.Context(), blobgc.Options{})
			if !errors.Is(err, blobstore.ErrUnavailable) {
				t.Fatalf("Run with the blob store down: %v, want ErrUnavailable", err)
			}
			if marks, _ := b.marks.BlobGCMarks(t.Context()); len(marks) != 1 {
				t.Fatalf("marks after a failed run: %v", marks)
			}
			b.restart()
		}
		if rep := mustRun(t, c, blobgc.Options{}); !slices.Equal(deletedKeys(rep), []string{"exam/old"}) {
			t.Fatalf("run after the outage: %+v", rep)
		}
		wantKeys(t, b.blobs)
	})
}

// TestCollectorsNeverAtOnce: while one collector runs, another on the same
// store skips its run.
func TestCollectorsNeverAtOnce(t *testing.T) {
	for name, open := range map[string]func(t *testing.T) (blobstore.Store, blobgc.MarkStore){
		"bolt": func(t *testing.T) (blobstore.Store, blobgc.MarkStore) {
			st := openBolt(t)
			return st.Blobs(), st
		},
		"postgres": func(t *testing.T) (blobstore.Store, blobgc.MarkStore) {
			st := openPostgres(t)
			return st.Blobs(), st
		},
	} {
		t.Run(name, func(t *testing.T) {
			blobs, marks := open(t)
			inside := make(chan struct{})
			release := make(chan struct{})
			slow := referrerFunc(func(ctx context.Context) ([]string, error) {
				close(inside)
				<-release
				return nil, nil
			})
			newCollector := func(r blobgc.Referrer) *blobgc.Collector {
				c, err := blobgc.New(blobgc.Config{Blobs: blobs, Marks: marks,
					Sources: []blobgc.Source{{Name: "exam", Prefix: "exam/", Refs: r}}})
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
			a, b := newCollector(slow), newCollector(newRefs(blobs))
			done := make(chan error)
			go func() {
				_, err := a.Run(context.Background(), blobgc.Options{})
				done <- err
			}()
			<-inside
			if rep := mustRun(t, b, blobgc.Options{}); !rep.Skipped {
				t.Fatalf("second collector ran while the first was running: %+v", rep)
			}
			close(release)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if rep := mustRun(t, b, blobgc.Options{}); rep.Skipped {
				t.Fatal("second collector skipped after the first finished")
			}
		})
	}
}

// referrerFunc is a function as a Referrer.
type referrerFunc func(ctx context.Context) ([]string, error)

// ReferencedBlobs implements blobgc.Referrer.
func (f referrerFunc) ReferencedBlobs(ctx context.Context) ([]string, error) { return f(ctx) }

// TestRetentionMinimum: a retention under a day is refused.
func TestRetentionMinimum(t *testing.T) {
	st := openBolt(t)
	for _, d := range []time.Duration{time.Hour, 23 * time.Hour} {
		if _, err := blobgc.New(blobgc.Config{Blobs: st.Blobs(), Marks: st, Retention: d}); !errors.Is(err, blobgc.ErrRetentionTooShort) {
			t.Errorf("New with retention %s: %v, want ErrRetentionTooShort", d, err)
		}
	}
	c, err := blobgc.New(blobgc.Config{Blobs: st.Blobs(), Marks: st})
	if err != nil || c.Retention() != blobgc.DefaultRetention {
		t.Fatalf("New without retention: %v, retention %s", err, c.Retention())
	}
}
