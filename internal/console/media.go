package console

import (
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/httpapi/respond"
)

// uploadMedia serves POST /console/exams/media (the editor's script, the
// CSRF token in X-CSRF-Token): the body is one image or audio file, stored
// by the exam service; the answer is JSON with the reference to write in a
// text, or the error's code and message.
func (c *console) uploadMedia(w http.ResponseWriter, r *http.Request) {
	m, err := c.exam.UploadMedia(r.Context(), r.URL.Query().Get("name"), r.Body)
	if err != nil {
		e := apperr.From(err)
		if e == nil {
			c.log.ErrorContext(r.Context(), "upload media", "err", err)
			e = apperr.New(apperr.Internal, "INTERNAL", "the upload failed; try again")
		}
		respond.ErrorStatus(w, e.Kind.Status(), e.Code, e.Message)
		return
	}
	respond.JSON(w, http.StatusCreated, map[string]any{"sha256": m.SHA256, "type": m.Type, "kind": m.Kind,
		"size": m.Size, "name": m.Name, "reference": "media:" + m.SHA256})
}

// media serves GET /console/exams/media/{sha256} and
// /console/exams/{id}/media/{sha256}: a media file for the editor's
// preview, typed, never sniffed.
func (c *console) media(w http.ResponseWriter, r *http.Request) {
	m, body, err := c.exam.OpenMedia(r.Context(), chi.URLParam(r, "sha256"))
	if err != nil {
		c.examsError(w, r, err)
		return
	}
	defer body.Close()
	h := w.Header()
	h.Set("Content-Type", m.Type)
	h.Set("Cache-Control", "private, max-age=31536000, immutable")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	http.ServeContent(w, r, "", time.Time{}, body)
}
