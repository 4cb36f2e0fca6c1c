//go:build loadtest

package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/internal/store/postgres"
	"github.com/seedhq/portal/pkg/client"
)

// The exam day: dayServers simulated lab servers, each at dayCompression
// times a real server's cadence (a heartbeat every 30 s, a push of its
// students' answers every minute, a package check every 5 minutes), so the
// run stands for dayServers*dayCompression real servers.
const (
	dayServers      = 1000
	dayCompression  = 10
	dayStudents     = 20 // students per server; each answers 2 questions per push
	dayQuestions    = 40
	dayHeartbeat    = 30 * time.Second / dayCompression
	dayPush         = time.Minute / dayCompression
	dayPullCheck    = 5 * time.Minute / dayCompression
	burstLinks      = 100 // links of the campaign
	burstConns      = 64  // keep-alive connections of the burst
	loadDurationEnv = "LOADTEST_DURATION"
)

// loadDuration is how long each timed run lasts: LOADTEST_DURATION, 60 s
// by default (long enough that no queue hides the steady state).
func loadDuration(t *testing.T) time.Duration {
	d := time.Minute
	if v := os.Getenv(loadDurationEnv); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			t.Fatalf("%s: %v", loadDurationEnv, err)
		}
	}
	return d
}

// fleet is one or more portal binaries on one PostgreSQL database.
type fleet struct {
	dbURL string
	bases []string // base URLs
	pids  []int
	next  atomic.Uint64
}

func startFleet(t *testing.T, bin string, n int) *fleet {
	return startFleetWith(t, bin, n, nil, nil)
}

// startFleetWith is startFleet with more flags of "portal serve" and more
// environment variables for every instance.
func startFleetWith(t *testing.T, bin string, n int, extraArgs, extraEnv []string) *fleet {
	f := &fleet{dbURL: pgtest.NewDatabase(t)}
	for i := range n {
		cmd, base := startPortalWith(t, bin, f.dbURL, filepath.Join(t.TempDir(), fmt.Sprint("data", i)), extraArgs, extraEnv)
		f.bases = append(f.bases, base)
		f.pids = append(f.pids, cmd.Process.Pid)
	}
	return f
}

// base returns the next instance's base URL in turn, as a round-robin load
// balancer would send the next request.
func (f *fleet) base() string { return f.bases[int(f.next.Add(1)-1)%len(f.bases)] }

// metrics returns the named metrics (without labels) summed over the
// instances' /metrics.
func (f *fleet) metrics(t *testing.T, names ...string) []float64 {
	sums := make([]float64, len(names))
	for _, base := range f.bases {
		resp, err := http.Get(base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for line := range strings.Lines(string(b)) {
			name, value, _ := strings.Cut(strings.TrimSpace(line), " ")
			if i := slices.Index(names, name); i >= 0 {
				v, _ := strconv.ParseFloat(value, 64)
				sums[i] += v
			}
		}
	}
	return sums
}

// cpuSeconds returns the CPU time used so far by the portal processes and
// by PostgreSQL (every postgres process, with the children its postmaster
// has reaped).
func (f *fleet) cpuSeconds() (portal, pg float64) {
	for _, pid := range f.pids {
		u, s, _, _ := procCPU(pid)
		portal += u + s
	}
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if strings.TrimSpace(string(comm)) != "postgres" {
			continue
		}
		u, s, cu, cs := procCPU(pid)
		pg += u + s + cu + cs
	}
	return portal, pg
}

// procCPU reads utime, stime, cutime and cstime of /proc/pid/stat in
// seconds.
func procCPU(pid int) (u, s, cu, cs float64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return
	}
	// Fields after the command name, which is in parentheses.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	tick := func(i int) float64 { v, _ := strconv.ParseFloat(f[i], 64); return v / 100 }
	return tick(11), tick(12), tick(13), tick(14)
}

// opStats gathers the latencies and failures of one kind of request.
type opStats struct {
	mu     sync.Mutex
	lat    []time.Duration
	failed int
	first  string
}

func (o *opStats) add(d time.Duration, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err != nil {
		if o.failed == 0 {
			o.first = err.Error()
		}
		o.failed++
		return
	}
	o.lat = append(o.lat, d)
}

func (o *opStats) result(t *testing.T, elapsed time.Duration) loadResult {
	return summarize(t, [][]time.Duration{o.lat}, elapsed)
}

