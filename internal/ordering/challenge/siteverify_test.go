package challenge_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/ordering/challenge"
)

// siteverifyServer is a fake siteverify endpoint answering with answer and
// status after delay, and passing on the form of each request while nobody waits for an earlier one.
type siteverifyServer struct {
	status int
	answer string
	delay  time.Duration
	form   chan map[string]string
}

func (s *siteverifyServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		http.Error(w, "want a form POST", http.StatusBadRequest)
		return
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	form := map[string]string{}
	for k := range r.PostForm {
		form[k] = r.PostForm.Get(k)
	}
	select {
	case s.form <- form:
	default:
	}
	if s.delay > 0 {
		select {
		case <-time.After(s.delay):
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(s.status)
	_, _ = w.Write([]byte(s.answer))
}

// MustSiteVerify starts a fake siteverify endpoint and returns a SiteVerify
// for it.
func MustSiteVerify(t *testing.T, s *siteverifyServer) *challenge.SiteVerify {
	t.Helper()
	s.form = make(chan map[string]string, 1)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return challenge.NewSiteVerify(srv.URL, "s3cret", srv.Client())
}

func TestSiteVerifySuccessSendsForm(t *testing.T) {
	s := &siteverifyServer{status: http.StatusOK, answer: `{"success":true,"error-codes":[],"hostname":"shop.example"}`}
	v := MustSiteVerify(t, s)
	if err := v.Verify(context.Background(), "tok-123", "203.0.113.7"); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	got := <-s.form
	want := map[string]string{"secret": "s3cret", "response": "tok-123", "remoteip": "203.0.113.7"}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("form %s = %q, want %q", k, got[k], w)
		}
	}
}

func TestSiteVerifyOutcomes(t *testing.T) {
	tests := []struct {
		name   string
		server siteverifyServer
		want   error
	}{
		{"failure", siteverifyServer{status: 200, answer: `{"success":false,"error-codes":["invalid-input-response"]}`}, challenge.ErrFailed},
		{"duplicate", siteverifyServer{status: 200, answer: `{"success":false,"error-codes":["timeout-or-duplicate"]}`}, challenge.ErrFailed},
		{"hcaptcha already seen", siteverifyServer{status: 200, answer: `{"success":false,"error-codes":["invalid-or-already-seen-response"]}`}, challenge.ErrFailed},
		{"no error codes", siteverifyServer{status: 200, answer: `{"success":false}`}, challenge.ErrFailed},
		{"empty object", siteverifyServer{status: 200, answer: `{}`}, challenge.ErrFailed},
		{"wrong secret", siteverifyServer{status: 200, answer: `{"success":false,"error-codes":["invalid-input-secret"]}`}, challenge.ErrUnavailable},
		{"turnstile internal error", siteverifyServer{status: 200, answer: `{"success":false,"error-codes":["internal-error"]}`}, challenge.ErrUnavailable},
		{"500", siteverifyServer{status: 500, answer: `{"success":true}`}, challenge.ErrUnavailable},
		{"429", siteverifyServer{status: 429, answer: `slow down`}, challenge.ErrUnavailable},
		{"garbage JSON", siteverifyServer{status: 200, answer: `<html>oops</html>`}, challenge.ErrUnavailable},
		{"truncated JSON", siteverifyServer{status: 200, answer: `{"success":tr`}, challenge.ErrUnavailable},
		{"success as string", siteverifyServer{status: 200, answer: `{"success":"true"}`}, challenge.ErrUnavailable},
		{"over 64 KiB", siteverifyServer{status: 200, answer: `{"success":true,"pad":"` + strings.Repeat("x", 70<<10) + `"}`}, challenge.ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := MustSiteVerify(t, &tt.server)
			if err := v.Verify(context.Background(), "tok", ""); !errors.Is(err, tt.want) {
				t.Fatalf("Verify = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestSiteVerifySlowServer(t *testing.T) {
	v := MustSiteVerify(t, &siteverifyServer{status: 200, answer: `{"success":true}`, delay: 5 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := v.Verify(ctx, "tok", "")
	if !errors.Is(err, challenge.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Verify = %v, want ErrUnavailable wrapping the deadline", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Verify took %v, want it to stop at the deadline", d)
	}
}

func TestSiteVerifyClientTimeout(t *testing.T) {
	s := &siteverifyServer{status: 200, answer: `{"success":true}`, delay: 5 * time.Second, form: make(chan map[string]string, 1)}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	client := srv.Client()
	client.Timeout = 100 * time.Millisecond
	if err := challenge.NewSiteVerify(srv.URL, "s3cret", client).Verify(context.Background(), "tok", ""); !errors.Is(err, challenge.ErrUnavailable) {
		t.Fatalf("Verify = %v, want ErrUnavailable", err)
	}
}

func TestSiteVerifyUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	if err := challenge.NewSiteVerify(url, "s3cret", nil).Verify(context.Background(), "tok", ""); !errors.Is(err, challenge.ErrUnavailable) {
		t.Fatalf("Verify = %v, want ErrUnavailable", err)
	}
}

func TestSiteVerifyRefusesBeforeCalling(t *testing.T) {
	s := &siteverifyServer{status: 200, answer: `{"success":true}`}
	v := MustSiteVerify(t, s)
	if err := v.Verify(context.Background(), "", ""); !errors.Is(err, challenge.ErrMissing) {
		t.Errorf("Verify of an empty token = %v, want ErrMissing", err)
	}
	if err := v.Verify(context.Background(), strings.Repeat("t", 17<<10), ""); !errors.Is(err, challenge.ErrFailed) {
		t.Errorf("Verify of a 17 KiB token = %v, want ErrFailed", err)
	}
	select {
	case f := <-s.form:
		t.Errorf("siteverify was called with %v", f)
	default:
	}
}

func TestSiteVerifyOmitsEmptyRemoteIP(t *testing.T) {
	s := &siteverifyServer{status: 200, answer: `{"success":true}`}
	v := MustSiteVerify(t, s)
	if err := v.Verify(context.Background(), "tok", ""); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if ip, ok := (<-s.form)["remoteip"]; ok {
		t.Errorf("remoteip = %q, want it left out", ip)
	}
}
