package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/pkg/client"
)

// TestPortalSoak runs the real portal for PORTAL_SOAK (a duration: make
// soak-portal sets 30m) under a steady mixed load of the three APIs (short
// links created and followed through the redirector; lab-server pushes,
// pulls and heartbeats; orders placed, paid by the provider and taken
// through the kitchen to COMPLETED), and samples, every
// PORTAL_SOAK_INTERVAL (default 5 s, less for short runs), the process's
// resident memory (/proc/PID/status), goroutines (/metrics go_goroutines)
// and open files (/proc/PID/fd). After a warm-up (a tenth of the run, at
// least 30 s), the medians of the first and last thirds of the samples are
// compared: goroutines may grow by 10 % (at least 3), open files by 10, and
// anonymous resident memory (RssAnon: the heap and stacks; the bbolt file's
// pages, mapped, grow with the data and are not counted) by 25 %. Any
// failed request fails the soak. PORTAL_SOAK_STORE=postgres runs it on
// PostgreSQL (a database on PORTAL_TEST_DATABASE_URL) instead of bbolt.
//
// Without PORTAL_SOAK it is skipped: it is not part of make test.
func TestPortalSoak(t *testing.T) {
	env := os.Getenv("PORTAL_SOAK")
	if env == "" {
		t.Skip("the portal soak runs with PORTAL_SOAK=<duration>, e.g. make soak-portal SOAK_DURATION=30m")
	}
	dur, err := time.ParseDuration(env)
	if err != nil || dur < time.Minute {
		t.Fatalf("PORTAL_SOAK=%q: want a duration of a minute or more (%v)", env, err)
	}
	if raceEnabled {
		t.Log("note: with -race the memory figures are the race detector's as much as the portal's")
	}
	interval := min(5*time.Second, max(time.Second, dur/120))
	if v := os.Getenv("PORTAL_SOAK_INTERVAL"); v != "" {
		if interval, err = time.ParseDuration(v); err != nil || interval <= 0 {
			t.Fatalf("PORTAL_SOAK_INTERVAL=%q: %v", v, err)
		}
	}
	var extra []string
	switch s := os.Getenv("PORTAL_SOAK_STORE"); s {
	case "", "bolt":
	case "postgres":
		extra = []string{"--database-url", pgtest.NewDatabase(t)}
	default:
		t.Fatalf("PORTAL_SOAK_STORE=%q: want bolt or postgres", s)
	}
	prov := newFakeProvider(t)
	p := mustStartPortal(t, filepath.Join(t.TempDir(), "data"), faultEnv, faultPortalArgs(prov, extra...)...)
	w := setupFaultWorld(t, p)
	pid := p.Cmd.Process.Pid
	t.Logf("soak: portal pid %d on %s for %s, a sample every %s", pid, p.URL, dur, interval)

	ctx, cancel := context.WithTimeout(t.Context(), dur)
	defer cancel()
	var (
		requests atomic.Int64
		failed   atomic.Int64
		mu       sync.Mutex
		firstErr []string
	)
	// check counts a request and keeps the first failures.
	check := func(what string, err error) bool {
		requests.Add(1)
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false // the run is over
		}
		failed.Add(1)
		mu.Lock()
		if len(firstErr) < 20 {
			firstErr = append(firstErr, fmt.Sprintf("%s: %s: %v", time.Now().Format(time.TimeOnly), what, err))
		}
		mu.Unlock()
		time.Sleep(time.Second)
		return false
	}
	pace := func() {
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
	var wg sync.WaitGroup
	// Links: create, follow three times through the redirector, list.
	wg.Go(func() {
		c := w.client(t, nil, client.WithLinkKey(w.linkKey))
		hc := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		for i := 0; ctx.Err() == nil; i++ {
			alias := fmt.Sprintf("soak-%d", i)
			if _, _, err := c.Links.URLs.Add(ctx, &client.LinkURLRequest{URL: "https://example.org/" + alias, Custom: alias}); !check("add link", err) {
				continue
			}
			for range 3 {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, w.url+"/"+alias, nil)
				req.Header.Set("User-Agent", browserUA)
				resp, err := hc.Do(req)
				if err == nil {
					resp.Body.Close()
					if resp.StatusCode != http.StatusFound {
						err = fmt.Errorf("status %d, want 302", resp.StatusCode)
					}
				}
				check("follow link", err)
			}
			if i%50 == 0 {
				_, _, err := c.Links.URLs.List(ctx, &client.LinkURLListOptions{LinkListOptions: client.LinkListOptions{Limit: 10}})
				check("list links", err)
			}
			pace()
		}
	})
	// A lab server: pushes (each batch again and again, under new keys:
	// the answers are replaced, the sync log grows), heartbeats, pulls.
	wg.Go(func() {
		c := w.client(t, nil, client.WithToken(w.serverToken))
		batches := w.batches("soak")
		var known string
		for i := 0; ctx.Err() == nil; i++ {
			b := batches[i%len(batches)]
			b.key = fmt.Sprintf("soak-%d", i)
			_, err := b.push(ctx, c)
			var e *client.Error
			if errors.As(err, &e) && e.Status == http.StatusUnauthorized {
				// The server's access token lives an hour: shake hands again.
				ver, _, herr := c.Exam.Sync.VerifyServer(ctx, &client.VerifyServerRequest{ServerCode: e2eServerCode, NPSN: e2eNPSN,
					HardwareID: e2eHardwareID, LicenseToken: w.license})
				if check("handshake", herr) {
					c.SetToken(ver.AccessToken)
				}
				continue
			}
			check("push", err)
			if i%10 == 0 {
				_, _, err := c.Exam.Sync.Heartbeat(ctx, &client.HeartbeatRequest{ServerCode: e2eServerCode, ConnectedStudents: faultMembers,
					ActiveExamsCount: 1, ClientVersion: "labagent/soak", Status: client.MonitorOnline})
				check("heartbeat", err)
				pkg, _, err := c.Exam.Sync.PullQuestions(ctx, e2eServerCode, known)
				if check("pull", err) && !pkg.NotModified {
					known = pkg.ChecksumSHA256
				}
			}
			pace()
		}
	})
	// The shop: an order, paid through the provider, prepared, ready,
	// collected.
	wg.Go(func() {
		cust := w.client(t, nil, client.WithOrderingToken(w.custJWT))
		owner := w.client(t, nil, client.WithOrderingToken(w.ownerJWT))
		hc := &http.Client{Timeout: 30 * time.Second}
		for i := 0; ctx.Err() == nil; i++ {
			o, err := w.order(ctx, cust)
			if !check("order", err) {
				continue
			}
			if _, err := deliverProvider(ctx, hc, w.url, paid(o)); !check("payment", err) {
				continue
			}
			for _, st := range []string{"PREPARING", "READY", "COMPLETED"} {
				if _, _, err := owner.Ordering.Orders.SetStatus(ctx, o.ID, st, ""); !check("order "+st, err) {
					break
				}
			}
			if i%10 == 0 {
				_, _, err := owner.Ordering.Kitchen.Orders(ctx)
				check("kitchen", err)
				_, _, err = cust.Ordering.Orders.Get(ctx, o.ID)
				check("get order", err)
			}
			pace()
		}
	})

	type sample struct {
		at                   time.Duration
		rssKB, anonKB        int64
		goroutines, fds      int
		requests, failedReqs int64
	}
	var samples []sample
	start := time.Now()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-tick.C:
			s := sample{at: time.Since(start).Round(time.Second), requests: requests.Load(), failedReqs: failed.Load()}
			var err error
			if s.rssKB, s.anonKB, err = procMemory(pid); err == nil {
				s.fds, err = procFDs(pid)
			}
			if err == nil {
				s.goroutines, err = metricGoroutines(w.url)
			}
			if err != nil {
				if ctx.Err() == nil {
					t.Fatalf("sample at %s: %v\n%s", s.at, err, p.Tail(30))
				}
				break
			}
			samples = append(samples, s)
		}
	}
	wg.Wait()

	var tab strings.Builder
	tw := tabwriter.NewWriter(&tab, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "time\tRSS MiB\tRssAnon MiB\tgoroutines\topen files\trequests\tfailed\t")
	for _, s := range samples {
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%d\t%d\t%d\t%d\t\n", s.at, float64(s.rssKB)/1024, float64(s.anonKB)/1024, s.goroutines, s.fds, s.requests, s.failedReqs)
	}
	tw.Flush()
	t.Logf("soak samples:\n%s", tab.String())

	for _, e := range firstErr {
		t.Errorf("failed request: %s", e)
	}
	if n := failed.Load(); n > 0 {
		t.Errorf("%d of %d requests failed", n, requests.Load())
	}
	warmup := max(dur/10, 30*time.Second)
	var rest []sample
	for _, s := range samples {
		if s.at >= warmup {
			rest = append(rest, s)
		}
	}
	third := len(rest) / 3
	if third < 3 {
		t.Fatalf("%d samples after the warm-up of %s: too few to compare (a longer PORTAL_SOAK or a shorter PORTAL_SOAK_INTERVAL)", len(rest), warmup)
	}
	first, last := rest[:third], rest[len(rest)-third:]
	median := func(ss []sample, f func(sample) int64) int64 {
		v := make([]int64, len(ss))
		for i, s := range ss {
			v[i] = f(s)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	g0, g1 := median(first, func(s sample) int64 { return int64(s.goroutines) }), median(last, func(s sample) int64 { return int64(s.goroutines) })
	f0, f1 := median(first, func(s sample) int64 { return int64(s.fds) }), median(last, func(s sample) int64 { return int64(s.fds) })
	m0, m1 := median(first, func(s sample) int64 { return s.anonKB }), median(last, func(s sample) int64 { return s.anonKB })
	r0, r1 := median(first, func(s sample) int64 { return s.rssKB }), median(last, func(s sample) int64 { return s.rssKB })
	t.Logf("medians, first third after the warm-up -> last third: goroutines %d -> %d, open files %d -> %d, RssAnon %.1f -> %.1f MiB (RSS %.1f -> %.1f MiB); %d requests, %.0f a second",
		g0, g1, f0, f1, float64(m0)/1024, float64(m1)/1024, float64(r0)/1024, float64(r1)/1024, requests.Load(), float64(requests.Load())/time.Since(start).Seconds())
	if limit := max(g0*110/100, g0+3); g1 > limit {
		t.Errorf("goroutines grew from %d to %d (more than 10 %%): a goroutine leak", g0, g1)
	}
	if f1 > f0+10 {
		t.Errorf("open files grew from %d to %d (more than 10): a descriptor leak", f0, f1)
	}
	if m1 > m0*125/100 {
		t.Errorf("anonymous resident memory grew from %.1f to %.1f MiB (more than 25 %%): a memory leak", float64(m0)/1024, float64(m1)/1024)
	}
}

// procMemory reads VmRSS and RssAnon (kB) of pid from /proc/PID/status.
func procMemory(pid int) (rss, anon int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "VmRSS":
			rss = n
		case "RssAnon":
			anon = n
		}
	}
	if rss == 0 {
		return 0, 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
	}
	return rss, anon, sc.Err()
}

// procFDs counts the open files of pid (/proc/PID/fd).
func procFDs(pid int) (int, error) {
	es, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(es), err
}

// metricGoroutines reads go_goroutines from the portal's /metrics.
func metricGoroutines(base string) (int, error) {
	hc := &http.Client{Timeout: 30 * time.Second}
	resp, err := hc.Get(base + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_goroutines "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return int(f), err
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("no go_goroutines in /metrics")
}
