package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/webhook"
	"github.com/seedhq/portal/pkg/client"
)

// The fault tests' world: a school with faultMembers students and an exam
// of faultQuestions questions, pushed in batches of faultBatchSize answers,
// each batch a student's run of questions, so that every stored answer
// names the one push that carried it; a link user without a practical
// rate limit; a shop with one item, paid through a payment provider.
const (
	faultPassword       = "e2e-faults-Password"
	faultMembers        = 20
	faultQuestions      = 100
	faultBatchSize      = 5
	faultProviderSecret = "e2e-faults-provider-secret"
	faultMerchant       = "M-E2E-FAULTS"
	faultOwnerNumber    = "0811-0000-001"
)

// fakeProvider is the payment provider's invoice endpoint: it checks the
// portal's signature and answers an invoice named after the order.
type fakeProvider struct {
	*httptest.Server
}

func newFakeProvider(t testing.TB) *fakeProvider {
	f := &fakeProvider{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if webhook.VerifyHex([]string{faultProviderSecret}, r.Header.Get(webhook.HeaderProviderSignature), body) != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		var in struct {
			OrderID string `json:"orderId"`
		}
		if json.Unmarshal(body, &in) != nil || in.OrderID == "" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, `{"invoiceId":"inv-%s","paymentUrl":"https://pay.example.com/inv-%s"}`, in.OrderID, in.OrderID)
	}))
	t.Cleanup(f.Close)
	return f
}

// faultPortalArgs are the flags of a portal of the fault tests: the shop's
// owner and the payment provider, plus extra.
func faultPortalArgs(prov *fakeProvider, extra ...string) []string {
	return append([]string{"--ordering-owner-number", faultOwnerNumber, "--ordering-provider-url", prov.URL,
		"--ordering-provider-secret", faultProviderSecret, "--ordering-provider-merchant-id", faultMerchant}, extra...)
}

// faultEnv is the environment of a portal of the fault tests.
var faultEnv = []string{"PORTAL_ADMIN_PASSWORD=" + faultPassword}

// faultWorld is what setupFaultWorld made.
type faultWorld struct {
	url         string
	op          *client.Client // the operator
	license     string         // the lab server's licence token
	serverToken string         // the lab server's access token
	examID      string
	members     []string // member ids
	linkKey     string
	ownerJWT    string
	custJWT     string
	itemID      string
	price       int64
}

