package client_test

import (
	"context"
	"testing"
)

// TestOrderingPollEmptyToken: Poll with an empty token is refused by the
// client, without a request (the portal would answer 400 INVALID_QUERY);
// a token is sent as the token query parameter.
func TestOrderingPollEmptyToken(t *testing.T) {
	f := newFakePortal(t)
	f.json("GET /api/auth/poll-status", 200, map[string]any{"success": true, "status": "PENDING", "expiresIn": 80})
	c := f.client()
	if st, _, err := c.Ordering.Auth.Poll(context.Background(), ""); err == nil {
		t.Fatalf("Poll(\"\") = %+v, want an error", st)
	}
	if reqs := f.requests(); len(reqs) != 0 {
		t.Fatalf("Poll(\"\") sent %s %s?%s", reqs[0].Method, reqs[0].Path, reqs[0].RawQuery)
	}
	st, _, err := c.Ordering.Auth.Poll(context.Background(), "tok_AAAAAAAAAAAAAAAAAAAAAAAAAA")
	if err != nil || st.Status != "PENDING" || st.ExpiresIn != 80 {
		t.Fatalf("Poll = %+v, %v", st, err)
	}
	if q := f.last().RawQuery; q != "token=tok_AAAAAAAAAAAAAAAAAAAAAAAAAA" {
		t.Fatalf("query %q", q)
	}
}
