package visits

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// statsVisits is a small mixed set of visits of QR code 1.
func statsVisits() []Visit {
	d1 := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)
	d2 := d1.Add(24 * time.Hour)
	v := func(at time.Time, visitor, country, ref, browser, os, social string) Visit {
		return Visit{Kind: KindQR, ID: 1, OwnerID: 9, At: at, Visitor: visitor, Country: country,
			Referrer: ref, Browser: browser, OS: os, Social: social}
	}
	bot := v(d1, "b", "US", "", "Googlebot", "", "")
	bot.Bot = true
	return []Visit{
		v(d1, "a", "US", "", "Chrome", "Windows", ""),
		v(d1.Add(time.Hour), "a", "US", "", "Chrome", "Windows", ""), // same visitor, same day
		v(d1, "c", "GB", "l.facebook.com", "Facebook App", "iOS", SocialFacebook),
		v(d1, "d", "", "t.co", "Safari", "iOS", SocialTwitter),
		v(d1, "e", "US", "", "Instagram App", "Android", SocialInstagram),
		v(d2, "a", "US", "google.com", "Chrome", "Windows", ""), // same value, next day: another unique
		v(d2, "f", "de", "google.com", "Firefox", "", ""),
		bot,
	}
}

func TestAggregateGolden(t *testing.T) {
	s := Aggregate(statsVisits(), 3)
	got, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"clicks":7,"uniqueClicks":6,` +
		`"topCountries":{"US":"4","GB":"1","Unknown":"1"},` +
		`"topReferrers":{"Direct":"3","google.com":"2","l.facebook.com":"1"},` +
		`"topBrowsers":{"Chrome":"3","Facebook App":"1","Firefox":"1"},` +
		`"topOs":{"Windows":"3","iOS":"2","Android":"1"},` +
		`"socialCount":{"facebook":1,"twitter":1,"instagram":1}}`
	if string(got) != want {
		t.Errorf("Aggregate JSON\n got %s\nwant %s", got, want)
	}
	if s.Bots != 1 {
		t.Errorf("Bots = %d, want 1", s.Bots)
	}
}

func TestAggregateEmpty(t *testing.T) {
	got, err := json.Marshal(Aggregate(nil, 10))
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"clicks":0,"uniqueClicks":0,"topCountries":{},"topReferrers":{},"topBrowsers":{},"topOs":{},` +
		`"socialCount":{"facebook":0,"twitter":0,"instagram":0}}`
	if string(got) != want {
		t.Errorf("empty Aggregate JSON\n got %s\nwant %s", got, want)
	}
	// A zero Stats (never aggregated) marshals the same way.
	if got, _ := json.Marshal(Stats{}); string(got) != want {
		t.Errorf("zero Stats JSON\n got %s\nwant %s", got, want)
	}
}

func TestAggregateAllAndUnknownCountry(t *testing.T) {
	s := Aggregate(statsVisits(), 0)
	want := TopList{{"US", 4}, {"GB", 1}, {"Unknown", 1}, {"de", 1}}
	if !reflect.DeepEqual(s.TopCountries, want) {
		t.Errorf("TopCountries = %v, want %v", s.TopCountries, want)
	}
}

func TestUniquePerTargetPerDay(t *testing.T) {
	at := time.Date(2026, 3, 14, 23, 0, 0, 0, time.UTC)
	vs := []Visit{
		{Kind: KindLink, ID: 1, At: at, Visitor: "v"},
		{Kind: KindLink, ID: 1, At: at.Add(30 * time.Minute), Visitor: "v"}, // same day: not unique
		{Kind: KindLink, ID: 2, At: at, Visitor: "v"},                       // other target: unique
		{Kind: KindQR, ID: 1, At: at, Visitor: "v"},                         // other kind: unique
		{Kind: KindLink, ID: 1, At: at.Add(2 * time.Hour), Visitor: "v"},    // next UTC day: unique
		{Kind: KindLink, ID: 1, At: at, Visitor: ""},                        // no visitor: unique
		{Kind: KindLink, ID: 1, At: at, Visitor: "w", Bot: true},            // bot: not counted
	}
	s := Aggregate(vs, 5)
	if s.Clicks != 6 || s.UniqueClicks != 5 || s.Bots != 1 {
		t.Errorf("Clicks %d UniqueClicks %d Bots %d, want 6, 5, 1", s.Clicks, s.UniqueClicks, s.Bots)
	}
}

func TestAccumulatorMatchesAggregate(t *testing.T) {
	vs := statsVisits()
	var a Accumulator
	for i, v := range vs {
		a.Add(v)
		if got, want := a.Stats(2), Aggregate(vs[:i+1], 2); !reflect.DeepEqual(got, want) {
			t.Fatalf("after %d visits: Accumulator %+v, Aggregate %+v", i+1, got, want)
		}
	}
}

func TestTopListJSON(t *testing.T) {
	in := TopList{{"z", 10}, {`quote "and" \ slash`, 2}, {"a", 2}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"z":"10","quote \"and\" \\ slash":"2","a":"2"}`; string(b) != want {
		t.Errorf("Marshal = %s, want %s", b, want)
	}
	var out TopList
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Errorf("round trip = %v, want %v", out, in)
	}
	if err := json.Unmarshal([]byte(`{"a":3,"b":"4"}`), &out); err != nil || !reflect.DeepEqual(out, TopList{{"a", 3}, {"b", 4}}) {
		t.Errorf("numbers and strings: %v, %v", out, err)
	}
	var s Stats
	if err := json.Unmarshal([]byte(`{"clicks":1,"topOs":null}`), &s); err != nil || s.TopOs != nil || s.Clicks != 1 {
		t.Errorf("null top list: %+v, %v", s, err)
	}
	for _, bad := range []string{`[]`, `{"a":true}`, `{"a":"x"}`, `{"a":1.5}`, `{"a":`} {
		if err := json.Unmarshal([]byte(bad), &out); err == nil {
			t.Errorf("Unmarshal(%s) succeeded: %v", bad, out)
		}
	}
}
