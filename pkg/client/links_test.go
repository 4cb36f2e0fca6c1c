package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seedhq/portal/pkg/client"
)

const fakeLinkKey = "lk_fake-key"

// linkRateHeaders sets the rate-limit headers of the link API.
func linkRateHeaders(w http.ResponseWriter, limit, remaining int, reset int64) {
	w.Header().Set("X-RateLimit-Limit", strconv.Itoa(limit))
	w.Header().Set("X-RateLimit-Remaining", strconv.Itoa(remaining))
	w.Header().Set("X-RateLimit-Reset", strconv.FormatInt(reset, 10))
}

func TestLinksErrorField(t *testing.T) {
	f := newFakePortal(t)
	f.json("GET /api/domains", 200, map[string]any{"error": "0", "data": map[string]any{
		"result": 11, "perpage": 10, "currentpage": 1, "nextpage": 2, "maxpage": 2,
		"domains": []map[string]any{{"id": 3, "domain": "https://go.example.com", "redirectroot": "", "redirect404": ""}},
	}})
	f.json("GET /api/account", 200, map[string]any{"error": 0, "data": map[string]any{"id": 1, "username": "ann"}})
	f.json("GET /api/splash", 200, map[string]any{"data": map[string]any{"splash": []any{}}}) // no error field
	f.json("GET /api/overlay", 200, map[string]any{"error": 1, "message": "old-style failure"})
	f.json("GET /api/pixels", 200, map[string]any{"error": "1", "message": "string failure", "code": "VALIDATION_FAILED"})
	f.json("DELETE /api/domain/9/delete", 404, map[string]any{"error": 1, "message": "domain 9 not found", "code": "NOT_FOUND"})
	f.json("DELETE /api/domain/8/delete", 409, map[string]any{"error": "1", "message": "in use", "code": "DOMAIN_IN_USE"})
	c := f.client(client.WithLinkKey(fakeLinkKey), client.WithToken("operator-jwt"))
	ctx := context.Background()

	ds, resp, err := c.Links.Domains.List(ctx, &client.LinkListOptions{Page: 1, Limit: 10})
	if err != nil || len(ds) != 1 || ds[0].ID != 3 || ds[0].Domain != "https://go.example.com" {
		t.Fatalf("list = %+v, %v", ds, err)
	}
	if resp.Page != 1 || resp.PerPage != 10 || resp.Total != 11 || resp.TotalPages != 2 || resp.NextPage != 2 {
		t.Errorf("paging = %+v", resp)
	}
	if got := f.last(); got.Header.Get("Authorization") != "Bearer "+fakeLinkKey || got.RawQuery != "limit=10&page=1" {
		t.Errorf("request: Authorization %q, query %q", got.Header.Get("Authorization"), got.RawQuery)
	}
	acc, _, err := c.Links.Account.Get(ctx)
	if err != nil || acc.ID != 1 || acc.Username != "ann" {
		t.Fatalf("account = %+v, %v", acc, err)
	}
	if sp, _, err := c.Links.Splash.List(ctx, nil); err != nil || len(sp) != 0 {
		t.Fatalf("splash without error field = %v, %v", sp, err)
	}

	var e *client.Error
	_, _, err = c.Links.Overlays.List(ctx, nil)
	if !errors.As(err, &e) || e.Status != 200 || e.Message != "old-style failure" {
		t.Fatalf("error 1 on 200: %v", err)
	}
	_, _, err = c.Links.Pixels.List(ctx, nil)
	if !errors.As(err, &e) || e.Code != client.CodeValidationFailed || e.Message != "string failure" {
		t.Fatalf(`error "1" on 200: %v`, err)
	}
	_, err = c.Links.Domains.Delete(ctx, 9)
	if !errors.Is(err, client.ErrNotFound) || !errors.As(err, &e) || e.Code != client.CodeNotFound || e.Message != "domain 9 not found" {
		t.Fatalf("404: %v", err)
	}
	_, err = c.Links.Domains.Delete(ctx, 8)
	if !errors.Is(err, client.ErrConflict) || !errors.Is(err, &client.Error{Code: client.CodeDomainInUse}) {
		t.Fatalf("409: %v", err)
	}
}

