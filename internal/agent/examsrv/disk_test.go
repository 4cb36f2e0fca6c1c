package examsrv_test

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/tmpfs"
)

// TestDiskFull: when the lab server's disk is full a save is refused with
// 503 DISK_FULL (which the student page retries), the proctor page shows
// the disk as low, and the same save goes through once space is freed.
func TestDiskFull(t *testing.T) {
	dir := tmpfs.Mount(t, 4<<20)
	free := tmpfs.Fill(t, dir, 2<<20)
	l := newLabWith(t, filepath.Join(dir, "labagent.db"), 0, testkit.NewClock(t0.Add(time.Minute)), 5, localdb.Options{})
	s1 := l.signIn(1)
	s1.mustOK("POST", "/api/student/exams/e1/start", nil, nil)

	essay := map[string]string{"answer": strings.Repeat("x", 4000)}
	var status int
	var code string
	saves := 0
	for ; saves < 10_000; saves++ {
		// The essay question, saved again and again: each save is a new
		// outbox entry, so the disk fills up.
		if status, code = s1.do("PUT", "/api/student/exams/e1/answers/es", essay, nil); status != http.StatusOK {
			break
		}
	}
	if status != http.StatusServiceUnavailable || code != "DISK_FULL" {
		t.Fatalf("save %d on a full disk = %d %s, want 503 DISK_FULL", saves, status, code)
	}
	var st struct{ Disk localdb.Space }
	l.proctor().mustOK("GET", "/api/proctor/state", nil, &st)
	if !st.Disk.Low {
		t.Errorf("proctor state on a full disk: %+v, want low", st.Disk)
	}
	if n, err := l.db.Pending(); err != nil || n != saves {
		t.Errorf("pending = %d, %v; want the %d saves acknowledged", n, err, saves)
	}

	free()
	s1.mustOK("PUT", "/api/student/exams/e1/answers/es", essay, nil)
	if n, err := l.db.Pending(); err != nil || n != saves+1 {
		t.Errorf("pending after space was freed = %d, %v; want %d", n, err, saves+1)
	}
}