// setupFaultWorld prepares the three APIs on the portal at p: licence,
// students, exam and lab-server handshake; a link user; the shop's owner,
// a customer and the menu.
func setupFaultWorld(t testing.TB, p *portalProc) *faultWorld {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w := &faultWorld{url: p.URL}
	op, err := client.NewClient(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := op.Exam.Auth.Login(ctx, "admin", faultPassword)
	if err != nil {
		t.Fatalf("operator login: %v", err)
	}
	op.SetToken(res.Token)
	w.op = op
	lic, _, err := op.Exam.Licenses.Generate(ctx, &client.LicenseRequest{NPSN: e2eNPSN, SchoolName: e2eSchool,
		HardwareID: e2eHardwareID, MaxStudents: 1000, DurationDays: 30, OperatingMode: client.ModeSemiOffline})
	if err != nil {
		t.Fatalf("licence: %v", err)
	}
	if _, _, err := op.Exam.Admin.CreateAcademicYear(ctx, "2025/2026", true); err != nil {
		t.Fatalf("academic year: %v", err)
	}
	var csv strings.Builder
	csv.WriteString("nama,username,nisn,kelas,role\n")
	for i := range faultMembers {
		fmt.Fprintf(&csv, "Siswa %d,siswa%02d,00600000%02d,XII IPA 1,siswa\n", i, i, i)
	}
	rep, _, err := op.Exam.Admin.ImportMembersCSV(ctx, strings.NewReader(csv.String()), &client.ImportOptions{NPSN: e2eNPSN})
	if err != nil || rep.Created != faultMembers {
		t.Fatalf("import members: %+v, %v", rep, err)
	}
	for _, r := range rep.Rows {
		w.members = append(w.members, r.MemberID)
	}
	now := time.Now().UTC().Truncate(time.Second)
	var qs []client.Question
	for i := range faultQuestions {
		qs = append(qs, client.Question{ID: fmt.Sprintf("q%03d", i), Type: client.TrueFalse, Text: fmt.Sprintf("Statement %d.", i),
			Points: 1, Answer: []string{"true"}})
	}
	ex, _, err := op.Exam.Admin.CreateExam(ctx, &client.ExamRequest{Title: "Faults", Subject: "MTK", NPSN: []string{e2eNPSN},
		StartsAt: now.Add(-time.Hour), EndsAt: now.Add(23 * time.Hour), DurationMinutes: 90, Questions: qs})
	if err != nil {
		t.Fatalf("create exam: %v", err)
	}
	w.examID = ex.ID
	srv, err := client.NewClient(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	ver, _, err := srv.Exam.Sync.VerifyServer(ctx, &client.VerifyServerRequest{ServerCode: e2eServerCode, NPSN: e2eNPSN,
		HardwareID: e2eHardwareID, LicenseToken: lic.LicenseToken})
	if err != nil {
		t.Fatalf("handshake: %v", err)
	}
	w.license, w.serverToken = lic.LicenseToken, ver.AccessToken

	lu, _, err := op.Exam.Admin.CreateLinkUser(ctx, &client.LinkUserRequest{Email: "faults@example.com", Username: "faults", RateLimit: 1000000})
	if err != nil {
		t.Fatalf("link user: %v", err)
	}
	w.linkKey = lu.Key

	w.ownerJWT = orderingJWT(t, p, "08110000001")
	w.custJWT = orderingJWT(t, p, "081234567890")
	owner := w.client(t, nil, client.WithOrderingToken(w.ownerJWT))
	cat, _, err := owner.Ordering.Menu.CreateCategory(ctx, "Kopi", 1)
	if err != nil {
		t.Fatal(err)
	}
	w.price = 18000
	item, _, err := owner.Ordering.Menu.CreateItem(ctx, &client.MenuItem{CategoryID: cat.ID, Name: "Es kopi susu", Price: w.price})
	if err != nil {
		t.Fatal(err)
	}
	w.itemID = item.ID
	return w
}

// orderingJWT signs number in to the ordering API through the built-in
// challenge and gateway stand-in and returns its JWT.
func orderingJWT(t testing.TB, p *portalProc, number string) string {
	t.Helper()
	ctx := context.Background()
	c, err := client.NewClient(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	ls, _, err := c.Ordering.Auth.Login(ctx, number, "")
	if err != nil {
		t.Fatalf("login %s: %v", number, err)
	}
	res := runPortal(t, nil, "", "admin", "ordering", "simulate-message", "--url", p.URL, "--from", number,
		"--text", "VERIFY_"+ls.Token, "--output", "json")
	if res.Code != 0 {
		t.Fatalf("simulate-message: %s", res)
	}
	st, err := c.Ordering.Auth.WaitVerified(ctx, ls.Token, 50*time.Millisecond)
	if err != nil || st.Token == "" {
		t.Fatalf("WaitVerified: %+v, %v", st, err)
	}
	return st.Token
}

// client returns a client of the world's portal over hc (nil: a plain
// one with a timeout) with opts.
func (w *faultWorld) client(t testing.TB, hc *http.Client, opts ...client.Option) *client.Client {
	t.Helper()
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	c, err := client.NewClient(w.url, append([]client.Option{client.WithHTTPClient(hc)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// faultBatch is one lab-server push: a student's run of questions.
type faultBatch struct {
	key     string
	answers []client.Answer
}

// batches returns the world's pushes, each (student, question) in one only.
func (w *faultWorld) batches(prefix string) []faultBatch {
	at := time.Now().UTC().Add(-10 * time.Minute).Truncate(time.Second)
	var out []faultBatch
	for q := 0; q+faultBatchSize <= faultQuestions; q += faultBatchSize {
		for m, member := range w.members {
			b := faultBatch{key: fmt.Sprintf("%s-m%02d-q%03d", prefix, m, q)}
			for i := q; i < q+faultBatchSize; i++ {
				b.answers = append(b.answers, client.Answer{ExamID: w.examID, MemberID: member,
					QuestionID: fmt.Sprintf("q%03d", i), Answer: []string{"true", "false"}[(m+i)%2], AnsweredAt: at})
			}
			out = append(out, b)
		}
	}
	return out
}

// push sends b with c (carrying the server's token).
func (b faultBatch) push(ctx context.Context, c *client.Client) (*client.PushReceipt, error) {
	r, _, err := c.Exam.Sync.PushAnswers(ctx, &client.PushAnswersRequest{ServerCode: e2eServerCode, NPSN: e2eNPSN,
		Answers: b.answers, IdempotencyKey: b.key})
	return r, err
}

// order places one order of the world's item with c (the customer's).
func (w *faultWorld) order(ctx context.Context, c *client.Client) (*client.Order, error) {
	o, _, err := c.Ordering.Orders.Create(ctx, &client.OrderRequest{ShippingType: "PICKUP",
		Items: []client.OrderItemRequest{{MenuID: w.itemID, Quantity: 1}}})
	return o, err
}

// paid is the provider's PAID notification of o.
func paid(o *client.Order) *client.ProviderNotification {
	return &client.ProviderNotification{InvoiceID: o.InvoiceID, MerchantID: faultMerchant, Amount: o.TotalPrice,
		Status: "PAID", PaidAt: o.CreatedAt.Add(time.Second).UTC().Truncate(time.Second)}
}

// checkPushes checks the stored pushes against the acknowledged ones (key
// -> receipt): each acknowledged batch is stored whole under its receipt's
// sync id, and the sync log holds it once as accepted; every batch found in
// the store, acknowledged or not, is whole.
func (w *faultWorld) checkPushes(t testing.TB, all []faultBatch, acked map[string]*client.PushReceipt) {
	t.Helper()
	ctx := context.Background()
	bySync := map[string][]*client.StoredAnswer{}
	stored := map[string]*client.StoredAnswer{} // member/question
	for a, err := range w.op.Exam.Admin.AllAnswers(ctx, w.examID, &client.AnswerListOptions{ListOptions: client.ListOptions{PerPage: 100}}) {
		if err != nil {
			t.Fatalf("answers: %v", err)
		}
		bySync[a.SyncID] = append(bySync[a.SyncID], a)
		stored[a.MemberID+"/"+a.QuestionID] = a
	}
	for id, as := range bySync {
		if len(as) != faultBatchSize {
			t.Errorf("push %s is stored with %d answers, want %d (half-written?)", id, len(as), faultBatchSize)
		}
	}
	logs, _, err := w.op.Exam.Admin.ListSyncLogs(ctx, &client.SyncLogListOptions{ServerCode: e2eServerCode, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	accepted := map[string]int{}
	for _, l := range logs {
		if l.Action == client.ActionPushResults && l.Outcome == client.OutcomeAccepted {
			accepted[l.SyncID]++
			if l.RecordCount != faultBatchSize {
				t.Errorf("sync log %s: %d records, want %d", l.SyncID, l.RecordCount, faultBatchSize)
			}
		}
	}
	for id, n := range accepted {
		if n != 1 {
			t.Errorf("push %s has %d accepted sync log entries, want 1", id, n)
		}
		if len(bySync[id]) == 0 {
			t.Errorf("push %s is logged as accepted, but none of its answers is stored", id)
		}
	}
	for id := range bySync {
		if accepted[id] != 1 {
			t.Errorf("answers stored by push %s, which the sync log does not hold as accepted once", id)
		}
	}
	for _, b := range all {
		r := acked[b.key]
		if r == nil {
			continue
		}
		if accepted[r.SyncID] != 1 {
			t.Errorf("acknowledged push %s (sync id %s, duplicate %v): %d accepted sync log entries, want 1", b.key, r.SyncID, r.Duplicate, accepted[r.SyncID])
		}
		for _, a := range b.answers {
			s := stored[a.MemberID+"/"+a.QuestionID]
			if s == nil || s.SyncID != r.SyncID || s.Answer != a.Answer {
				t.Errorf("acknowledged push %s: answer %s/%s stored as %+v, want %q from sync id %s", b.key, a.MemberID, a.QuestionID, s, a.Answer, r.SyncID)
			}
		}
	}
}

// checkOrders checks the customer's orders: every acknowledged one is
// there; none lacks its items, number or invoice; the day's numbers run
// from 001 without a gap or a repeat.
func (w *faultWorld) checkOrders(t *testing.T, acked []string) []client.Order {
	t.Helper()
	cust := w.client(t, nil, client.WithOrderingToken(w.custJWT))
	orders, _, err := cust.Ordering.Orders.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]client.Order{}
	var numbers []string
	for _, o := range orders {
		byID[o.ID] = o
		numbers = append(numbers, o.OrderNumber)
		if len(o.Items) != 1 || o.Items[0].Quantity != 1 || o.TotalPrice != w.price || o.OrderNumber == "" || o.InvoiceID == "" || len(o.History) == 0 {
			t.Errorf("order %s is not whole: %s", o.ID, jsonString(o))
		}
	}
	for _, id := range acked {
		if _, ok := byID[id]; !ok {
			t.Errorf("acknowledged order %s is lost", id)
		}
	}
	slices.Sort(numbers)
	today := time.Now().In(mustLoadLocation(t, "Asia/Jakarta")).Format("20060102")
	for i, n := range numbers {
		if want := fmt.Sprintf("ORD-%s-%03d", today, i+1); n != want {
			t.Errorf("order numbers %v: #%d is %s, want %s (a gap or a repeat)", numbers, i+1, n, want)
			break
		}
	}
	return orders
}

// checkLinks checks that every acknowledged short link (alias) is there.
func (w *faultWorld) checkLinks(t testing.TB, acked []string) {
	t.Helper()
	c := w.client(t, nil, client.WithLinkKey(w.linkKey))
	have := map[string]bool{}
	for l, err := range c.Links.URLs.All(context.Background(), &client.LinkURLListOptions{LinkListOptions: client.LinkListOptions{Limit: 1000}}) {
		if err != nil {
			t.Fatalf("links: %v", err)
		}
		have[l.Alias] = true
	}
	for _, a := range acked {
		if !have[a] {
			t.Errorf("acknowledged link %s is lost", a)
		}
	}
}

// storeUnavailable reports whether err is the portal's 503
// STORE_UNAVAILABLE with a Retry-After.
func storeUnavailable(err error) bool {
	var e *client.Error
	return errors.As(err, &e) && e.Status == http.StatusServiceUnavailable && e.Code == "STORE_UNAVAILABLE" && e.RetryAfter > 0
}

// readyStatus is the status of GET /readyz, 0 when it cannot be asked.
func readyStatus(base string) int {
	hc := &http.Client{Timeout: 10 * time.Second}
	resp, err := hc.Get(base + "/readyz")
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// faultLoad counts what the load of one API got.
type faultLoad struct {
	acked, unavailable atomic.Int64
}

// TestPostgresRestart: a portal on a PostgreSQL cluster of the test's own
// (initdb and pg_ctl in the test's temporary directory; as the postgres
// user when the tests run as root), under writes on the three APIs from
// several goroutines (short links, lab-server pushes, orders), while the
// cluster is stopped with "pg_ctl stop -m fast" for a few seconds and
// started again. During the outage the writes are answered 503
// STORE_UNAVAILABLE with Retry-After, never anything else, and /readyz is
// 503; the portal reconnects by itself; afterwards every acknowledged
// write is found, and nothing is half-written (orders whole and numbered
// without gaps, pushes stored whole under one accepted sync log entry).
func TestPostgresRestart(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the portal binary and a PostgreSQL cluster; skipped with -short")
	}
	cl := pgtest.NewCluster(t)
	prov := newFakeProvider(t)
	p := mustStartPortal(t, filepath.Join(t.TempDir(), "data"), faultEnv, faultPortalArgs(prov, "--database-url", cl.URL())...)
	w := setupFaultWorld(t, p)

	var (
		mu          sync.Mutex
		bad         []string
		ackedLinks  []string
		ackedOrders []string
		ackedPushes = map[string]*client.PushReceipt{}
		links       faultLoad
		pushes      faultLoad
		orders      faultLoad
	)
	// outcome sorts a write's error: nil is acknowledged, a 503
	// STORE_UNAVAILABLE with Retry-After is expected during the outage,
	// anything else is a failure of the test.
	outcome := func(what string, l *faultLoad, err error) bool {
		switch {
		case err == nil:
			l.acked.Add(1)
			return true
		case storeUnavailable(err):
			l.unavailable.Add(1)
			time.Sleep(50 * time.Millisecond)
		default:
			mu.Lock()
			if len(bad) < 20 {
				bad = append(bad, fmt.Sprintf("%s: %v", what, err))
			}
			mu.Unlock()
		}
		return false
	}

	loadCtx, stopLoad := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for g := range 2 {
		c := w.client(t, nil, client.WithLinkKey(w.linkKey))
		wg.Go(func() {
			for i := 0; loadCtx.Err() == nil; i++ {
				alias := fmt.Sprintf("r%d-%d", g, i)
				_, _, err := c.Links.URLs.Add(context.Background(), &client.LinkURLRequest{URL: "https://example.org/" + alias, Custom: alias})
				if outcome("link "+alias, &links, err) {
					mu.Lock()
					ackedLinks = append(ackedLinks, alias)
					mu.Unlock()
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	// Two lab servers' worth of pushes; a refused batch is sent again
	// later with its key, as labagent's outbox does.
	all := w.batches("restart")
	queue := make(chan faultBatch, len(all))
	for _, b := range all {
		queue <- b
	}
	for range 2 {
		c := w.client(t, nil, client.WithToken(w.serverToken))
		wg.Go(func() {
			for loadCtx.Err() == nil {
				var b faultBatch
				select {
				case b = <-queue:
				default:
					return
				}
				r, err := b.push(context.Background(), c)
				if !outcome("push "+b.key, &pushes, err) {
					queue <- b
					continue
				}
				mu.Lock()
				ackedPushes[b.key] = r
				mu.Unlock()
				time.Sleep(100 * time.Millisecond) // the batches last the whole run
			}
		})
	}
	for range 2 {
		c := w.client(t, nil, client.WithOrderingToken(w.custJWT))
		wg.Go(func() {
			for loadCtx.Err() == nil {
				o, err := w.order(context.Background(), c)
				if outcome("order", &orders, err) {
					mu.Lock()
					ackedOrders = append(ackedOrders, o.ID)
					mu.Unlock()
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	loads := map[string]*faultLoad{"links": &links, "pushes": &pushes, "orders": &orders}
	progressed := func(base map[string]int64, n int64) func() bool {
		return func() bool {
			for name, l := range loads {
				if l.acked.Load() < base[name]+n {
					return false
				}
			}
			return true
		}
	}
	testkit.Eventually(t, time.Minute, "writes on every API before the restart", progressed(nil, 5))

	cl.Stop()
	stoppedAt := time.Now()
	t.Logf("PostgreSQL stopped; acknowledged so far: %d links, %d pushes, %d orders", links.acked.Load(), pushes.acked.Load(), orders.acked.Load())
	unavailBefore := map[string]int64{}
	for name, l := range loads {
		unavailBefore[name] = l.unavailable.Load()
	}
	testkit.Eventually(t, 30*time.Second, "503 STORE_UNAVAILABLE on every API during the outage", func() bool {
		for name, l := range loads {
			if l.unavailable.Load() <= unavailBefore[name] {
				return false
			}
		}
		return true
	})
	if st := readyStatus(p.URL); st != http.StatusServiceUnavailable {
		t.Errorf("/readyz during the outage: %d, want 503", st)
	}
	time.Sleep(time.Until(stoppedAt.Add(3 * time.Second)))
	cl.Start()
	t.Logf("PostgreSQL started again after %s", time.Since(stoppedAt).Round(time.Millisecond))
	testkit.Eventually(t, time.Minute, "/readyz 200 after the restart", func() bool { return readyStatus(p.URL) == http.StatusOK })
	after := map[string]int64{}
	for name, l := range loads {
		after[name] = l.acked.Load()
	}
	testkit.Eventually(t, time.Minute, "writes on every API after the restart", progressed(after, 5))
	stopLoad()
	wg.Wait()
	// The pushes not yet sent or refused go through now.
	c := w.client(t, nil, client.WithToken(w.serverToken))
	for len(queue) > 0 {
		b := <-queue
		r, err := b.push(context.Background(), c)
		if err != nil {
			t.Fatalf("push %s after the restart: %v", b.key, err)
		}
		ackedPushes[b.key] = r
	}
	t.Logf("acknowledged: %d links, %d pushes, %d orders; refused with 503: %d links, %d pushes, %d orders",
		links.acked.Load(), pushes.acked.Load(), orders.acked.Load(), links.unavailable.Load(), pushes.unavailable.Load(), orders.unavailable.Load())
	for _, b := range bad {
		t.Errorf("not a 2xx nor a 503 STORE_UNAVAILABLE with Retry-After: %s", b)
	}
	if m := p.FindLog("internal error"); m != nil {
		t.Errorf("the portal logged an internal error: %v", m)
	}
	w.checkLinks(t, ackedLinks)
	w.checkPushes(t, all, ackedPushes)
	w.checkOrders(t, ackedOrders)
}
