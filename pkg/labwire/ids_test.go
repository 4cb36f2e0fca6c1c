package labwire

import (
	"strings"
	"testing"
)

func TestChecksumSHA256(t *testing.T) {
	cases := map[string]string{
		"":    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"abc": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	}
	for in, want := range cases {
		got := ChecksumSHA256([]byte(in))
		if got != want {
			t.Errorf("ChecksumSHA256(%q) = %s, want %s", in, got, want)
		}
		if !ValidChecksum(got) {
			t.Errorf("ValidChecksum(%s) = false", got)
		}
	}
}

func TestValidChecksum(t *testing.T) {
	good := strings.Repeat("0123456789abcdef", 4)
	if !ValidChecksum(good) {
		t.Fatal("valid checksum rejected")
	}
	bad := []string{
		"", good[:63], good + "0", strings.ToUpper(good), good[:63] + "g", good[:63] + "A",
		" " + good[1:], good[:32] + "\x00" + good[33:], strings.Repeat("é", 32),
	}
	for _, s := range bad {
		if ValidChecksum(s) {
			t.Errorf("ValidChecksum(%q) = true", s)
		}
	}
}
