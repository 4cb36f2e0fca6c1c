package identity

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Issuer is the "iss" of every token the portal signs.
const Issuer = "seedhq-portal"

// AudienceOperator is the audience of operator tokens: an operator token
// never authorises a lab server and back (internal/exam signs those for
// its own audience with the same Tokens).
const AudienceOperator = "portal-operator"

// secretJWT is the name of the stored HS256 secret.
const secretJWT = "jwt-hs256"

// Tokens signs and verifies the portal's HS256 JWTs, with the algorithm,
// the issuer and an expiry required.
type Tokens struct {
	secret []byte
	now    func() time.Time
}

// NewTokens returns the token signer of the portal: with the configured
// secret (at least 32 bytes) when one is given, otherwise with the secret
// kept in the store, generated at the first start and shared by every
// instance. now is the clock of expiries (nil: time.Now).
func NewTokens(ctx context.Context, secrets SecretStore, configured []byte, now func() time.Time) (*Tokens, error) {
	if now == nil {
		now = time.Now
	}
	if len(configured) > 0 {
		if len(configured) < 32 {
			return nil, fmt.Errorf("identity: JWT secret must be at least 32 bytes, got %d", len(configured))
		}
		return &Tokens{secret: configured, now: now}, nil
	}
	fresh := make([]byte, 32)
	rand.Read(fresh)
	secret, err := secrets.GetOrCreateSecret(ctx, secretJWT, fresh)
	if err != nil {
		return nil, fmt.Errorf("identity: load the JWT secret: %w", err)
	}
	return &Tokens{secret: secret, now: now}, nil
}

// Sign signs claims, adding the issuer and the time of issue.
func (t *Tokens) Sign(claims jwt.MapClaims) (string, error) {
	claims["iss"] = Issuer
	claims["iat"] = t.now().Unix()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(t.secret)
	if err != nil {
		return "", fmt.Errorf("sign token: %w", err)
	}
	return tok, nil
}

// Parse verifies an HS256 token for the audience and returns its claims:
// ErrTokenExpired for an expired one, ErrUnauthorized for any other fault.
// The algorithm is pinned.
func (t *Tokens) Parse(token, audience string) (jwt.MapClaims, error) {
	if token == "" {
		return nil, ErrUnauthorized
	}
	claims := jwt.MapClaims{}
	_, err := jwt.ParseWithClaims(token, claims, func(*jwt.Token) (any, error) { return t.secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithAudience(audience),
		jwt.WithIssuer(Issuer),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(t.now),
	)
	if errors.Is(err, jwt.ErrTokenExpired) {
		return nil, ErrTokenExpired
	}
	if err != nil {
		return nil, ErrUnauthorized
	}
	return claims, nil
}
