package challenge

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// The siteverify endpoints of the remote verifiers NewSiteVerify supports.
const (
	// TurnstileVerifyURL is Cloudflare Turnstile's siteverify endpoint.
	TurnstileVerifyURL = "https://challenges.cloudflare.com/turnstile/v0/siteverify"
	// HCaptchaVerifyURL is hCaptcha's siteverify endpoint.
	HCaptchaVerifyURL = "https://api.hcaptcha.com/siteverify"
)

// DefaultSiteVerifyTimeout bounds a siteverify call when NewSiteVerify is
// given no http.Client.
const DefaultSiteVerifyTimeout = 10 * time.Second

const (
	// maxRemoteToken bounds the token sent on: Turnstile's are at most
	// 2,048 characters and hCaptcha's a few KiB.
	maxRemoteToken = 16 << 10
	// maxVerifyBody bounds the siteverify answer read.
	maxVerifyBody = 64 << 10
)

// unavailableCodes are the error-codes of a siteverify answer that say the
// check could not be made, not that the client failed it: Turnstile's
// internal-error (retry), and a missing, wrong or mismatched secret, a
// fault of the portal's configuration that no client can fix.
var unavailableCodes = []string{"internal-error", "missing-input-secret", "invalid-input-secret", "sitekey-secret-mismatch"}

// SiteVerify verifies tokens of Cloudflare Turnstile or hCaptcha through
// their siteverify API: a form POST of secret, response and remoteip,
// answered with JSON {"success": bool, "error-codes": [...]}. The remote
// side makes its tokens single use and expiring.
type SiteVerify struct {
	verifyURL string
	secret    string
	client    *http.Client
}

var _ Verifier = (*SiteVerify)(nil)

// NewSiteVerify returns a SiteVerify that posts to verifyURL
// (TurnstileVerifyURL, HCaptchaVerifyURL) with secret. client sets the
// timeouts; nil means a client with DefaultSiteVerifyTimeout.
func NewSiteVerify(verifyURL, secret string, client *http.Client) *SiteVerify {
	if client == nil {
		client = &http.Client{Timeout: DefaultSiteVerifyTimeout}
	}
	return &SiteVerify{verifyURL: verifyURL, secret: secret, client: client}
}

// siteVerifyAnswer is the part of a siteverify answer SiteVerify reads.
type siteVerifyAnswer struct {
	Success    bool     `json:"success"`
	ErrorCodes []string `json:"error-codes"`
}

// Verify asks the remote verifier about token. A network error, a deadline
// of ctx, a non-2xx status or an answer that is not JSON gives
// ErrUnavailable, as do error-codes that blame the portal's secret or the
// verifier itself; any other success false gives ErrFailed.
func (s *SiteVerify) Verify(ctx context.Context, token, remoteIP string) error {
	if token == "" {
		return ErrMissing
	}
	if len(token) > maxRemoteToken {
		return fmt.Errorf("%w: token is %d bytes, longer than %d", ErrFailed, len(token), maxRemoteToken)
	}
	form := url.Values{"secret": {s.secret}, "response": {token}}
	if remoteIP != "" {
		form.Set("remoteip", remoteIP)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.verifyURL, strings.NewReader(form.Encode()))
	if err != nil {
		return fmt.Errorf("%w: build siteverify request: %w", ErrUnavailable, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("%w: siteverify: %w", ErrUnavailable, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxVerifyBody))
	if err != nil {
		return fmt.Errorf("%w: read siteverify answer: %w", ErrUnavailable, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("%w: siteverify answered %s", ErrUnavailable, resp.Status)
	}
	var a siteVerifyAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return fmt.Errorf("%w: decode siteverify answer: %w", ErrUnavailable, err)
	}
	if a.Success {
		return nil
	}
	if slices.ContainsFunc(a.ErrorCodes, func(c string) bool { return slices.Contains(unavailableCodes, c) }) {
		return fmt.Errorf("%w: siteverify error-codes %v", ErrUnavailable, a.ErrorCodes)
	}
	return fmt.Errorf("%w: siteverify error-codes %v", ErrFailed, a.ErrorCodes)
}
