package linkctl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/pkg/client"
)

// fakeClock is the clock of the pacing tests: Sleep records the wait and
// moves the time on by it at once. Safe for concurrent use (the portal's
// handlers read it too).
type fakeClock struct {
	mu    sync.Mutex
	t     time.Time
	slept []time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slept = append(c.slept, d)
	c.t = c.t.Add(d)
	return nil
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func (c *fakeClock) sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.slept...)
}

// answerWith returns the *client.Response of a real "links add" call to a
// server that answers status with the headers h, as pkg/client parses it.
func answerWith(t *testing.T, status int, h map[string]string) *client.Response {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range h {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if status == http.StatusOK {
			fmt.Fprint(w, `{"error":0,"id":1,"shorturl":"http://short/x"}`)
		} else {
			fmt.Fprint(w, `{"error":1,"message":"Rate limit exceeded."}`)
		}
	}))
	defer srv.Close()
	c, err := client.NewClient(srv.URL, client.WithLinkKey("lk_test")) // no 429 retries
	if err != nil {
		t.Fatal(err)
	}
	_, resp, err := c.Links.URLs.Add(t.Context(), &client.LinkURLRequest{URL: "https://example.org"})
	if status == http.StatusOK && err != nil {
		t.Fatalf("add: %v", err)
	}
	if status == http.StatusTooManyRequests && !errors.Is(err, client.ErrRateLimited) {
		t.Fatalf("add: err = %v, want ErrRateLimited", err)
	}
	if resp == nil {
		t.Fatal("no *client.Response")
	}
	return resp
}

func TestPace(t *testing.T) {
	// The window resets at reset (epoch seconds, as X-RateLimit-Reset
	// says); the clock reads 29.6 s before it.
	const reset = 1_780_000_020
	now := time.Unix(reset, 0).Add(-29600 * time.Millisecond)
	rate := func(remaining int, reset int64) map[string]string {
		return map[string]string{"X-RateLimit-Limit": "3", "X-RateLimit-Remaining": strconv.Itoa(remaining),
			"X-RateLimit-Reset": strconv.FormatInt(reset, 10)}
	}
	tests := []struct {
		name   string
		resp   func(*testing.T) *client.Response
		want   []time.Duration
		maxErr time.Duration
	}{
		{"no answer", func(*testing.T) *client.Response { return nil }, nil, 0},
		{"no rate-limit headers", func(t *testing.T) *client.Response { return answerWith(t, 200, nil) }, nil, 0},
		{"requests left", func(t *testing.T) *client.Response { return answerWith(t, 200, rate(1, reset)) }, nil, 0},
		{"none left: until the reset", func(t *testing.T) *client.Response { return answerWith(t, 200, rate(0, reset)) },
			[]time.Duration{29600*time.Millisecond + 100*time.Millisecond}, 0},
		{"none left, reset already past", func(t *testing.T) *client.Response { return answerWith(t, 200, rate(0, reset-60)) }, nil, 0},
		{"none left, no reset", func(t *testing.T) *client.Response {
			return answerWith(t, 200, map[string]string{"X-RateLimit-Limit": "3", "X-RateLimit-Remaining": "0"})
		}, nil, 0},
		{"429 with Retry-After", func(t *testing.T) *client.Response {
			h := rate(0, reset)
			h["Retry-After"] = "30" // the portal's ceil(seconds to the reset)
			return answerWith(t, http.StatusTooManyRequests, h)
		}, []time.Duration{29700 * time.Millisecond}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := &fakeClock{t: now}
			if err := pace(t.Context(), tt.resp(t), clk.Now, clk.Sleep); err != nil {
				t.Fatalf("pace: %v", err)
			}
			if got := clk.sleeps(); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("slept %v, want %v", got, tt.want)
			}
		})
	}

	t.Run("429 waits at least Retry-After", func(t *testing.T) {
		h := rate(0, reset)
		h["Retry-After"] = "30"
		resp := answerWith(t, http.StatusTooManyRequests, h)
		if ra := resp.Header.Get("Retry-After"); ra != "30" {
			t.Fatalf("Retry-After = %q", ra)
		}
		// A clock on the second boundary: the wait is the whole Retry-After.
		clk := &fakeClock{t: time.Unix(reset-30, 0)}
		if err := pace(t.Context(), resp, clk.Now, clk.Sleep); err != nil {
			t.Fatal(err)
		}
		if got := clk.sleeps(); len(got) != 1 || got[0] < 30*time.Second || got[0] > 31*time.Second {
			t.Errorf("slept %v, want 30 s to 31 s", got)
		}
	})

	t.Run("context ends during the sleep", func(t *testing.T) {
		resp := answerWith(t, 200, rate(0, reset))
		for _, end := range []struct {
			name string
			ctx  func() (context.Context, context.CancelFunc)
			want error
		}{
			{"cancel", func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(t.Context())
				time.AfterFunc(20*time.Millisecond, cancel)
				return ctx, cancel
			}, context.Canceled},
			{"deadline", func() (context.Context, context.CancelFunc) {
				return context.WithTimeout(t.Context(), 20*time.Millisecond)
			}, context.DeadlineExceeded},
		} {
			ctx, cancel := end.ctx()
			start := time.Now()
			// The real sleep: it must give up when ctx ends, not after 29.7 s.
			err := pace(ctx, resp, func() time.Time { return now }, sleepCtx)
			cancel()
			if !errors.Is(err, end.want) {
				t.Errorf("%s: pace = %v, want %v", end.name, err, end.want)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("%s: pace returned after %s", end.name, d)
			}
		}
	})
}