func TestLinksRateLimitHeaders(t *testing.T) {
	f := newFakePortal(t)
	f.handle("GET /api/account", func(w http.ResponseWriter, r *http.Request) {
		linkRateHeaders(w, 30, 29, 1_800_000_060)
		writeJSON(w, 200, map[string]any{"error": 0, "data": map[string]any{"id": 1}})
	})
	f.handle("GET /api/channels", func(w http.ResponseWriter, r *http.Request) {
		linkRateHeaders(w, 30, 0, 1_800_000_060)
		w.Header().Set("Retry-After", "12")
		writeJSON(w, 429, map[string]any{"error": 1, "message": "slow down", "code": "RATE_LIMITED"})
	})
	c := f.client(client.WithLinkKey(fakeLinkKey))
	_, resp, err := c.Links.Account.Get(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Rate.Limit != 30 || resp.Rate.Remaining != 29 || !resp.Rate.Reset.Equal(time.Unix(1_800_000_060, 0)) {
		t.Errorf("Rate = %+v", resp.Rate)
	}
	_, resp, err = c.Links.Channels.List(context.Background(), nil)
	var e *client.Error
	if !errors.Is(err, client.ErrRateLimited) || !errors.As(err, &e) || e.Code != client.CodeRateLimited || e.RetryAfter != 12*time.Second {
		t.Fatalf("429: %v", err)
	}
	if resp == nil || resp.Rate.Remaining != 0 || resp.Rate.Limit != 30 {
		t.Errorf("429 Rate = %+v", resp)
	}
}

// rateLimitedOnce answers 429 with Retry-After the first `times` requests,
// then succeeds; it counts requests and checks the replayed body.
func rateLimitedOnce(t *testing.T, f *fakePortal, times int32, retryAfter string) *atomic.Int32 {
	var n atomic.Int32
	f.handle("POST /api/pixel/add", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if string(body) != `{"type":"gtmpixel","name":"x","tag":"GTM-ABCD"}` {
			t.Errorf("attempt %d body = %s", n.Load()+1, body)
		}
		if n.Add(1) <= times {
			linkRateHeaders(w, 30, 0, time.Now().Add(time.Minute).Unix())
			w.Header().Set("Retry-After", retryAfter)
			writeJSON(w, 429, map[string]any{"error": 1, "message": "slow down", "code": "RATE_LIMITED"})
			return
		}
		writeJSON(w, 200, map[string]any{"error": 0, "id": 5})
	})
	return &n
}

var testPixel = &client.LinkPixelRequest{Type: "gtmpixel", Name: "x", Tag: "GTM-ABCD"}

func TestLinksRateLimitRetry(t *testing.T) {
	t.Run("waits Retry-After and retries", func(t *testing.T) {
		f := newFakePortal(t)
		n := rateLimitedOnce(t, f, 1, "1")
		c := f.client(client.WithLinkKey(fakeLinkKey), client.WithRateLimitRetry(2))
		start := time.Now()
		id, _, err := c.Links.Pixels.Add(context.Background(), testPixel)
		if err != nil || id != 5 {
			t.Fatalf("add = %d, %v", id, err)
		}
		if d := time.Since(start); d < 900*time.Millisecond {
			t.Errorf("retried after %s, want about 1s", d)
		}
		if n.Load() != 2 {
			t.Errorf("%d requests, want 2", n.Load())
		}
	})
	t.Run("gives up after max retries", func(t *testing.T) {
		f := newFakePortal(t)
		n := rateLimitedOnce(t, f, 10, "1")
		c := f.client(client.WithLinkKey(fakeLinkKey), client.WithRateLimitRetry(1))
		_, resp, err := c.Links.Pixels.Add(context.Background(), testPixel)
		if !errors.Is(err, client.ErrRateLimited) || resp == nil || resp.StatusCode != 429 {
			t.Fatalf("err = %v, want 429", err)
		}
		if n.Load() != 2 {
			t.Errorf("%d requests, want 2", n.Load())
		}
	})
	t.Run("context ends the wait", func(t *testing.T) {
		f := newFakePortal(t)
		n := rateLimitedOnce(t, f, 1, "30")
		c := f.client(client.WithLinkKey(fakeLinkKey), client.WithRateLimitRetry(3))
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, _, err := c.Links.Pixels.Add(ctx, testPixel)
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, client.ErrRateLimited) {
			t.Fatalf("err = %v, want the deadline and 429", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("gave up after %s", d)
		}
		if n.Load() != 1 {
			t.Errorf("%d requests, want 1", n.Load())
		}
	})
	t.Run("no retry without the option", func(t *testing.T) {
		f := newFakePortal(t)
		n := rateLimitedOnce(t, f, 1, "1")
		c := f.client(client.WithLinkKey(fakeLinkKey))
		start := time.Now()
		_, _, err := c.Links.Pixels.Add(context.Background(), testPixel)
		if !errors.Is(err, client.ErrRateLimited) {
			t.Fatalf("err = %v, want 429", err)
		}
		if n.Load() != 1 || time.Since(start) > 500*time.Millisecond {
			t.Errorf("%d requests in %s, want 1 at once", n.Load(), time.Since(start))
		}
	})
}
