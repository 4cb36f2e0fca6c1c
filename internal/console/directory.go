package console

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/exam"
)

// syncLogsView is the sync log page's data.
type syncLogsView struct {
	Logs                    []exam.SyncLog
	School, Server, Outcome string
}

// syncLogs serves GET /console/sync-logs?npsn=&server=&outcome=: the
// latest 100 pushes and handshakes, newest first, filtered.
func (c *console) syncLogs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	sv := syncLogsView{School: strings.TrimSpace(q.Get("npsn")), Server: strings.TrimSpace(q.Get("server")), Outcome: q.Get("outcome")}
	v := c.examView(r)
	logs, err := c.exam.ListSyncLogs(r.Context(), exam.SyncLogFilter{NPSN: sv.School, ServerCode: sv.Server,
		Outcome: exam.SyncOutcome(sv.Outcome), Limit: 100})
	status := http.StatusOK
	if err != nil {
		status = c.showError(&v, err)
	}
	sv.Logs = logs
	v.Data = sv
	c.render(w, r, "synclogs", status, v)
}

// keysView is the API keys page's data.
type keysView struct {
	Keys []exam.APIKey
	// NewKey is a key just created, shown this once.
	NewKey, NewName string
}

// apiKeys serves GET /console/api-keys: the directory API keys.
func (c *console) apiKeys(w http.ResponseWriter, r *http.Request) {
	c.renderKeys(w, r, http.StatusOK, keysView{}, nil)
}

func (c *console) renderKeys(w http.ResponseWriter, r *http.Request, status int, kv keysView, err error) {
	v := c.examView(r)
	if err != nil {
		status = c.showError(&v, err)
	}
	keys, lerr := c.exam.ListAPIKeys(r.Context())
	if lerr != nil {
		status = c.showError(&v, lerr)
	}
	kv.Keys = keys
	v.Data = kv
	w.Header().Set("Cache-Control", "no-store")
	c.render(w, r, "apikeys", status, v)
}

// createAPIKey serves POST /console/api-keys (name): the key is shown
// this once; the portal keeps only its hash.
func (c *console) createAPIKey(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	k, secret, err := c.exam.CreateAPIKey(r.Context(), name)
	if err != nil {
		c.renderKeys(w, r, http.StatusBadRequest, keysView{}, err)
		return
	}
	c.renderKeys(w, r, http.StatusCreated, keysView{NewKey: secret, NewName: k.Name}, nil)
}

// revokeAPIKey serves POST /console/api-keys/{id}/revoke.
func (c *console) revokeAPIKey(w http.ResponseWriter, r *http.Request) {
	if _, err := c.exam.RevokeAPIKey(r.Context(), chi.URLParam(r, "id")); err != nil {
		c.renderKeys(w, r, http.StatusBadRequest, keysView{}, err)
		return
	}
	http.Redirect(w, r, "/console/api-keys", http.StatusSeeOther)
}
