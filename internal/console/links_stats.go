package console

import (
	"net/http"
	"strconv"
	"time"

	"github.com/seedhq/portal/internal/links/visits"
)

// statsChart is a horizontal bar chart drawn as inline SVG by the template
// (presentation attributes only: the CSP allows no style attributes), with
// the same numbers in a table for screen readers.
type statsChart struct {
	Key           string // the chart's title text key
	Bars          []statsBar
	Width, Height int // of the SVG's view box
	BarX          int // where the bars start, after the labels
}

// statsBar is one bar of a chart, in view-box units (the box is chartWidth
// wide, the bars start at chartLabel).
type statsBar struct {
	Label       string
	Short       string // the label cut to fit the label column
	Count       int
	Share       float64 // of every click
	Y, W, TextY int
	CountX      int
}

// Chart geometry, in view-box units.
const (
	chartWidth = 360
	chartLabel = 110 // width of the label column
	chartBars  = 200 // longest bar
	chartRow   = 28
	// chartLabelRunes is the longest label drawn whole in the label column.
	chartLabelRunes = 14
)

// cutLabel returns s, or its first n-1 runes and an ellipsis when longer.
func cutLabel(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// newStatsChart draws a top list.
func newStatsChart(key string, top visits.TopList, total int) statsChart {
	ch := statsChart{Key: key, Width: chartWidth, Height: max(len(top), 1) * chartRow, BarX: chartLabel}
	most := 1
	for _, lc := range top {
		most = max(most, lc.Count)
	}
	for i, lc := range top {
		w := max(lc.Count*chartBars/most, 1)
		b := statsBar{Label: lc.Label, Short: cutLabel(lc.Label, chartLabelRunes), Count: lc.Count, Y: i*chartRow + 4, W: w, TextY: i*chartRow + 19, CountX: chartLabel + w + 6}
		if total > 0 {
			b.Share = float64(lc.Count) / float64(total)
		}
		ch.Bars = append(ch.Bars, b)
	}
	return ch
}

// statsDays is the clicks per UTC day as a column chart (inline SVG), from
// the first day with a click, at most dayChartDays days back, to today.
type statsDays struct {
	Days          []statsDay
	Width         int // of the SVG's view box; its height is dayChartHeight
	First, Last   string
	Most, Clicked int // the highest day and the number of days with clicks
}

// statsDay is one day's column, in view-box units.
type statsDay struct {
	Day      string
	Count    int
	X, Y, H  int
	HasClick bool
}

// Day chart geometry, in view-box units.
const (
	dayChartDays   = 90
	dayChartColumn = 8
	dayChartHeight = 120
)

// newStatsDays draws the days of the statistics up to today.
func newStatsDays(days []visits.LabelCount, today time.Time) statsDays {
	var ch statsDays
	if len(days) == 0 {
		return ch
	}
	counts := map[string]int{}
	for _, d := range days {
		counts[d.Label] = d.Count
		ch.Most = max(ch.Most, d.Count)
	}
	today = today.UTC().Truncate(24 * time.Hour)
	start := today.AddDate(0, 0, 1-dayChartDays)
	if first, err := time.Parse(visits.DayLayout, days[0].Label); err == nil && first.After(start) {
		start = first
	}
	for d, i := start, 0; !d.After(today); d, i = d.AddDate(0, 0, 1), i+1 {
		label := d.Format(visits.DayLayout)
		n := counts[label]
		h := n * (dayChartHeight - 4) / max(ch.Most, 1)
		if n > 0 {
			h = max(h, 2)
			ch.Clicked++
		}
		ch.Days = append(ch.Days, statsDay{Day: label, Count: n, X: i*dayChartColumn + 1, Y: dayChartHeight - h, H: h, HasClick: n > 0})
	}
	ch.Width = len(ch.Days) * dayChartColumn
	ch.First, ch.Last = ch.Days[0].Day, ch.Days[len(ch.Days)-1].Day
	return ch
}

// linkStatsView is the statistics page's data: a short link's or a QR code's.
type linkStatsView struct {
	Name, Address, Target string // the alias or code's name, its short address, where it leads
	CountKey              string // the text key of what is counted (clicks, scans)
	Back, BackKey         string // the list to go back to and its text key
	Stats                 visits.Stats
	Days                  statsDays
	Charts                []statsChart
}

// newLinkStatsView draws the charts of st.
func newLinkStatsView(st visits.Stats) linkStatsView {
	return linkStatsView{Stats: st, Days: newStatsDays(st.Days, time.Now()), Charts: []statsChart{
		newStatsChart("links.stats.devices", st.TopDevices, st.Clicks),
		newStatsChart("links.stats.countries", st.TopCountries, st.Clicks),
		newStatsChart("links.stats.referrers", st.TopReferrers, st.Clicks),
		newStatsChart("links.stats.browsers", st.TopBrowsers, st.Clicks),
		newStatsChart("links.stats.os", st.TopOs, st.Clicks),
	}}
}

// linkStatsPage serves GET /console/links/{id}/stats: the link's clicks
// and unique clicks, its clicks per day, and its devices, countries,
// referrers, browsers and operating systems as charts, from
// links.Service.LinkStats (the roll-ups: its cost does not grow with the
// clicks).
func (c *console) linkStatsPage(w http.ResponseWriter, r *http.Request) {
	l, err := c.ownLink(r)
	if err != nil {
		c.linkNotFound(w, r, err)
		return
	}
	st, err := c.links.LinkStats(r.Context(), l.UserID, l.ID)
	if err != nil {
		c.linkNotFound(w, r, err)
		return
	}
	refs, err := c.loadRefs(r.Context(), l.UserID)
	if err != nil {
		c.linkNotFound(w, r, err)
		return
	}
	sv := newLinkStatsView(st)
	sv.Name, sv.Address, sv.Target = l.Alias, c.shortURL(r, refs, l), l.LongURL
	sv.CountKey, sv.Back, sv.BackKey = "links.list.clicks", "/console/links/", "links.stats.back"
	v := c.linkView(r)
	v.Data = sv
	c.render(w, r, "links_stats", http.StatusOK, v)
}

// qrStatsPage serves GET /console/links/qr/{id}/stats: the code's scans,
// drawn as a link's clicks are, from links.Service.QRStats.
func (c *console) qrStatsPage(w http.ResponseWriter, r *http.Request) {
	q, err := c.ownQR(r)
	if err != nil {
		c.linkNotFound(w, r, err)
		return
	}
	st, err := c.links.QRStats(r.Context(), q.UserID, q.ID)
	if err != nil {
		c.linkNotFound(w, r, err)
		return
	}
	sv := newLinkStatsView(st)
	sv.Name, sv.Address = q.Name, c.linkBaseOf(r)+"/qr/"+strconv.FormatInt(q.ID, 10)
	sv.CountKey, sv.Back, sv.BackKey = "links.qr.scans", "/console/links/qr", "links.stats.back_qr"
	v := c.linkView(r)
	v.Data = sv
	c.render(w, r, "links_stats", http.StatusOK, v)
}