// TestExamDay simulates an exam day through real portal binaries on one
// PostgreSQL database, with one and with three instances behind a
// round-robin balancer: every lab server hands shakes and pulls its
// school's package, then heartbeats, pushes its students' answers and
// checks for a new package at a realistic mix, open loop (latency from each
// request's scheduled time). Every answer acknowledged is then counted in
// the database, and the CPU the portals and PostgreSQL used gives the
// sizing of docs/operations.md.
func TestExamDay(t *testing.T) {
	defer printSummary()
	bin := buildPortal(t)
	for _, n := range []int{1, 3} {
		t.Run(fmt.Sprintf("instances=%d", n), func(t *testing.T) { runExamDay(t, bin, n) })
	}
}

func runExamDay(t *testing.T, bin string, instances int) {
	ctx := t.Context()
	f := startFleet(t, bin, instances)
	label := fmt.Sprintf("postgres, %d instance(s)", instances)

	// Licences and the exam, through the service on the same database (the
	// portals share its secrets).
	pg, err := postgres.Open(ctx, f.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	svc, err := exam.NewService(ctx, pg, exam.Config{TempDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	type labServer struct {
		code, npsn, hw, licence, token, etag string
		questions                            map[int]bool // questions pushed and acknowledged
	}
	servers := make([]*labServer, dayServers)
	npsns := make([]string, dayServers)
	for i := range servers {
		npsns[i] = fmt.Sprintf("4%07d", i)
		servers[i] = &labServer{code: fmt.Sprintf("DAY-%04d", i), npsn: npsns[i], hw: fmt.Sprintf("HW-DAY-%04d", i), questions: map[int]bool{}}
	}
	qs := make([]exam.Question, dayQuestions)
	for i := range qs {
		qs[i] = exam.Question{ID: fmt.Sprintf("q%02d", i), Type: exam.SingleChoice, Text: fmt.Sprintf("Soal %d", i+1), Points: 1,
			Options: []exam.Option{{ID: "a", Text: "A"}, {ID: "b", Text: "B"}}, Answer: []string{"a"}}
	}
	now := time.Now().UTC()
	ex, err := svc.CreateExam(ctx, exam.ExamInput{Title: "Ujian hari ini", Subject: "MTK", NPSNs: npsns,
		StartsAt: now.Add(-time.Hour), EndsAt: now.Add(23 * time.Hour), DurationMinutes: 120, Questions: qs})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var next atomic.Int64
	for range 8 {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < dayServers && !t.Failed(); i = int(next.Add(1)) - 1 {
				s := servers[i]
				lic, err := svc.GenerateLicense(ctx, exam.LicenseInput{NPSN: s.npsn, SchoolName: "Sekolah " + s.npsn,
					HardwareID: s.hw, MaxStudents: 500, DurationDays: 30, OperatingMode: "SEMI_OFFLINE"})
				if err != nil {
					t.Errorf("licence: %v", err)
					return
				}
				s.licence = lic.License.Token
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	hc := &http.Client{Transport: newTransport(dayServers), Timeout: 30 * time.Second}
	defer hc.CloseIdleConnections()
	// do sends one request to the next instance and checks its status.
	do := func(method, path, token string, body []byte, hdr map[string]string, want ...int) (*http.Response, []byte, error) {
		req, err := http.NewRequestWithContext(ctx, method, f.base()+"/api/v1"+path, bytes.NewReader(body))
		if err != nil {
			return nil, nil, err
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil && !slices.Contains(want, resp.StatusCode) {
			err = fmt.Errorf("%s %s: %d %.200s", method, path, resp.StatusCode, b)
		}
		return resp, b, err
	}

	ops := map[string]*opStats{"handshake": {}, "pull": {}, "heartbeat": {}, "push": {}, "pull check": {}}
	// The morning: every server hands shakes and pulls its school's package
	// (built at its first pull), the servers starting over one heartbeat
	// interval.
	start := time.Now()
	for i, s := range servers {
		wg.Go(func() {
			time.Sleep(time.Duration(i) * dayHeartbeat / dayServers)
			body, _ := json.Marshal(map[string]string{"server_code": s.code, "npsn": s.npsn, "hardware_id": s.hw, "license_token": s.licence})
			t0 := time.Now()
			_, b, err := do(http.MethodPost, "/sync/verify-server", "", body, nil, 200)
			if err == nil {
				var v struct {
					AccessToken string `json:"access_token"`
				}
				if err = json.Unmarshal(b, &v); err == nil {
					s.token = v.AccessToken
				}
			}
			ops["handshake"].add(time.Since(t0), err)
			if err != nil {
				return
			}
			t0 = time.Now()
			resp, _, err := do(http.MethodGet, "/sync/pull-questions?serverCode="+s.code, s.token, nil, nil, 200)
			if err == nil {
				s.etag = resp.Header.Get("ETag")
			}
			ops["pull"].add(time.Since(t0), err)
		})
	}
	wg.Wait()
	morning := time.Since(start)
	report("exam day: morning, every server has its package", label, fmt.Sprintf("%d servers in %s", dayServers, morning.Round(time.Millisecond)), "-", nil)
	for _, name := range []string{"handshake", "pull"} {
		reportOp(t, name, label, ops[name], morning)
	}
	if t.Failed() {
		return
	}

	// The day: heartbeats, pushes and package checks, each server on its
	// own schedule (open loop), for the run's length.
	dur := loadDuration(t)
	portal0, pg0 := f.cpuSeconds()
	start = time.Now()
	deadline := start.Add(dur)
	var pushed atomic.Int64
	for i, s := range servers {
		wg.Go(func() {
			nextBeat := start.Add(dayHeartbeat * time.Duration(i) / dayServers)
			nextPush := start.Add(dayPush * time.Duration(i) / dayServers)
			nextCheck := start.Add(dayPullCheck * time.Duration(i) / dayServers)
			beat := []byte(fmt.Sprintf(`{"server_code":%q,"connected_students":%d,"active_exams_count":1,"client_version":"loadtest","status":"online"}`, s.code, dayStudents))
			round := 0
			for {
				at := nextBeat
				for _, t := range []time.Time{nextPush, nextCheck} {
					if t.Before(at) {
						at = t
					}
				}
				if at.After(deadline) {
					return
				}
				time.Sleep(time.Until(at))
				switch {
				case at.Equal(nextBeat):
					_, _, err := do(http.MethodPost, "/sync/heartbeat", s.token, beat, nil, 200)
					ops["heartbeat"].add(time.Since(at), err)
					nextBeat = nextBeat.Add(dayHeartbeat)
				case at.Equal(nextPush):
					// Every student answers the next two questions.
					q := []int{(2 * round) % dayQuestions, (2*round + 1) % dayQuestions}
					recs := make([]exam.AnswerRecord, 0, 2*dayStudents)
					for m := range dayStudents {
						for _, qi := range q {
							recs = append(recs, exam.AnswerRecord{ExamID: ex.ID, MemberID: fmt.Sprintf("%s-m%02d", s.code, m),
								QuestionID: fmt.Sprintf("q%02d", qi), Answer: "a", AnsweredAt: at.UTC().Truncate(time.Millisecond)})
						}
					}
					body := pushBodyFor(s.code, s.npsn, recs)
					_, _, err := do(http.MethodPost, "/sync/push-answers", s.token, body,
						map[string]string{"Idempotency-Key": fmt.Sprintf("%s-%d", s.code, round)}, 200)
					ops["push"].add(time.Since(at), err)
					if err == nil {
						s.questions[q[0]], s.questions[q[1]] = true, true
						pushed.Add(int64(len(recs)))
					}
					round++
					nextPush = nextPush.Add(dayPush)
				default:
					_, _, err := do(http.MethodGet, "/sync/pull-questions?serverCode="+s.code, s.token, nil,
						map[string]string{"If-None-Match": s.etag}, 304)
					ops["pull check"].add(time.Since(at), err)
					nextCheck = nextCheck.Add(dayPullCheck)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	portal1, pg1 := f.cpuSeconds()

	for _, name := range []string{"heartbeat", "push", "pull check"} {
		reportOp(t, name, label, ops[name], elapsed)
	}

	// Every acknowledged answer is stored.
	want := 0
	for _, s := range servers {
		want += dayStudents * len(s.questions)
	}
	conn, err := pgx.Connect(ctx, f.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var stored int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM answers WHERE exam_id = $1`, ex.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	report("exam day: answers stored / acknowledged", label, fmt.Sprintf("%d / %d (%d records pushed)", stored, want, pushed.Load()),
		"all", ptr(stored == want))
	if stored != want {
		t.Errorf("%d answers stored, %d acknowledged", stored, want)
	}

	// Sizing: the CPU the run took per real server.
	real := float64(dayServers * dayCompression)
	portalCores, pgCores := (portal1-portal0)/elapsed.Seconds(), (pg1-pg0)/elapsed.Seconds()
	report("exam day: CPU used (cores)", label, fmt.Sprintf("portal %.2f, PostgreSQL %.2f, for %.0f real servers", portalCores, pgCores, real), "-", nil)
	report("exam day: real servers per core", label, fmt.Sprintf("portal %.0f, PostgreSQL %.0f (%d students each)",
		real/portalCores, real/pgCores, dayStudents), "-", nil)
}

// reportOp adds the rate and latencies of one kind of request over elapsed
// to the summary, failing the test when any failed.
func reportOp(t *testing.T, name, label string, o *opStats, elapsed time.Duration) {
	t.Helper()
	if o.failed > 0 {
		t.Errorf("%s: %d failed, the first: %s", name, o.failed, o.first)
	}
	if len(o.lat) == 0 {
		t.Errorf("%s: none answered", name)
		return
	}
	report("exam day: "+name, label, o.result(t, elapsed).String(), "-", nil)
}

// pushBodyFor is the push-answers body of recs from serverCode of npsn.
func pushBodyFor(serverCode, npsn string, recs []exam.AnswerRecord) []byte {
	b := pushBody(serverCode, recs)
	return bytes.Replace(b, []byte(`"npsn":"`+npsnPush+`"`), []byte(`"npsn":"`+npsn+`"`), 1)
}

// TestCampaignBurst sends a burst of redirects over a campaign's links to
// real portal binaries on one PostgreSQL database, one and three instances
// (the connections spread over them), back to back for the run's length;
// then every redirect answered must be counted as a click.
func TestCampaignBurst(t *testing.T) {
	defer printSummary()
	bin := buildPortal(t)
	for _, n := range []int{1, 3} {
		t.Run(fmt.Sprintf("instances=%d", n), func(t *testing.T) { runBurst(t, bin, n) })
	}
}

func runBurst(t *testing.T, bin string, instances int) {
	ctx := t.Context()
	f := startFleet(t, bin, instances)
	label := fmt.Sprintf("postgres, %d instance(s)", instances)
	op := mustClient(t, f.bases[0])
	login, _, err := op.Exam.Auth.Login(ctx, "admin", adminPassword)
	if err != nil {
		t.Fatal(err)
	}
	op.SetToken(login.Token)
	u, _, err := op.Exam.Admin.CreateLinkUser(ctx, &client.LinkUserRequest{Email: "campaign@example.com", Username: "campaign", RateLimit: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	c := mustClient(t, f.bases[0], client.WithLinkKey(u.Key))
	ids := make([]int64, burstLinks)
	for i := range ids {
		l, _, err := c.Links.URLs.Add(ctx, &client.LinkURLRequest{URL: fmt.Sprintf("https://example.org/promo/%d", i), Custom: fmt.Sprintf("promo-%03d", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = l.ID
	}
	conns := make([]loadConn, burstConns)
	for j := range conns {
		addr := strings.TrimPrefix(f.bases[j%instances], "http://")
		for k := range burstLinks {
			conns[j].reqs = append(conns[j].reqs, fmt.Appendf(nil, "GET /promo-%03d HTTP/1.1\r\nHost: %s\r\nUser-Agent: %s\r\nAccept: text/html\r\n\r\n",
				(j+k)%burstLinks, addr, redirectUA))
		}
		conns[j].addr = addr
	}
	portal0, pg0 := f.cpuSeconds()
	res := driveHTTP(t, conns, http.StatusFound, 0, loadDuration(t))
	portal1, pg1 := f.cpuSeconds()
	report("campaign burst: redirects", label, fmt.Sprintf("%s (%d conns)", res, burstConns), "-", nil)

	// Every redirect is a click: wait for the recorders to save them.
	var clicks, last int64 = 0, -1
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline) && clicks != int64(res.N) && clicks != last; {
		last, clicks = clicks, 0
		time.Sleep(5 * time.Second)
		for _, id := range ids {
			l, _, err := c.Links.URLs.Get(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			clicks += l.Clicks
		}
	}
	ok := clicks == int64(res.N)
	m := f.metrics(t, "portal_link_clicks_recorded_total", "portal_link_clicks_dropped_total", "portal_link_clicks_failed_total")
	report("campaign burst: clicks stored / redirects", label, fmt.Sprintf("%d / %d (recorders: %.0f saved, %.0f dropped, %.0f failed)",
		clicks, res.N, m[0], m[1], m[2]), "all", ptr(ok))
	if !ok {
		t.Errorf("%d clicks stored for %d redirects", clicks, res.N)
	}
	elapsed := float64(res.N) / res.PerSec
	report("campaign burst: CPU used (cores)", label, fmt.Sprintf("portal %.2f, PostgreSQL %.2f",
		(portal1-portal0)/elapsed, (pg1-pg0)/elapsed), "-", nil)
}
