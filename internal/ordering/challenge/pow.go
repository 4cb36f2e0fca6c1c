package challenge

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Algorithm is the one hash algorithm PoW issues and accepts, named as
// ALTCHA names it.
const Algorithm = "SHA-256"

// Defaults of NewPoW.
const (
	// DefaultMaxNumber is the default difficulty: on average 25,000 SHA-256
	// hashes, well under a second on a phone (see the package comment).
	DefaultMaxNumber = 50_000
	// DefaultExpiry is how long a challenge may be solved and used.
	DefaultExpiry = 5 * time.Minute
)

// MinKeyLen is the shortest HMAC key NewPoW accepts, in bytes.
const MinKeyLen = 32

// maxTokenLen bounds the token Verify decodes. A genuine token is about 350
// bytes; anything much longer is refused before base64 and JSON decoding.
const maxTokenLen = 1024

// Challenge is what GET /api/auth/challenge serves: a puzzle in ALTCHA's
// JSON shape. Signature authenticates Challenge, and Challenge binds Salt
// (with its expiry) and the secret number.
type Challenge struct {
	// Algorithm is always "SHA-256".
	Algorithm string `json:"algorithm"`
	// Challenge is hex(sha256(Salt + decimal number)).
	Challenge string `json:"challenge"`
	// Salt is 128 random bits as base32 text (crypto/rand.Text) followed
	// by "?expires=<unix seconds>&".
	Salt string `json:"salt"`
	// Signature is hex(HMAC-SHA256(key, Challenge)).
	Signature string `json:"signature"`
	// MaxNumber is the largest number the solver has to try.
	MaxNumber int64 `json:"maxnumber"`
}

// payload is the client's answer, sent base64-encoded as the
// challengeToken, as ALTCHA's widget sends it.
type payload struct {
	Algorithm string `json:"algorithm"`
	Challenge string `json:"challenge"`
	Number    int64  `json:"number"`
	Salt      string `json:"salt"`
	Signature string `json:"signature"`
}

// PoW issues and verifies proof-of-work challenges. It is safe for
// concurrent use.
type PoW struct {
	key       []byte
	maxNumber int64
	expiry    time.Duration
	now       func() time.Time
	spent     SpentStore
}

var _ Verifier = (*PoW)(nil)

// Option configures a PoW.
type Option func(*PoW)

// WithMaxNumber sets the difficulty: the largest secret number, so the
// client tries on average n/2 hashes. n must be positive.
func WithMaxNumber(n int64) Option { return func(p *PoW) { p.maxNumber = n } }

// WithExpiry sets how long a challenge stays valid after New. d must be at
// least a second (the salt carries whole seconds).
func WithExpiry(d time.Duration) Option { return func(p *PoW) { p.expiry = d } }

// WithClock sets the clock Verify checks expiry against (tests use a fake
// one). The default is time.Now.
func WithClock(now func() time.Time) Option { return func(p *PoW) { p.now = now } }

// WithSpentStore sets where solved challenges are recorded. Portal
// instances that share a database must share a store; the default is
// NewMemorySpent, right for a single instance.
func WithSpentStore(s SpentStore) Option { return func(p *PoW) { p.spent = s } }

// NewPoW returns a PoW that signs challenges with key, which must be at
// least MinKeyLen bytes of secret randomness shared by all portal instances.
func NewPoW(key []byte, opts ...Option) (*PoW, error) {
	if len(key) < MinKeyLen {
		return nil, fmt.Errorf("challenge: HMAC key is %d bytes, want at least %d", len(key), MinKeyLen)
	}
	p := &PoW{
		key:       append([]byte(nil), key...),
		maxNumber: DefaultMaxNumber,
		expiry:    DefaultExpiry,
		now:       time.Now,
	}
	for _, o := range opts {
		o(p)
	}
	if p.maxNumber <= 0 {
		return nil, fmt.Errorf("challenge: maxnumber %d, want at least 1", p.maxNumber)
	}
	if p.expiry < time.Second {
		return nil, fmt.Errorf("challenge: expiry %v, want at least 1s", p.expiry)
	}
	if p.spent == nil {
		p.spent = NewMemorySpent()
	}
	return p, nil
}

// New returns a fresh challenge that expires p's expiry after now.
func (p *PoW) New(now time.Time) (Challenge, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(p.maxNumber+1))
	if err != nil {
		return Challenge{}, fmt.Errorf("challenge: pick the secret number: %w", err)
	}
	salt := fmt.Sprintf("%s?expires=%d&", rand.Text(), now.Add(p.expiry).Unix())
	c := hashHex(salt, n.Int64())
	return Challenge{
		Algorithm: Algorithm,
		Challenge: c,
		Salt:      salt,
		Signature: hex.EncodeToString(p.sign(c)),
		MaxNumber: p.maxNumber,
	}, nil
}

