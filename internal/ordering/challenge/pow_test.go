package challenge_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/ordering/challenge"
)

// testKey is the HMAC key of the tests; fuzzTokens were signed with it.
var testKey = []byte("fuzz-key-0123456789abcdef-0123456789")

// t0 is the fake clock's start; fuzzTokens were issued at t0.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// fuzzTokens were produced by Solve over challenges from New(t0) of a PoW
// with testKey and WithMaxNumber(1000). They are the only tokens FuzzVerify
// may see accepted, and they are valid for any PoW with testKey whose clock
// reads t0, in every fuzzing worker.
var fuzzTokens = []string{
	"eyJhbGdvcml0aG0iOiJTSEEtMjU2IiwiY2hhbGxlbmdlIjoiZTMyY2U0NWEyZjE2NGJiYTQ4ZTE0YmQxNGFiZGU4MTNhZTFhMTA0NzI2YzlkNzUzMTI1NjllNzg0ODk4NjVhMSIsIm51bWJlciI6NDYzLCJzYWx0IjoiTEtCQUpMSE8yVEo2M01TRVc1QzJMV1hMUDc/ZXhwaXJlcz0xNzY3MzIzMzQ1XHUwMDI2Iiwic2lnbmF0dXJlIjoiODQ4NzkyMTYxMGQ4M2UxYWVlMTA5ZDQyNThkNTllODNiNzg0NjJjNTA0ZGM5ODM2NGIzOWJjN2I3MDgwMzFlYSJ9",
	"eyJhbGdvcml0aG0iOiJTSEEtMjU2IiwiY2hhbGxlbmdlIjoiYzE0OWQxNzY2YTI4NTA5NmNjYmJmNGIyYjAyODY1MDRkMjA5YWE0ODU0MzgxZTc4ZDcwNzUwODk0ZTY0Y2ZhOCIsIm51bWJlciI6MTUxLCJzYWx0IjoiWjNSNVc3Q0VVTlZPNVU2UEZLTVc0TUZFR1A/ZXhwaXJlcz0xNzY3MzIzMzQ1XHUwMDI2Iiwic2lnbmF0dXJlIjoiNjJkNjMxNThmYTg1ZTFhMjg3NGY5YjFkZGE1MDM4ZjdlMzU1OTg4MzgyYTk4NDk3MjBjOWJhNWUwNGU2NDcyNSJ9",
	"eyJhbGdvcml0aG0iOiJTSEEtMjU2IiwiY2hhbGxlbmdlIjoiNWQ2ODhjODJhYjE2ODc4NDAwYTA2ODZkZmNhZmEzMDVhOTBlOTAyODRkNTdlYzRmNGExNjgwMGU4YjkyNDU2OCIsIm51bWJlciI6MTEyLCJzYWx0IjoiWkdTRkpEQ0ZYUEtVS1BHTkFDWTNRNkdYNEI/ZXhwaXJlcz0xNzY3MzIzMzQ1XHUwMDI2Iiwic2lnbmF0dXJlIjoiYzg0NDZkMDQzMzkxMTU4ODZjYmViYzdiNzNkZDBkNWQ1MmVlYTcxNDUyNGU4NjQzZDhjNjYwZDkyMDVkZjEyNiJ9",
}

// clock is a fake clock safe for concurrent use.
type clock struct{ ns atomic.Int64 }

func newClock(t time.Time) *clock {
	c := &clock{}
	c.ns.Store(t.UnixNano())
	return c
}

func (c *clock) Now() time.Time           { return time.Unix(0, c.ns.Load()) }
func (c *clock) Advance(d time.Duration)  { c.ns.Add(int64(d)) }
func (c *clock) option() challenge.Option { return challenge.WithClock(c.Now) }

// MustPoW returns a PoW with testKey and opts.
func MustPoW(t testing.TB, opts ...challenge.Option) *challenge.PoW {
	t.Helper()
	p, err := challenge.NewPoW(testKey, opts...)
	if err != nil {
		t.Fatalf("NewPoW: %v", err)
	}
	return p
}

