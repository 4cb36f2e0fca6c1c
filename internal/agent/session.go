package agent

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/seedhq/portal/pkg/client"
)

// retryError is an error with the wait before trying again.
type retryError struct {
	err   error
	after time.Duration
}

func (e *retryError) Error() string { return e.err.Error() }
func (e *retryError) Unwrap() error { return e.err }

// sessionError is a failure to obtain an access token, already logged and
// recorded by the handshake.
type sessionError struct{ err error }

func (e *sessionError) Error() string { return "no access to the portal: " + e.err.Error() }
func (e *sessionError) Unwrap() error { return e.err }

// tokenState tells whether the access token can be used as is (fresh), can
// still be used while a handshake is due or failing (usable), or not.
func (s *Syncer) tokenState() (fresh, usable bool) {
	now := s.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.AccessToken == "" || !now.Before(s.st.AccessTokenExpiresAt) {
		return false, false
	}
	return !s.handshakeDue && now.Before(s.st.AccessTokenExpiresAt.Add(-tokenRenewal)), true
}

// session returns the client with a valid access token, handshaking first
// when the token is missing, about to expire or a handshake is due. A
// failed handshake is retried after a backoff shared by every caller;
// meanwhile a token that has not expired yet is still used.
func (s *Syncer) session(ctx context.Context) (*client.Client, error) {
	if fresh, _ := s.tokenState(); fresh {
		return s.api, nil
	}
	s.hsMu.Lock()
	defer s.hsMu.Unlock()
	fresh, usable := s.tokenState()
	if fresh {
		return s.api, nil
	}
	if wait := time.Until(s.hsRetryAt); wait > 0 {
		if usable {
			return s.api, nil
		}
		return nil, &sessionError{&retryError{err: s.hsErr, after: wait}}
	}
	err := s.handshake(ctx)
	if err == nil {
		s.hsFailures, s.hsRetryAt, s.hsErr = 0, time.Time{}, nil
		return s.api, nil
	}
	if ctx.Err() != nil {
		return nil, err
	}
	s.hsFailures++
	wait := s.retryDelay(s.hsFailures, err, refusedHandshake(err))
	s.hsRetryAt, s.hsErr = time.Now().Add(wait), err
	if usable {
		return s.api, nil // keep working with the token held until it expires
	}
	return nil, &sessionError{&retryError{err: err, after: wait}}
}

// refusedHandshake reports whether the portal refused the handshake for a
// reason retrying soon cannot fix: the licence (revoked, expired, invalid,
// another school or machine) or the request.
func refusedHandshake(err error) bool {
	var ce *client.Error
	return errors.As(err, &ce) && ce.Status >= 400 && ce.Status < 500 &&
		ce.Status != http.StatusRequestTimeout && ce.Status != http.StatusTooManyRequests
}

// refused reports whether the portal refused a call (other than a
// handshake) for a reason retrying soon cannot fix: a 4xx but 401 (the
// token is renewed), 408 and 429.
func refused(err error) bool {
	var ce *client.Error
	return errors.As(err, &ce) && ce.Status != http.StatusUnauthorized && refusedHandshake(err)
}

