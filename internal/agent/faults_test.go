//go:build !windows

package agent_test

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/faultproxy"
)

// Tunings of TestSyncerSurvivesFaults, short so that a scenario lasts a
// few seconds (the defaults: RetryMin 1 s, RetryMax 1 min, SlowRetry
// 10 min, heartbeat 60 s, HTTP retry waits 0.5 to 5 s).
const (
	faultRetryMin    = 50 * time.Millisecond
	faultRetryMax    = 500 * time.Millisecond
	faultSlowRetry   = 2 * time.Second
	faultHeartbeat   = time.Second // the portal's heartbeat interval
	faultHTTPTimeout = time.Second // one attempt of the HTTP client
	faultHTTPRetries = 2           // NewHTTPClient's RetryMax
	// faultEventually bounds every wait for something that must happen.
	faultEventually = 60 * time.Second
)

// faultScenario is one way the portal misbehaves.
type faultScenario struct {
	name  string
	fault faultproxy.Fault
	// retryAfter: the portal asked to wait; every attempt on a path must
	// come at or after the time the previous answer on it asked for.
	retryAfter bool
	// pace is the least wait between two calls of one loop while the fault
	// lasts (0: the exponential backoff's), for the bound on attempts.
	pace time.Duration
	// stored: the portal stores the pushes whose answer the fault spoils,
	// so labagent pushes a batch the portal has; it must be deduplicated.
	stored bool
}

// TestSyncerSurvivesFaults puts labagent's syncer (with the production HTTP
// client, NewHTTPClient, its waits shortened) behind a fault-injecting proxy
// in front of a real portal. Each scenario: the portal works and the lab
// syncs; the fault starts and students keep saving; the proxy counts what
// labagent sends; the portal heals; then every answer saved must be in the
// local store and stored on the portal exactly once, and labagent must have
// backed off (an upper bound on the attempts the proxy saw) and honoured
// Retry-After.
func TestSyncerSurvivesFaults(t *testing.T) {
	jsonErr := []byte(`{"success": false, "error": "internal error", "code": "INTERNAL"}`)
	html := []byte("<!DOCTYPE html><html><head><title>Login Wi-Fi</title></head><body><form>...</form></body></html>")
	scenarios := []faultScenario{
		{name: "slow beyond the client timeout, handled by the portal",
			fault: faultproxy.Fault{Kind: faultproxy.Slow, Forward: true, Delay: time.Minute}, stored: true},
		{name: "slow beyond the client timeout, never reaching the portal",
			fault: faultproxy.Fault{Kind: faultproxy.Slow, Delay: time.Minute}},
		{name: "connection dropped mid-request",
			fault: faultproxy.Fault{Kind: faultproxy.CutRequest}},
		{name: "connection dropped mid-response",
			fault: faultproxy.Fault{Kind: faultproxy.CutResponse}, stored: true},
		{name: "500",
			fault: faultproxy.Fault{Kind: faultproxy.Respond, Status: http.StatusInternalServerError, ContentType: "application/json", Body: jsonErr}},
		{name: "502 HTML page after the portal handled it",
			fault: faultproxy.Fault{Kind: faultproxy.Respond, Forward: true, Status: http.StatusBadGateway, ContentType: "text/html", Body: html}, stored: true},
		{name: "429 with Retry-After seconds",
			fault: faultproxy.Fault{Kind: faultproxy.Respond, Status: http.StatusTooManyRequests, ContentType: "application/json",
				Body:       []byte(`{"success": false, "error": "slow down", "code": "RATE_LIMITED"}`),
				RetryAfter: func(time.Time) string { return "1" }},
			retryAfter: true, pace: time.Second},
		{name: "429 with Retry-After HTTP date",
			fault: faultproxy.Fault{Kind: faultproxy.Respond, Status: http.StatusTooManyRequests,
				RetryAfter: func(now time.Time) string {
					// A whole second at least 1 s away (the format has no fraction).
					return now.Add(2 * time.Second).UTC().Truncate(time.Second).Format(http.TimeFormat)
				}},
			retryAfter: true, pace: time.Second},
		{name: "429 with a Retry-After of an hour",
			// Waited out up to SlowRetry (10 minutes by default), not an hour.
			fault: faultproxy.Fault{Kind: faultproxy.Respond, Status: http.StatusTooManyRequests,
				RetryAfter: func(time.Time) string { return "3600" }},
			pace: faultSlowRetry},
		{name: "invalid JSON",
			fault: faultproxy.Fault{Kind: faultproxy.Respond, ContentType: "application/json", Body: []byte(`{"sync_id": "x", "duplicate": fal`)}},
		{name: "200 HTML page",
			fault: faultproxy.Fault{Kind: faultproxy.Respond, ContentType: "text/html; charset=utf-8", Body: html}},
		{name: "truncated JSON after the portal handled it",
			fault: faultproxy.Fault{Kind: faultproxy.Truncate}, stored: true},
		{name: "wrong content type on the portal's answers",
			fault: faultproxy.Fault{Kind: faultproxy.Retype, ContentType: "text/plain; charset=iso-8859-1"}},
		{name: "200 with an empty JSON object",
			fault: faultproxy.Fault{Kind: faultproxy.Respond, ContentType: "application/json", Body: []byte(`{}`)}},
		{name: "200 with an empty body",
			fault: faultproxy.Fault{Kind: faultproxy.Respond, ContentType: "application/json"}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			runFaultScenario(t, sc)
		})
	}
}

