package main

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/pkg/client"
)

// roundRobin is a load balancer in front of several portals: each request
// goes to the next portal in turn, with its Host kept, as a reverse proxy
// in front of a portal fleet sends them.
type roundRobin struct {
	*httptest.Server
	next     atomic.Uint64
	mu       sync.Mutex
	backends []*url.URL
}

func newRoundRobin(t *testing.T) *roundRobin {
	rr := &roundRobin{}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		rr.mu.Lock()
		target := rr.backends[int(rr.next.Add(1)-1)%len(rr.backends)]
		rr.mu.Unlock()
		r.SetURL(target)
		r.Out.Host = r.In.Host
		r.SetXForwarded()
	}}
	rr.Server = httptest.NewServer(proxy)
	t.Cleanup(rr.Close)
	return rr
}

// route sends the requests to ps from now on.
func (rr *roundRobin) route(t *testing.T, ps []*portalProc) {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	for _, p := range ps {
		u, err := url.Parse(p.URL)
		if err != nil {
			t.Fatal(err)
		}
		rr.backends = append(rr.backends, u)
	}
}

// TestThreePortals: three "portal serve" processes on one PostgreSQL
// database, behind a load balancer sending each request to the next one in
// turn, behave as one portal for all three APIs: the exam scenario (a
// licence made through one portal, the handshake through another, the pull
// through the third...), the links scenario (clicks recorded by whichever
// portal redirected, counted together) and the ordering scenario (a login
// token made on one portal and verified and polled on others). Then: the
// same push sent to all three at once is stored once, orders taken by all
// three at once are numbered without a gap or a repeat, and failed operator
// sign-ins are counted across the three. With -race, the portals are built
// with it (raceBins).
func TestThreePortals(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the portal binary; skipped with -short")
	}
	dbURL := pgtest.NewDatabase(t)
	lb := newRoundRobin(t)
	const password = "e2e-three-Password"
	env := []string{"PORTAL_ADMIN_PASSWORD=" + password}
	var ps []*portalProc
	for i := range 3 {
		ps = append(ps, startPortalBin(t, raceBins.Path(t, "portal"), filepath.Join(t.TempDir(), fmt.Sprint("data", i)), env,
			"--database-url", dbURL, "--base-url", lb.URL, "--ordering-owner-number", "0811-0000-001"))
	}
	lb.route(t, ps)
	// fleet is the portal as its users see it: the load balancer's address.
	fleet := &portalProc{URL: lb.URL, Addr: strings.TrimPrefix(lb.URL, "http://"), DataDir: ps[0].DataDir}

	s := runScenario(t, fleet, password)
	runLinksScenario(t, fleet, password)
	checkLinkMetrics(t, ps...)
	runOrderingScenario(t, fleet)

	t.Run("same push to every portal at once", func(t *testing.T) { checkConcurrentPush(t, ps, s) })
	t.Run("exam edited through another portal", func(t *testing.T) { checkExamEditSeen(t, ps, s) })
	t.Run("orders on every portal at once", func(t *testing.T) { checkConcurrentOrders(t, fleet) })
	t.Run("a calibration made through one portal is every portal's latest", func(t *testing.T) { checkSharedCalibration(t, ps, s) })
	// Last: it blocks the operator's sign-in from this address.
	t.Run("operator sign-in throttled across portals", func(t *testing.T) { checkSharedLoginThrottle(t, ps, password) })
}

