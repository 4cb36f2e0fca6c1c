package client_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/seedhq/portal/internal/password"
	"github.com/seedhq/portal/pkg/client"
)

// lossyTransport sends every request to the portal and loses the answer
// of the first POST, as a mobile connection cut after the request went out
// does: the portal did the work, the client sees a connection error.
type lossyTransport struct {
	next http.RoundTripper
	mu   sync.Mutex
	lost bool
	keys []string // the Idempotency-Key of every POST sent
}

func (l *lossyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := l.next.RoundTrip(r)
	if r.Method != http.MethodPost {
		return resp, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.keys = append(l.keys, r.Header.Get("Idempotency-Key"))
	if err == nil && !l.lost {
		l.lost = true
		resp.Body.Close()
		return nil, errors.New("read: connection reset by peer (the answer was lost)")
	}
	return resp, err
}

// TestRetriedCreationCreatesOnce: a creating call whose answer is lost is
// sent again by a retrying HTTP client (labagent's and linkctl's) with the
// same Idempotency-Key, and the portal creates one link, answering the
// retry with the first answer.
func TestRetriedCreationCreatesOnce(t *testing.T) {
	old := password.Cost
	password.Cost = 4
	t.Cleanup(func() { password.Cost = old })
	for _, so := range itStores {
		t.Run(so.name, func(t *testing.T) {
			base, op := newLinksPortal(t, so.open(t))
			u, _ := mustLinkUser(t, op, base, "retrier", 1000)
			lossy := &lossyTransport{next: http.DefaultTransport}
			rc := retryablehttp.NewClient()
			rc.HTTPClient.Transport = lossy
			rc.RetryWaitMin, rc.RetryWaitMax, rc.Logger = 0, 0, nil
			c := mustClient(t, base, client.WithLinkKey(u.Key), client.WithHTTPClient(rc.StandardClient()))
			ctx := context.Background()

			link, resp, err := c.Links.URLs.Add(ctx, &client.LinkURLRequest{URL: "https://example.com/once"})
			must(t, "add a link whose first answer is lost", err)
			if resp.Header.Get("Idempotent-Replayed") != "true" {
				t.Errorf("the retry's answer is not marked Idempotent-Replayed")
			}
			urls, _, err := c.Links.URLs.List(ctx, nil)
			must(t, "list links", err)
			if len(urls) != 1 || urls[0].ID != link.ID {
				t.Fatalf("%d links after a retried creation (want 1, id %d): %+v", len(urls), link.ID, urls)
			}
			if len(lossy.keys) != 2 || lossy.keys[0] == "" || lossy.keys[0] != lossy.keys[1] {
				t.Fatalf("Idempotency-Key of the two attempts: %q, want one key twice", lossy.keys)
			}

			// The next call has a key of its own; a caller may choose it.
			_, _, err = c.Links.URLs.Add(client.WithIdempotencyKey(ctx, "campaign-42-link-1"), &client.LinkURLRequest{URL: "https://example.com/two"})
			must(t, "add a second link", err)
			if got := lossy.keys[2]; got != "campaign-42-link-1" {
				t.Fatalf("Idempotency-Key of a call with WithIdempotencyKey = %q", got)
			}
			// The same key for another call is refused.
			_, _, err = c.Links.URLs.Add(client.WithIdempotencyKey(ctx, "campaign-42-link-1"), &client.LinkURLRequest{URL: "https://example.com/three"})
			var apiErr *client.Error
			if !errors.As(err, &apiErr) || apiErr.Status != 422 || apiErr.Code != client.CodeIdempotencyKeyReused {
				t.Fatalf("a key reused for another link: %v, want 422 %s", err, client.CodeIdempotencyKeyReused)
			}
		})
	}
}
