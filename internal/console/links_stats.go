package console

import (
	"net/http"

	"github.com/seedhq/portal/internal/links/visits"
)

// barChart is a horizontal bar chart drawn as inline SVG by the template
// (presentation attributes only: the CSP allows no style attributes), with
// the same numbers in a table for screen readers.
type barChart struct {
	Key    string // the chart's title text key
	Bars   []bar
	Height int // of the SVG's view box
}

// bar is one bar of a chart, in view-box units (the box is chartWidth
// wide, the bars start at chartLabel).
type bar struct {
	Label       string
	Count       int
	Share       float64 // of every click
	Y, W, TextY int
	CountX      int
}

// Chart geometry, in view-box units.
const (
	chartWidth = 480
	chartLabel = 150 // width of the label column
	chartBars  = 280 // longest bar
	chartRow   = 28
)

// newBarChart draws a top list.
func newBarChart(key string, top visits.TopList, total int) barChart {
	ch := barChart{Key: key, Height: max(len(top), 1) * chartRow}
	most := 1
	for _, lc := range top {
		most = max(most, lc.Count)
	}
	for i, lc := range top {
		w := max(lc.Count*chartBars/most, 1)
		b := bar{Label: lc.Label, Count: lc.Count, Y: i*chartRow + 4, W: w, TextY: i*chartRow + 19, CountX: chartLabel + w + 6}
		if total > 0 {
			b.Share = float64(lc.Count) / float64(total)
		}
		ch.Bars = append(ch.Bars, b)
	}
	return ch
}

// linkStatsView is the statistics page's data.
type linkStatsView struct {
	Link   linkRow
	Stats  visits.Stats
	Charts []barChart
}

// linkStatsPage serves GET /console/links/{id}/stats: the link's clicks
// and unique clicks, and its countries, referrers, browsers and operating
// systems as charts, from links.Service.LinkStats (the roll-ups: its cost
// does not grow with the clicks).
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
	v := c.linkView(r)
	v.Data = linkStatsView{Link: linkRow{ShortLink: l, Short: c.shortURL(r, refs, l)}, Stats: st, Charts: []barChart{
		newBarChart("links.stats.countries", st.TopCountries, st.Clicks),
		newBarChart("links.stats.referrers", st.TopReferrers, st.Clicks),
		newBarChart("links.stats.browsers", st.TopBrowsers, st.Clicks),
		newBarChart("links.stats.os", st.TopOs, st.Clicks),
	}}
	c.render(w, r, "links_stats", http.StatusOK, v)
}