// MustToken returns the solved token of a fresh challenge of p issued at now.
func MustToken(t testing.TB, p *challenge.PoW, now time.Time) string {
	t.Helper()
	c, err := p.New(now)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	tok, err := challenge.Solve(c)
	if err != nil {
		t.Fatalf("Solve: %v", err)
	}
	return tok
}

// answer is the decoded JSON of a token, as a map so tests can tamper with it.
type answer map[string]any

func decode(t *testing.T, token string) answer {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(token)
	if err != nil {
		t.Fatalf("decode token: %v", err)
	}
	a := answer{}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("decode token JSON: %v", err)
	}
	return a
}

func (a answer) encode(t *testing.T) string {
	t.Helper()
	raw, err := json.Marshal(a)
	if err != nil {
		t.Fatalf("encode answer: %v", err)
	}
	return base64.StdEncoding.EncodeToString(raw)
}

func (a answer) number(t *testing.T) int64 {
	t.Helper()
	n, err := a["number"].(json.Number).Int64()
	if err != nil {
		t.Fatalf("number: %v", err)
	}
	return n
}

func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	p := MustPoW(t)
	c, err := p.New(time.Now())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if c.Algorithm != "SHA-256" || c.MaxNumber != challenge.DefaultMaxNumber {
		t.Errorf("challenge = %+v, want SHA-256 with maxnumber %d", c, challenge.DefaultMaxNumber)
	}
	if !strings.Contains(c.Salt, "?expires=") || !strings.HasSuffix(c.Salt, "&") {
		t.Errorf("salt %q, want <random>?expires=<unix>&", c.Salt)
	}
	tok, err := challenge.Solve(c)
	if err != nil {
		t.Fatalf("Solve: %v", err)
	}
	if err := p.Verify(ctx, tok, "203.0.113.7"); err != nil {
		t.Fatalf("Verify of a solved challenge: %v", err)
	}
}

func TestChallengeJSONNames(t *testing.T) {
	c, err := MustPoW(t).New(t0)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	raw, err := json.Marshal(c)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	for _, k := range []string{"algorithm", "challenge", "salt", "signature", "maxnumber"} {
		if _, ok := m[k]; !ok {
			t.Errorf("challenge JSON %s lacks %q", raw, k)
		}
	}
	if len(m) != 5 {
		t.Errorf("challenge JSON %s has %d members, want 5", raw, len(m))
	}
}

func TestReuseRefused(t *testing.T) {
	ctx := context.Background()
	p := MustPoW(t)
	tok := MustToken(t, p, time.Now())
	if err := p.Verify(ctx, tok, ""); err != nil {
		t.Fatalf("first Verify: %v", err)
	}
	if err := p.Verify(ctx, tok, ""); !errors.Is(err, challenge.ErrFailed) {
		t.Fatalf("second Verify = %v, want ErrFailed", err)
	}
}

func TestReuseRefusedAcrossInstances(t *testing.T) {
	ctx := context.Background()
	shared := challenge.NewMemorySpent()
	a := MustPoW(t, challenge.WithSpentStore(shared))
	b := MustPoW(t, challenge.WithSpentStore(shared))
	tok := MustToken(t, a, time.Now())
	if err := a.Verify(ctx, tok, ""); err != nil {
		t.Fatalf("Verify on instance a: %v", err)
	}
	if err := b.Verify(ctx, tok, ""); !errors.Is(err, challenge.ErrFailed) {
		t.Fatalf("Verify on instance b = %v, want ErrFailed", err)
	}
}

func TestConcurrentUseAcceptedOnce(t *testing.T) {
	p := MustPoW(t)
	tok := MustToken(t, p, time.Now())
	var ok atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			switch err := p.Verify(context.Background(), tok, ""); {
			case err == nil:
				ok.Add(1)
			case !errors.Is(err, challenge.ErrFailed):
				t.Errorf("Verify = %v, want nil or ErrFailed", err)
			}
		})
	}
	wg.Wait()
	if n := ok.Load(); n != 1 {
		t.Fatalf("%d of 16 concurrent uses accepted, want 1", n)
	}
}

