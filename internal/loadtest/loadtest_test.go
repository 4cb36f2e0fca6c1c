//go:build loadtest

package loadtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi"
	"github.com/seedhq/portal/internal/idempotency"
	"github.com/seedhq/portal/internal/identity"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/internal/store/postgres"
	"github.com/seedhq/portal/internal/store/postgres/postgrestest"
)

// Sizes of the runs; every figure of docs/benchmarks.md comes from these.
const (
	batchSize        = 1000            // records per push
	pushRound        = 5 * time.Second // one round of pushes (and of COPYs on PostgreSQL)
	pushRounds       = 6               // rounds per concurrency: 30 s of each
	heartbeatServers = 1000            // simulated lab servers
	heartbeatConns   = 64              // worker pool = keep-alive connections
	heartbeatRun     = time.Minute     // timed heartbeats per store: sustained
	pullServers      = 20              // concurrent package pulls
	pullExams        = 40              // exams of the package
	pullQuestions    = 5               // questions per exam
	pullQuestionSize = 1 << 20         // bytes of question text: 40*5*1 MiB = 200 MiB
	npsnPush         = "20100001"      // school of the push runs
	npsnPull         = "20100002"      // school of the pull runs
)

var t0 = time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)

// row is one line of the summary.
type row struct{ metric, store, measured, target, verdict string }

var (
	summaryMu sync.Mutex
	summary   []row
)

func report(metric, store, measured, target string, ok *bool) {
	v := "-"
	if ok != nil {
		v = map[bool]string{true: "met", false: "MISSED"}[*ok]
	}
	summaryMu.Lock()
	summary = append(summary, row{metric, store, measured, target, v})
	summaryMu.Unlock()
}

func ptr(b bool) *bool { return &b }

// TestLoad runs every measurement on both stores, then prints the summary.
func TestLoad(t *testing.T) {
	if os.Getenv("PORTAL_LOADTEST") == "0" {
		t.Skip("PORTAL_LOADTEST=0")
	}
	defer printSummary()
	var copyRate float64 // records/s of the PostgreSQL COPY, the baseline of both stores
	t.Run("push/postgres", func(t *testing.T) { copyRate = runPush(t, newEnv(t, "postgres"), 0) })
	t.Run("push/bolt", func(t *testing.T) { runPush(t, newEnv(t, "bolt"), copyRate) })
	t.Run("heartbeat/postgres", func(t *testing.T) { runHeartbeats(t, newEnv(t, "postgres")) })
	t.Run("heartbeat/bolt", func(t *testing.T) { runHeartbeats(t, newEnv(t, "bolt")) })
	bin := buildPortal(t)
	t.Run("pull-memory/postgres", func(t *testing.T) { runPullMemory(t, bin, pgtest.NewDatabase(t)) })
	t.Run("pull-memory/bolt", func(t *testing.T) { runPullMemory(t, bin, "") })
}

func printSummary() {
	summaryMu.Lock()
	defer summaryMu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "\n==== portal load summary ====\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tstore\tmeasured\ttarget\tverdict")
	for _, r := range summary {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.metric, r.store, r.measured, r.target, r.verdict)
	}
	tw.Flush()
	fmt.Print(b.String())
}

// env is a portal served in process: the real router over one store.
type env struct {
	kind string
	svc  *exam.Service
	st   apiStore
	pg   *postgres.Store // nil for bbolt
	url  string          // base URL of the httptest server on 127.0.0.1
}