// faultHTTPClient is NewHTTPClient with its retry waits shortened and a
// short timeout per attempt.
func faultHTTPClient(t *testing.T, logger *slog.Logger) *http.Client {
	t.Helper()
	hc := agent.NewHTTPClient(logger)
	rt, ok := hc.Transport.(*retryablehttp.RoundTripper)
	if !ok {
		t.Fatalf("NewHTTPClient's transport is a %T, want a go-retryablehttp RoundTripper", hc.Transport)
	}
	if rt.Client.RetryMax != faultHTTPRetries {
		t.Fatalf("NewHTTPClient retries %d times, the bounds here assume %d", rt.Client.RetryMax, faultHTTPRetries)
	}
	rt.Client.RetryWaitMin, rt.Client.RetryWaitMax = 20*time.Millisecond, 200*time.Millisecond
	rt.Client.HTTPClient.Timeout = faultHTTPTimeout
	t.Cleanup(rt.Client.HTTPClient.CloseIdleConnections)
	return hc
}

// students saving answers, and what they saved.
type faultLab struct {
	t      *testing.T
	db     *localdb.DB
	examID string
	saves  int                          // SaveAnswer calls acknowledged
	want   map[string]map[string]string // member -> question -> last answer
}

func (l *faultLab) save(member, question, answer string) {
	l.t.Helper()
	if _, err := l.db.SaveAnswer(context.Background(), l.examID, member, question, answer, time.Now().UTC()); err != nil {
		l.t.Fatalf("save %s/%s: %v", member, question, err)
	}
	l.saves++
	if l.want[member] == nil {
		l.want[member] = map[string]string{}
	}
	l.want[member][question] = answer
}

