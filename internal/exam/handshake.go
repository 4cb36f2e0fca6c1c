package exam

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/identity"
	"github.com/seedhq/portal/internal/sortid"
	"github.com/seedhq/portal/pkg/labwire"
)

// AudienceServer is the audience of the lab servers' access tokens, signed
// with the portal's identity.Tokens: such a token never authorises an
// operator and back.
const AudienceServer = "portal-server"

// Handshake refusals, each with a stable code.
var (
	// ErrLicenseInvalid is labwire.ErrLicenseInvalid with its code: a
	// malformed token, a bad signature, or a licence the portal does not
	// know.
	ErrLicenseInvalid  = apperr.New(apperr.Unauthorized, "LICENSE_INVALID", labwire.ErrLicenseInvalid.Error())
	ErrLicenseExpired  = apperr.New(apperr.Forbidden, "LICENSE_EXPIRED", "the licence has expired")
	ErrLicenseRevoked  = apperr.New(apperr.Forbidden, "LICENSE_REVOKED", "the licence has been revoked")
	ErrLicenseNPSN     = apperr.New(apperr.Forbidden, "NPSN_MISMATCH", "the licence was issued to another school (npsn)")
	ErrLicenseHardware = apperr.New(apperr.Forbidden, "HARDWARE_MISMATCH", "the licence was issued for another machine (hardware_id)")
	ErrServerMismatch  = apperr.New(apperr.Forbidden, "SERVER_MISMATCH", "the access token belongs to another server")
)

// VerifyInput is the body of POST /api/v1/sync/verify-server.
type VerifyInput struct {
	ServerCode   string
	NPSN         string
	HardwareID   string
	LicenseToken string
	ClientIP     string
}

// Verification is a successful handshake.
type Verification struct {
	ServerName           string
	ServerTime           time.Time
	AccessToken          string
	AccessTokenExpiresAt time.Time
	PackageKey           []byte
	HeartbeatInterval    time.Duration
	License              License
}

// ServerIdentity is what a verified lab server's access token says about it.
type ServerIdentity struct {
	ServerCode string
	NPSN       string
	SchoolName string
	HardwareID string
	LicenseID  string
}

// VerifyServer performs the handshake of a lab server: it checks the licence
// (signature, existence, revocation, expiry, npsn and hardware binding),
// binds server_code to the machine on first success, and returns an access
// token and the school's package key. Each attempt is written to the sync log.
func (s *Service) VerifyServer(ctx context.Context, in VerifyInput) (Verification, error) {
	v, err := s.verifyServer(ctx, in)
	entry := SyncLog{
		ID: sortid.New(), Action: ActionVerifyServer, ServerCode: in.ServerCode, NPSN: in.NPSN,
		Outcome: OutcomeAccepted, ReceivedAt: s.now(),
	}
	if err != nil {
		if apperr.From(err) == nil {
			return Verification{}, err // internal: nothing to audit reliably
		}
		entry.Outcome, entry.ErrorCode = OutcomeRejected, apperr.CodeOf(err)
	}
	if len(entry.ServerCode) <= 64 && len(entry.NPSN) <= 64 {
		if lerr := s.store.AppendSyncLog(ctx, entry); lerr != nil {
			s.log.ErrorContext(ctx, "write handshake sync log", "err", lerr)
		}
	}
	return v, err
}

func (s *Service) verifyServer(ctx context.Context, in VerifyInput) (Verification, error) {
	in.ServerCode = strings.TrimSpace(in.ServerCode)
	in.NPSN = strings.TrimSpace(in.NPSN)
	in.HardwareID = strings.TrimSpace(in.HardwareID)
	switch {
	case !labwire.ValidServerCode(in.ServerCode):
		return Verification{}, invalid("server_code must be 1 to 64 letters, digits, dots, dashes or underscores")
	case !labwire.ValidNPSN(in.NPSN):
		return Verification{}, invalid("npsn must be 8 digits")
	case in.HardwareID == "" || len(in.HardwareID) > 200:
		return Verification{}, invalid("hardware_id is required (at most 200 characters)")
	case in.LicenseToken == "":
		return Verification{}, invalid("license_token is required")
	}
	payload, err := labwire.ParseLicenseToken(s.PublicKey(), in.LicenseToken)
	if errors.Is(err, labwire.ErrLicenseInvalid) {
		return Verification{}, fmt.Errorf("%w (%v)", ErrLicenseInvalid, err)
	}
	if err != nil {
		return Verification{}, err
	}
	lic, err := s.store.GetLicense(ctx, payload.LicenseID)
	if errors.Is(err, ErrNotFound) {
		return Verification{}, ErrLicenseInvalid
	}
	if err != nil {
		return Verification{}, fmt.Errorf("verify server: %w", err)
	}
	now := s.now()
	switch {
	case lic.Revoked():
		return Verification{}, ErrLicenseRevoked
	case !now.Before(lic.ExpiresAt):
		return Verification{}, ErrLicenseExpired
	case lic.NPSN != in.NPSN:
		return Verification{}, ErrLicenseNPSN
	case lic.HardwareID != in.HardwareID:
		return Verification{}, ErrLicenseHardware
	}
	if _, err := s.store.BindServer(ctx, ServerBinding{
		ServerCode: in.ServerCode, NPSN: lic.NPSN, HardwareID: in.HardwareID, LicenseID: lic.ID, BoundAt: now,
	}); err != nil {
		return Verification{}, fmt.Errorf("bind server: %w", err)
	}
	key, err := s.PackageKey(ctx, lic.NPSN)
	if err != nil {
		return Verification{}, err
	}
	exp := now.Add(s.cfg.ServerTokenTTL)
	if exp.After(lic.ExpiresAt) {
		exp = lic.ExpiresAt
	}
	tok, err := s.tokens.Sign(jwt.MapClaims{
		"sub":    in.ServerCode,
		"aud":    AudienceServer,
		"npsn":   lic.NPSN,
		"school": lic.SchoolName,
		"hw":     in.HardwareID,
		"lid":    lic.ID,
		"exp":    exp.Unix(),
	})
	if err != nil {
		return Verification{}, err
	}
	return Verification{
		ServerName:           lic.SchoolName,
		ServerTime:           now,
		AccessToken:          tok,
		AccessTokenExpiresAt: exp,
		PackageKey:           key,
		HeartbeatInterval:    s.cfg.HeartbeatInterval,
		License:              lic,
	}, nil
}