// checkConcurrentPush sends one batch, with one idempotency key, to every
// portal at the same moment: one portal stores it, the others answer that
// it is a duplicate of that push, and the sync log holds it once.
func checkConcurrentPush(t *testing.T, ps []*portalProc, s *scenario) {
	ctx := t.Context()
	push := &client.PushAnswersRequest{ServerCode: e2eServerCode, NPSN: e2eNPSN, IdempotencyKey: "e2e-three-portals",
		Answers: []client.Answer{{ExamID: s.examID, MemberID: s.members["budi"], QuestionID: "q1", Answer: "b",
			AnsweredAt: time.Now().UTC().Add(-time.Minute).Truncate(time.Second)}}}
	receipts := make([]*client.PushReceipt, len(ps))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, p := range ps {
		c, err := client.NewClient(p.URL, client.WithToken(s.server.Token()))
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			<-start
			r, _, err := c.Exam.Sync.PushAnswers(ctx, push)
			if err != nil {
				t.Errorf("push through portal %d: %v", i, err)
				return
			}
			receipts[i] = r
		})
	}
	close(start)
	wg.Wait()
	if t.Failed() {
		return
	}
	stored := 0
	for i, r := range receipts {
		if !r.Duplicate {
			stored++
		}
		if r.SyncID != receipts[0].SyncID {
			t.Errorf("portal %d answered sync id %s, portal 0 %s", i, r.SyncID, receipts[0].SyncID)
		}
	}
	if stored != 1 {
		t.Errorf("%d portals stored the push, want 1: %+v", stored, receipts)
	}
	logs, _, err := s.operator.Exam.Admin.ListSyncLogs(ctx, &client.SyncLogListOptions{ServerCode: e2eServerCode, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	accepted := 0
	for _, l := range logs {
		if l.SyncID == receipts[0].SyncID && l.Action == client.ActionPushResults && l.Outcome == client.OutcomeAccepted {
			accepted++
		}
	}
	if accepted != 1 {
		t.Errorf("the sync log holds the push %d times, want once", accepted)
	}
	answers, resp, err := s.operator.Exam.Admin.ListAnswers(ctx, s.examID, &client.AnswerListOptions{MemberID: s.members["budi"]})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Total != 2 || answers[0].QuestionID != "q1" || answers[0].Answer != "b" || answers[0].SyncID != receipts[0].SyncID {
		t.Errorf("budi's answers after the push: %s (total %d), want q1 = b from %s", jsonString(answers), resp.Total, receipts[0].SyncID)
	}
}

// checkSharedCalibration: a calibration made through one portal is kept
// in the database, and the others show it as the latest, without fitting.
func checkSharedCalibration(t *testing.T, ps []*portalProc, s *scenario) {
	ctx := t.Context()
	clients := make([]*client.Client, len(ps))
	for i, p := range ps {
		var err error
		if clients[i], err = client.NewClient(p.URL, client.WithToken(s.operator.Token())); err != nil {
			t.Fatal(err)
		}
	}
	made, _, err := clients[0].Exam.Admin.ExamCalibration(ctx, s.examID, client.ModelRasch)
	if err != nil || made.FinishedAt == nil {
		t.Fatalf("a calibration through portal 0: %+v, %v", made, err)
	}
	for i, c := range clients[1:] {
		latest, _, err := c.Exam.Admin.LatestExamCalibration(ctx, s.examID, client.ModelRasch)
		if err != nil || latest.FinishedAt == nil || !latest.FinishedAt.Equal(*made.FinishedAt) || latest.Students != made.Students ||
			latest.NoteCode != made.NoteCode || len(latest.Items) != len(made.Items) || latest.Run != nil {
			t.Errorf("portal %d's latest: %s, %v; want portal 0's %s", i+1, jsonString(latest), err, jsonString(made))
		}
	}
}

// checkExamEditSeen: a push refused by one portal for a question the exam
// lacks (the portal now has the exam's shape cached) is accepted by it once
// the question has been added through another portal.
func checkExamEditSeen(t *testing.T, ps []*portalProc, s *scenario) {
	ctx := t.Context()
	now := time.Now().UTC().Truncate(time.Second)
	req := &client.ExamRequest{Title: "Fisika", Subject: "FIS", NPSN: []string{e2eNPSN},
		StartsAt: now.Add(-time.Hour), EndsAt: now.Add(23 * time.Hour), DurationMinutes: 60,
		Questions: []client.Question{{ID: "q1", Type: client.TrueFalse, Text: "Light is a wave.", Points: 5, Answer: []string{"true"}}}}
	ex, _, err := s.operator.Exam.Admin.CreateExam(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	lab, err := client.NewClient(ps[1].URL, client.WithToken(s.server.Token()))
	if err != nil {
		t.Fatal(err)
	}
	push := func(key string) error {
		_, _, err := lab.Exam.Sync.PushAnswers(ctx, &client.PushAnswersRequest{ServerCode: e2eServerCode, NPSN: e2eNPSN, IdempotencyKey: key,
			Answers: []client.Answer{{ExamID: ex.ID, MemberID: s.members["ani"], QuestionID: "q2", Answer: "false", AnsweredAt: now}}})
		return err
	}
	if err := push("edit-1"); !errors.Is(err, &client.Error{Code: "UNKNOWN_QUESTION"}) {
		t.Fatalf("push for a question the exam lacks: %v, want UNKNOWN_QUESTION", err)
	}
	op0, err := client.NewClient(ps[0].URL, client.WithToken(s.operator.Token()))
	if err != nil {
		t.Fatal(err)
	}
	req.Questions = append(req.Questions, client.Question{ID: "q2", Type: client.TrueFalse, Text: "Sound is a wave.", Points: 5, Answer: []string{"true"}})
	if _, _, err := op0.Exam.Admin.UpdateExam(ctx, ex.ID, req); err != nil {
		t.Fatalf("update through portal 0: %v", err)
	}
	if err := push("edit-2"); err != nil {
		t.Fatalf("push through portal 1 once portal 0 added the question: %v", err)
	}
}

// checkConcurrentOrders has customers order at once through the load
// balancer, so that the three portals take orders at the same moment: the
// day's numbers follow on from the scenario's, each used once, without gaps.
func checkConcurrentOrders(t *testing.T, fleet *portalProc) {
	ctx := t.Context()
	owner := messengerLogin(t, fleet, "08110000001")
	menu, _, err := owner.Ordering.Menu.Get(ctx)
	if err != nil || len(menu) == 0 || len(menu[0].Items) == 0 {
		t.Fatalf("menu: %+v, %v", menu, err)
	}
	item := menu[0].Items[0].ID
	custs := []*client.Client{messengerLogin(t, fleet, "081234567891"), messengerLogin(t, fleet, "081234567892"),
		messengerLogin(t, fleet, "081234567893")}
	const perCustomer = 10
	numbers := make(chan string, len(custs)*perCustomer)
	var wg sync.WaitGroup
	for i, c := range custs {
		for range perCustomer {
			wg.Go(func() {
				o, _, err := c.Ordering.Orders.Create(ctx, &client.OrderRequest{ShippingType: "PICKUP",
					Items: []client.OrderItemRequest{{MenuID: item, Quantity: 1}}})
				if err != nil {
					t.Errorf("customer %d: %v", i, err)
					return
				}
				numbers <- o.OrderNumber
			})
		}
	}
	wg.Wait()
	close(numbers)
	today := time.Now().In(mustLoadLocation(t, "Asia/Jakarta")).Format("20060102")
	var seqs []int
	for n := range numbers {
		seq, err := strconv.Atoi(strings.TrimPrefix(n, "ORD-"+today+"-"))
		if err != nil {
			t.Fatalf("order number %q is not one of today's", n)
		}
		seqs = append(seqs, seq)
	}
	slices.Sort(seqs)
	// The ordering scenario took numbers 1 and 2.
	for i, seq := range seqs {
		if seq != 3+i {
			t.Fatalf("order numbers %v, want %d to %d each once", seqs, 3, 2+len(custs)*perCustomer)
		}
	}
}

// checkSharedLoginThrottle fails the operator's sign-in once per portal in
// turn until the bound (5 per address): the next sign-in, with the right
// password, is refused on every portal.
func checkSharedLoginThrottle(t *testing.T, ps []*portalProc, password string) {
	ctx := t.Context()
	clients := make([]*client.Client, len(ps))
	for i, p := range ps {
		c, err := client.NewClient(p.URL)
		if err != nil {
			t.Fatal(err)
		}
		clients[i] = c
	}
	for i := range 5 {
		if _, _, err := clients[i%len(ps)].Exam.Auth.Login(ctx, "admin", "wrong-"+password); !errors.Is(err, &client.Error{Code: client.CodeInvalidCredentials}) {
			t.Fatalf("failed sign-in %d on portal %d: %v, want INVALID_CREDENTIALS", i+1, i%len(ps), err)
		}
	}
	for i, c := range clients {
		_, resp, err := c.Exam.Auth.Login(ctx, "admin", password)
		if !errors.Is(err, &client.Error{Code: client.CodeTooManyAttempts}) || resp == nil || resp.StatusCode != http.StatusTooManyRequests {
			t.Errorf("sign-in on portal %d after 5 failures spread over the portals: %v, want 429 TOO_MANY_ATTEMPTS", i, err)
		}
	}
}
