package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/proc"
	"github.com/seedhq/portal/internal/webhook"
	"github.com/seedhq/portal/pkg/client"
)

// TestKillNineExactlyOnceBolt: kill -9 of the portal, three times, while a
// lab server pushes answers and the payment provider notifies payments;
// each time it comes back on the same data directory and address. The
// lab server (pkg/client over go-retryablehttp, as labagent has it, and
// labagent's own loop sending a batch again with its key until it is
// acknowledged) and the provider (redelivering a notification until it
// is answered 2xx) retry, and the result is exactly once: every batch is
// stored once (one accepted sync log entry each; sent again, it is
// answered as a duplicate of that push), every payment is applied once
// (the order PAID with one PAID move in its history, counted once in the
// ledger; redelivered, it is a DUPLICATE).
func TestKillNineExactlyOnceBolt(t *testing.T) {
	t.Parallel()
	runKillNine(t)
}

// TestKillNineExactlyOncePostgres is the same on PostgreSQL.
func TestKillNineExactlyOncePostgres(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the portal binary; skipped with -short")
	}
	runKillNine(t, "--database-url", pgtest.NewDatabase(t))
}

const (
	killRounds   = 4  // alternately on a push and on a payment
	killBatches  = 80 // pushes
	killPayments = 30 // orders paid through the provider
)