// mustWriteCSV writes a CSV of n rows (url https://example.org/paced/I and
// title "Row I") and returns its path.
func mustWriteCSV(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("url,title\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "https://example.org/paced/%d,Row %d\n", i, i)
	}
	file := filepath.Join(t.TempDir(), "links.csv")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestImportPacesByRateLimit imports more rows than the user's rate limit
// allows in a minute against the real router, whose rate limit and the
// import share a fake clock: the import must wait for each window's reset
// (without a 429, which would fail a row) and create every row once.
func TestImportPacesByRateLimit(t *testing.T) {
	ctx := t.Context()
	// 20 s into a minute: the first window resets in 40 s.
	clk := &fakeClock{t: time.Date(2026, 5, 4, 10, 0, 20, 0, time.UTC)}
	p := mustStartPortalWith(t, links.Config{Now: clk.Now})
	const limit, rows = 3, 7
	newUser := func(name string) *client.Client {
		u, _, err := p.op.Exam.Admin.CreateLinkUser(ctx, &client.LinkUserRequest{
			Email: name + "@example.com", Username: name, RateLimit: limit})
		if err != nil {
			t.Fatal(err)
		}
		// No 429 retries: a request over the limit fails its row at once
		// instead of waiting on the wall clock.
		c, err := client.NewClient(p.URL, client.WithLinkKey(u.Key))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	newOptions := func(file string) (*linksImportOptions, *bytes.Buffer, *bytes.Buffer) {
		var out, errOut bytes.Buffer
		g := &Globals{IO: IO{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Output: outputJSON}
		return &linksImportOptions{Globals: g, File: file, now: clk.Now, sleep: clk.Sleep}, &out, &errOut
	}
	listAll := func(c *client.Client) []*client.LinkURL {
		t.Helper()
		ls, _, err := c.Links.URLs.List(ctx, &client.LinkURLListOptions{LinkListOptions: client.LinkListOptions{Limit: 100}})
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		return ls
	}

	t.Run("every row once", func(t *testing.T) {
		c := newUser("paced")
		o, out, errOut := newOptions(mustWriteCSV(t, rows))
		runCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := runLinksImport(runCtx, o, c); err != nil {
			t.Fatalf("import: %v\nstdout: %s\nstderr: %s", err, out, errOut)
		}
		var results []importResult
		if err := jsonUnmarshal(out.String(), &results); err != nil {
			t.Fatalf("results: %v\n%s", err, out)
		}
		if len(results) != rows {
			t.Fatalf("%d results, want %d: %+v", len(results), rows, results)
		}
		for i, r := range results {
			if r.Error != "" || r.ID == 0 || r.Row != i+2 || r.URL != fmt.Sprintf("https://example.org/paced/%d", i+1) {
				t.Errorf("result %d = %+v", i, r)
			}
		}
		if errOut.Len() != 0 {
			t.Errorf("stderr is not a terminal, yet got %q", errOut)
		}
		// Rows 1-3 fill the first window (reset in 40 s), rows 4-6 the
		// next (reset 59.9 s after the first sleep ended); row 7 leaves
		// requests in the third. Each wait is until the reset plus 100 ms.
		want := []time.Duration{40*time.Second + 100*time.Millisecond, 60 * time.Second}
		if got := clk.sleeps(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("slept %v, want %v", got, want)
		}

		// Every row is there exactly once, with the ids the import reported.
		ids := map[int64]bool{}
		for _, r := range results {
			ids[r.ID] = true
		}
		seen := map[string]int{}
		for _, l := range listAll(c) {
			seen[l.LongURL]++
			if !ids[l.ID] {
				t.Errorf("link %d (%s) is not one the import reported", l.ID, l.LongURL)
			}
		}
		if len(seen) != rows {
			t.Errorf("%d distinct links, want %d: %v", len(seen), rows, seen)
		}
		for url, n := range seen {
			if n != 1 {
				t.Errorf("%s created %d times", url, n)
			}
		}
	})

	t.Run("context ends during the wait", func(t *testing.T) {
		c := newUser("cancelled")
		o, out, _ := newOptions(mustWriteCSV(t, rows))
		runCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		calls := 0
		o.sleep = func(ctx context.Context, _ time.Duration) error {
			calls++
			cancel() // as Ctrl-C during the wait
			<-ctx.Done()
			return ctx.Err()
		}
		if err := runLinksImport(runCtx, o, c); !errors.Is(err, context.Canceled) {
			t.Fatalf("import = %v, want context.Canceled", err)
		}
		if calls != 1 || out.Len() != 0 {
			t.Errorf("sleep called %d times (want 1); stdout %q (want nothing)", calls, out)
		}
		clk.advance(time.Minute) // a new window for the check
		if n := len(listAll(c)); n != limit {
			t.Errorf("%d links created, want the %d before the wait", n, limit)
		}
	})

	t.Run("no-wait stops at the first 429", func(t *testing.T) {
		clk.advance(time.Minute)
		c := newUser("impatient")
		o, out, _ := newOptions(mustWriteCSV(t, rows))
		o.NoWait = true
		o.sleep = func(context.Context, time.Duration) error {
			t.Error("--no-wait slept")
			return nil
		}
		err := runLinksImport(ctx, o, c)
		if !errors.Is(err, client.ErrRateLimited) || exitCode(err) != ExitRateLimited {
			t.Fatalf("import = %v (exit %d), want a rate-limit error (exit %d)", err, exitCode(err), ExitRateLimited)
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("row %d", limit+2)) || out.Len() != 0 {
			t.Errorf("error %q should name row %d; stdout %q (want nothing)", err, limit+2, out)
		}
		clk.advance(time.Minute)
		if n := len(listAll(c)); n != limit {
			t.Errorf("%d links created, want the %d before the 429", n, limit)
		}
	})
}
