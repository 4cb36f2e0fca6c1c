//go:build !windows

package agent_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/pkg/client"
)

func TestSyncerPushNow(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	s := f.syncer(func(o *agent.SyncerOptions) { o.PushBatchSize = 2 })
	saveAnswers(t, f.db, f.examID, f.students[0], map[string]string{"q1": "b", "q2": "false"})
	saveAnswers(t, f.db, f.examID, f.students[1], map[string]string{"q1": "a"})
	if n := pending(t, f.db); n != 3 {
		t.Fatalf("pending = %d", n)
	}

	res, err := s.PushNow(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if res.Batches != 2 || res.Answers != 3 || res.Duplicates != 0 || res.Pending != 0 || res.LastSyncID == "" {
		t.Fatalf("PushNow = %+v", res)
	}
	if n := pending(t, f.db); n != 0 {
		t.Fatalf("pending after push = %d", n)
	}
	results := memberResults(t, f.svc, f.examID)
	if r := results[f.students[0]]; r.Answered != 2 || r.Correct != 2 {
		t.Errorf("portal results of student 0: %+v", r)
	}
	if r := results[f.students[1]]; r.Answered != 1 || r.Correct != 0 {
		t.Errorf("portal results of student 1: %+v", r)
	}
	st := s.Status()
	if st.PendingAnswers != 0 || st.LastSyncID != res.LastSyncID || st.LastReceipt == nil || st.LastReceipt.Records != 1 || st.LastPushAt.IsZero() {
		t.Fatalf("status after push: %+v (receipt %+v)", st, st.LastReceipt)
	}

	// Nothing pending: nothing sent.
	before := len(f.tr.matching(pathPush))
	if res, err := s.PushNow(t.Context()); err != nil || res.Batches != 0 {
		t.Fatalf("empty PushNow = %+v, %v", res, err)
	}
	if n := len(f.tr.matching(pathPush)); n != before {
		t.Fatalf("an empty push sent %d requests", n-before)
	}
}

func TestSyncerPushIsExactlyOnce(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	f.tr.dropPushes.Store(1)
	s := f.syncer()
	f.run(s)
	f.pkgs.wait(t, 1)

	saveAnswers(t, f.db, f.examID, f.students[0], map[string]string{"q1": "b", "q2": "true", "q3": "a² + b² = c²"})
	s.Kick()
	testkit.Eventually(t, 30*time.Second, "the answers to be acknowledged", func() bool { return pending(t, f.db) == 0 })

	pushes := f.tr.matching(pathPush)
	if len(pushes) != 2 || pushes[0].IdempotencyKey == "" || pushes[1].IdempotencyKey != pushes[0].IdempotencyKey ||
		pushes[0].Status != http.StatusOK || pushes[1].Status != http.StatusOK {
		t.Fatalf("pushes: %+v", pushes)
	}
	logs, err := f.svc.ListSyncLogs(t.Context(), exam.SyncLogFilter{ServerCode: "LAB-01"})
	if err != nil {
		t.Fatal(err)
	}
	outcomes := map[exam.SyncOutcome]int{}
	for _, l := range logs {
		if l.Action == exam.ActionPushResults {
			if l.IdempotencyKey != pushes[0].IdempotencyKey {
				t.Errorf("sync log of another key: %+v", l)
			}
			outcomes[l.Outcome]++
		}
	}
	if outcomes[exam.OutcomeAccepted] != 1 || outcomes[exam.OutcomeDuplicate] != 1 || len(outcomes) != 2 {
		t.Fatalf("push outcomes in the sync log: %v", outcomes)
	}
	if r := memberResults(t, f.svc, f.examID)[f.students[0]]; r.Answered != 3 || r.Correct != 1 {
		t.Fatalf("portal results: %+v", r)
	}
	if st := s.Status(); st.LastReceipt == nil || !st.LastReceipt.Duplicate || st.LastReceipt.IdempotencyKey != pushes[0].IdempotencyKey {
		t.Fatalf("last receipt: %+v", st.LastReceipt)
	}
}

func TestSyncerPortalDownThenBack(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	s := f.syncer()
	f.run(s)
	f.pkgs.wait(t, 1)

	f.portal.Stop()
	saveAnswers(t, f.db, f.examID, f.students[1], map[string]string{"q1": "b"})
	s.Kick()
	testkit.Eventually(t, 30*time.Second, "the status to say offline", func() bool {
		st := s.Status()
		return st.State == agent.SyncOffline && st.LastError != ""
	})
	if n := pending(t, f.db); n != 1 {
		t.Fatalf("pending while the portal is down = %d", n)
	}

	f.portal.Start()
	testkit.Eventually(t, 30*time.Second, "the answers to arrive", func() bool { return pending(t, f.db) == 0 })
	if r := memberResults(t, f.svc, f.examID)[f.students[1]]; r.Answered != 1 || r.Correct != 1 {
		t.Fatalf("portal results: %+v", r)
	}
	testkit.Eventually(t, 30*time.Second, "the status to say online", func() bool { return s.Status().State != agent.SyncOffline })
}

func TestSyncerKeepsRefusedBatch(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	s := f.syncer()
	saveAnswers(t, f.db, "no-such-exam", f.students[0], map[string]string{"q1": "b"})
	for range 2 {
		_, err := s.PushNow(t.Context())
		if !errors.Is(err, &client.Error{Code: client.CodeUnknownExam}) {
			t.Fatalf("PushNow error = %v, want %s", err, client.CodeUnknownExam)
		}
	}
	if n := pending(t, f.db); n != 1 {
		t.Fatalf("pending after a refusal = %d, want the batch kept", n)
	}
	if bs, err := f.db.Batches(); err != nil || len(bs) != 1 {
		t.Fatalf("batches = %+v, %v", bs, err)
	}
	pushes := f.tr.matching(pathPush)
	if len(pushes) != 2 || pushes[0].IdempotencyKey != pushes[1].IdempotencyKey || pushes[0].Status != http.StatusUnprocessableEntity {
		t.Fatalf("pushes: %+v", pushes)
	}
	if st := s.Status(); !strings.Contains(st.LastError, client.CodeUnknownExam) || st.LastErrorAt.IsZero() {
		t.Fatalf("status after a refused batch: %+v", st)
	}
}

// TestSyncerLastContactIsThePush: answers pushed minutes after the
// handshake make the push the last contact with the portal, at its time
// (the handshake's time stays as it was), and a restart reads it back from
// the state file.
func TestSyncerLastContactIsThePush(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	s, st := pushAfterHandshake(t, f, 7*time.Minute)
	if st.LastContactKind != "push" || st.LastContactAt.Sub(st.LastHandshakeAt) < 7*time.Minute ||
		st.LastContactAt.Sub(st.LastHandshakeAt) > 8*time.Minute {
		t.Fatalf("last contact %v %q, handshake %v: want the push, 7 minutes later", st.LastContactAt, st.LastContactKind, st.LastHandshakeAt)
	}
	if now := s.Now(); now.Sub(st.LastContactAt) > time.Minute {
		t.Fatalf("last contact %v, a minute before now %v", st.LastContactAt, now)
	}
	if got := f.syncer().Status(); !got.LastContactAt.Equal(st.LastContactAt) || got.LastContactKind != "push" {
		t.Fatalf("after a restart the last contact is %v %q, want %v push", got.LastContactAt, got.LastContactKind, st.LastContactAt)
	}
}

// pushAfterHandshake makes f's lab server handshake and push an answer,
// then, after its clock moved on by later, push another (without a
// handshake); it returns the Syncer and its status.
func pushAfterHandshake(t *testing.T, f *fixture, later time.Duration) (*agent.Syncer, agent.SyncStatus) {
	t.Helper()
	clock := testkit.NewClock(time.Now())
	s := f.syncer(func(o *agent.SyncerOptions) { o.Now = clock.Now })
	if st := s.Status(); !st.LastContactAt.IsZero() || st.LastContactKind != "" {
		t.Fatalf("last contact before any: %v %q", st.LastContactAt, st.LastContactKind)
	}
	saveAnswers(t, f.db, f.examID, f.students[0], map[string]string{"q1": "b"})
	if _, err := s.PushNow(t.Context()); err != nil {
		t.Fatal(err)
	}
	first := s.Status()
	if first.LastHandshakeAt.IsZero() || first.LastContactKind != "push" || first.LastContactAt.Before(first.LastHandshakeAt) {
		t.Fatalf("after the handshake and a push: handshake %v, last contact %v %q", first.LastHandshakeAt, first.LastContactAt, first.LastContactKind)
	}
	clock.Add(later)
	saveAnswers(t, f.db, f.examID, f.students[1], map[string]string{"q1": "a"})
	if res, err := s.PushNow(t.Context()); err != nil || res.Answers != 1 {
		t.Fatalf("push %v later: %+v, %v", later, res, err)
	}
	st := s.Status()
	if !st.LastHandshakeAt.Equal(first.LastHandshakeAt) {
		t.Fatalf("the push handshook again: %v, then %v", first.LastHandshakeAt, st.LastHandshakeAt)
	}
	return s, st
}
