package localdb_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/internal/testkit/tmpfs"
)

// TestDiskFull fills the disk under the state file: the save that does not
// fit fails with ErrDiskFull and leaves nothing of itself, every save
// acknowledged before is there, and saves work again once space is freed,
// also after reopening the file.
func TestDiskFull(t *testing.T) {
	dir := tmpfs.Mount(t, 4<<20)
	free := tmpfs.Fill(t, dir, 2<<20)
	path := filepath.Join(dir, localdb.FileName)
	db, err := localdb.Open(path, localdb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	ctx := t.Context()
	if _, err := db.StartAttempt(ctx, localdb.Attempt{ExamID: "e1", MemberID: "m1", StartedAt: t0, Deadline: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	space, err := db.FreeSpace()
	if err != nil || !space.Low || space.FreeBytes > 2<<20 {
		t.Fatalf("free space on a 4 MB disk = %+v, %v; want low", space, err)
	}

	// Answers of ~1 KB (a short essay each) until the disk is full.
	essay := fmt.Sprintf("%01000d", 7)
	saved := 0
	for ; ; saved++ {
		if saved == 100_000 {
			t.Fatal("the disk never filled up")
		}
		_, err = db.SaveAnswer(ctx, "e1", "m1", fmt.Sprintf("q%05d", saved), essay, t0.Add(time.Minute))
		if err != nil {
			break
		}
	}
	if !errors.Is(err, localdb.ErrDiskFull) {
		t.Fatalf("save %d on a full disk = %v, want ErrDiskFull", saved, err)
	}
	check := func(want int) {
		t.Helper()
		answers, err := db.Answers("e1", "m1")
		if err != nil || len(answers) != want {
			t.Fatalf("answers held = %d, %v; want %d", len(answers), err, want)
		}
		if n, err := db.Pending(); err != nil || n != want {
			t.Fatalf("pending = %d, %v; want %d", n, err, want)
		}
	}
	check(saved) // the failed save left nothing; every acknowledged one is there

	free()
	if _, err := db.SaveAnswer(ctx, "e1", "m1", fmt.Sprintf("q%05d", saved), essay, t0.Add(time.Minute)); err != nil {
		t.Fatalf("save once space is freed: %v", err)
	}
	check(saved + 1)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = localdb.Open(path, localdb.Options{}); err != nil {
		t.Fatalf("reopen after the disk filled up: %v", err)
	}
	check(saved + 1)
}
