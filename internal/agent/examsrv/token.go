package examsrv

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/seedhq/portal/internal/agent/localdb"
)

// sessionTokens is the proctor's rotating session token that students type
// at sign-in, as national exam systems do. It is made offline from a secret
// kept in the state file: HMAC(secret, generation, period) mapped to six
// unambiguous letters. It changes every period by itself; the token of the
// previous period stays valid so that a student typing as it changes is not
// refused. Rotating by hand starts a new generation: the old tokens die.
type sessionTokens struct {
	db     *localdb.DB
	period time.Duration
	now    func() time.Time

	mu    sync.Mutex
	state tokenState
}

type tokenState struct {
	Secret     []byte    `json:"secret"`
	Generation uint64    `json:"generation"`
	Anchor     time.Time `json:"anchor"` // start of period 0 of this generation
}

const metaTokens = "session_tokens"

// tokenAlphabet has no look-alikes (0/O, 1/I/L).
const tokenAlphabet = "ABCDEFGHJKMNPQRSTUVWXYZ"

const tokenLength = 6

func loadSessionTokens(ctx context.Context, db *localdb.DB, period time.Duration, now func() time.Time) (*sessionTokens, error) {
	t := &sessionTokens{db: db, period: period, now: now}
	found, err := db.GetMeta(metaTokens, &t.state)
	if err != nil {
		return nil, fmt.Errorf("examsrv: load session token: %w", err)
	}
	if !found || len(t.state.Secret) != 32 {
		t.state = tokenState{Secret: make([]byte, 32), Anchor: now().UTC()}
		rand.Read(t.state.Secret)
		if err := db.PutMeta(ctx, metaTokens, t.state); err != nil {
			return nil, fmt.Errorf("examsrv: save session token: %w", err)
		}
	}
	return t, nil
}

func (t *sessionTokens) periodAt(at time.Time) int64 {
	d := at.Sub(t.state.Anchor)
	if d < 0 {
		return 0
	}
	return int64(d / t.period)
}

func (t *sessionTokens) tokenFor(gen uint64, period int64) string {
	m := hmac.New(sha256.New, t.state.Secret)
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], gen)
	binary.BigEndian.PutUint64(b[8:], uint64(period))
	m.Write(b[:])
	sum := m.Sum(nil)
	out := make([]byte, tokenLength)
	for i := range out {
		out[i] = tokenAlphabet[int(sum[i])%len(tokenAlphabet)]
	}
	return string(out)
}

// Current returns the token of now and when it rotates.
func (t *sessionTokens) Current() (string, time.Time) {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.periodAt(now)
	return t.tokenFor(t.state.Generation, p), t.state.Anchor.Add(time.Duration(p+1) * t.period)
}

// Valid reports whether s is the current token or the previous period's.
func (t *sessionTokens) Valid(s string) bool {
	s = strings.ToUpper(strings.TrimSpace(s))
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.periodAt(now)
	ok := subtle.ConstantTimeCompare([]byte(s), []byte(t.tokenFor(t.state.Generation, p))) == 1
	if p > 0 {
		ok = subtle.ConstantTimeCompare([]byte(s), []byte(t.tokenFor(t.state.Generation, p-1))) == 1 || ok
	}
	return ok
}

// Rotate starts a new generation now: the tokens shown so far stop working.
func (t *sessionTokens) Rotate(ctx context.Context) (string, time.Time, error) {
	t.mu.Lock()
	next := t.state
	next.Generation++
	next.Anchor = t.now().UTC()
	if err := t.db.PutMeta(ctx, metaTokens, next); err != nil {
		t.mu.Unlock()
		return "", time.Time{}, fmt.Errorf("rotate session token: %w", err)
	}
	t.state = next
	t.mu.Unlock()
	v, at := t.Current()
	return v, at, nil
}