func TestExpiry(t *testing.T) {
	ctx := context.Background()
	clk := newClock(t0)
	p := MustPoW(t, clk.option(), challenge.WithExpiry(2*time.Minute))

	onTime := MustToken(t, p, t0)
	clk.Advance(2 * time.Minute)
	if err := p.Verify(ctx, onTime, ""); err != nil {
		t.Fatalf("Verify at the expiry: %v", err)
	}

	late := MustToken(t, p, t0)
	clk.Advance(time.Second + time.Nanosecond)
	if err := p.Verify(ctx, late, ""); !errors.Is(err, challenge.ErrFailed) {
		t.Fatalf("Verify after the expiry = %v, want ErrFailed", err)
	}
}

func TestDefaultExpiry(t *testing.T) {
	clk := newClock(t0)
	p := MustPoW(t, clk.option())
	tok := MustToken(t, p, t0)
	clk.Advance(challenge.DefaultExpiry + 2*time.Second)
	if err := p.Verify(context.Background(), tok, ""); !errors.Is(err, challenge.ErrFailed) {
		t.Fatalf("Verify %v after New = %v, want ErrFailed", challenge.DefaultExpiry+2*time.Second, err)
	}
}

func TestTamperedRefused(t *testing.T) {
	p := MustPoW(t)
	tests := []struct {
		name   string
		tamper func(t *testing.T, a answer)
	}{
		{"signature", func(t *testing.T, a answer) {
			s := a["signature"].(string)
			a["signature"] = flipHex(s)
		}},
		{"signature not hex", func(t *testing.T, a answer) { a["signature"] = "zz" }},
		{"signature empty", func(t *testing.T, a answer) { a["signature"] = "" }},
		{"number plus one", func(t *testing.T, a answer) { a["number"] = a.number(t) + 1 }},
		{"number negative", func(t *testing.T, a answer) { a["number"] = -a.number(t) - 1 }},
		{"number as string", func(t *testing.T, a answer) { a["number"] = strconv.FormatInt(a.number(t), 10) }},
		{"number fractional", func(t *testing.T, a answer) { a["number"] = float64(a.number(t)) + 0.5 }},
		{"salt later expiry", func(t *testing.T, a answer) {
			salt, _, _ := strings.Cut(a["salt"].(string), "?")
			a["salt"] = salt + "?expires=" + strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10) + "&"
		}},
		{"salt random part", func(t *testing.T, a answer) {
			s := a["salt"].(string)
			a["salt"] = flipHex(s[:1]) + s[1:]
		}},
		{"challenge", func(t *testing.T, a answer) { a["challenge"] = flipHex(a["challenge"].(string)) }},
		{"challenge and signature of another challenge", func(t *testing.T, a answer) {
			c, err := p.New(time.Now())
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			a["challenge"], a["signature"] = c.Challenge, c.Signature
		}},
		{"wrong algorithm", func(t *testing.T, a answer) { a["algorithm"] = "SHA-1" }},
		{"algorithm lower case", func(t *testing.T, a answer) { a["algorithm"] = "sha-256" }},
		{"algorithm missing", func(t *testing.T, a answer) { delete(a, "algorithm") }},
		{"signed by another key", func(t *testing.T, a answer) {
			other, err := challenge.NewPoW([]byte(strings.Repeat("k", 32)))
			if err != nil {
				t.Fatalf("NewPoW: %v", err)
			}
			c, err := other.New(time.Now())
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			tok, err := challenge.Solve(c)
			if err != nil {
				t.Fatalf("Solve: %v", err)
			}
			clear(a)
			for k, v := range decode(t, tok) {
				a[k] = v
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := decode(t, MustToken(t, p, time.Now()))
			tt.tamper(t, a)
			if err := p.Verify(context.Background(), a.encode(t), ""); !errors.Is(err, challenge.ErrFailed) {
				t.Fatalf("Verify = %v, want ErrFailed", err)
			}
		})
	}
}

