package console

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
)

// fleetView is the fleet page's data.
type fleetView struct {
	Monitors                 []exam.Monitor // this page's
	Pager                    pager
	Status, School           string
	Online, Offline, Syncing int
	Now                      time.Time
	Reset                    string // the server code whose binding was just reset
}

// fleet serves GET /console/fleet?status=&school=: every lab server with
// its school, effective status, last heartbeat, client version, connected
// students, active exams and answers not yet pushed, a hundred a page; the
// counts are of every server that matches. The page refreshes itself
// every 30 s.
func (c *console) fleet(w http.ResponseWriter, r *http.Request) {
	status := exam.MonitorStatus(r.URL.Query().Get("status"))
	school := strings.TrimSpace(r.URL.Query().Get("school"))
	ms, err := c.exam.ListMonitors(r.Context(), "", status)
	v := c.examView(r)
	if err != nil {
		code := http.StatusInternalServerError
		if apperr.From(err) != nil {
			code, v.Error = http.StatusBadRequest, "fleet.bad_filter"
		} else {
			c.log.Error("console: fleet", "err", err)
			v.Error = "error.internal"
		}
		c.render(w, r, "fleet", code, v)
		return
	}
	fv := fleetView{Status: string(status), School: school, Now: time.Now(), Reset: r.URL.Query().Get("reset")}
	for _, m := range ms {
		if school != "" && !strings.Contains(strings.ToLower(m.SchoolName+" "+m.NPSN), strings.ToLower(school)) {
			continue
		}
		switch m.Status {
		case exam.StatusOnline:
			fv.Online++
		case exam.StatusOffline:
			fv.Offline++
		case exam.StatusSyncing:
			fv.Syncing++
		}
		fv.Monitors = append(fv.Monitors, m)
	}
	sort.SliceStable(fv.Monitors, func(i, j int) bool {
		a, b := fv.Monitors[i], fv.Monitors[j]
		if a.SchoolName != b.SchoolName {
			return a.SchoolName < b.SchoolName
		}
		return a.ServerCode < b.ServerCode
	})
	fv.Monitors, fv.Pager = paginate(r, fv.Monitors, pageSize)
	w.Header().Set("Refresh", "30")
	v.Data = fv
	c.render(w, r, "fleet", http.StatusOK, v)
}

// ago formats how long before now t was, shortly ("42 s", "5 min", "3 h").
func ago(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d.Hours()))
	}
	return fmt.Sprintf("%d d", int(d.Hours()/24))
}

// resetServer serves POST /console/servers/{code}/reset: the server code's
// hardware binding is deleted, so that a replacement machine's next
// handshake binds afresh (as POST /api/v1/servers/{code}/reset does).
func (c *console) resetServer(w http.ResponseWriter, r *http.Request) {
	code := chi.URLParam(r, "code")
	if err := c.exam.ResetServer(r.Context(), code); err != nil {
		v := c.examView(r)
		status := apperr.KindOf(err).Status()
		if e := apperr.From(err); e != nil {
			v.Message = e.Message
		} else {
			c.log.Error("console: reset server", "err", err)
			v.Error = "error.internal"
		}
		c.render(w, r, "fleet", status, v)
		return
	}
	c.log.Info("console: server binding reset", "server", code, "by", operatorFrom(r).Username)
	http.Redirect(w, r, "/console/fleet?reset="+url.QueryEscape(code), http.StatusSeeOther)
}
