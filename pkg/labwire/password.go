package labwire

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ExamPasswordAlphabet is the alphabet of exam passwords: digits and
// upper-case letters without 0, O, 1 and I. It has 32 characters.
const ExamPasswordAlphabet = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"

// ExamPasswordLength is the number of characters of an exam password.
const ExamPasswordLength = 8

// ExamPassword derives a student's exam password from a portal secret:
// HMAC-SHA256(secret, memberID + ":" + strconv.Itoa(gen)), its first 40 bits
// read 5 at a time (most significant first) as indexes into
// ExamPasswordAlphabet, giving 8 characters. It is deterministic: the same
// inputs give the same password, and bumping gen gives a new one.
func ExamPassword(secret []byte, memberID string, gen int) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(memberID + ":" + strconv.Itoa(gen)))
	sum := mac.Sum(nil)
	var bits uint64
	for _, b := range sum[:5] {
		bits = bits<<8 | uint64(b)
	}
	var out [ExamPasswordLength]byte
	for i := range out {
		shift := uint(5 * (ExamPasswordLength - 1 - i))
		out[i] = ExamPasswordAlphabet[(bits>>shift)&31]
	}
	return string(out[:])
}

// ExamPasswordIterations is the PBKDF2 iteration count of HashExamPassword.
// It is modest because lab servers check exam passwords for a whole class at
// once on small machines; exam passwords are random, not chosen by people.
const ExamPasswordIterations = 4096

const (
	examPasswordScheme   = "pbkdf2-sha256"
	examPasswordSaltSize = 16
	examPasswordKeySize  = 32
	maxExamPasswordIter  = 1_000_000 // CheckExamPassword refuses costlier hashes
)

// normaliseExamPassword trims spaces and upper-cases: exam passwords are
// compared case-insensitively.
func normaliseExamPassword(s string) string { return strings.ToUpper(strings.TrimSpace(s)) }

// HashExamPassword returns
// "pbkdf2-sha256$<iterations>$<salt b64 std no padding>$<hash b64 std no padding>"
// of the (trimmed, upper-cased) password with a random 16-byte salt, a
// 32-byte key and ExamPasswordIterations iterations of HMAC-SHA256.
func HashExamPassword(password string) (string, error) {
	salt := make([]byte, examPasswordSaltSize)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("hash exam password: %w", err)
	}
	key, err := pbkdf2.Key(sha256.New, normaliseExamPassword(password), salt, ExamPasswordIterations, examPasswordKeySize)
	if err != nil {
		return "", fmt.Errorf("hash exam password: %w", err)
	}
	return examPasswordScheme + "$" + strconv.Itoa(ExamPasswordIterations) + "$" +
		base64.RawStdEncoding.EncodeToString(salt) + "$" + base64.RawStdEncoding.EncodeToString(key), nil
}

// errExamHash reports a hash that is not in the format of HashExamPassword.
var errExamHash = errors.New("not a pbkdf2-sha256 exam password hash")

// parseExamPasswordHash splits a hash made by HashExamPassword.
func parseExamPasswordHash(hash string) (iter int, salt, key []byte, err error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 4 || parts[0] != examPasswordScheme {
		return 0, nil, nil, errExamHash
	}
	iter, err = strconv.Atoi(parts[1])
	if err != nil || iter < 1 || iter > maxExamPasswordIter || parts[1] != strconv.Itoa(iter) {
		return 0, nil, nil, errExamHash
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[2])
	key, err2 := base64.RawStdEncoding.DecodeString(parts[3])
	if err1 != nil || err2 != nil || len(salt) < 8 || len(key) < 16 || len(key) > 64 {
		return 0, nil, nil, errExamHash
	}
	return iter, salt, key, nil
}

// CheckExamPassword reports whether password matches a hash made by
// HashExamPassword. The input is trimmed and upper-cased first (exam passwords
// are case-insensitive) and the keys are compared in constant time. An
// invalid hash, or one costing over a million iterations, never matches.
func CheckExamPassword(hash, password string) bool {
	iter, salt, want, err := parseExamPasswordHash(hash)
	if err != nil {
		return false
	}
	got, err := pbkdf2.Key(sha256.New, normaliseExamPassword(password), salt, iter, len(want))
	if err != nil {
		return false
	}
	return subtle.ConstantTimeCompare(got, want) == 1
}

// RandomPasswordAlphabet is the alphabet of RandomPassword: digits and
// letters without the look-alikes 0, O, o, 1, l, I and i.
const RandomPasswordAlphabet = "23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghjkmnpqrstuvwxyz"

// maxRandomPassword bounds RandomPassword's n.
const maxRandomPassword = 1024

// RandomPassword returns a random password of n characters (1..1024) drawn
// uniformly from RandomPasswordAlphabet, for generated admin passwords. At
// n = 20 it carries about 115 bits of entropy.
func RandomPassword(n int) (string, error) {
	if n < 1 || n > maxRandomPassword {
		return "", fmt.Errorf("random password: length %d out of range 1..%d", n, maxRandomPassword)
	}
	const k = len(RandomPasswordAlphabet)
	const limit = 256 - 256%k // bytes at or over limit are redrawn to avoid modulo bias
	out := make([]byte, 0, n)
	buf := make([]byte, n+n/2+8)
	for len(out) < n {
		if _, err := rand.Read(buf); err != nil {
			return "", fmt.Errorf("random password: %w", err)
		}
		for _, b := range buf {
			if int(b) < limit && len(out) < n {
				out = append(out, RandomPasswordAlphabet[int(b)%k])
			}
		}
	}
	return string(out), nil
}