// TestSpliceRefused moves the leading digits of the number into the salt:
// the hash stays the same, so only the salt's trailing "&" keeps them from
// being read as part of the expiry.
func TestSpliceRefused(t *testing.T) {
	p := MustPoW(t)
	for {
		a := decode(t, MustToken(t, p, time.Now()))
		n := strconv.FormatInt(a.number(t), 10)
		if len(n) < 2 || n[1] == '0' {
			continue // nothing to move, or a rest JSON cannot spell
		}
		a["salt"] = a["salt"].(string) + n[:1]
		a["number"] = json.Number(n[1:])
		if err := p.Verify(context.Background(), a.encode(t), ""); !errors.Is(err, challenge.ErrFailed) {
			t.Fatalf("Verify of a spliced token = %v, want ErrFailed", err)
		}
		return
	}
}

func TestWrongKeyRefused(t *testing.T) {
	issuer, err := challenge.NewPoW([]byte(strings.Repeat("a", 32)))
	if err != nil {
		t.Fatalf("NewPoW: %v", err)
	}
	tok := MustToken(t, issuer, time.Now())
	if err := MustPoW(t).Verify(context.Background(), tok, ""); !errors.Is(err, challenge.ErrFailed) {
		t.Fatalf("Verify with another key = %v, want ErrFailed", err)
	}
}

func TestGarbageRefused(t *testing.T) {
	p := MustPoW(t)
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	if err := p.Verify(context.Background(), "", ""); !errors.Is(err, challenge.ErrMissing) {
		t.Errorf("Verify of an empty token = %v, want ErrMissing", err)
	}
	for _, tok := range []string{
		"x", "!!!!", "====", " ", "eyJ", b64(" "), b64("null"), b64("[]"), b64("{}"), b64("not json"),
		b64(`{"algorithm":"SHA-256"}`), b64(`{"number":"1"}`), b64(`{"number":1e400}`),
		b64(`{"algorithm":"SHA-256","challenge":"","number":0,"salt":"","signature":""}`),
		strings.Repeat("A", 1<<20),
		strings.TrimRight(fuzzTokens[0], "="),
	} {
		if err := p.Verify(context.Background(), tok, ""); !errors.Is(err, challenge.ErrFailed) {
			t.Errorf("Verify(%.40q) = %v, want ErrFailed", tok, err)
		}
	}
}

// failingSpent is a SpentStore whose database is down.
type failingSpent struct{}

func (failingSpent) MarkSpent(context.Context, string, time.Time) (bool, error) {
	return false, errors.New("database is down")
}

func TestSpentStoreFailureIsInternal(t *testing.T) {
	p := MustPoW(t, challenge.WithSpentStore(failingSpent{}))
	err := p.Verify(context.Background(), MustToken(t, p, time.Now()), "")
	if err == nil || errors.Is(err, challenge.ErrFailed) || errors.Is(err, challenge.ErrUnavailable) || !strings.Contains(err.Error(), "database is down") {
		t.Fatalf("Verify with a failing store = %v, want an internal error naming the cause", err)
	}
}

func TestNewPoWRefusesBadConfig(t *testing.T) {
	for name, f := range map[string]func() (*challenge.PoW, error){
		"short key":   func() (*challenge.PoW, error) { return challenge.NewPoW(make([]byte, 31)) },
		"maxnumber 0": func() (*challenge.PoW, error) { return challenge.NewPoW(testKey, challenge.WithMaxNumber(0)) },
		"expiry 0":    func() (*challenge.PoW, error) { return challenge.NewPoW(testKey, challenge.WithExpiry(0)) },
	} {
		if _, err := f(); err == nil {
			t.Errorf("%s: NewPoW succeeded, want an error", name)
		}
	}
}

func TestWithMaxNumber(t *testing.T) {
	p := MustPoW(t, challenge.WithMaxNumber(10))
	for range 20 {
		c, err := p.New(time.Now())
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		if c.MaxNumber != 10 {
			t.Fatalf("maxnumber = %d, want 10", c.MaxNumber)
		}
		if n := decode(t, mustSolve(t, c)).number(t); n < 0 || n > 10 {
			t.Fatalf("secret number %d outside [0, 10]", n)
		}
	}
}