func runKillNine(t *testing.T, extra ...string) {
	if testing.Short() {
		t.Skip("builds and runs the portal binary; skipped with -short")
	}
	prov := newFakeProvider(t)
	p := mustStartPortal(t, filepath.Join(t.TempDir(), "data"), faultEnv,
		faultPortalArgs(prov, append(extra, "--listen", testkit.FreeAddr(t))...)...)
	w := setupFaultWorld(t, p)
	// The lab server and the provider reach the portal through kp.
	kp := newKillProxy(t, p.URL)
	w.url = kp.URL
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()

	cust := w.client(t, nil, client.WithOrderingToken(w.custJWT))
	var toPay []*client.Order
	for range killPayments {
		o, err := w.order(ctx, cust)
		if err != nil {
			t.Fatal(err)
		}
		toPay = append(toPay, o)
	}
	batches := w.batches("kill")[:killBatches]

	var (
		mu        sync.Mutex
		receipts  = map[string]*client.PushReceipt{}
		results   = map[string]string{} // order id -> APPLIED, DUPLICATE...
		pushed    atomic.Int64
		paidCount atomic.Int64
		failures  []string
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	var wg sync.WaitGroup
	// The lab server: labagent's HTTP client, and its outbox loop.
	lab := w.client(t, agent.NewHTTPClient(nil), client.WithToken(w.serverToken))
	wg.Go(func() {
		for _, b := range batches {
			for attempt := 0; ; attempt++ {
				r, err := b.push(ctx, lab)
				if err == nil {
					mu.Lock()
					receipts[b.key] = r
					mu.Unlock()
					pushed.Add(1)
					break
				}
				if !retryable(err) || ctx.Err() != nil {
					fail("push %s: %v", b.key, err)
					return
				}
				time.Sleep(200 * time.Millisecond)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	// The payment provider: a notification is delivered again until it
	// is answered 2xx.
	wg.Go(func() {
		hc := &http.Client{Timeout: 10 * time.Second}
		for _, o := range toPay {
			for {
				res, err := deliverProvider(ctx, hc, w.url, paid(o))
				if err == nil {
					mu.Lock()
					results[o.ID] = res
					mu.Unlock()
					paidCount.Add(1)
					break
				}
				if ctx.Err() != nil {
					fail("payment of %s: %v", o.ID, err)
					return
				}
				time.Sleep(200 * time.Millisecond)
			}
			time.Sleep(60 * time.Millisecond)
		}
	})

	// Each round waits for the next push (or payment) that the portal
	// has stored and answered 2xx, kills the portal before that answer
	// reaches the lab server (or the provider), and starts it again: the
	// crash lands between the commit and the answer, the one moment where
	// a retry could store the write twice.
	for k := range killRounds {
		// Both streams go on between the kills.
		p0, c0 := pushed.Load(), paidCount.Load()
		testkit.Eventually(t, 2*time.Minute, fmt.Sprintf("pushes and payments acknowledged before kill %d", k+1), func() bool {
			return pushed.Load() > p0 && paidCount.Load() > c0
		})
		path := []string{pushPath, providerWebhookPath}[k%2]
		kp.arm(path)
		select {
		case <-kp.fired:
		case <-time.After(2 * time.Minute):
			t.Fatalf("kill %d: no %s answered within 2 minutes", k+1, path)
		}
		t.Logf("kill -9 #%d on an answered %s, with %d/%d pushes and %d/%d payments acknowledged", k+1, path,
			pushed.Load(), killBatches, paidCount.Load(), killPayments)
		p.Kill()
		kp.killed <- struct{}{}
		p = restartPortal(t, p)
	}
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	if t.Failed() {
		t.FailNow()
	}

	// Pushes: each stored once, whole; sent again, a duplicate of it.
	w.checkPushes(t, batches, receipts)
	logs, _, err := w.op.Exam.Admin.ListSyncLogs(ctx, &client.SyncLogListOptions{ServerCode: e2eServerCode, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	accepted := 0
	for _, l := range logs {
		if l.Action == client.ActionPushResults && l.Outcome == client.OutcomeAccepted {
			accepted++
		}
	}
	if accepted != killBatches {
		t.Errorf("%d accepted pushes in the sync log, want %d (one per batch)", accepted, killBatches)
	}
	dups := 0
	for _, b := range batches {
		r, err := b.push(ctx, lab)
		if err != nil || !r.Duplicate || r.SyncID != receipts[b.key].SyncID {
			t.Errorf("push %s sent again: %+v, %v; want a duplicate of %s", b.key, r, err, receipts[b.key].SyncID)
		}
		if receipts[b.key].Duplicate {
			dups++
		}
	}
	// A kill between a push's commit and its answer makes its retry a
	// duplicate (unless the retry's answer is the one cut next time).
	if dups == 0 {
		t.Errorf("no push was acknowledged as a duplicate: the kills missed the moment between commit and answer")
	}
	t.Logf("%d pushes were acknowledged as duplicates of the attempt whose answer a kill cut", dups)

	// Payments: each order PAID once, counted once in the ledger;
	// redelivered, a DUPLICATE.
	owner := w.client(t, nil, client.WithOrderingToken(w.ownerJWT))
	hc := &http.Client{Timeout: 10 * time.Second}
	var total int64
	for _, o := range toPay {
		got, _, err := owner.Ordering.Orders.Get(ctx, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		moves := 0
		for _, h := range got.History {
			if h.To == "PAID" {
				moves++
			}
		}
		if got.Status != "PAID" || got.PaymentMethod != "PROVIDER" || moves != 1 {
			t.Errorf("order %s after the kills: %s by %s, %d PAID moves; want PAID by PROVIDER once", o.OrderNumber, got.Status, got.PaymentMethod, moves)
		}
		total += got.TotalPrice
		if res, err := deliverProvider(ctx, hc, w.url, paid(o)); err != nil || res != "DUPLICATE" {
			t.Errorf("payment of %s delivered again: %q, %v; want DUPLICATE", o.OrderNumber, res, err)
		}
	}
	today := time.Now().In(mustLoadLocation(t, "Asia/Jakarta")).Format(time.DateOnly)
	ledger, _, err := owner.Ordering.Ledger.Get(ctx, today, today)
	if err != nil {
		t.Fatal(err)
	}
	numbers := map[string]int{}
	for _, e := range ledger.Entries {
		numbers[e.OrderNumber]++
	}
	if ledger.OrderCount != killPayments || len(ledger.Entries) != killPayments || len(numbers) != killPayments || ledger.Total != total {
		t.Errorf("ledger: %d orders, %d entries (%d numbers), total %d; want %d orders once each, total %d",
			ledger.OrderCount, len(ledger.Entries), len(numbers), ledger.Total, killPayments, total)
	}
	var ids []string
	for _, o := range toPay {
		ids = append(ids, o.ID)
	}
	w.checkOrders(t, ids)
	applied := 0
	for _, r := range results {
		if r == "APPLIED" {
			applied++
		}
	}
	if applied == killPayments {
		t.Errorf("every payment was answered APPLIED: the kills missed the moment between commit and answer")
	}
	t.Logf("%d payments were answered DUPLICATE, redelivered after a kill cut the answer of the delivery that applied them", killPayments-applied)
}

// restartPortal starts the killed p again on the same data, flags and
// address.
func restartPortal(t *testing.T, p *portalProc) *portalProc {
	t.Helper()
	np := &portalProc{Proc: p.Restart(), DataDir: p.DataDir}
	np.Addr = np.WaitListening(time.Minute)
	np.URL = "http://" + np.Addr
	if np.URL != p.URL {
		t.Fatalf("restarted on %s, want %s", np.URL, p.URL)
	}
	proc.WaitReady(t, np.URL+"/readyz", time.Minute)
	return np
}

// retryable reports whether a lab server sends a push again after err: a
// connection that failed, or a 5xx or 429 answer (labagent's outbox keeps
// the batch for the next round after anything else too, but the test
// wants to see the other errors).
func retryable(err error) bool {
	var e *client.Error
	if errors.As(err, &e) {
		return e.Status >= 500 || e.Status == http.StatusTooManyRequests
	}
	return true
}

// deliverProvider posts n, signed, to the provider webhook of base, once,
// and returns the answer's result; an error for anything but 2xx.
func deliverProvider(ctx context.Context, hc *http.Client, base string, n *client.ProviderNotification) (string, error) {
	body, err := json.Marshal(n)
	if err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/payments/provider-webhook", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(webhook.HeaderProviderSignature, webhook.SignHex(faultProviderSecret, body))
	resp, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return "", fmt.Errorf("%s: %s", resp.Status, b)
	}
	var out struct {
		Result string `json:"result"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return "", fmt.Errorf("%s: %w", b, err)
	}
	return out.Result, nil
}

// The routes that a kill round waits for.
const (
	pushPath            = "/api/v1/sync/push-answers"
	providerWebhookPath = "/api/payments/provider-webhook"
)

// killProxy is the network between the clients and the portal. Armed with
// a path, it holds back the next 2xx answer to a request of that path,
// says so on fired, waits on killed (the test kills the portal meanwhile)
// and then drops the connection: the client never hears that its write
// was stored. Otherwise it forwards requests and answers as they are;
// while the portal is down, it answers 502.
type killProxy struct {
	*httptest.Server
	target *url.URL
	tr     *http.Transport
	armed  atomic.Pointer[string]
	fired  chan struct{}
	killed chan struct{}
}

func newKillProxy(t *testing.T, target string) *killProxy {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	kp := &killProxy{target: u, tr: &http.Transport{}, fired: make(chan struct{}), killed: make(chan struct{})}
	kp.Server = httptest.NewServer(http.HandlerFunc(kp.serve))
	t.Cleanup(kp.tr.CloseIdleConnections)
	t.Cleanup(kp.Close)
	return kp
}

// arm makes the next 2xx answer to path a lost one.
func (kp *killProxy) arm(path string) { kp.armed.Store(&path) }

func (kp *killProxy) serve(w http.ResponseWriter, r *http.Request) {
	out := r.Clone(r.Context())
	out.RequestURI = ""
	out.URL.Scheme, out.URL.Host = kp.target.Scheme, kp.target.Host
	resp, err := kp.tr.RoundTrip(out)
	if err != nil {
		http.Error(w, "portal unreachable: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	if a := kp.armed.Load(); a != nil && *a == r.URL.Path && resp.StatusCode/100 == 2 && kp.armed.CompareAndSwap(a, nil) {
		kp.fired <- struct{}{}
		<-kp.killed
		panic(http.ErrAbortHandler) // the connection is cut, no answer
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}