func runFaultScenario(t *testing.T, sc faultScenario) {
	f := newFixture(t, fixtureOptions{portal: exam.Config{HeartbeatInterval: faultHeartbeat}})
	proxy := faultproxy.New(t, f.portal.URL)
	f.cfg.PortalURL = proxy.URL
	logger := slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s := f.syncer(func(o *agent.SyncerOptions) {
		o.HTTPClient = faultHTTPClient(t, logger)
		o.PullInterval = time.Second
		o.PushInterval = 200 * time.Millisecond
		o.PushDelay = 10 * time.Millisecond
		o.RetryMin, o.RetryMax, o.SlowRetry = faultRetryMin, faultRetryMax, faultSlowRetry
	})
	lab := &faultLab{t: t, db: f.db, examID: f.examID, want: map[string]map[string]string{}}
	now := time.Now().UTC()
	for _, m := range f.students {
		if _, err := f.db.StartAttempt(t.Context(), localdb.Attempt{ExamID: f.examID, MemberID: m, StartedAt: now, Deadline: now.Add(2 * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	f.run(s)

	// The portal works: the lab pulls its package and pushes.
	testkit.Eventually(t, faultEventually, "the package to be pulled", func() bool { return f.pkgs.count() >= 1 })
	lab.save(f.students[0], "q1", "a")
	s.Kick()
	testkit.Eventually(t, faultEventually, "the first answer to be pushed", func() bool { return pending(t, f.db) == 0 })
	pkg, err := f.db.PackageInfo()
	if err != nil {
		t.Fatal(err)
	}

	// The portal misbehaves while the students carry on.
	mark := proxy.Mark()
	start := time.Now()
	proxy.Set(sc.fault)
	plan := []struct{ member, question, answer string }{
		{f.students[0], "q2", "true"},
		{f.students[1], "q1", "b"},
		{f.students[0], "q1", "b"}, // a change of mind
		{f.students[1], "q3", "Sisi miring kuadrat sama dengan jumlah kuadrat sisi lainnya."},
		{f.students[1], "q2", "false"},
		{f.students[0], "q3", "a² + b² = c²"},
	}
	for _, p := range plan {
		lab.save(p.member, p.question, p.answer)
		s.Kick()
		time.Sleep(150 * time.Millisecond)
	}
	testkit.Eventually(t, faultEventually, "three pushes to meet the fault", func() bool {
		n := 0
		for _, a := range proxy.Since(mark) {
			if a.Path == pathPush {
				n++
			}
		}
		return n >= 3
	})
	proxy.Heal()
	elapsed := time.Since(start)
	faulted := proxy.Since(mark)
	if sc.fault.Kind != faultproxy.Retype { // a lab that pushed through a fault would lose answers
		if n := pending(t, f.db); n == 0 {
			t.Errorf("nothing pending after %s of %s", elapsed.Round(time.Millisecond), sc.fault.Kind)
		}
	}

	// The portal behaves again: labagent catches up.
	testkit.Eventually(t, faultEventually, "every answer to reach the portal", func() bool { return pending(t, f.db) == 0 })
	testkit.Eventually(t, faultEventually, "the status to be online with no error", func() bool {
		st := s.Status()
		return st.State != agent.SyncOffline && st.LastError == ""
	})
	if after, err := f.db.PackageInfo(); err != nil || after.ChecksumSHA256 != pkg.ChecksumSHA256 || f.pkgs.count() != 1 {
		t.Errorf("package after the fault: %+v, %v (%d loaded), want the one pulled before: %+v", after, err, f.pkgs.count(), pkg)
	}

	checkBackoff(t, sc, faulted, elapsed)
	checkAnswers(t, f, lab, sc.stored)
	if t.Failed() {
		for _, a := range faulted {
			t.Logf("attempt %s %s %s key=%s forwarded=%v status=%d not_before=%s", a.At.Format("15:04:05.000"), a.Kind, a.Path,
				a.IdempotencyKey, a.Forwarded, a.Status, a.NotBefore.Format("15:04:05.000"))
		}
	}
}

// checkBackoff bounds the attempts the proxy saw during the fault, per
// path, and checks that no attempt came before the Retry-After of the
// previous answer on its path.
func checkBackoff(t *testing.T, sc faultScenario, attempts []faultproxy.Attempt, elapsed time.Duration) {
	t.Helper()
	byPath := map[string][]faultproxy.Attempt{}
	for _, a := range attempts {
		byPath[a.Path] = append(byPath[a.Path], a)
	}
	// One call of a loop makes at most 1+faultHTTPRetries attempts of the
	// HTTP client, each of which Go's transport may send twice (a request
	// with an Idempotency-Key is replayed on a connection closed before it
	// was answered).
	perCall := 2 * (1 + faultHTTPRetries)
	for path, as := range byPath {
		var calls int
		switch {
		case path == pathHeartbeat:
			// Every interval (and once more after a handshake).
			calls = int(elapsed/max(faultHeartbeat, sc.pace)) + 2
		case sc.pace > 0:
			calls = int(elapsed/sc.pace) + 2
		default:
			// The backoff waits at least half its delay: RetryMin/2,
			// RetryMin, ... then RetryMax/2 each time.
			calls = 2
			for d := faultRetryMin; d < faultRetryMax; d *= 2 {
				calls++
			}
			calls += int(elapsed / (faultRetryMax / 2))
		}
		if limit := calls * perCall; len(as) > limit {
			t.Errorf("%d attempts on %s in %s, want at most %d: labagent does not back off", len(as), path, elapsed.Round(time.Millisecond), limit)
		}
		if !sc.retryAfter {
			continue
		}
		for i := 1; i < len(as); i++ {
			if nb := as[i-1].NotBefore; !nb.IsZero() && as[i].At.Before(nb) {
				t.Errorf("attempt on %s at %s, %s before the Retry-After of the previous answer (%s)", path,
					as[i].At.Format("15:04:05.000"), nb.Sub(as[i].At).Round(time.Millisecond), nb.Format("15:04:05.000"))
			}
		}
	}
}

// checkAnswers checks that every answer saved is in the local store and
// stored on the portal exactly once.
func checkAnswers(t *testing.T, f *fixture, lab *faultLab, wantDuplicate bool) {
	t.Helper()
	for _, m := range f.students {
		local, err := f.db.Answers(f.examID, m)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for q, a := range local {
			got[q] = a.Answer
		}
		if want := lab.want[m]; !maps.Equal(got, want) && (len(got) > 0 || len(want) > 0) {
			t.Errorf("local answers of %s = %v, want %v", m, got, want)
		}
	}

	stored := map[string]map[string]string{}
	rows := 0
	err := f.svc.WalkAnswers(t.Context(), exam.AnswerQuery{ExamID: f.examID}, func(a exam.StoredAnswer) error {
		rows++
		if stored[a.MemberID] == nil {
			stored[a.MemberID] = map[string]string{}
		}
		stored[a.MemberID][a.QuestionID] = a.Answer.Answer
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, qs := range lab.want {
		want += len(qs)
	}
	if rows != want || !maps.EqualFunc(stored, lab.want, maps.Equal) {
		t.Errorf("answers on the portal (%d rows) = %v, want what the students saved: %v", rows, stored, lab.want)
	}

	logs, err := f.svc.ListSyncLogs(t.Context(), exam.SyncLogFilter{ServerCode: f.cfg.ServerCode, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	accepted := map[string]int{}
	records, duplicates := 0, 0
	var outcomes []string
	for _, l := range logs {
		if l.Action != exam.ActionPushResults {
			continue
		}
		outcomes = append(outcomes, fmt.Sprintf("%s %s %d", l.IdempotencyKey, l.Outcome, l.RecordCount))
		switch l.Outcome {
		case exam.OutcomeAccepted:
			accepted[l.IdempotencyKey]++
			records += l.RecordCount
		case exam.OutcomeDuplicate:
			duplicates++
		case exam.OutcomeRejected:
			t.Errorf("the portal rejected a push: %+v", l)
		}
	}
	for key, n := range accepted {
		if n != 1 {
			t.Errorf("batch %s stored %d times", key, n)
		}
	}
	slices.Sort(outcomes)
	if records != lab.saves {
		t.Errorf("the portal stored %d answer records, the students saved %d answers; pushes: %v", records, lab.saves, outcomes)
	}
	if wantDuplicate && duplicates == 0 {
		t.Errorf("no push was deduplicated, though the portal stored pushes labagent never got the receipt of; pushes: %v", outcomes)
	}
	t.Logf("%d answers saved, %d pushes accepted, %d deduplicated", lab.saves, len(accepted), duplicates)
}
