package client

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

func TestLinkFlagDecoding(t *testing.T) {
	for _, tc := range []struct {
		body string
		want linkFlag
	}{
		{`{"error":0}`, 0},
		{`{"error":"0"}`, 0},
		{`{"error":1}`, 1},
		{`{"error":"1"}`, 1},
		{`{"error":" 1 "}`, 1},
		{`{}`, 0},
		{`{"error":null}`, 0},
		{`{"error":false}`, 0},
		{`{"error":true}`, 1},
	} {
		var env linkEnvelope
		if err := json.Unmarshal([]byte(tc.body), &env); err != nil {
			t.Errorf("%s: %v", tc.body, err)
			continue
		}
		if env.Error != tc.want {
			t.Errorf("%s: error = %d, want %d", tc.body, env.Error, tc.want)
		}
	}
	for _, bad := range []string{`{"error":"yes"}`, `{"error":[1]}`, `{"error":{}}`} {
		var env linkEnvelope
		if err := json.Unmarshal([]byte(bad), &env); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestLinkCountDecoding(t *testing.T) {
	var m map[string]LinkCount
	if err := json.Unmarshal([]byte(`{"a":"15","b":3,"c":""}`), &m); err != nil {
		t.Fatal(err)
	}
	if m["a"] != 15 || m["b"] != 3 || m["c"] != 0 {
		t.Fatalf("counts = %v", m)
	}
}

func TestLinkTopListDecoding(t *testing.T) {
	var st LinkStats
	if err := json.Unmarshal([]byte(`{"clicks":6,"topCountries":{"US":"4","GB":1,"Unknown":"1"},"topOs":{},"topBrowsers":null}`), &st); err != nil {
		t.Fatal(err)
	}
	want := LinkTopList{{"US", 4}, {"GB", 1}, {"Unknown", 1}}
	if len(st.TopCountries) != 3 || st.TopCountries[0] != want[0] || st.TopCountries[1] != want[1] || st.TopCountries[2] != want[2] {
		t.Fatalf("topCountries = %v", st.TopCountries)
	}
	if st.TopOs == nil || len(st.TopOs) != 0 || st.TopBrowsers != nil || st.TopCountries.Map()["US"] != 4 {
		t.Fatalf("stats = %+v", st)
	}
	if json.Unmarshal([]byte(`{"topOs":[1]}`), &st) == nil {
		t.Fatal("an array was accepted as a top list")
	}
}

func TestRetryWait(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	for _, tc := range []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{"Retry-After": {"7"}}, 7 * time.Second},
		{http.Header{"Retry-After": {now.Add(3 * time.Second).UTC().Format(http.TimeFormat)}}, 3 * time.Second},
		{http.Header{"X-Ratelimit-Reset": {"1800000012"}}, 12 * time.Second},
		{http.Header{"X-Ratelimit-Reset": {"1799999999"}}, time.Second},
		{http.Header{}, time.Second},
	} {
		if got := retryWait(tc.h, now); got != tc.want {
			t.Errorf("retryWait(%v) = %s, want %s", tc.h, got, tc.want)
		}
	}
}

func TestLinkTopListRoundTrip(t *testing.T) {
	in := `{"ID":"12","US":"3","a\"b":"1"}`
	var l LinkTopList
	if err := json.Unmarshal([]byte(in), &l); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(l)
	if err != nil || string(out) != in {
		t.Fatalf("round trip: %s, %v; want %s", out, err, in)
	}
	if out, _ := json.Marshal(LinkTopList{}); string(out) != "{}" {
		t.Fatalf("empty list = %s", out)
	}
}
