package visits

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// TestRollupMatchesAggregate: the statistics built from roll-up counters
// are exactly those computed over the raw visits, for random visits with
// repeated visitors across days, bots, empty labels and social networks.
func TestRollupMatchesAggregate(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	var vs []Visit
	base := time.Date(2026, 3, 14, 20, 0, 0, 0, time.UTC)
	for range 5000 {
		vs = append(vs, Visit{Kind: KindLink, ID: 7, At: base.Add(time.Duration(rng.IntN(72)) * time.Hour),
			Country: pick("", "ID", "US", "SG"), Referrer: pick("", "www.google.com", "t.co", "example.org"),
			Browser: pick("", "Chrome", "Firefox", "Safari"), OS: pick("", "Android", "iOS", "Windows"),
			Bot: rng.IntN(10) == 0, Visitor: pick("", "v1", "v2", "v3", fmt.Sprint(rng.IntN(50))),
			Social: pick("", "", SocialFacebook, SocialTwitter, SocialInstagram)})
	}
	// The store's part: a visitor's first visit of the day on the target.
	r := Rollup{}
	seen := map[string]bool{}
	for _, v := range vs {
		r.Add(v)
		if k := fmt.Sprint(dayOf(v.At), v.Visitor); !v.Bot && v.Visitor != "" && !seen[k] {
			seen[k] = true
			r.AddUnique(v.Kind, v.ID)
		}
	}
	for _, top := range []int{0, 2, 10} {
		want, got := Aggregate(vs, top), StatsFromRollup(r.Sorted(), top)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("top %d: from the roll-up\n%+v\nover the visits\n%+v", top, got, want)
		}
	}
	sorted := r.Sorted()
	for i := 1; i < len(sorted); i++ {
		a, b := sorted[i-1].RollupKey, sorted[i].RollupKey
		if a.Dim > b.Dim || (a.Dim == b.Dim && a.Label >= b.Label) {
			t.Fatalf("Sorted out of order at %d: %+v then %+v", i, a, b)
		}
	}
}
