package ordering

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/seedhq/portal/internal/apperr"
)

// LoginStatus is the state of a login token.
type LoginStatus string

// The states of a login token: PENDING until the verification message
// arrives, VERIFIED until the JWT is handed out by a poll, then DELIVERED.
// A PENDING token past its expiry is EXPIRED (computed, not stored).
const (
	LoginPending   LoginStatus = "PENDING"
	LoginVerified  LoginStatus = "VERIFIED"
	LoginDelivered LoginStatus = "DELIVERED"
	LoginExpired   LoginStatus = "EXPIRED"
)

// LoginTTL is the lifetime of a login token (the spec's 90 seconds).
const LoginTTL = 90 * time.Second

// LoginToken is a login in progress. The token itself is never stored: it
// is kept as the SHA-256 of its text (Hash).
type LoginToken struct {
	Hash       string      `json:"hash"`
	Number     string      `json:"messengerNumber"`
	Address    string      `json:"address"`
	Status     LoginStatus `json:"status"`
	CreatedAt  time.Time   `json:"createdAt"`
	ExpiresAt  time.Time   `json:"expiresAt"`
	UserID     string      `json:"userId,omitempty"`
	VerifiedAt *time.Time  `json:"verifiedAt,omitempty"`
}

// hashToken returns the stored form of a login token.
func hashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// tokenPattern is a login token in a message: VERIFY_ and the token.
var tokenPattern = regexp.MustCompile(`VERIFY_(tok_[A-Z2-7]{26})\b`)

// LoginStart is the answer to a login request.
type LoginStart struct {
	Token     string `json:"token"`
	MagicLink string `json:"magicLink"`
	ExpiresIn int    `json:"expiresIn"`
}

// Login starts a login for number from the client address: it checks the
// anti-bot challenge, applies the ban ladder to the number and the address,
// and issues a PENDING token that the number's verification message turns
// VERIFIED. A refused login is an *apperr.RetryAfterError with ErrBanned
// and the time left, or ErrBannedPermanently and -1.
func (s *Service) Login(ctx context.Context, number, challengeToken, address string) (LoginStart, error) {
	n, err := NormalizeNumber(number, s.cfg.Region)
	if err != nil {
		return LoginStart{}, err
	}
	if err := s.cfg.Challenge.Verify(ctx, challengeToken, address); err != nil {
		// The verifier's errors carry their codes (CHALLENGE_REQUIRED,
		// CHALLENGE_FAILED, CHALLENGE_UNAVAILABLE).
		if apperr.KindOf(err) == apperr.Unavailable {
			s.log.Warn("ordering: the challenge verifier is unavailable", "err", err)
		}
		return LoginStart{}, fmt.Errorf("verify challenge: %w", err)
	}
	now := s.cfg.Now().UTC()
	var refused *apperr.RetryAfterError
	_, err = s.store.UpdateBans(ctx, banKeys(n, address), now, newID, func(bans []*Ban) error {
		refused = nil
		// Every subject counts the attempt, even when another refuses it,
		// so that an address spraying numbers is banned too.
		for _, b := range bans {
			if !b.attempt(now) {
				e := &apperr.RetryAfterError{Err: ErrBanned, RetryAfter: b.RetryAfter(now)}
				if b.Level >= 3 {
					e.Err = ErrBannedPermanently
				}
				if refused == nil || e.RetryAfter < 0 || refused.RetryAfter >= 0 && e.RetryAfter > refused.RetryAfter {
					refused = e
				}
			}
		}
		return nil
	})
	if err != nil {
		return LoginStart{}, fmt.Errorf("login attempt: %w", err)
	}
	if refused != nil {
		return LoginStart{}, refused
	}
	token := "tok_" + rand.Text()
	t := LoginToken{Hash: hashToken(token), Number: n, Address: address, Status: LoginPending,
		CreatedAt: now, ExpiresAt: now.Add(LoginTTL)}
	if err := s.store.CreateLoginToken(ctx, t); err != nil {
		return LoginStart{}, fmt.Errorf("create login token: %w", err)
	}
	link := *s.link
	q := link.Query()
	q.Set("text", "VERIFY_"+token)
	link.RawQuery = q.Encode()
	return LoginStart{Token: token, MagicLink: link.String(), ExpiresIn: int(LoginTTL / time.Second)}, nil
}