// openBolt opens a bbolt store in t's temporary directory, closed when t
// ends.
func openBolt(t *testing.T) *bolt.Store {
	t.Helper()
	b, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// openPostgres opens a PostgreSQL store on a database of t's own
// (pgtest.NewDatabase), migrated, closed when t ends.
func openPostgres(t *testing.T) *postgres.Store { return postgrestest.Open(t) }

func newEnv(t *testing.T, kind string) *env {
	t.Helper()
	e := &env{kind: kind}
	var st apiStore
	switch kind {
	case "postgres":
		pg := openPostgres(t)
		e.pg, st = pg, pg
	default:
		st = openBolt(t)
	}
	svc, ids, idem := newServices(t, st)
	e.svc, e.st = svc, st
	srv := httptest.NewServer(httpapi.New(httpapi.Options{Exam: svc, Identity: ids, Idempotency: idem}))
	t.Cleanup(srv.Close)
	e.url = srv.URL + "/api/v1"
	return e
}

// apiStore is what the load runs' in-process portals keep their data in.
type apiStore interface {
	exam.Store
	identity.Store
	idempotency.Store
}

// newServices returns the exam and identity services and the
// Idempotency-Key keeper of a portal over st.
func newServices(t *testing.T, st apiStore) (*exam.Service, *identity.Service, *idempotency.Keeper) {
	t.Helper()
	ids, err := identity.Open(t.Context(), st, nil, identity.Config{})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := exam.NewService(t.Context(), st, exam.Config{Tokens: ids.Tokens(), TempDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return svc, ids, idempotency.New(st, idempotency.Options{})
}

// handshake issues a licence and verifies serverCode with it through the
// service, returning the server's access token.
func (e *env) handshake(ctx context.Context, npsn, serverCode string) (string, error) {
	hw := "HW-" + serverCode
	lic, err := e.svc.GenerateLicense(ctx, exam.LicenseInput{NPSN: npsn, SchoolName: "Sekolah " + npsn,
		HardwareID: hw, MaxStudents: 500, DurationDays: 30, OperatingMode: "SEMI_OFFLINE"})
	if err != nil {
		return "", err
	}
	v, err := e.svc.VerifyServer(ctx, exam.VerifyInput{ServerCode: serverCode, NPSN: npsn, HardwareID: hw,
		LicenseToken: lic.License.Token, ClientIP: "127.0.0.1"})
	if err != nil {
		return "", err
	}
	return v.AccessToken, nil
}

func newTransport(conns int) *http.Transport {
	return &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns,
		IdleConnTimeout: time.Minute, DisableCompression: true}
}

// post sends body and returns the status, draining the answer so the
// connection is kept alive.
func post(hc *http.Client, url, token string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// ---- 1. push-answers versus COPY ----

// answers returns batch i: 1,000 records of examID, 25 members x 40 questions.
func answers(examID, prefix string, i int) []exam.AnswerRecord {
	rs := make([]exam.AnswerRecord, batchSize)
	for j := range rs {
		rs[j] = exam.AnswerRecord{ExamID: examID, MemberID: fmt.Sprintf("%s%08d-m%03d", prefix, i, j/40),
			QuestionID: fmt.Sprintf("q%02d", j%40), Answer: "a,c", AnsweredAt: t0.Add(time.Duration(j) * time.Second)}
	}
	return rs
}

func pushBody(serverCode string, rs []exam.AnswerRecord) []byte {
	raw, _ := json.Marshal(rs)
	sum := sha256.Sum256(raw)
	b, _ := json.Marshal(struct {
		ServerCode   string          `json:"server_code"`
		NPSN         string          `json:"npsn"`
		Checksum     string          `json:"checksum_sha256"`
		TotalRecords int             `json:"total_records"`
		Answers      json.RawMessage `json:"answers"`
	}{serverCode, npsnPush, hex.EncodeToString(sum[:]), len(rs), raw})
	return b
}

// pushTemplate makes the push bodies of runPush cheaply: batch 0's answers
// are encoded once, and batch i is that with i written over the
// fixed-width batch number of every member id, hashed again. The load
// generator runs on the CPUs of the portal and PostgreSQL: it should take
// as little of them as it can (the COPY it is compared with builds its rows
// with one fmt.Sprintf each).
type pushTemplate struct {
	server string
	raw    []byte // the answers of batch 0
	at     []int  // offsets of the batch number in raw
}

func newPushTemplate(examID, server string) *pushTemplate {
	raw, _ := json.Marshal(answers(examID, "p", 0))
	pt := &pushTemplate{server: server, raw: raw}
	mark := []byte(`"p00000000-m`)
	for off := 0; ; {
		j := bytes.Index(raw[off:], mark)
		if j < 0 {
			break
		}
		pt.at = append(pt.at, off+j+2)
		off += j + len(mark)
	}
	return pt
}

// body returns the push-answers body of batch i.
func (pt *pushTemplate) body(i int) []byte {
	raw := bytes.Clone(pt.raw)
	n := fmt.Appendf(nil, "%08d", i)
	for _, off := range pt.at {
		copy(raw[off:], n)
	}
	return fmt.Appendf(nil, `{"server_code":%q,"npsn":%q,"checksum_sha256":"%x","total_records":%d,"answers":%s}`,
		pt.server, npsnPush, sha256.Sum256(raw), batchSize, raw)
}

// runPush measures push-answers through HTTP with 1 and 4 clients, and on
// PostgreSQL the COPY baseline of the same rows; it returns the sequential
// COPY rate (0 on bbolt).
func runPush(t *testing.T, e *env, copyRate float64) float64 {
	ctx := t.Context()
	qs := make([]exam.Question, 40)
	for i := range qs {
		qs[i] = exam.Question{ID: fmt.Sprintf("q%02d", i), Type: exam.Essay, Text: fmt.Sprintf("Soal %d", i), Points: 1}
	}
	ex, err := e.svc.CreateExam(ctx, exam.ExamInput{Title: "Push", Subject: "Bench", NPSNs: []string{npsnPush},
		StartsAt: t0, EndsAt: t0.Add(4 * time.Hour), DurationMinutes: 90, Questions: qs})
	if err != nil {
		t.Fatal(err)
	}
	token, err := e.handshake(ctx, npsnPush, "LAB-PUSH")
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: newTransport(8)}
	defer hc.CloseIdleConnections()
	url := e.url + "/sync/push-answers"

	// Bodies are built ahead, lazily in a pool, from a template.
	pt := newPushTemplate(ex.ID, "LAB-PUSH")
	var next atomic.Int64
	bodies := make(chan []byte, 64)
	stopGen := make(chan struct{})
	go func() {
		defer close(bodies)
		for {
			i := int(next.Add(1))
			select {
			case bodies <- pt.body(i):
			case <-stopGen:
				return
			}
		}
	}()
	defer close(stopGen)
	for range 5 { // warm-up: connections, exam cache, PostgreSQL plans
		if code, b, err := post(hc, url, token, <-bodies); err != nil || code != 200 {
			t.Fatalf("warm-up push: %d %s %v", code, b, err)
		}
	}

	// run has conns goroutines do op, one batch each time, for d; it
	// returns the batches done.
	run := func(conns int, d time.Duration, op func() error) int64 {
		var n atomic.Int64
		deadline := time.Now().Add(d)
		var wg sync.WaitGroup
		for range conns {
			wg.Go(func() {
				for time.Now().Before(deadline) {
					if err := op(); err != nil {
						t.Error(err)
						return
					}
					n.Add(1)
				}
			})
		}
		wg.Wait()
		return n.Load()
	}
	var accepted atomic.Int64 // pushes answered 200, not as duplicates
	push := func() error {
		code, b, err := post(hc, url, token, <-bodies)
		if err != nil || code != 200 || bytes.Contains(b, []byte(`"duplicate":true`)) {
			return fmt.Errorf("push: %d %.200s %v", code, b, err)
		}
		accepted.Add(1)
		return nil
	}
	var copied atomic.Int64 // numbers the COPY batches
	copyRows := func() error {
		i := int(copied.Add(1))
		rs := answers(ex.ID, "c", i)
		as := make([]exam.Answer, len(rs))
		for j, r := range rs {
			as[j] = exam.Answer{ExamID: r.ExamID, MemberID: r.MemberID, QuestionID: r.QuestionID,
				Answer: r.Answer, AnsweredAt: r.AnsweredAt, ServerCode: "LAB-PUSH", SyncID: fmt.Sprintf("copy-%d", i)}
		}
		return e.pg.CopyAnswers(ctx, as)
	}
	// Pushes and, on PostgreSQL, COPYs take turns in rounds of
	// pushRound, so that both write into a table of the same size.
	rates := func(conns int) (pushRate, copyRate float64) {
		var pushed, copied int64
		for range pushRounds {
			pushed += run(conns, pushRound, push)
			if e.pg != nil {
				copied += run(conns, pushRound, copyRows)
			}
		}
		d := float64(pushRounds) * pushRound.Seconds()
		pushRate, copyRate = float64(pushed*batchSize)/d, float64(copied*batchSize)/d
		t.Logf("%s, %d client(s), %d rounds of %s: push-answers via HTTP %d batches of %d = %.0f records/s; plain COPY %.0f records/s",
			e.kind, conns, pushRounds, pushRound, pushed, batchSize, pushRate, copyRate)
		return pushRate, copyRate
	}
	push1, copy1 := rates(1)
	push4, copy4 := rates(4)
	// What was stored: every record of every push answered (the
	// warm-up's 5 too), and of every COPY.
	stored, err := e.st.CountAnswers(ctx, exam.AnswerQuery{ExamID: ex.ID})
	if err != nil {
		t.Fatal(err)
	}
	if want := (5 + accepted.Load() + copied.Load()) * batchSize; int64(stored) != want {
		t.Errorf("%d answers stored, want %d", stored, want)
	}
	if e.pg != nil {
		copyRate = copy1
		report("COPY baseline (1 conn)", "postgres", fmt.Sprintf("%.0f rec/s", copy1), "-", nil)
		report("COPY baseline (4 conns)", "postgres", fmt.Sprintf("%.0f rec/s", copy4), "-", nil)
		report("push-answers HTTP (1 client) / COPY (1 conn)", "postgres",
			fmt.Sprintf("%.0f rec/s = %.0f%%", push1, 100*push1/copy1), ">= 70%", ptr(push1 >= 0.7*copy1))
		report("push-answers HTTP (4 clients) / COPY (4 conns)", "postgres",
			fmt.Sprintf("%.0f rec/s = %.0f%%", push4, 100*push4/copy4), ">= 70%", ptr(push4 >= 0.7*copy4))
		return copyRate
	}
	if copyRate > 0 {
		report("push-answers HTTP (1 client) / postgres COPY", e.kind,
			fmt.Sprintf("%.0f rec/s = %.0f%%", push1, 100*push1/copyRate), "(info)", nil)
		report("push-answers HTTP (4 clients) / postgres COPY", e.kind,
			fmt.Sprintf("%.0f rec/s = %.0f%%", push4, 100*push4/copyRate), "(info)", nil)
	} else {
		report("push-answers HTTP (1 client)", e.kind, fmt.Sprintf("%.0f rec/s", push1), "-", nil)
		report("push-answers HTTP (4 clients)", e.kind, fmt.Sprintf("%.0f rec/s", push4), "-", nil)
	}
	return 0
}

// ---- 2. heartbeats from 1,000 servers ----

func runHeartbeats(t *testing.T, e *env) {
	ctx := t.Context()
	tokens := make([]string, heartbeatServers)
	bodies := make([][]byte, heartbeatServers)
	start := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= heartbeatServers || t.Failed() {
					return
				}
				code := fmt.Sprintf("SRV-%04d", i)
				tok, err := e.handshake(ctx, fmt.Sprintf("3%07d", i), code)
				if err != nil {
					t.Errorf("handshake %s: %v", code, err)
					return
				}
				tokens[i] = tok
				bodies[i] = []byte(fmt.Sprintf(`{"server_code":%q,"connected_students":%d,"active_exams_count":1,"client_version":"loadtest","status":"online"}`, code, i%40))
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	t.Logf("%s: %d licences + handshakes in %s", e.kind, heartbeatServers, time.Since(start).Round(time.Millisecond))

	hc := &http.Client{Transport: newTransport(heartbeatConns)}
	defer hc.CloseIdleConnections()
	url := e.url + "/sync/heartbeat"
	beat := func(i int) error {
		code, b, err := post(hc, url, tokens[i], bodies[i])
		if err == nil && code != 200 {
			err = fmt.Errorf("status %d: %.200s", code, b)
		}
		return err
	}
	// Warm-up: one heartbeat of every server (creates the monitor records;
	// the timed run is then steady state: updates).
	next.Store(0)
	for range heartbeatConns {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < heartbeatServers; i = int(next.Add(1)) - 1 {
				if err := beat(i); err != nil {
					t.Errorf("warm-up heartbeat: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	// The timed run: raw keep-alive connections (driveHTTP, as wrk), each
	// sending the heartbeats of its share of the servers in turn, so that
	// the load generator takes as little of the two CPUs as it can.
	addr := strings.TrimPrefix(strings.TrimSuffix(e.url, "/api/v1"), "http://")
	conns := make([]loadConn, heartbeatConns)
	for i := range heartbeatServers {
		c := &conns[i%heartbeatConns]
		c.addr = addr
		c.reqs = append(c.reqs, fmt.Appendf(nil, "POST /api/v1/sync/heartbeat HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n"+
			"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, tokens[i], len(bodies[i]), bodies[i]))
	}
	timed := time.Now()
	res := driveHTTP(t, conns, http.StatusOK, 0, heartbeatRun)
	rate, p99 := res.PerSec, res.P99
	// What was stored: every server's record, from a heartbeat of the
	// timed run (each server sent over a thousand).
	mons, err := e.svc.ListMonitors(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(mons) != heartbeatServers {
		t.Fatalf("%d monitor records, want %d", len(mons), heartbeatServers)
	}
	for _, m := range mons {
		if m.LastPingAt.Before(timed.Add(-time.Second)) {
			t.Fatalf("%s: last heartbeat stored at %s, before the timed run began (%s)", m.ServerCode, m.LastPingAt, timed)
		}
	}
	t.Logf("%s heartbeats: %d from %d servers over %d connections: %s", e.kind, res.N, heartbeatServers, heartbeatConns, res)
	ms := func(v float64) string { return fmt.Sprintf("%.1f ms", v) }
	var okRate, okP99 *bool
	if e.kind == "postgres" {
		okRate, okP99 = ptr(rate >= 20000), ptr(p99 < 10)
	}
	report("heartbeats/s (1,000 servers, 64 conns)", e.kind, fmt.Sprintf("%.0f/s", rate), ">= 20,000/s", okRate)
	report("heartbeat latency p50", e.kind, ms(res.P50), "-", nil)
	report("heartbeat latency p99", e.kind, ms(p99), "< 10 ms", okP99)
}
