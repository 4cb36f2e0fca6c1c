package console

import (
	"cmp"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	ord "github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/ordering/orderweb"
)

// ledgerDays is the default period of the ledger page: the last two
// weeks, today included.
const ledgerDays = 14

// The daily chart's drawing box (SVG user units): bars share the width.
const (
	ledgerChartWidth  = 720
	ledgerChartHeight = 240
	ledgerChartTop    = 24 // room for the highest amount
	ledgerChartBottom = 28 // room for the day labels
	ledgerChartLabels = 10 // at most this many day labels
)

// ledgerView is the ledger page's data.
type ledgerView struct {
	office
	From, To string
	Ledger   ord.Ledger
	// Days is every day of the period with its total, zero included: the
	// chart's bars and the table beside it.
	Days    []ledgerDay
	Methods []ledgerMethodTotal
	Chart   ledgerChart
	CSV     string // the export's URL
	// Entries are this page's paid orders, newest first (the CSV has
	// them all).
	Entries []ord.LedgerEntry
	Pager   pager
}

// ledgerDay is a day's total, with its bar.
type ledgerDay struct {
	Day   string
	Total int64
	Bar   chartBar
}

// ledgerMethodTotal is a payment method's total.
type ledgerMethodTotal struct {
	Method string
	Total  int64
}

// ledgerChart is the daily bar chart, drawn on the server as inline SVG.
type ledgerChart struct {
	Width, Height, Base int
	Max                 int64
}

// chartBar is a bar of the chart (SVG user units, as text) and its label.
type chartBar struct {
	X, Y, W, H, LabelX string
	Label              string // the day (MM-DD) under every few bars
}

// ledgerPage serves GET /console/shop/ledger?from=&to= (the shop's dates,
// YYYY-MM-DD; by default the last two weeks): totals per day and per
// payment method, the daily chart with its table, the paid orders (newest
// first, a hundred a page) and the CSV export of them all.
func (c *console) ledgerPage(w http.ResponseWriter, r *http.Request) {
	lv := ledgerView{office: c.newOffice(r.Context())}
	lv.From, lv.To = ledgerPeriod(r, c.now().In(lv.loc))
	l, err := c.ordering.Service.Ledger(r.Context(), lv.From, lv.To)
	if err != nil {
		c.officeRender(w, r, "office_ledger", http.StatusOK, lv, err)
		return
	}
	lv.Ledger = l
	newest := slices.Clone(l.Entries)
	slices.Reverse(newest)
	lv.Entries, lv.Pager = paginate(r, newest, pageSize)
	lv.CSV = "/console/shop/ledger.csv?from=" + lv.From + "&to=" + lv.To
	for _, m := range slices.Sorted(maps.Keys(l.ByMethod)) {
		lv.Methods = append(lv.Methods, ledgerMethodTotal{m, l.ByMethod[m]})
	}
	from, _ := time.Parse(time.DateOnly, l.From)
	to, _ := time.Parse(time.DateOnly, l.To)
	for d := from; !d.After(to); d = d.AddDate(0, 0, 1) {
		day := d.Format(time.DateOnly)
		lv.Days = append(lv.Days, ledgerDay{Day: day, Total: l.ByDay[day]})
		lv.Chart.Max = max(lv.Chart.Max, l.ByDay[day])
	}
	lv.Chart.Width, lv.Chart.Height, lv.Chart.Base = ledgerChartWidth, ledgerChartHeight, ledgerChartHeight-ledgerChartBottom
	drawBars(lv.Days, lv.Chart)
	c.officeRender(w, r, "office_ledger", http.StatusOK, lv, nil)
}

// ledgerPeriod returns the period asked for, by default the last
// ledgerDays days to today (the shop's date now).
func ledgerPeriod(r *http.Request, today time.Time) (from, to string) {
	q := r.URL.Query()
	from, to = strings.TrimSpace(q.Get("from")), strings.TrimSpace(q.Get("to"))
	if to == "" {
		to = today.Format(time.DateOnly)
	}
	if from == "" {
		if t, err := time.Parse(time.DateOnly, to); err == nil {
			from = t.AddDate(0, 0, 1-ledgerDays).Format(time.DateOnly)
		}
	}
	return from, to
}

// drawBars sets each day's bar in the chart: the days share its width, the
// highest total reaches its top.
func drawBars(days []ledgerDay, ch ledgerChart) {
	if len(days) == 0 {
		return
	}
	step := float64(ch.Width) / float64(len(days))
	every := (len(days) + ledgerChartLabels - 1) / ledgerChartLabels
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }
	for i := range days {
		d := &days[i]
		h := 0.0
		if ch.Max > 0 {
			h = float64(d.Total) / float64(ch.Max) * float64(ch.Base-ledgerChartTop)
		}
		x := float64(i) * step
		d.Bar = chartBar{X: num(x + step*0.1), W: num(cmp.Or(step*0.8, 1)), Y: num(float64(ch.Base) - h), H: num(h),
			LabelX: num(x + step/2)}
		if i%every == 0 {
			d.Bar.Label = d.Day[5:]
		}
	}
}

// ledgerCSV serves GET /console/shop/ledger.csv?from=&to=: the API's
// ledger CSV (GET /api/ledger?format=csv), same columns and file name.
func (c *console) ledgerCSV(w http.ResponseWriter, r *http.Request) {
	from, to := ledgerPeriod(r, c.now().In(c.newOffice(r.Context()).loc))
	l, err := c.ordering.Service.Ledger(r.Context(), from, to)
	if err != nil {
		c.officeRender(w, r, "office_ledger", http.StatusOK, ledgerView{office: c.newOffice(r.Context()), From: from, To: to}, err)
		return
	}
	if err := orderweb.WriteLedgerCSV(w, l); err != nil {
		c.log.Warn("console: ledger CSV", "err", err)
	}
}