// banKeys returns the ban records a login from address for number counts
// against, the number first.
func banKeys(number, address string) []BanKey {
	keys := []BanKey{{BanNumber, number}}
	if address != "" {
		keys = append(keys, BanKey{BanAddress, address})
	}
	return keys
}

// InboundResult is what an inbound message did.
type InboundResult string

// Results of an inbound message.
const (
	InboundVerified         InboundResult = "VERIFIED"          // it verified a login token
	InboundAlreadyProcessed InboundResult = "ALREADY_PROCESSED" // its token was verified before
	InboundRecorded         InboundResult = "RECORDED"          // no token: consent recorded
)

// Inbound handles a message from a number, delivered by the messaging
// gateway (whose signature the HTTP edge has checked). It records the
// number's consent to receive messages and proves the number (ending its
// level 1 and 2 bans); when the text holds VERIFY_<token>, the token must be
// PENDING, unexpired and issued for that number: it becomes VERIFIED and the
// number's user is created (CUSTOMER, or OWNER for the configured owner
// number) or its last login updated.
func (s *Service) Inbound(ctx context.Context, from, text string) (InboundResult, User, error) {
	n, err := NormalizeNumber(from, s.cfg.Region)
	if err != nil {
		return "", User{}, err
	}
	now := s.cfg.Now().UTC()
	if err := s.store.RecordConsent(ctx, Consent{Number: n, Source: ConsentInbound, FirstAt: now, LastAt: now}); err != nil {
		return "", User{}, fmt.Errorf("record consent: %w", err)
	}
	if _, err := s.store.UpdateBans(ctx, banKeys(n, ""), now, newID, func(bans []*Ban) error {
		bans[0].proven()
		return nil
	}); err != nil {
		return "", User{}, fmt.Errorf("inbound message: %w", err)
	}
	m := tokenPattern.FindStringSubmatch(text)
	if m == nil {
		return InboundRecorded, User{}, nil
	}
	already := false
	t, u, err := s.store.UpdateLogin(ctx, hashToken(m[1]), func(t *LoginToken, u *User) error {
		switch {
		case t.Number != n:
			return ErrNumberMismatch
		case t.Status == LoginVerified || t.Status == LoginDelivered:
			already = true
			return errAlready
		case !now.Before(t.ExpiresAt):
			return ErrTokenExpired
		}
		if u.ID == "" {
			u.ID, u.MessengerNumber, u.Role, u.CreatedAt = newID(), n, RoleCustomer, now
			if n == s.cfg.OwnerNumber {
				u.Role = RoleOwner
			}
		}
		u.LastLoginAt = now
		t.Status, t.UserID, t.VerifiedAt = LoginVerified, u.ID, &now
		return nil
	})
	if already {
		return InboundAlreadyProcessed, User{}, nil
	}
	if err != nil {
		return "", User{}, err
	}
	if _, err := s.store.UpdateBans(ctx, banKeys(t.Number, t.Address), now, newID, func(bans []*Ban) error {
		for _, b := range bans {
			b.verified()
		}
		return nil
	}); err != nil {
		return "", User{}, fmt.Errorf("verified login: %w", err)
	}
	s.log.Info("ordering: login verified", "user", u.ID, "role", u.Role)
	return InboundVerified, u, nil
}

