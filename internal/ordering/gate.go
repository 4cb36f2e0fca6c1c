package ordering

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"time"
)

// The outbound safety gate (docs/api/ordering.md, "Outbound messages"): the
// spec's four rules protecting the shop's messenger number from being
// flagged as a spammer.
const (
	// SendSpacing and SendJitter: between two sends of a channel, 2000 ms
	// plus or minus 500 ms, drawn at random each time.
	SendSpacing = 2000 * time.Millisecond
	SendJitter  = 500 * time.Millisecond
	// BroadcastLimit: identical text sent to more than this many different
	// numbers within BroadcastWindow is a mass broadcast, blocked.
	BroadcastLimit  = 5
	BroadcastWindow = 24 * time.Hour
)

// WarmupQuota returns a channel's daily message quota on the ageDays-th day
// since it was paired (0 the first day): a new number sends little and
// earns more as it ages, as messaging platforms expect of a new business
// number.
func WarmupQuota(ageDays int) int {
	switch {
	case ageDays < 2:
		return 20
	case ageDays < 4:
		return 50
	case ageDays < 8:
		return 100
	case ageDays < 15:
		return 250
	case ageDays < 30:
		return 500
	}
	return 1000
}

// GateState is a channel's record of the gate, kept in the store and
// updated under a lock by every instance that sends through the channel.
type GateState struct {
	Channel    string     `json:"channel"`
	PairedAt   time.Time  `json:"pairedAt"`
	Day        string     `json:"day"` // the UTC date SentToday counts
	SentToday  int        `json:"sentToday"`
	NextSendAt time.Time  `json:"nextSendAt"`
	Recent     []TextSend `json:"recent"` // sends of the last BroadcastWindow
}

// TextSend is one send remembered for the duplicate-content rule: the hash
// of the normalised text and the recipient.
type TextSend struct {
	Hash string    `json:"hash"`
	To   string    `json:"to"`
	At   time.Time `json:"at"`
}

// textHash returns the hash of a text with case and white space normalised,
// so that trivial variations of one broadcast count as the same text.
func textHash(text string) string {
	h := sha256.Sum256([]byte(strings.Join(strings.Fields(strings.ToLower(text)), " ")))
	return hex.EncodeToString(h[:16])
}

// Gate decisions.
const (
	GateSend      = "SEND"      // send now
	GateWait      = "WAIT"      // too soon after the last send: retry at the time given
	GateHold      = "HOLD"      // the day's quota is used: retry the next day
	GateBroadcast = "BROADCAST" // identical text to too many numbers: blocked
)

// admit applies the quota, spacing and duplicate rules to a send of text to
// number at now and, when it may go, records it (the next send is pushed
// SendSpacing ± SendJitter later). It returns the decision and, for WAIT
// and HOLD, when to try again. Consent is checked before, per message.
func (g *GateState) admit(to, text string, now time.Time, rng *rand.Rand) (string, time.Time) {
	now = now.UTC()
	if g.PairedAt.IsZero() {
		g.PairedAt = now
	}
	day := now.Format(time.DateOnly)
	if g.Day != day {
		g.Day, g.SentToday = day, 0
	}
	cut := now.Add(-BroadcastWindow)
	kept := g.Recent[:0]
	for _, r := range g.Recent {
		if r.At.After(cut) {
			kept = append(kept, r)
		}
	}
	g.Recent = kept
	hash := textHash(text)
	others := map[string]bool{}
	for _, r := range g.Recent {
		if r.Hash == hash && r.To != to {
			others[r.To] = true
		}
	}
	switch {
	case len(others) >= BroadcastLimit:
		return GateBroadcast, time.Time{}
	case g.SentToday >= WarmupQuota(int(now.Sub(g.PairedAt)/(24*time.Hour))):
		tomorrow := now.Truncate(24 * time.Hour).Add(24 * time.Hour)
		return GateHold, tomorrow
	case now.Before(g.NextSendAt):
		return GateWait, g.NextSendAt
	}
	g.SentToday++
	jitter := time.Duration(rng.Int64N(int64(2*SendJitter)+1)) - SendJitter
	g.NextSendAt = now.Add(SendSpacing + jitter)
	g.Recent = append(g.Recent, TextSend{Hash: hash, To: to, At: now})
	return GateSend, time.Time{}
}
