package httpapi

import (
	"net/http"
	"time"

	"github.com/seedhq/portal/internal/httpapi/respond"
)

// dataBody is the success envelope of responses that carry one value or a list.
type dataBody struct {
	Success bool `json:"success"`
	Data    any  `json:"data"`
}

// writeData writes {"success":true,"data":data}.
func writeData(w http.ResponseWriter, status int, data any) {
	respond.JSON(w, status, dataBody{Success: true, Data: data})
}

// withKey is the body of a creation that returns a secret key, shown once:
// {"success":true,"data":<the record>,"key":"..."}.
type withKey[T any] struct {
	Success bool   `json:"success"`
	Data    T      `json:"data"`
	Key     string `json:"key"`
}

// writeSecret writes v, a body carrying a secret shown once (an API key, a
// password), as JSON that no cache may keep.
func writeSecret(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Cache-Control", "no-store")
	respond.JSON(w, status, v)
}

// okBody is the body of successful operations that return nothing else.
type okBody struct {
	Success bool   `json:"success"`
	Message string `json:"message,omitempty"`
}

// utcPtr returns t in UTC, or nil.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