// GatewayMessage handles an inbound message delivered by the messaging
// gateway as the webhook with id (whose signature the HTTP edge checked): a
// webhook id seen before within ReplayWindow is InboundAlreadyProcessed and
// changes nothing; otherwise as Inbound. When the handling fails on the
// portal's side, the id is forgotten so that the gateway's retry is handled.
func (s *Service) GatewayMessage(ctx context.Context, id, from, text string) (InboundResult, User, error) {
	key := "gateway-webhook:" + id
	fresh, err := s.store.MarkSpent(ctx, key, s.cfg.Now().Add(ReplayWindow))
	if err != nil {
		return "", User{}, fmt.Errorf("gateway message: %w", err)
	}
	if !fresh {
		return InboundAlreadyProcessed, User{}, nil
	}
	res, u, err := s.Inbound(ctx, from, text)
	if err != nil && apperr.From(err) == nil {
		if uerr := s.store.UnmarkSpent(context.WithoutCancel(ctx), key); uerr != nil {
			s.log.Error("ordering: forgetting a failed webhook id", "err", uerr)
		}
	}
	return res, u, err
}

// ReplayWindow is how long a webhook id is remembered: twice the signature
// tolerance of 5 minutes, so that a replay is refused for as long as its
// timestamp would be accepted.
const ReplayWindow = 10 * time.Minute

// errAlready stops UpdateLogin for a token verified before: nothing to save.
var errAlready = errors.New("already verified")

// PollResult is the state of a login for its poller.
type PollResult struct {
	Status LoginStatus
	// ExpiresIn is the seconds left of a PENDING token.
	ExpiresIn int
	// JWT and User are set once, on the poll that finds the token VERIFIED.
	JWT  string
	User User
}

// Poll limits: polls per minute of one token and of one client address. The
// spec's clients poll every 2 seconds (30 a minute).
const (
	PollsPerToken   = 60
	PollsPerAddress = 600
)

// Poll returns the state of the login of token, polled from address. The
// first poll after verification hands out the JWT and marks the token
// DELIVERED; later polls get ErrTokenUsed, so a JWT is never handed out
// twice. Polls beyond PollsPerToken a minute for the token or
// PollsPerAddress for the address are ErrTooManyPolls with the wait.
func (s *Service) Poll(ctx context.Context, token, address string) (PollResult, error) {
	now := s.cfg.Now().UTC()
	if err := s.limitPolls(ctx, now, "ordering:poll-address:"+address, PollsPerAddress); err != nil {
		return PollResult{}, err
	}
	if tokenPattern.FindString("VERIFY_"+token) == "" {
		return PollResult{}, ErrTokenNotFound
	}
	if err := s.limitPolls(ctx, now, "ordering:poll-token:"+hashToken(token), PollsPerToken); err != nil {
		return PollResult{}, err
	}
	var res PollResult
	_, u, err := s.store.UpdateLogin(ctx, hashToken(token), func(t *LoginToken, u *User) error {
		switch t.Status {
		case LoginDelivered:
			return ErrTokenUsed
		case LoginPending:
			res.Status = LoginPending
			if !now.Before(t.ExpiresAt) {
				res.Status = LoginExpired
			} else {
				res.ExpiresIn = int(t.ExpiresAt.Sub(now).Round(time.Second) / time.Second)
			}
			return errNothingToSave
		}
		jwt, err := s.issueJWT(*u)
		if err != nil {
			return err
		}
		res.Status, res.JWT = LoginVerified, jwt
		t.Status = LoginDelivered
		return nil
	})
	switch {
	case errors.Is(err, errNothingToSave):
		return res, nil
	case err != nil:
		return PollResult{}, err
	}
	res.User = u
	return res, nil
}

// limitPolls counts a poll against the key's minute and refuses it beyond limit.
func (s *Service) limitPolls(ctx context.Context, now time.Time, key string, limit int) error {
	window := now.Truncate(time.Minute)
	n, err := s.store.HitRateLimit(ctx, key, window, limit)
	if err != nil {
		return fmt.Errorf("poll rate limit: %w", err)
	}
	if n > limit {
		return &apperr.RetryAfterError{Err: ErrTooManyPolls, RetryAfter: window.Add(time.Minute).Sub(now)}
	}
	return nil
}

// errNothingToSave stops UpdateLogin when a poll changes nothing.
var errNothingToSave = errors.New("nothing to save")