// Verify checks a challengeToken: base64 of the JSON answer to a challenge
// from New. It checks, in this order, the algorithm, the signature, that
// the number solves the challenge, the expiry in the salt, and that the
// challenge was not used before; then it records the challenge as spent.
// remoteIP is not used: a challenge is not bound to an address, since a
// phone may change networks between solving and logging in.
func (p *PoW) Verify(ctx context.Context, token, remoteIP string) error {
	if token == "" {
		return ErrMissing
	}
	a, err := decodeToken(token)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrFailed, err)
	}
	if a.Algorithm != Algorithm {
		return fmt.Errorf("%w: algorithm %q, want %q", ErrFailed, a.Algorithm, Algorithm)
	}
	sig, err := hex.DecodeString(a.Signature)
	if err != nil || !hmac.Equal(sig, p.sign(a.Challenge)) {
		return fmt.Errorf("%w: bad signature", ErrFailed)
	}
	// The signature authenticates the challenge; the hash then binds the
	// salt and the number to it. Only after that is the salt's expiry
	// trusted.
	if a.Number < 0 || subtle.ConstantTimeCompare([]byte(hashHex(a.Salt, a.Number)), []byte(a.Challenge)) != 1 {
		return fmt.Errorf("%w: number does not solve the challenge", ErrFailed)
	}
	expires, err := saltExpiry(a.Salt)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrFailed, err)
	}
	if p.now().After(expires) {
		return fmt.Errorf("%w: challenge expired at %s", ErrFailed, expires.UTC().Format(time.RFC3339))
	}
	// The challenge (a hash over a random salt) identifies it; every
	// accepted spelling of a token for it shares it.
	fresh, err := p.spent.MarkSpent(ctx, a.Challenge, expires.Add(time.Second))
	if err != nil {
		return fmt.Errorf("challenge: mark challenge spent: %w", err)
	}
	if !fresh {
		return fmt.Errorf("%w: challenge already used", ErrFailed)
	}
	return nil
}

// sign returns HMAC-SHA256(p.key, challenge).
func (p *PoW) sign(challenge string) []byte {
	m := hmac.New(sha256.New, p.key)
	m.Write([]byte(challenge))
	return m.Sum(nil)
}

// decodeToken decodes a challengeToken into its answer.
func decodeToken(token string) (payload, error) {
	var a payload
	if len(token) > maxTokenLen {
		return a, fmt.Errorf("token is %d bytes, longer than %d", len(token), maxTokenLen)
	}
	raw, err := base64.StdEncoding.DecodeString(token)
	if err != nil {
		return a, fmt.Errorf("decode token base64: %w", err)
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, fmt.Errorf("decode token JSON: %w", err)
	}
	return a, nil
}

// saltExpiry returns the expiry a salt from New carries. The salt must end
// in "&", so that no digit of the number can extend the expiry.
func saltExpiry(salt string) (time.Time, error) {
	_, query, ok := strings.Cut(salt, "?")
	if !ok || !strings.HasSuffix(salt, "&") {
		return time.Time{}, errors.New("salt is not of the form <random>?expires=<unix>&")
	}
	params, err := url.ParseQuery(query)
	if err != nil {
		return time.Time{}, fmt.Errorf("parse salt parameters: %w", err)
	}
	sec, err := strconv.ParseInt(params.Get("expires"), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("parse salt expiry: %w", err)
	}
	return time.Unix(sec, 0), nil
}

// hashHex returns hex(sha256(salt + decimal n)).
func hashHex(salt string, n int64) string {
	sum := sha256.Sum256(strconv.AppendInt([]byte(salt), n, 10))
	return hex.EncodeToString(sum[:])
}

// Solve finds the number that solves c by brute force and returns the
// challengeToken that answers it: base64 of the JSON object {algorithm,
// challenge, number, salt, signature}. It tries at most c.MaxNumber+1
// numbers. Tests, the load benchmark and the Go client use it; the client
// keeps its own copy, since pkg/client does not import internal packages.
func Solve(c Challenge) (string, error) {
	if c.Algorithm != Algorithm {
		return "", fmt.Errorf("challenge: solve: algorithm %q, want %q", c.Algorithm, Algorithm)
	}
	want, err := hex.DecodeString(c.Challenge)
	if err != nil {
		return "", fmt.Errorf("challenge: solve: decode challenge: %w", err)
	}
	buf := make([]byte, 0, len(c.Salt)+20) // room for any int64
	buf = append(buf, c.Salt...)
	for n := int64(0); n <= c.MaxNumber; n++ {
		sum := sha256.Sum256(strconv.AppendInt(buf, n, 10))
		if !bytes.Equal(sum[:], want) {
			continue
		}
		raw, err := json.Marshal(payload{Algorithm: c.Algorithm, Challenge: c.Challenge, Number: n, Salt: c.Salt, Signature: c.Signature})
		if err != nil {
			return "", fmt.Errorf("challenge: solve: encode answer: %w", err)
		}
		return base64.StdEncoding.EncodeToString(raw), nil
	}
	return "", fmt.Errorf("challenge: solve: no number up to %d solves the challenge", c.MaxNumber)
}
