package sortid

import (
	"strings"
	"testing"
	"time"
)

func TestNewIDFormat(t *testing.T) {
	id := New()
	if len(id) != Length {
		t.Fatalf("len(%q) = %d", id, len(id))
	}
	for _, c := range id {
		if !strings.ContainsRune(idAlphabet, c) {
			t.Fatalf("%q has %q outside lowercase Crockford base32", id, c)
		}
	}
	if id[0] > '7' {
		t.Fatalf("%q: first character over 7 (more than 128 bits)", id)
	}
	// The time prefix is the current Unix time in milliseconds.
	ms := decodeIDTime(t, id)
	if d := time.Since(time.UnixMilli(ms)); d < -time.Second || d > time.Minute {
		t.Fatalf("time prefix is %v away from now", d)
	}
}

func decodeIDTime(t *testing.T, id string) int64 {
	t.Helper()
	var ms int64
	for _, c := range id[:10] {
		ms = ms<<5 | int64(strings.IndexRune(idAlphabet, c))
	}
	return ms
}

func TestEncodeID(t *testing.T) {
	cases := []struct {
		ms   uint64
		hi   uint16
		lo   uint64
		want string
	}{
		{0, 0, 0, "00000000000000000000000000"},
		{1<<48 - 1, 0xffff, 1<<64 - 1, "7zzzzzzzzzzzzzzzzzzzzzzzzz"},
		{1, 0, 1, "00000000010000000000000001"},
		// The example of the ULID reference implementation: 1469918176385 ms is 01ARYZ6S41.
		{1469918176385, 0, 0, "01aryz6s410000000000000000"},
		// 80 random bits: hi 0x8000 is the top bit, 5 bits per character: "g" = 16;
		// bit 63 of lo is bit 3 of the 13th character from the end: "8".
		{0, 0x8000, 0, "0000000000g000000000000000"},
		{0, 0, 1 << 63, "00000000000008000000000000"},
	}
	for _, c := range cases {
		if got := encodeID(c.ms, c.hi, c.lo); got != c.want {
			t.Errorf("encodeID(%d, %#x, %#x) = %s, want %s", c.ms, c.hi, c.lo, got, c.want)
		}
	}
}

func TestNewIDUnique(t *testing.T) {
	const n = 100_000
	seen := make(map[string]struct{}, n)
	prev := ""
	for range n {
		id := New()
		if _, dup := seen[id]; dup {
			t.Fatalf("duplicate id %s", id)
		}
		seen[id] = struct{}{}
		if id <= prev {
			t.Fatalf("ids not increasing: %s then %s", prev, id)
		}
		prev = id
	}
}

func TestNewIDConcurrent(t *testing.T) {
	const workers, each = 8, 5000
	out := make(chan []string, workers)
	for range workers {
		go func() {
			ids := make([]string, each)
			for i := range ids {
				ids[i] = New()
			}
			out <- ids
		}()
	}
	seen := map[string]bool{}
	for range workers {
		ids := <-out
		for i, id := range ids {
			if seen[id] {
				t.Fatalf("duplicate id %s", id)
			}
			seen[id] = true
			if i > 0 && id <= ids[i-1] {
				t.Fatalf("ids of one goroutine not increasing: %s then %s", ids[i-1], id)
			}
		}
	}
}

func TestNewIDSortsByTime(t *testing.T) {
	var ids []string
	for range 5 {
		ids = append(ids, New())
		time.Sleep(3 * time.Millisecond)
	}
	for i := 1; i < len(ids); i++ {
		if ids[i][:10] <= ids[i-1][:10] {
			t.Fatalf("time prefix not increasing across milliseconds: %s then %s", ids[i-1], ids[i])
		}
		if decodeIDTime(t, ids[i]) <= decodeIDTime(t, ids[i-1]) {
			t.Fatalf("decoded times not increasing: %s then %s", ids[i-1], ids[i])
		}
	}
}
