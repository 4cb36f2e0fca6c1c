package visits

import (
	"cmp"
	"slices"
)

// Roll-ups are the statistics of a target kept as its visits are saved: one
// counter per (target, dimension, label), incremented in the transaction
// that stores the visits. Reading a target's statistics then costs the
// number of its distinct labels, not of its visits: the same at ten clicks
// and at ten million. Raw visits may be pruned; roll-ups are kept.

// Roll-up dimensions.
const (
	DimTotal    = "t" // labels TotalClicks, TotalUniques, TotalBots
	DimCountry  = "c"
	DimReferrer = "r"
	DimBrowser  = "b"
	DimOS       = "o"
	DimSocial   = "s" // labels: the social networks (SocialFacebook, ...)
	DimDevice   = "v" // labels: DeviceDesktop, DeviceMobile, DeviceTablet, LabelUnknown
	DimDay      = "d" // labels: the UTC day of the visits, DayLayout
)

// DayLayout is the layout of DimDay's labels and Stats.Days' days.
const DayLayout = "2006-01-02"

// Labels of DimTotal.
const (
	TotalClicks  = "clicks"
	TotalUniques = "uniques"
	TotalBots    = "bots"
)

// RollupKey names one counter of a target's roll-up.
type RollupKey struct {
	Kind  string
	ID    int64
	Dim   string
	Label string
}

// RollupCount is a counter of a roll-up, or an increment of one.
type RollupCount struct {
	RollupKey
	N int64
}

// Rollup accumulates the increments of a batch of visits by counter.
type Rollup map[RollupKey]int64

// Add counts v in every dimension, as Accumulator does, but for the
// uniqueness of a visitor's visit, which only the store can tell (it keeps
// the visitors already seen): it calls AddUnique for those. A visit without
// a Visitor counts as unique here.
func (r Rollup) Add(v Visit) {
	k := RollupKey{Kind: v.Kind, ID: v.ID, Dim: DimTotal}
	if v.Bot {
		k.Label = TotalBots
		r[k]++
		return
	}
	k.Label = TotalClicks
	r[k]++
	if v.Visitor == "" {
		k.Label = TotalUniques
		r[k]++
	}
	for _, d := range [...]struct{ dim, label string }{
		{DimCountry, labelOr(v.Country, LabelUnknown)},
		{DimReferrer, labelOr(v.Referrer, LabelDirect)},
		{DimBrowser, labelOr(v.Browser, LabelUnknown)},
		{DimOS, labelOr(v.OS, LabelUnknown)},
		{DimDevice, labelOr(v.Device, LabelUnknown)},
		{DimDay, v.At.UTC().Format(DayLayout)},
		{DimSocial, v.Social},
	} {
		if d.label != "" {
			r[RollupKey{Kind: v.Kind, ID: v.ID, Dim: d.dim, Label: d.label}]++
		}
	}
}

// AddUnique counts a visit that is its visitor's first of the UTC day on
// the target.
func (r Rollup) AddUnique(kind string, id int64) {
	r[RollupKey{Kind: kind, ID: id, Dim: DimTotal, Label: TotalUniques}]++
}

// Sorted returns the increments in key order: stores update counters in
// that order, so that concurrent writers never deadlock.
func (r Rollup) Sorted() []RollupCount {
	out := make([]RollupCount, 0, len(r))
	for k, n := range r {
		out = append(out, RollupCount{k, n})
	}
	slices.SortFunc(out, func(a, b RollupCount) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID), cmp.Compare(a.Dim, b.Dim), cmp.Compare(a.Label, b.Label))
	})
	return out
}

// StatsFromRollup returns the statistics of one target from its counters
// (Dim, Label and N of each; Kind and ID are not read), top lists cut to top
// entries (top <= 0 keeps every entry). For the same visits it gives what
// Aggregate gives.
func StatsFromRollup(counts []RollupCount, top int) Stats {
	dims := map[string]map[string]int{
		DimCountry: {}, DimReferrer: {}, DimBrowser: {}, DimOS: {}, DimDevice: {}, DimDay: {},
	}
	var st Stats
	for _, c := range counts {
		n := int(c.N)
		switch c.Dim {
		case DimTotal:
			switch c.Label {
			case TotalClicks:
				st.Clicks = n
			case TotalUniques:
				st.UniqueClicks = n
			case TotalBots:
				st.Bots = n
			}
		case DimSocial:
			switch c.Label {
			case SocialFacebook:
				st.SocialCount.Facebook = n
			case SocialTwitter:
				st.SocialCount.Twitter = n
			case SocialInstagram:
				st.SocialCount.Instagram = n
			}
		default:
			if m, ok := dims[c.Dim]; ok {
				m[c.Label] = n
			}
		}
	}
	st.TopCountries = topOf(dims[DimCountry], top)
	st.TopReferrers = topOf(dims[DimReferrer], top)
	st.TopBrowsers = topOf(dims[DimBrowser], top)
	st.TopOs = topOf(dims[DimOS], top)
	st.TopDevices = topOf(dims[DimDevice], top)
	st.Days = daysOf(dims[DimDay])
	return st
}