// PackageKey returns the AES-256 key of a school's packages, creating it on first use.
func (s *Service) PackageKey(ctx context.Context, npsn string) ([]byte, error) {
	key, err := s.secret(ctx, secretPackageKey+npsn, func() ([]byte, error) { return randomBytes(labwire.PackageKeySize) })
	if err != nil {
		return nil, err
	}
	return key, nil
}

// AuthenticateServer verifies a lab server's access token.
func (s *Service) AuthenticateServer(_ context.Context, token string) (ServerIdentity, error) {
	if id, ok := s.serverTokens.get(token, s.cfg.Now()); ok {
		return id, nil
	}
	claims, err := s.tokens.Parse(token, AudienceServer)
	if err != nil {
		return ServerIdentity{}, err
	}
	str := func(k string) string { v, _ := claims[k].(string); return v }
	id := ServerIdentity{ServerCode: str("sub"), NPSN: str("npsn"), SchoolName: str("school"), HardwareID: str("hw"), LicenseID: str("lid")}
	if id.ServerCode == "" || id.NPSN == "" {
		return ServerIdentity{}, identity.ErrUnauthorized
	}
	if exp, err := claims.GetExpirationTime(); err == nil && exp != nil {
		s.serverTokens.put(token, id, exp.Time)
	}
	return id, nil
}

// maxCachedServerTokens bounds the verified lab-server tokens kept: one per
// lab server of a national fleet fits (90,000), at a few hundred bytes each.
const maxCachedServerTokens = 200_000

// serverTokenCache keeps the lab-server tokens already verified, until
// their expiry: a server sends the same token with every heartbeat, pull
// and push of its hour, and verifying it again (base64, JSON, HMAC) was
// the largest cost of a heartbeat. Only tokens that passed parseToken
// (pinned algorithm, secret, audience, issuer, expiry) are kept, under their
// exact text; server tokens are never revoked one by one (a licence's
// revocation is checked at the next handshake), so the answer is the one
// parseToken would give until the expiry, when the token is checked again.
type serverTokenCache struct {
	mu sync.RWMutex
	m  map[string]cachedServerToken
}

type cachedServerToken struct {
	id  ServerIdentity
	exp time.Time
}

// get returns the identity of token when it is cached and not expired at
// now.
func (c *serverTokenCache) get(token string, now time.Time) (ServerIdentity, bool) {
	c.mu.RLock()
	t, ok := c.m[token]
	c.mu.RUnlock()
	if !ok || !now.Before(t.exp) {
		return ServerIdentity{}, false
	}
	return t.id, true
}

// put keeps token's identity until exp. When the cache is full it is
// emptied first (the servers' next requests verify their tokens again).
func (c *serverTokenCache) put(token string, id ServerIdentity, exp time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedServerTokens {
		c.m = make(map[string]cachedServerToken)
	}
	c.m[token] = cachedServerToken{id: id, exp: exp}
}

// CheckServer returns ErrServerMismatch unless serverCode (and npsn, when
// given) are the ones of the authenticated server.
func CheckServer(id ServerIdentity, serverCode, npsn string) error {
	if serverCode != id.ServerCode || (npsn != "" && npsn != id.NPSN) {
		return ErrServerMismatch
	}
	return nil
}

// ListServers returns the server bindings of a school (all when npsn is empty).
func (s *Service) ListServers(ctx context.Context, npsn string) ([]ServerBinding, error) {
	bs, err := s.store.ListServerBindings(ctx, npsn)
	if err != nil {
		return nil, fmt.Errorf("list servers: %w", err)
	}
	return bs, nil
}

// ResetServer deletes a server_code's hardware binding so that the next
// handshake (from a replacement machine) binds afresh.
func (s *Service) ResetServer(ctx context.Context, serverCode string) error {
	if err := s.store.DeleteServerBinding(ctx, serverCode); err != nil {
		return fmt.Errorf("reset server: %w", err)
	}
	return nil
}
