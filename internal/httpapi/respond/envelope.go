package respond

import (
	"net/http"
	"time"
)

// DataBody is the success envelope of the exam and ordering APIs for
// responses that carry one value or a list.
type DataBody struct {
	Success bool `json:"success"`
	Data    any  `json:"data"`
}

// Data writes {"success":true,"data":data}.
func Data(w http.ResponseWriter, status int, data any) {
	JSON(w, status, DataBody{Success: true, Data: data})
}

// WithKey is the body of a creation that returns a secret key, shown once:
// {"success":true,"data":<the record>,"key":"..."}.
type WithKey[T any] struct {
	Success bool   `json:"success"`
	Data    T      `json:"data"`
	Key     string `json:"key"`
}

// Secret writes v, a body carrying a secret shown once (an API key, a
// password), as JSON that no cache may keep.
func Secret(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Cache-Control", "no-store")
	JSON(w, status, v)
}

// OK is the body of successful operations that return nothing else.
type OK struct {
	Success bool   `json:"success"`
	Message string `json:"message,omitempty"`
}

// UTC returns t in UTC, or nil: the times of the envelopes are in UTC.
func UTC(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
