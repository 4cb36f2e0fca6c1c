package cliout

import (
	"bytes"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestCell(t *testing.T) {
	at := time.Date(2026, 11, 23, 8, 0, 0, 0, time.FixedZone("WIB", 7*3600))
	var nilTime *time.Time
	cases := []struct {
		in   any
		want string
	}{
		{nil, "-"}, {"", "-"}, {"a\tb\nc", "a b c"}, {true, "yes"}, {false, "no"}, {42, "42"},
		{at, "2026-11-23T01:00:00Z"}, {&at, "2026-11-23T01:00:00Z"}, {time.Time{}, "-"}, {nilTime, "-"},
		{[]string{"a", "b"}, "a,b"}, {[]int64{1, 2}, "1,2"}, {[]int64{}, "-"},
	}
	for _, c := range cases {
		if got := Cell(c.in); got != c.want {
			t.Errorf("Cell(%#v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPrinter(t *testing.T) {
	var b bytes.Buffer
	p := NewPrinter(&b, Auto) // a buffer is no terminal: JSON
	if !p.JSON() {
		t.Fatal("auto format on a buffer is not JSON")
	}
	if err := p.Print(map[string]int{"n": 1}, nil); err != nil || b.String() != "{\n  \"n\": 1\n}\n" {
		t.Fatalf("JSON = %q, %v", b.String(), err)
	}
	b.Reset()
	p = NewPrinter(&b, Table)
	if err := p.Print(nil, func(r *Rows) { r.Row("ID", "NAME"); r.Row(7, "") }); err != nil || b.String() != "ID  NAME\n7   -\n" {
		t.Fatalf("table = %q, %v", b.String(), err)
	}
}

func TestNetworkError(t *testing.T) {
	_, err := http.Get("http://127.0.0.1:1/x")
	msg, ok := NetworkError(err)
	if !ok || !strings.HasPrefix(msg, "cannot reach the portal at http://127.0.0.1:1: ") {
		t.Fatalf("NetworkError = %q, %v", msg, ok)
	}
	if _, ok := NetworkError(errors.New("other")); ok {
		t.Fatal("a plain error counted as a network error")
	}
}
