package exam

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/respond"
)

// apiKeyView is an API key as operators see it: never the key or its hash.
type apiKeyView struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	CreatedAt  time.Time  `json:"created_at"`
	RevokedAt  *time.Time `json:"revoked_at"`   // (ext)
	LastUsedAt *time.Time `json:"last_used_at"` // (ext)
}

func newAPIKeyView(k exam.APIKey) apiKeyView {
	return apiKeyView{ID: k.ID, Name: k.Name, Prefix: k.Prefix, CreatedAt: k.CreatedAt.UTC(),
		RevokedAt: respond.UTC(k.RevokedAt), LastUsedAt: respond.UTC(k.LastUsedAt)}
}

type createAPIKeyRequest struct {
	Name string `json:"name"`
}

// createAPIKey handles POST /api/v1/admin/api-keys: a new key for the member
// directory API, shown once in "key".
func (a *api) createAPIKey(w http.ResponseWriter, r *http.Request) {
	var req createAPIKeyRequest
	if err := respond.Decode(r, &req); err != nil {
		a.writeError(w, r, err)
		return
	}
	k, key, err := a.svc.CreateAPIKey(r.Context(), req.Name)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.Secret(w, http.StatusCreated, respond.WithKey[apiKeyView]{Success: true, Data: newAPIKeyView(k), Key: key})
}

// listAPIKeys handles GET /api/v1/admin/api-keys: every key, newest first.
func (a *api) listAPIKeys(w http.ResponseWriter, r *http.Request) {
	ks, err := a.svc.ListAPIKeys(r.Context())
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	views := make([]apiKeyView, len(ks))
	for i, k := range ks {
		views[i] = newAPIKeyView(k)
	}
	respond.Data(w, http.StatusOK, views)
}

// revokeAPIKey handles DELETE /api/v1/admin/api-keys/{id}: the key stops
// working at once.
func (a *api) revokeAPIKey(w http.ResponseWriter, r *http.Request) {
	k, err := a.svc.RevokeAPIKey(r.Context(), chi.URLParam(r, "id"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.Data(w, http.StatusOK, newAPIKeyView(k))
}
