package localdb_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent/localdb"
)

var t0 = time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)

func open(t *testing.T, path string) *localdb.DB {
	t.Helper()
	db, err := localdb.Open(path, localdb.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), localdb.FileName)
	open(t, path)
	_, err := localdb.Open(path, localdb.Options{Timeout: 50 * time.Millisecond})
	if !errors.Is(err, localdb.ErrLocked) {
		t.Fatalf("second open = %v, want ErrLocked", err)
	}
}

func TestSaveAnswerRules(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), localdb.FileName))
	ctx := t.Context()
	if _, err := db.SaveAnswer(ctx, "e1", "m1", "q1", "a", t0); !errors.Is(err, localdb.ErrNoAttempt) {
		t.Fatalf("save without attempt = %v", err)
	}
	a, err := db.StartAttempt(ctx, localdb.Attempt{ExamID: "e1", MemberID: "m1", StartedAt: t0, Deadline: t0.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	// Starting again keeps the first attempt.
	again, err := db.StartAttempt(ctx, localdb.Attempt{ExamID: "e1", MemberID: "m1", StartedAt: t0.Add(time.Minute), Deadline: t0.Add(2 * time.Hour)})
	if err != nil || !again.StartedAt.Equal(a.StartedAt) {
		t.Fatalf("second start = %+v, %v", again, err)
	}
	if _, err := db.SaveAnswer(ctx, "e1", "m1", "q1", "a", t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := db.SetFlag(ctx, "e1", "m1", "q1", true, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveAnswer(ctx, "e1", "m1", "q1", "b", t0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveAnswer(ctx, "e1", "m1", "q2", "c", t0.Add(61*time.Minute)); !errors.Is(err, localdb.ErrTimeUp) {
		t.Fatalf("save after deadline = %v", err)
	}
	got, err := db.Answers("e1", "m1")
	if err != nil || len(got) != 1 || got["q1"].Answer != "b" || !got["q1"].Flagged {
		t.Fatalf("answers = %+v, %v", got, err)
	}
	if _, err := db.FinishAttempt(ctx, "e1", "m1", t0.Add(5*time.Minute), localdb.FinishStudent); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SaveAnswer(ctx, "e1", "m1", "q2", "c", t0.Add(6*time.Minute)); !errors.Is(err, localdb.ErrAttemptFinished) {
		t.Fatalf("save after finish = %v", err)
	}
	if _, err := db.ExtendAttempt(ctx, localdb.Extension{ExamID: "e1", MemberID: "m1", Minutes: 5, At: t0}); !errors.Is(err, localdb.ErrAttemptFinished) {
		t.Fatalf("extend finished attempt = %v", err)
	}
	// Two saves (the flag is not an outbox entry), in order.
	if n, err := db.Pending(); err != nil || n != 2 {
		t.Fatalf("pending = %d, %v", n, err)
	}
}

// TestOutbox seals, acknowledges and re-seals: a sealed batch keeps its key
// and answers until acknowledged, whatever happens in between.
func TestOutbox(t *testing.T) {
	path := filepath.Join(t.TempDir(), localdb.FileName)
	db := open(t, path)
	ctx := t.Context()
	for _, m := range []string{"m1", "m2"} {
		if _, err := db.StartAttempt(ctx, localdb.Attempt{ExamID: "e1", MemberID: m, StartedAt: t0, Deadline: t0.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 25 {
		if _, err := db.SaveAnswer(ctx, "e1", fmt.Sprintf("m%d", i%2+1), fmt.Sprintf("q%d", i), "a", t0.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	b1, err := db.NextBatch(ctx, 10, t0)
	if err != nil || b1 == nil || len(b1.Answers) != 10 || b1.Answers[0].QuestionID != "q0" || b1.IdempotencyKey == "" {
		t.Fatalf("first batch = %+v, %v", b1, err)
	}
	// Until acknowledged, the same batch comes back (after a restart too).
	db.Close()
	db = open(t, path)
	again, err := db.NextBatch(ctx, 10, t0)
	if err != nil || again.Seq != b1.Seq || again.IdempotencyKey != b1.IdempotencyKey || len(again.Answers) != 10 {
		t.Fatalf("batch after restart = %+v, %v", again, err)
	}
	if n, _ := db.Pending(); n != 25 {
		t.Fatalf("pending = %d, want 25", n)
	}
	if err := db.AckBatch(ctx, b1.Seq, localdb.Receipt{IdempotencyKey: b1.IdempotencyKey, SyncID: "S1", Records: 10}); err != nil {
		t.Fatal(err)
	}
	var last localdb.Receipt
	if found, err := db.GetMeta(localdb.MetaLastReceipt, &last); err != nil || !found || last.SyncID != "S1" {
		t.Fatalf("last receipt = %+v, %v", last, err)
	}
	all, err := db.SealAll(ctx, 10, t0)
	if err != nil || len(all) != 2 || len(all[0].Answers) != 10 || len(all[1].Answers) != 5 || all[1].Answers[4].QuestionID != "q24" {
		t.Fatalf("seal all = %+v, %v", all, err)
	}
	if all[0].IdempotencyKey == b1.IdempotencyKey || all[0].IdempotencyKey == all[1].IdempotencyKey {
		t.Fatal("idempotency keys repeat")
	}
	for _, b := range all {
		if err := db.AckBatch(ctx, b.Seq, localdb.Receipt{}); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := db.NextBatch(ctx, 10, t0); b != nil || err != nil {
		t.Fatalf("empty outbox gave %+v, %v", b, err)
	}
	c, err := db.Counts()
	if err != nil || c.Pending != 0 || c.Answers != 25 || c.Attempts != 2 {
		t.Fatalf("counts = %+v, %v", c, err)
	}
}

// TestGroupCommit saves from many goroutines at once: every acknowledged save
// is there, each exactly once in the outbox.
func TestGroupCommit(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), localdb.FileName))
	ctx := t.Context()
	const students, each = 50, 40
	for m := range students {
		if _, err := db.StartAttempt(ctx, localdb.Attempt{ExamID: "e", MemberID: fmt.Sprint(m), StartedAt: t0, Deadline: t0.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, students)
	for m := range students {
		wg.Go(func() {
			for q := range each {
				if _, err := db.SaveAnswer(ctx, "e", fmt.Sprint(m), fmt.Sprint(q), "x", t0); err != nil {
					errs <- err
					return
				}
			}
			// One refused write in a group must not fail the others.
			if _, err := db.SaveAnswer(ctx, "e", "nobody", "q", "x", t0); !errors.Is(err, localdb.ErrNoAttempt) {
				errs <- fmt.Errorf("save without attempt = %v", err)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	batches, err := db.SealAll(ctx, 100_000, t0)
	if err != nil || len(batches) != 1 || len(batches[0].Answers) != students*each {
		t.Fatalf("outbox holds %d batches, %v", len(batches), err)
	}
	seen := map[string]bool{}
	for _, a := range batches[0].Answers {
		k := a.MemberID + "/" + a.QuestionID
		if seen[k] {
			t.Fatalf("%s twice in the outbox", k)
		}
		seen[k] = true
	}
}

func TestPackageSwapAndDownload(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), localdb.FileName))
	ctx := t.Context()
	if _, _, err := db.Package(); !errors.Is(err, localdb.ErrNoPackage) {
		t.Fatalf("package before any = %v", err)
	}
	data := []byte("encrypted package bytes")
	sum := sha256.Sum256(data)
	meta := localdb.PackageMeta{ChecksumSHA256: hex.EncodeToString(sum[:]), Version: "v1", Size: int64(len(data)), PulledAt: t0}
	if err := db.SwapPackage(ctx, meta, data); err != nil {
		t.Fatal(err)
	}
	bad := meta
	bad.Version = "v2"
	if err := db.SwapPackage(ctx, bad, []byte("encrypted package bytez")); !errors.Is(err, localdb.ErrPackageChecksum) {
		t.Fatalf("swap with wrong bytes = %v", err)
	}
	got, b, err := db.Package()
	if err != nil || got.Version != "v1" || string(b) != string(data) {
		t.Fatalf("package = %+v %q, %v", got, b, err)
	}

	if err := db.StartDownload(ctx, localdb.Download{ETag: `"x"`, Size: 10}); err != nil {
		t.Fatal(err)
	}
	if err := db.AppendDownload(ctx, 0, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	if err := db.AppendDownload(ctx, 3, []byte("zz")); err == nil {
		t.Fatal("append at a wrong offset accepted")
	}
	if err := db.AppendDownload(ctx, 5, []byte("world")); err != nil {
		t.Fatal(err)
	}
	dl, found, err := db.Download()
	if err != nil || !found || dl.Received != 10 {
		t.Fatalf("download = %+v %v %v", dl, found, err)
	}
	if b, err := db.DownloadedBytes(); err != nil || string(b) != "helloworld" {
		t.Fatalf("downloaded = %q, %v", b, err)
	}
	if err := db.ResetDownload(ctx); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := db.Download(); found {
		t.Fatal("download survived a reset")
	}
}

// TestBatchBytes: long essays make smaller batches, under the portal's limit.
func TestBatchBytes(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), localdb.FileName))
	ctx := t.Context()
	if _, err := db.StartAttempt(ctx, localdb.Attempt{ExamID: "e1", MemberID: "m1", StartedAt: t0, Deadline: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	essay := strings.Repeat("x", 1<<20)
	for i := range 40 {
		if _, err := db.SaveAnswer(ctx, "e1", "m1", fmt.Sprint(i), essay, t0); err != nil {
			t.Fatal(err)
		}
	}
	all, err := db.SealAll(ctx, 5000, t0)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, b := range all {
		if n := len(b.Answers); n == 0 || n*len(essay) > localdb.MaxBatchBytes {
			t.Fatalf("batch of %d essays of 1 MiB", n)
		}
		total += len(b.Answers)
	}
	if total != 40 || len(all) < 3 {
		t.Fatalf("%d answers in %d batches", total, len(all))
	}
}

// TestStampsOnlyMoveForward: a save stamped before the previous answer to
// the same question (the clock skew was corrected backwards) is stamped just
// after it, at the portal's microsecond precision.
func TestStampsOnlyMoveForward(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), localdb.FileName))
	ctx := t.Context()
	if _, err := db.StartAttempt(ctx, localdb.Attempt{ExamID: "e1", MemberID: "m1", StartedAt: t0, Deadline: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	first := t0.Add(10*time.Second + 1500*time.Nanosecond)
	if at, err := db.SaveAnswer(ctx, "e1", "m1", "q1", "a", first); err != nil || !at.Equal(first) {
		t.Fatalf("first save stamped %v, %v", at, err)
	}
	at, err := db.SaveAnswer(ctx, "e1", "m1", "q1", "b", t0.Add(9*time.Second))
	if want := t0.Add(10*time.Second + 2*time.Microsecond); err != nil || !at.Equal(want) {
		t.Fatalf("save after a backwards skew stamped %v, want %v (%v)", at, want, err)
	}
	// Another question keeps its own time.
	if at, err := db.SaveAnswer(ctx, "e1", "m1", "q2", "c", t0.Add(9*time.Second)); err != nil || !at.Equal(t0.Add(9*time.Second)) {
		t.Fatalf("other question stamped %v, %v", at, err)
	}
	batches, err := db.SealAll(ctx, 10, t0)
	if err != nil || len(batches) != 1 || !batches[0].Answers[1].AnsweredAt.Equal(first.Truncate(time.Microsecond).Add(time.Microsecond)) {
		t.Fatalf("outbox = %+v, %v", batches, err)
	}
}

// TestConcurrentSavesOfOneQuestion: saves of one question at once share
// commits, each worked out before its commit from a previous answer that
// the others change; every one is stamped after the one before it in the
// outbox, and the answer held is the last one queued.
func TestConcurrentSavesOfOneQuestion(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), localdb.FileName))
	ctx := t.Context()
	if _, err := db.StartAttempt(ctx, localdb.Attempt{ExamID: "e", MemberID: "m", StartedAt: t0, Deadline: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	const n = 200
	var wg sync.WaitGroup
	stamps := make(chan time.Time, n)
	for i := range n {
		wg.Go(func() {
			at, err := db.SaveAnswer(ctx, "e", "m", "q", fmt.Sprint(i), t0.Add(time.Minute))
			if err != nil {
				t.Error(err)
			}
			stamps <- at
		})
	}
	wg.Wait()
	close(stamps)
	seen := map[time.Time]bool{}
	for at := range stamps {
		if seen[at] {
			t.Fatalf("two saves stamped %v", at)
		}
		seen[at] = true
	}
	batches, err := db.SealAll(ctx, 10_000, t0)
	if err != nil || len(batches) != 1 || len(batches[0].Answers) != n {
		t.Fatalf("outbox = %d batches, %v", len(batches), err)
	}
	as := batches[0].Answers
	for i := 1; i < n; i++ {
		if !as[i].AnsweredAt.After(as[i-1].AnsweredAt) {
			t.Fatalf("outbox entry %d stamped %v, not after entry %d (%v)", i, as[i].AnsweredAt, i-1, as[i-1].AnsweredAt)
		}
	}
	held, err := db.Answers("e", "m")
	if err != nil || held["q"].Answer != as[n-1].Answer || !held["q"].AnsweredAt.Equal(as[n-1].AnsweredAt) {
		t.Fatalf("answer held %+v (%v), last queued %+v", held["q"], err, as[n-1])
	}
}

// TestSavesRacingFinish: students keep saving while the attempt is
// finished; saves worked out before the finish and committed after it are
// refused, and the answers held are exactly those whose saves succeeded.
func TestSavesRacingFinish(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), localdb.FileName))
	ctx := t.Context()
	for round := range 5 {
		member := fmt.Sprint("m", round)
		if _, err := db.StartAttempt(ctx, localdb.Attempt{ExamID: "e", MemberID: member, StartedAt: t0, Deadline: t0.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
		const workers = 8
		var wg sync.WaitGroup
		var mu sync.Mutex
		saved := map[string]bool{}
		for w := range workers {
			wg.Go(func() {
				// Save question after question until the attempt is finished.
				for q := w; ; q += workers {
					if q > 100_000 {
						t.Error("saves still accepted long after the finish")
						return
					}
					_, err := db.SaveAnswer(ctx, "e", member, fmt.Sprint(q), "x", t0.Add(time.Minute))
					if errors.Is(err, localdb.ErrAttemptFinished) {
						return
					}
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					saved[fmt.Sprint(q)] = true
					mu.Unlock()
				}
			})
		}
		time.Sleep(5 * time.Millisecond)
		if _, err := db.FinishAttempt(ctx, "e", member, t0.Add(time.Minute), "finished"); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		held, err := db.Answers("e", member)
		if err != nil {
			t.Fatal(err)
		}
		for q := range held {
			if !saved[q] {
				t.Errorf("round %d: answer to %s held, but its save was refused", round, q)
			}
		}
		for q := range saved {
			if _, ok := held[q]; !ok {
				t.Errorf("round %d: answer to %s acknowledged, but not held", round, q)
			}
		}
	}
}

// TestWritesRerunAfterAFailedGroup: when a write of a commit group fails,
// the others run again in commits of their own; an extension that ran in
// the failed group must count once, not twice.
func TestWritesRerunAfterAFailedGroup(t *testing.T) {
	db := open(t, filepath.Join(t.TempDir(), localdb.FileName))
	ctx := t.Context()
	const n = 200
	for i := range n {
		if _, err := db.StartAttempt(ctx, localdb.Attempt{ExamID: "e", MemberID: fmt.Sprint(i), StartedAt: t0, Deadline: t0.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if _, err := db.ExtendAttempt(ctx, localdb.Extension{ExamID: "e", MemberID: fmt.Sprint(i), Minutes: 5, At: t0}); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() { // fails its group
			if err := db.SetFlag(ctx, "e", "nobody", "q", true, t0); !errors.Is(err, localdb.ErrNoAttempt) {
				t.Errorf("flag without attempt = %v", err)
			}
		})
	}
	wg.Wait()
	as, err := db.Attempts()
	if err != nil || len(as) != n {
		t.Fatalf("%d attempts, %v", len(as), err)
	}
	for _, a := range as {
		if a.ExtendedMinutes != 5 || !a.Deadline.Equal(t0.Add(time.Hour+5*time.Minute)) {
			t.Errorf("member %s after one extension of 5 minutes: extended %d minutes, deadline %v", a.MemberID, a.ExtendedMinutes, a.Deadline)
		}
	}
}
