package labwire

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
)

func TestExamPassword(t *testing.T) {
	secret := []byte("portal secret")
	p := ExamPassword(secret, "member-1", 0)
	if len(p) != ExamPasswordLength {
		t.Fatalf("len = %d", len(p))
	}
	for _, c := range p {
		if !strings.ContainsRune(ExamPasswordAlphabet, c) {
			t.Fatalf("%q has %q outside the alphabet", p, c)
		}
	}
	if len(ExamPasswordAlphabet) != 32 || strings.ContainsAny(ExamPasswordAlphabet, "01OI") {
		t.Fatal("bad alphabet")
	}
	if ExamPassword(secret, "member-1", 0) != p {
		t.Fatal("not deterministic")
	}
	if ExamPassword(secret, "member-1", 1) == p || ExamPassword(secret, "member-2", 0) == p ||
		ExamPassword([]byte("other secret"), "member-1", 0) == p {
		t.Fatal("inputs do not change the password")
	}

	// The documented derivation, computed independently.
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte("member-1:" + strconv.Itoa(0)))
	sum := mac.Sum(nil)
	var want strings.Builder
	for i := range 8 {
		bit := i * 5
		v := 0
		for j := range 5 {
			b := bit + j
			v = v<<1 | int(sum[b/8]>>(7-b%8)&1)
		}
		want.WriteByte(ExamPasswordAlphabet[v])
	}
	if p != want.String() {
		t.Fatalf("ExamPassword = %s, want %s", p, want.String())
	}

	// The characters are spread over the whole alphabet.
	seen := map[rune]int{}
	for i := range 2000 {
		for _, c := range ExamPassword(secret, "m", i) {
			seen[c]++
		}
	}
	if len(seen) != 32 {
		t.Fatalf("only %d distinct characters", len(seen))
	}
}

func TestExamPasswordHash(t *testing.T) {
	h, err := HashExamPassword("ABCD2345")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(h, "$")
	if len(parts) != 4 || parts[0] != "pbkdf2-sha256" || parts[1] != "4096" {
		t.Fatalf("hash = %q", h)
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[2])
	key, err2 := base64.RawStdEncoding.DecodeString(parts[3])
	if err1 != nil || err2 != nil || len(salt) != 16 || len(key) != 32 {
		t.Fatalf("salt %d bytes (%v), key %d bytes (%v)", len(salt), err1, len(key), err2)
	}
	if h2, _ := HashExamPassword("ABCD2345"); h2 == h {
		t.Fatal("no salt")
	}
	for _, ok := range []string{"ABCD2345", "abcd2345", " AbCd2345\n"} {
		if !CheckExamPassword(h, ok) {
			t.Errorf("%q rejected", ok)
		}
	}
	for _, wrong := range []string{"", "ABCD234", "ABCD23456", "ABCD 2345", "ABCD2346"} {
		if CheckExamPassword(h, wrong) {
			t.Errorf("%q accepted", wrong)
		}
	}
	// Hashing normalises as checking does.
	if hl, _ := HashExamPassword(" abcd2345 "); !CheckExamPassword(hl, "ABCD2345") {
		t.Error("lower-case hash input not normalised")
	}

	bad := []string{
		"", "pbkdf2-sha256", "pbkdf2-sha1$4096$" + parts[2] + "$" + parts[3],
		"pbkdf2-sha256$0$" + parts[2] + "$" + parts[3],
		"pbkdf2-sha256$-1$" + parts[2] + "$" + parts[3],
		"pbkdf2-sha256$04096$" + parts[2] + "$" + parts[3],
		"pbkdf2-sha256$99999999$" + parts[2] + "$" + parts[3],
		"pbkdf2-sha256$4096$" + parts[2] + "==$" + parts[3],
		"pbkdf2-sha256$4096$" + parts[2] + "$" + parts[3] + "$",
		"pbkdf2-sha256$4096$$" + parts[3],
		"pbkdf2-sha256$4096$" + parts[2] + "$",
		"pbkdf2-sha256$4096$" + parts[2] + "$" + parts[3][:10],
	}
	for _, b := range bad {
		if CheckExamPassword(b, "ABCD2345") {
			t.Errorf("invalid hash %q accepted", b)
		}
	}
}

// TestExamPasswordEndToEnd: a derived password checks against its hash, as
// the portal issues and a lab server verifies it.
func TestExamPasswordEndToEnd(t *testing.T) {
	pw := ExamPassword([]byte("s"), "0195f3b2-7c1e-7a00-8000-000000000001", 3)
	h, err := HashExamPassword(pw)
	if err != nil {
		t.Fatal(err)
	}
	if !CheckExamPassword(h, strings.ToLower(pw)) {
		t.Fatal("derived password does not check")
	}
}

func TestRandomPassword(t *testing.T) {
	seen := map[string]bool{}
	counts := map[rune]int{}
	for range 500 {
		p, err := RandomPassword(20)
		if err != nil {
			t.Fatal(err)
		}
		if len(p) != 20 || seen[p] {
			t.Fatalf("bad or repeated password %q", p)
		}
		seen[p] = true
		for _, c := range p {
			if !strings.ContainsRune(RandomPasswordAlphabet, c) {
				t.Fatalf("%q outside the alphabet", c)
			}
			counts[c]++
		}
	}
	if strings.ContainsAny(RandomPasswordAlphabet, "0Oo1lIi") {
		t.Fatal("ambiguous characters in the alphabet")
	}
	if len(counts) != len(RandomPasswordAlphabet) {
		t.Fatalf("only %d of %d characters used", len(counts), len(RandomPasswordAlphabet))
	}
	// 10000 draws over 55 characters: about 182 each; a biased or broken
	// sampler strays far from that.
	for c, n := range counts {
		if n < 100 || n > 280 {
			t.Errorf("character %q drawn %d times", c, n)
		}
	}
	for _, n := range []int{0, -1, 1025} {
		if _, err := RandomPassword(n); err == nil {
			t.Errorf("RandomPassword(%d) succeeded", n)
		}
	}
	if p, err := RandomPassword(1); err != nil || len(p) != 1 {
		t.Fatalf("RandomPassword(1) = %q, %v", p, err)
	}
}
