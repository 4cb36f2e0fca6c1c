//go:build !windows

package agent_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/pkg/client"
)

func TestSyncerPullsPackage(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	s := f.syncer()
	stop := f.run(s)

	p, meta := f.pkgs.wait(t, 1)
	if len(p.Students) != 2 || len(p.Exams) != 1 || p.Exams[0].ID != f.examID || len(p.Exams[0].Questions) != 3 {
		t.Fatalf("package: %d students, exams %+v", len(p.Students), p.Exams)
	}
	if p.NPSN != testNPSN || p.Version != meta.Version || meta.ChecksumSHA256 == "" || meta.Size == 0 || meta.PulledAt.IsZero() {
		t.Fatalf("package %s/%s, meta %+v", p.NPSN, p.Version, meta)
	}
	lp, lmeta, err := s.LoadLocalPackage()
	if err != nil || lmeta.ChecksumSHA256 != meta.ChecksumSHA256 || lp.Version != p.Version {
		t.Fatalf("LoadLocalPackage = %v, %+v, %v", lp, lmeta, err)
	}

	st := s.Status()
	switch {
	case st.State != agent.SyncOnline && st.State != agent.SyncSyncing:
		t.Errorf("state = %q", st.State)
	case st.LicenseID != f.lic.ID || st.MaxStudents != 40 || st.LicenseExpiresSoon || st.SchoolName != "SMA Negeri 1 Contoh":
		t.Errorf("licence in status: %+v", st)
	case st.PackageChecksum != meta.ChecksumSHA256 || st.PackageVersion != meta.Version:
		t.Errorf("package in status: %+v", st)
	case st.LastHandshakeAt.IsZero() || !st.AccessTokenExpiresAt.After(time.Now()) || st.LastError != "":
		t.Errorf("handshake in status: %+v", st)
	case st.ClockSkewMS < -5000 || st.ClockSkewMS > 5000:
		t.Errorf("clock skew %d ms against a portal on the same clock", st.ClockSkewMS)
	}
	raw, _ := json.Marshal(st)
	for _, k := range []string{`"state"`, `"last_handshake_at"`, `"access_token_expires_at"`, `"clock_skew_ms"`, `"license_id"`,
		`"license_expires_at"`, `"license_expires_soon"`, `"max_students"`, `"package_version"`, `"package_checksum"`,
		`"package_pulled_at"`, `"pending_answers"`, `"last_sync_id"`, `"last_error"`, `"heartbeat_interval_seconds"`} {
		if !bytes.Contains(raw, []byte(k)) {
			t.Errorf("status JSON lacks %s: %s", k, raw)
		}
	}

	// The next pull asks with the checksum held and gets a 304.
	etag := `"` + meta.ChecksumSHA256 + `"`
	testkit.Eventually(t, 30*time.Second, "a pull answered 304", func() bool {
		for _, ex := range f.tr.matching(pathPull) {
			if ex.Status == http.StatusNotModified && ex.IfNoneMatch == etag && ex.Format == "binary" {
				return true
			}
		}
		return false
	})
	if n := f.pkgs.count(); n != 1 {
		t.Fatalf("OnPackage called %d times for an unchanged package", n)
	}

	// A new exam makes a new package, which is pulled.
	second := createExam(t, f.svc, "Fisika", 0)
	p2, meta2 := f.pkgs.wait(t, 2)
	if len(p2.Exams) != 2 || meta2.ChecksumSHA256 == meta.ChecksumSHA256 || !slices.ContainsFunc(p2.Exams, func(e client.PackageExam) bool { return e.ID == second }) {
		t.Fatalf("second package: %d exams, meta %+v", len(p2.Exams), meta2)
	}
	if st := s.Status(); st.PackageChecksum != meta2.ChecksumSHA256 {
		t.Fatalf("status names package %s, want %s", st.PackageChecksum, meta2.ChecksumSHA256)
	}

	// Restarted without the portal, labagent serves the package it holds.
	stop()
	f.reopenDB()
	f.tr.down.Store(true)
	f.pkgs = &packages{}
	s2 := f.syncer()
	f.run(s2)
	p3, meta3 := f.pkgs.wait(t, 1)
	if meta3.ChecksumSHA256 != meta2.ChecksumSHA256 || len(p3.Exams) != 2 {
		t.Fatalf("package at start: meta %+v, %d exams", meta3, len(p3.Exams))
	}
	testkit.Eventually(t, 30*time.Second, "the status to say offline", func() bool {
		st := s2.Status()
		return st.State == agent.SyncOffline && strings.Contains(st.LastError, errNetworkDown.Error())
	})
	if st := s2.Status(); st.LicenseID != f.lic.ID || st.PackageChecksum != meta2.ChecksumSHA256 || st.LastHandshakeAt.IsZero() {
		t.Fatalf("status after restart lost the persisted state: %+v", st)
	}
}

