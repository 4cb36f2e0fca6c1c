//go:build !windows

package agent_test

import (
	"context"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/testkit"
)

func TestSyncerHeartbeat(t *testing.T) {
	f := newFixture(t, fixtureOptions{portal: exam.Config{HeartbeatInterval: time.Second}})
	lab := &fakeLab{}
	lab.students.Store(3)
	lab.exams.Store(1)
	// Two answers wait while pushes fail: the heartbeat reports them.
	saveAnswers(t, f.db, f.examID, f.students[0], map[string]string{"q1": "b", "q2": "false"})
	f.tr.failPushes.Store(true)
	s := f.syncer(func(o *agent.SyncerOptions) { o.PullInterval = time.Minute })
	s.SetLab(lab)
	f.run(s)

	monitor := func() exam.Monitor {
		ms, err := f.svc.ListMonitors(context.Background(), testNPSN, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) != 1 {
			return exam.Monitor{}
		}
		return ms[0]
	}
	testkit.Eventually(t, 30*time.Second, "a heartbeat", func() bool {
		m := monitor()
		return m.ServerCode == "LAB-01" && m.ConnectedStudents == 3 && m.ActiveExamsCount == 1 && m.ClientVersion == "test-1.0" &&
			m.PendingAnswers == 2
	})
	// The interval the portal asks for (1 s) is kept; once the pushes go
	// through, nothing is reported pending.
	lab.students.Store(5)
	f.tr.failPushes.Store(false)
	testkit.Eventually(t, 30*time.Second, "a heartbeat with the new figures", func() bool {
		m := monitor()
		return m.ConnectedStudents == 5 && m.Status == exam.StatusOnline && m.PendingAnswers == 0
	})
	if st := s.Status(); st.HeartbeatIntervalSeconds != 1 || st.LastHeartbeatAt.IsZero() {
		t.Fatalf("heartbeat in status: %+v", st)
	}
}