// handshake verifies the server with its licence and keeps what the portal
// answers: access token, package key, clock skew, licence figures and
// heartbeat interval. The caller holds hsMu.
func (s *Syncer) handshake(ctx context.Context) error {
	hctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	t0 := s.o.Now()
	v, _, err := s.api.Exam.Sync.VerifyServer(hctx, &client.VerifyServerRequest{
		ServerCode: s.cfg.ServerCode, NPSN: s.cfg.NPSN, HardwareID: s.cfg.HardwareID, LicenseToken: s.cfg.LicenseToken,
	})
	t1 := s.o.Now()
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		if refusedHandshake(err) {
			err = fmt.Errorf("the portal refused the handshake (labagent keeps serving the package it holds; ask the operator about the licence): %w", err)
		} else {
			err = fmt.Errorf("handshake with the portal: %w", err)
		}
		s.fail(ctx, opHandshake, err)
		return err
	}
	// The key first: a state that names a handshake always has its key.
	if err := SavePackageKey(context.WithoutCancel(ctx), s.db, s.cfg, v.PackageKey); err != nil {
		err = fmt.Errorf("save the package key: %w", err)
		s.fail(ctx, opHandshake, err)
		return err
	}
	s.update(ctx, func(st *syncState) {
		s.measureSkew(st, v.ServerTime, t0, t1)
		s.api.SetToken(v.AccessToken)
		s.handshakeDue = false
		s.online = true
		st.AccessToken, st.AccessTokenExpiresAt = v.AccessToken, v.AccessTokenExpiresAt
		st.LastHandshakeAt = v.ServerTime
		st.contact(opHandshake, v.ServerTime)
		st.ServerName = v.ServerName
		st.LicenseID, st.LicenseExpiresAt = v.License.LicenseID, v.License.ExpiresAt
		st.MaxStudents, st.OperatingMode = v.License.MaxStudents, v.License.OperatingMode
		if v.HeartbeatIntervalSeconds > 0 {
			st.HeartbeatIntervalSeconds = v.HeartbeatIntervalSeconds
		}
		delete(st.Errors, opHandshake)
	})
	s.log.InfoContext(ctx, "handshake with the portal", "license_id", v.License.LicenseID,
		"license_expires_at", v.License.ExpiresAt, "token_expires_at", v.AccessTokenExpiresAt,
		"clock_skew", time.Duration(s.skew.Load()).Round(time.Millisecond))
	if left := v.License.ExpiresAt.Sub(v.ServerTime); left < licenseWarning {
		s.log.WarnContext(ctx, "the licence expires soon: ask the operator for a new one",
			"license_id", v.License.LicenseID, "license_expires_at", v.License.ExpiresAt,
			"days_left", int(left.Hours()/24))
	}
	signal(s.pullNow)
	signal(s.hbNow)
	return nil
}

// maxSkewRTT is the longest round trip whose server time is trusted to
// correct a clock already measured: a slow answer (the HTTP client's own
// retries, a congested line) would put the skew off by half of it.
const maxSkewRTT = 5 * time.Second

// measureSkew sets st.ClockSkew (and Now's skew) to portal time minus local
// time, for a server time stamped between the local times t0 (request sent)
// and t1 (answer received): the portal stamped it about half a round trip
// before t1. A slow round trip does not replace an earlier measurement. The
// caller holds s.mu (it runs inside update).
func (s *Syncer) measureSkew(st *syncState, serverTime, t0, t1 time.Time) {
	if serverTime.IsZero() {
		return
	}
	rtt := max(t1.Sub(t0), 0)
	if rtt > maxSkewRTT && !st.LastHandshakeAt.IsZero() {
		s.log.Debug("clock skew not measured: slow round trip", "rtt", rtt)
		return
	}
	st.ClockSkew = serverTime.Sub(t1) + rtt/2
	s.skew.Store(int64(st.ClockSkew))
}

// dropToken forgets the access token tok after the portal answered 401 to
// it, so that the next call handshakes.
func (s *Syncer) dropToken(tok string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.AccessToken == tok {
		s.st.AccessToken, s.st.AccessTokenExpiresAt = "", time.Time{}
	}
}

// call runs fn, an exchange of kind (opPull, opPush, ...) with the portal,
// with the client once a valid access token is set, bounded by timeout (0:
// none). A 401 drops the token and fn runs once more after a new
// handshake. Success marks the Syncer online and is its last contact.
func (s *Syncer) call(ctx context.Context, kind string, timeout time.Duration, fn func(ctx context.Context, c *client.Client) error) error {
	for attempt := 0; ; attempt++ {
		c, err := s.session(ctx)
		if err != nil {
			return err
		}
		tok := c.Token()
		cctx, cancel := ctx, context.CancelFunc(func() {})
		if timeout > 0 {
			cctx, cancel = context.WithTimeout(ctx, timeout)
		}
		err = fn(cctx, c)
		cancel()
		if err == nil {
			at := s.Now()
			s.mu.Lock()
			s.online = true
			s.st.contact(kind, at)
			s.mu.Unlock()
			return nil
		}
		if errors.Is(err, client.ErrUnauthorized) {
			s.log.InfoContext(ctx, "the portal refused the access token: handshaking again", "err", err)
			s.dropToken(tok)
			if attempt == 0 {
				continue
			}
		}
		return err
	}
}