func TestSolveErrors(t *testing.T) {
	c, err := MustPoW(t, challenge.WithMaxNumber(100)).New(time.Now())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	for name, bad := range map[string]challenge.Challenge{
		"algorithm":   {Algorithm: "SHA-512", Challenge: c.Challenge, Salt: c.Salt, MaxNumber: c.MaxNumber},
		"not hex":     {Algorithm: c.Algorithm, Challenge: "xyz", Salt: c.Salt, MaxNumber: c.MaxNumber},
		"no solution": {Algorithm: c.Algorithm, Challenge: flipHex(c.Challenge), Salt: c.Salt, MaxNumber: c.MaxNumber},
	} {
		if _, err := challenge.Solve(bad); err == nil {
			t.Errorf("%s: Solve succeeded, want an error", name)
		}
	}
}

func TestFuzzTokensVerify(t *testing.T) {
	for i, tok := range fuzzTokens {
		p := MustPoW(t, newClock(t0).option())
		if err := p.Verify(context.Background(), tok, ""); err != nil {
			t.Errorf("fuzzTokens[%d]: %v", i, err)
		}
	}
}

// FuzzVerify checks that Verify never panics, refuses with ErrMissing or
// ErrFailed only, and accepts nothing but the answers in fuzzTokens.
func FuzzVerify(f *testing.F) {
	issued := map[string]bool{}
	for _, tok := range fuzzTokens {
		f.Add(tok)
		issued[canonical(f, tok)] = true
	}
	for _, tok := range []string{"", "e30=", "bnVsbA==", "!!", strings.Repeat("A", 2000)} {
		f.Add(tok)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		p := MustPoW(t, newClock(t0).option())
		err := p.Verify(context.Background(), tok, "")
		switch {
		case err == nil:
			if !issued[canonical(t, tok)] {
				t.Fatalf("accepted %q, which answers no issued challenge", tok)
			}
		case tok == "" && !errors.Is(err, challenge.ErrMissing):
			t.Fatalf("Verify of an empty token = %v, want ErrMissing", err)
		case tok != "" && !errors.Is(err, challenge.ErrFailed):
			t.Fatalf("Verify(%q) = %v, want ErrFailed", tok, err)
		}
	})
}

// canonical returns the answer a token decodes to, with fields in a fixed
// order, so that spellings of one answer compare equal.
func canonical(t testing.TB, tok string) string {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(tok)
	if err != nil {
		t.Fatalf("accepted token is not base64: %v", err)
	}
	var a struct {
		Algorithm, Challenge, Salt, Signature string
		Number                                int64
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatalf("accepted token is not JSON: %v", err)
	}
	return strings.Join([]string{a.Algorithm, a.Challenge, a.Salt, a.Signature, strconv.FormatInt(a.Number, 10)}, "|")
}

func mustSolve(t *testing.T, c challenge.Challenge) string {
	t.Helper()
	tok, err := challenge.Solve(c)
	if err != nil {
		t.Fatalf("Solve: %v", err)
	}
	return tok
}

// flipHex changes the first character of a hex string to another hex digit.
func flipHex(s string) string {
	if s == "" {
		return "0"
	}
	r := byte('0')
	if s[0] == '0' {
		r = '1'
	}
	return string(r) + s[1:]
}

func BenchmarkSolve(b *testing.B) {
	p := MustPoW(b)
	cs := make([]challenge.Challenge, 256)
	for i := range cs {
		c, err := p.New(time.Now())
		if err != nil {
			b.Fatalf("New: %v", err)
		}
		cs[i] = c
	}
	i := 0
	for b.Loop() {
		if _, err := challenge.Solve(cs[i%len(cs)]); err != nil {
			b.Fatalf("Solve: %v", err)
		}
		i++
	}
}

// alwaysFresh is a SpentStore that forgets, so that BenchmarkVerify can
// verify one token over and over.
type alwaysFresh struct{}

func (alwaysFresh) MarkSpent(context.Context, string, time.Time) (bool, error) { return true, nil }

func BenchmarkVerify(b *testing.B) {
	p := MustPoW(b, challenge.WithSpentStore(alwaysFresh{}))
	tok := MustToken(b, p, time.Now())
	for b.Loop() {
		if err := p.Verify(context.Background(), tok, ""); err != nil {
			b.Fatalf("Verify: %v", err)
		}
	}
}
