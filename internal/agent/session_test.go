//go:build !windows

package agent_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/pkg/client"
)

func TestSyncerLicenceRefused(t *testing.T) {
	t.Run("no token", func(t *testing.T) {
		f := newFixture(t, fixtureOptions{})
		if _, err := f.svc.RevokeLicense(t.Context(), f.lic.ID); err != nil {
			t.Fatal(err)
		}
		s := f.syncer()
		f.run(s)
		testkit.Eventually(t, 30*time.Second, "the refusal to be recorded", func() bool {
			st := s.Status()
			return st.State == agent.SyncOffline && strings.Contains(st.LastError, client.CodeLicenseRevoked)
		})
		// The status is set just before the log line is written.
		testkit.Eventually(t, 30*time.Second, "the refusal to be logged as an error", func() bool {
			return strings.Contains(f.logs.String(), "level=ERROR") && strings.Contains(f.logs.String(), client.CodeLicenseRevoked)
		})
		if f.pkgs.count() != 0 || len(f.tr.matching(pathPull)) != 0 {
			t.Fatal("pulled without a handshake")
		}
	})

	t.Run("held package and token", func(t *testing.T) {
		f := newFixture(t, fixtureOptions{})
		stop := f.run(f.syncer())
		_, meta := f.pkgs.wait(t, 1)
		stop()
		if _, err := f.svc.RevokeLicense(t.Context(), f.lic.ID); err != nil {
			t.Fatal(err)
		}

		f.pkgs = &packages{}
		s := f.syncer(func(o *agent.SyncerOptions) { o.SlowRetry = time.Hour })
		f.run(s)
		if _, m := f.pkgs.wait(t, 1); m.ChecksumSHA256 != meta.ChecksumSHA256 {
			t.Fatalf("package at start %+v", m)
		}
		testkit.Eventually(t, 30*time.Second, "the refusal to be recorded", func() bool {
			return strings.Contains(s.Status().LastError, client.CodeLicenseRevoked)
		})
		// The access token still valid keeps the sync going, and the
		// handshake is not retried at each call.
		pulls := len(f.tr.matching(pathPull))
		testkit.Eventually(t, 30*time.Second, "more pulls", func() bool { return len(f.tr.matching(pathPull)) >= pulls+5 })
		if n := len(f.tr.matching(pathVerify)); n != 2 {
			t.Fatalf("%d handshakes, want 2 (one per run)", n)
		}
	})
}

func TestSyncerClockSkewAndLicenceExpiry(t *testing.T) {
	f := newFixture(t, fixtureOptions{licenceDays: 3})
	const behind = 90 * time.Minute
	local := func() time.Time { return time.Now().Add(-behind) }
	s := f.syncer(func(o *agent.SyncerOptions) { o.Now = local })
	if _, err := s.PushNow(t.Context()); err != nil { // nothing to push: no handshake
		t.Fatal(err)
	}
	saveAnswers(t, f.db, f.examID, f.students[0], map[string]string{"q1": "b"})
	if _, err := s.PushNow(t.Context()); err != nil {
		t.Fatal(err)
	}
	st := s.Status()
	if d := time.Duration(st.ClockSkewMS)*time.Millisecond - behind; d < -10*time.Second || d > 10*time.Second {
		t.Fatalf("clock skew %d ms, want about %v", st.ClockSkewMS, behind)
	}
	if d := time.Until(s.Now()); d < -10*time.Second || d > 10*time.Second {
		t.Fatalf("Now() is %v off the portal's clock", d)
	}
	if !st.LicenseExpiresSoon {
		t.Fatalf("a licence expiring in 3 days is not reported: %+v", st)
	}
	if !strings.Contains(f.logs.String(), "licence expires soon") {
		t.Fatal("no warning logged for a licence expiring in 3 days")
	}
	// The skew survives a restart.
	s2 := f.syncer(func(o *agent.SyncerOptions) { o.Now = local })
	if d := time.Until(s2.Now()); d < -10*time.Second || d > 10*time.Second {
		t.Fatalf("after a restart Now() is %v off the portal's clock", d)
	}
}

func TestSyncerRenewsRefusedToken(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	s := f.syncer()
	saveAnswers(t, f.db, f.examID, f.students[0], map[string]string{"q1": "b"})
	if _, err := s.PushNow(t.Context()); err != nil {
		t.Fatal(err)
	}
	// Spoil the stored token: the next run starts with a token the portal
	// refuses.
	var state map[string]any
	if found, err := f.db.GetMeta(agent.MetaSyncState, &state); err != nil || !found || state["access_token"] == "" {
		t.Fatalf("sync state = %v, %v", state, err)
	}
	state["access_token"] = "not-a-token"
	if err := f.db.PutMeta(t.Context(), agent.MetaSyncState, state); err != nil {
		t.Fatal(err)
	}
	s2 := f.syncer()
	saveAnswers(t, f.db, f.examID, f.students[1], map[string]string{"q1": "b"})
	res, err := s2.PushNow(t.Context())
	if err != nil || res.Answers != 1 {
		t.Fatalf("PushNow = %+v, %v", res, err)
	}
	pushes := f.tr.matching(pathPush)
	if len(pushes) != 3 || pushes[1].Status != http.StatusUnauthorized || pushes[1].Authorization != "Bearer not-a-token" || pushes[2].Status != http.StatusOK {
		t.Fatalf("pushes: %+v", pushes)
	}
	if n := len(f.tr.matching(pathVerify)); n != 2 {
		t.Fatalf("%d handshakes, want 2", n)
	}
}
