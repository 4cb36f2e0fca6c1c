package visits

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// Labels used in the top lists for empty values.
const (
	// LabelDirect labels visits without a (valid) referrer.
	LabelDirect = "Direct"
	// LabelUnknown labels an unknown country, browser or OS.
	LabelUnknown = "Unknown"
)

// LabelCount is one entry of a top list.
type LabelCount struct {
	Label string
	Count int
}

// TopList is a ranking, highest count first (ties by label). In JSON it is an
// object from label to count, the count given as a string as the spec says,
// in ranking order: {"US":"12","GB":"3"}. An empty list is {}.
type TopList []LabelCount

// MarshalJSON implements json.Marshaler.
func (t TopList) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, lc := range t {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(lc.Label)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteString(`:"`)
		b.WriteString(strconv.Itoa(lc.Count))
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON implements json.Unmarshaler. It keeps the object's order and
// accepts counts given as strings or as numbers; null gives an empty list.
func (t *TopList) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		*t = nil
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return errors.New("visits: top list: want a JSON object")
	}
	var out TopList
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		label, _ := kt.(string)
		vt, err := dec.Token()
		if err != nil {
			return err
		}
		var s string
		switch v := vt.(type) {
		case string:
			s = v
		case json.Number:
			s = v.String()
		default:
			return fmt.Errorf("visits: top list: count of %q is not a string or a number", label)
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("visits: top list: count of %q: %w", label, err)
		}
		out = append(out, LabelCount{Label: label, Count: n})
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	*t = out
	return nil
}

// SocialCount counts visits coming from each social network.
type SocialCount struct {
	Facebook  int `json:"facebook"`
	Twitter   int `json:"twitter"`
	Instagram int `json:"instagram"`
}

// Stats is the statistics block of the link-management API. Bot visits are
// counted in Bots only.
type Stats struct {
	Clicks       int         `json:"clicks"`
	UniqueClicks int         `json:"uniqueClicks"`
	TopCountries TopList     `json:"topCountries"`
	TopReferrers TopList     `json:"topReferrers"`
	TopBrowsers  TopList     `json:"topBrowsers"`
	TopOs        TopList     `json:"topOs"`
	SocialCount  SocialCount `json:"socialCount"`
	// TopDevices ranks the kinds of device (Visit.Device); Days counts the
	// clicks of each UTC day with a click, oldest first, labelled with
	// DayLayout. Neither is part of the API's statistics block. Visits
	// saved before the roll-ups kept them count in neither.
	TopDevices TopList      `json:"-"`
	Days       []LabelCount `json:"-"`
	// Bots is the number of bot visits left out of every other number.
	Bots int `json:"-"`
}

// uniqueKey identifies one visitor of one target on one UTC day.
type uniqueKey struct {
	kind    string
	id      int64
	day     int64
	visitor string
}

// Accumulator builds Stats incrementally, one visit at a time, for example
// while iterating a store cursor. The zero value is ready to use; it is not
// safe for concurrent use. Its memory grows with the number of distinct
// visitors and labels.
type Accumulator struct {
	clicks, uniques, bots int
	seen                  map[uniqueKey]struct{}
	countries, referrers  map[string]int
	browsers, oses        map[string]int
	devices, days         map[string]int
	social                SocialCount
}

// Add counts v. Bot visits only increase the bot count. A visit is unique
// when no visit added before has the same target, UTC day and Visitor; a
// visit without a Visitor is counted as unique.
func (a *Accumulator) Add(v Visit) {
	if v.Bot {
		a.bots++
		return
	}
	if a.seen == nil {
		a.seen = make(map[uniqueKey]struct{})
		a.countries = make(map[string]int)
		a.referrers = make(map[string]int)
		a.browsers = make(map[string]int)
		a.oses = make(map[string]int)
		a.devices = make(map[string]int)
		a.days = make(map[string]int)
	}
	a.clicks++
	if v.Visitor == "" {
		a.uniques++
	} else {
		k := uniqueKey{v.Kind, v.ID, dayOf(v.At), v.Visitor}
		if _, dup := a.seen[k]; !dup {
			a.seen[k] = struct{}{}
			a.uniques++
		}
	}
	a.countries[labelOr(v.Country, LabelUnknown)]++
	a.referrers[labelOr(v.Referrer, LabelDirect)]++
	a.browsers[labelOr(v.Browser, LabelUnknown)]++
	a.oses[labelOr(v.OS, LabelUnknown)]++
	a.devices[labelOr(v.Device, LabelUnknown)]++
	a.days[v.At.UTC().Format(DayLayout)]++
	switch v.Social {
	case SocialFacebook:
		a.social.Facebook++
	case SocialTwitter:
		a.social.Twitter++
	case SocialInstagram:
		a.social.Instagram++
	}
}

func labelOr(s, empty string) string {
	if s == "" {
		return empty
	}
	return s
}

// Stats returns the statistics of the visits added so far, each top list cut
// to its top entries (top <= 0 keeps every entry).
func (a *Accumulator) Stats(top int) Stats {
	return Stats{
		Clicks:       a.clicks,
		UniqueClicks: a.uniques,
		TopCountries: topOf(a.countries, top),
		TopReferrers: topOf(a.referrers, top),
		TopBrowsers:  topOf(a.browsers, top),
		TopOs:        topOf(a.oses, top),
		TopDevices:   topOf(a.devices, top),
		Days:         daysOf(a.days),
		SocialCount:  a.social,
		Bots:         a.bots,
	}
}

// topOf ranks m by count, highest first, ties by label, and keeps top entries.
func topOf(m map[string]int, top int) TopList {
	l := make(TopList, 0, len(m))
	for k, n := range m {
		l = append(l, LabelCount{Label: k, Count: n})
	}
	slices.SortFunc(l, func(x, y LabelCount) int {
		if c := cmp.Compare(y.Count, x.Count); c != 0 {
			return c
		}
		return cmp.Compare(x.Label, y.Label)
	})
	if top > 0 && len(l) > top {
		l = l[:top]
	}
	return l
}

// daysOf returns the counts of days, oldest first.
func daysOf(m map[string]int) []LabelCount {
	l := make([]LabelCount, 0, len(m))
	for k, n := range m {
		l = append(l, LabelCount{Label: k, Count: n})
	}
	slices.SortFunc(l, func(x, y LabelCount) int { return cmp.Compare(x.Label, y.Label) })
	return l
}

// Aggregate returns the statistics of vs, each top list cut to its top
// entries (top <= 0 keeps every entry). See Accumulator for the rules.
func Aggregate(vs []Visit, top int) Stats {
	var a Accumulator
	for _, v := range vs {
		a.Add(v)
	}
	return a.Stats(top)
}
