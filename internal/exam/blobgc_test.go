package exam_test

import (
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/blobgc"
	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/blobstore/s3"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/internal/store/postgres/postgrestest"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/s3server"
)

// gcStore is an exam store that keeps the collection's marks.
type gcStore interface {
	exam.Store
	blobgc.MarkStore
}

// TestExamBlobsGarbageCollected, on the portal's own stores and on
// versitygw: a package rebuilt after an exam edit leaves the old question
// blob unreferenced; it survives every collection within the retention
// and is deleted after it, while the blobs current packages name stay; a
// blob a current package names, deleted by hand, is reported with the
// schools whose packages name it and put back by rebuilding them.
func TestExamBlobsGarbageCollected(t *testing.T) {
	run := func(t *testing.T, st gcStore, blobs blobstore.Store, legacy func()) {
		ctx := t.Context()
		svc, err := exam.NewService(ctx, st, exam.Config{Blobs: blobs}, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now().UTC().Add(time.Hour)
		in := exam.ExamInput{
			Title: "Sejarah", Subject: "Sejarah", NPSNs: []string{"20100001", "20100002"},
			StartsAt: start, EndsAt: start.Add(2 * time.Hour), DurationMinutes: 60,
			Questions: []exam.Question{
				{ID: "q1", Type: exam.SingleChoice, Text: "Tahun proklamasi?", Points: 1,
					Options: []exam.Option{{ID: "a", Text: "1945"}, {ID: "b", Text: "1949"}}, Answer: []string{"a"}},
				{ID: "q2", Type: exam.ShortAnswer, Text: "Kota proklamasi?", Answer: []string{"Jakarta"}, Points: 1},
			},
		}
		e, err := svc.CreateExam(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		before := schoolPackage(t, svc, "20100001").Exams[0]
		schoolPackage(t, svc, "20100002")
		q1, oldQ2 := exam.ExamBlobKey(before.QuestionBlobs[0].Name), exam.ExamBlobKey(before.QuestionBlobs[1].Name)

		clock := testkit.NewClock(time.Now())
		c, err := blobgc.New(blobgc.Config{Blobs: blobs, Marks: st, Now: clock.Now,
			Sources: []blobgc.Source{{Name: "exam", Prefix: exam.ExamBlobKeyPrefix, Refs: svc}}})
		if err != nil {
			t.Fatal(err)
		}
		collect := func(opts blobgc.Options) blobgc.Report {
			t.Helper()
			rep, err := c.Run(ctx, opts)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			return rep
		}
		if rep := collect(blobgc.Options{}); rep.Listed != 2 || rep.Referenced != 2 || rep.Marked != 0 {
			t.Fatalf("first run: %+v", rep)
		}

		if legacy != nil {
			// Packages saved before their blob names were recorded: the
			// collector has them rebuilt first, and marks nothing.
			legacy()
			if rep := collect(blobgc.Options{}); rep.Referenced != 2 || rep.Marked != 0 {
				t.Fatalf("run with packages of an earlier release: %+v", rep)
			}
		}

		// An edit of q2: both schools' packages are rebuilt and name a new blob.
		in.Questions[1].Text = "Di kota mana proklamasi dibacakan?"
		if _, err := svc.UpdateExam(ctx, e.ID, in); err != nil {
			t.Fatal(err)
		}
		after := schoolPackage(t, svc, "20100001").Exams[0]
		schoolPackage(t, svc, "20100002")
		newQ2 := exam.ExamBlobKey(after.QuestionBlobs[1].Name)
		if newQ2 == oldQ2 || exam.ExamBlobKey(after.QuestionBlobs[0].Name) != q1 {
			t.Fatal("the edit did not change q2's blob alone")
		}
		if rep := collect(blobgc.Options{}); rep.Marked != 1 || rep.Referenced != 2 {
			t.Fatalf("run after the edit: %+v", rep)
		}
		marked := clock.Now()
		for _, d := range []time.Duration{time.Hour, 24 * time.Hour, blobgc.DefaultRetention - time.Minute} {
			clock.Set(marked.Add(d))
			if rep := collect(blobgc.Options{}); len(rep.Deleted) != 0 {
				t.Fatalf("run %s after the mark: %+v", d, rep)
			}
		}
		// A lab server that pulled the old envelope still gets the old blob.
		blobBytes(t, svc, before.QuestionBlobs[1].Name)

		clock.Set(marked.Add(blobgc.DefaultRetention))
		if rep := collect(blobgc.Options{DryRun: true}); len(rep.Deleted) != 1 || rep.Deleted[0].Key != oldQ2 {
			t.Fatalf("dry run after the retention: %+v", rep)
		}
		if _, err := blobs.Stat(ctx, oldQ2); err != nil {
			t.Fatalf("the dry run deleted the old blob: %v", err)
		}
		if rep := collect(blobgc.Options{}); len(rep.Deleted) != 1 || rep.Deleted[0].Key != oldQ2 {
			t.Fatalf("run after the retention: %+v", rep)
		}
		if _, err := blobs.Stat(ctx, oldQ2); !errors.Is(err, blobstore.ErrNotFound) {
			t.Fatalf("the old q2 blob after the collection: %v", err)
		}
		for _, k := range []string{q1, newQ2} {
			if _, err := blobs.Stat(ctx, k); err != nil {
				t.Fatalf("a blob a current package names (%s): %v", k, err)
			}
		}

		// q1's blob deleted by hand: reported with both schools and put
		// back by rebuilding their packages.
		if err := blobs.Delete(ctx, q1); err != nil {
			t.Fatal(err)
		}
		rep := collect(blobgc.Options{})
		if len(rep.Missing) != 1 || rep.Missing[0].Key != q1 ||
			!slices.Equal(rep.Missing[0].Owners, []string{"20100001", "20100002"}) {
			t.Fatalf("run with q1's blob missing: %+v", rep)
		}
		if _, err := blobs.Stat(ctx, q1); err != nil {
			t.Fatalf("q1's blob after the repair: %v", err)
		}
		blobBytes(t, svc, after.QuestionBlobs[0].Name)
		if rep := collect(blobgc.Options{}); len(rep.Missing) != 0 || len(rep.Deleted) != 0 {
			t.Fatalf("run after the repair: %+v", rep)
		}
	}

	t.Run("bolt", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "portal.db")
		st, err := bolt.Open(path, bolt.WithNoSync())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		run(t, st, st.Blobs(), nil)
	})
	t.Run("postgres", func(t *testing.T) {
		url := pgtest.NewDatabase(t)
		st := postgrestest.OpenURL(t, url)
		run(t, st, st.Blobs(), func() {
			conn, err := pgx.Connect(t.Context(), url)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(t.Context())
			if _, err := conn.Exec(t.Context(), `UPDATE packages SET blob_names_recorded = false;
				DELETE FROM package_blob_names`); err != nil {
				t.Fatal(err)
			}
			if keys, err := st.PackagesWithoutBlobNames(t.Context()); err != nil || len(keys) != 2 {
				t.Fatalf("PackagesWithoutBlobNames: %q, %v", keys, err)
			}
		})
	})
	t.Run("s3", func(t *testing.T) {
		srv := s3server.Start(t)
		srv.CreateBucket(t, "exam-gc")
		cfg, err := s3.ParseURL(srv.URL("exam-gc", "portal"))
		if err != nil {
			t.Fatal(err)
		}
		cfg.AccessKey, cfg.SecretKey = srv.AccessKey, srv.SecretKey
		bs, err := s3.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"), bolt.WithNoSync())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		run(t, st, bs, nil)
	})
}
