package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/pkg/client"
)

// meErr calls Me against a portal answering status, headers and body, and
// returns the *Error.
func meErr(t *testing.T, status int, header map[string]string, body string) (*client.Error, error) {
	t.Helper()
	f := newFakePortal(t)
	f.handle("GET /api/v1/auth/me", func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	})
	u, resp, err := f.client(client.WithToken("t")).Exam.Auth.Me(context.Background())
	if u != nil {
		t.Errorf("value %+v returned with an error", u)
	}
	if resp == nil || resp.StatusCode != status {
		t.Errorf("response %v, want one with status %d", resp, status)
	}
	var e *client.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v (%T), want *client.Error", err, err)
	}
	return e, err
}

func TestErrorEnvelope(t *testing.T) {
	e, err := meErr(t, 401, map[string]string{"X-Request-ID": "req-1"},
		`{"success":false,"error":"token expired","code":"TOKEN_EXPIRED"}`)
	if e.Status != 401 || e.Code != client.CodeTokenExpired || e.Message != "token expired" || e.RequestID != "req-1" {
		t.Errorf("Error = %#v", e)
	}
	if e.Method != "GET" || !strings.HasSuffix(e.URL, "/api/v1/auth/me") {
		t.Errorf("Method %q URL %q", e.Method, e.URL)
	}
	if want := "GET " + e.URL + ": 401 TOKEN_EXPIRED: token expired"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	if !errors.Is(err, client.ErrUnauthorized) {
		t.Error("errors.Is(err, ErrUnauthorized) = false")
	}
	for _, other := range []error{client.ErrNotFound, client.ErrForbidden, client.ErrServer, client.ErrRateLimited} {
		if errors.Is(err, other) {
			t.Errorf("errors.Is(err, %v) = true", other)
		}
	}
	if !errors.Is(err, &client.Error{Code: client.CodeTokenExpired}) {
		t.Error("errors.Is by code = false")
	}
	if !errors.Is(err, &client.Error{Status: 401}) || !errors.Is(err, &client.Error{Status: 401, Code: client.CodeTokenExpired}) {
		t.Error("errors.Is by status (and code) = false")
	}
	if errors.Is(err, &client.Error{Code: client.CodeLicenseExpired}) || errors.Is(err, &client.Error{}) ||
		errors.Is(err, &client.Error{Status: 403, Code: client.CodeTokenExpired}) {
		t.Error("errors.Is matched another code, status or an empty *Error")
	}
}

func TestErrorSentinelsByStatus(t *testing.T) {
	for _, tc := range []struct {
		status int
		want   error
	}{
		{400, client.ErrBadRequest}, {401, client.ErrUnauthorized}, {403, client.ErrForbidden},
		{404, client.ErrNotFound}, {409, client.ErrConflict}, {413, client.ErrTooLarge},
		{415, client.ErrUnsupportedMediaType}, {416, client.ErrRangeNotSatisfiable},
		{422, client.ErrUnprocessable}, {429, client.ErrRateLimited}, {500, client.ErrServer},
		{502, client.ErrServer}, {503, client.ErrUnavailable},
	} {
		_, err := meErr(t, tc.status, nil, `{"success":false,"error":"x","code":"X"}`)
		if !errors.Is(err, tc.want) {
			t.Errorf("status %d: errors.Is(err, %v) = false", tc.status, tc.want)
		}
	}
}

func TestErrorFallbackForNonJSON(t *testing.T) {
	e, _ := meErr(t, 502, map[string]string{"Content-Type": "text/html"},
		"<html>\n<body>  Bad   Gateway </body></html>\n")
	if e.Code != "" || e.Message != "<html> <body> Bad Gateway </body></html>" {
		t.Errorf("HTML body: %#v", e)
	}
	e, _ = meErr(t, 500, nil, "")
	if e.Code != "" || e.Message != "Internal Server Error" {
		t.Errorf("empty body: %#v", e)
	}
	e, err := meErr(t, 404, nil, `{"unrelated":true}`)
	if e.Code != "" || e.Message != `{"unrelated":true}` || !errors.Is(err, client.ErrNotFound) {
		t.Errorf("JSON that is no envelope: %#v", e)
	}
	e, _ = meErr(t, 500, nil, "\xff\xfe binary")
	if e.Message != "Internal Server Error" {
		t.Errorf("binary body: %#v", e)
	}
	e, _ = meErr(t, 500, nil, strings.Repeat("é", 2000))
	if len(e.Message) > 520 || !strings.HasSuffix(e.Message, "…") {
		t.Errorf("long body: message of %d bytes", len(e.Message))
	}
	if want := "500: " + e.Message; !strings.HasSuffix(e.Error(), want) {
		t.Errorf("Error() = %q", e.Error())
	}
}

func TestRetryAfter(t *testing.T) {
	e, err := meErr(t, 429, map[string]string{"Retry-After": "120"},
		`{"success":false,"error":"too many failed logins; retry later","code":"TOO_MANY_ATTEMPTS"}`)
	if !errors.Is(err, client.ErrRateLimited) || e.RetryAfter != 120*time.Second || e.Code != client.CodeTooManyAttempts {
		t.Errorf("seconds: %#v", e)
	}
	date := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	e, _ = meErr(t, 503, map[string]string{"Retry-After": date}, "")
	if e.RetryAfter < 80*time.Second || e.RetryAfter > 91*time.Second {
		t.Errorf("HTTP date: RetryAfter = %v", e.RetryAfter)
	}
	for _, v := range []string{"", "soon", "-5", "Mon, 02 Jan 2006 15:04:05 GMT"} {
		e, _ = meErr(t, 429, map[string]string{"Retry-After": v}, "")
		if e.RetryAfter != 0 {
			t.Errorf("Retry-After %q: RetryAfter = %v, want 0", v, e.RetryAfter)
		}
	}
}

func TestErrorWithoutRequest(t *testing.T) {
	e := &client.Error{Status: 404, Code: "NOT_FOUND", Message: "gone"}
	if e.Error() != "404 NOT_FOUND: gone" {
		t.Errorf("Error() = %q", e.Error())
	}
	if !errors.Is(e, client.ErrNotFound) {
		t.Error("errors.Is on a bare *Error")
	}
}