func TestSyncerResumesCutDownload(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	wide := createWideExams(t, f.svc, 4, 800) // a package of several 256 KiB chunks
	const cut = 300_000
	f.tr.cutAt.Store(cut)
	s := f.syncer()
	f.run(s)

	p, meta := f.pkgs.wait(t, 1)
	if meta.Size < 700<<10 || len(p.Exams) != 5 || !slices.ContainsFunc(p.Exams, func(e client.PackageExam) bool {
		return e.ID == wide[3] && len(e.Questions) == 800 && e.Questions[799].Text == "Pertanyaan 799"
	}) {
		t.Fatalf("package of %d bytes with %d exams", meta.Size, len(p.Exams))
	}
	checkResumed(t, f.tr.matching(pathPull), cut, meta.ChecksumSHA256)
}

func TestSyncerResumesDownloadAfterRestart(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	createWideExams(t, f.svc, 4, 800)
	const cut = 300_000
	f.tr.cutAt.Store(cut)
	f.tr.downAfterCut.Store(true)
	s := f.syncer()
	stop := f.run(s)
	testkit.Eventually(t, 30*time.Second, "the cut download to be recorded", func() bool {
		dl, found, err := f.db.Download()
		return err == nil && found && dl.Received == cut
	})
	if st := s.Status(); st.DownloadReceived != cut || st.DownloadSize < 700<<10 {
		t.Fatalf("status of the cut download: %+v", st)
	}
	stop()
	if f.pkgs.count() != 0 {
		t.Fatal("a cut download was handed to OnPackage")
	}

	f.reopenDB()
	f.tr.down.Store(false)
	s2 := f.syncer()
	f.run(s2)
	_, meta := f.pkgs.wait(t, 1)
	checkResumed(t, f.tr.matching(pathPull), cut, meta.ChecksumSHA256)
	if _, found, _ := f.db.Download(); found {
		t.Fatal("the download record outlived the swap")
	}
}

// checkResumed checks that the first package download was cut and the
// second resumed after the bytes received.
func checkResumed(t *testing.T, pulls []exchange, cut int, checksum string) {
	t.Helper()
	if len(pulls) < 2 {
		t.Fatalf("pulls: %+v", pulls)
	}
	first, second := pulls[0], pulls[1]
	if first.Status != http.StatusOK || first.Range != "" {
		t.Fatalf("first pull: %+v", first)
	}
	want := fmt.Sprintf("bytes=%d-", cut)
	if second.Range != want || second.IfRange != `"`+checksum+`"` || second.Status != http.StatusPartialContent {
		t.Fatalf("second pull = %+v, want Range %q with If-Range of the package, answered 206", second, want)
	}
}

func TestSyncerRefusesCorruptPackage(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	s := f.syncer()
	f.run(s)
	_, meta := f.pkgs.wait(t, 1)

	f.tr.corrupt.Store(true)
	createExam(t, f.svc, "Kimia", 0)
	testkit.Eventually(t, 30*time.Second, "the corrupt package to be refused", func() bool {
		return strings.Contains(s.Status().LastError, "package refused")
	})
	if info, err := f.db.PackageInfo(); err != nil || info.ChecksumSHA256 != meta.ChecksumSHA256 {
		t.Fatalf("package held = %+v, %v; want the old one", info, err)
	}
	if p, _, err := s.LoadLocalPackage(); err != nil || len(p.Exams) != 1 {
		t.Fatalf("local package after a refusal: %v, %v", p, err)
	}
	if n := f.pkgs.count(); n != 1 {
		t.Fatalf("OnPackage called %d times", n)
	}

	f.tr.corrupt.Store(false)
	p2, _ := f.pkgs.wait(t, 2)
	if len(p2.Exams) != 2 {
		t.Fatalf("package after the corruption ended: %d exams", len(p2.Exams))
	}
	testkit.Eventually(t, 30*time.Second, "the refusal to be cleared", func() bool { return s.Status().LastError == "" })
}
