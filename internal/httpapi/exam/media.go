package exam

import (
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/respond"
)

// mediaView is a media file as operators read it.
type mediaView struct {
	SHA256    string         `json:"sha256"`
	Type      string         `json:"type"`
	Kind      exam.MediaKind `json:"kind"`
	Size      int64          `json:"size"`
	Name      string         `json:"name"`
	CreatedAt time.Time      `json:"created_at"`
	// Reference is what a markdown text writes to show the file:
	// ![description](media:SHA256).
	Reference string `json:"reference"`
}

func newMediaView(m exam.Media) mediaView {
	return mediaView{SHA256: m.SHA256, Type: m.Type, Kind: m.Kind, Size: m.Size, Name: m.Name,
		CreatedAt: m.CreatedAt.UTC(), Reference: "media:" + m.SHA256}
}

// uploadMedia handles POST /api/v1/admin/media (body up to
// exam.MaxAudioSize, else 413 MEDIA_TOO_LARGE): the body is one image or
// audio file, of any Content-Type (the type is read from the bytes); its
// name is the query's name, or the filename of a Content-Disposition.
// 201 with the media, also when the same bytes were stored already.
func (a *api) uploadMedia(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("name")
	if _, params, err := mime.ParseMediaType(r.Header.Get("Content-Disposition")); name == "" && err == nil {
		name = params["filename"]
	}
	m, err := a.svc.UploadMedia(r.Context(), name, r.Body)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	respond.Data(w, http.StatusCreated, newMediaView(m))
}

// getMedia handles GET /api/v1/admin/media/{sha256}: the file's bytes, for
// operators (Range and conditional requests answered).
func (a *api) getMedia(w http.ResponseWriter, r *http.Request) {
	m, body, err := a.svc.OpenMedia(r.Context(), chi.URLParam(r, "sha256"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	defer body.Close()
	h := w.Header()
	h.Set("Content-Type", m.Type)
	h.Set("ETag", `"`+m.SHA256+`"`)
	h.Set("Cache-Control", "private, max-age=31536000, immutable")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	http.ServeContent(w, r, "", m.CreatedAt, body)
}

// syncMedia handles GET /api/v1/sync/media/{sha256} (lab-server JWT): a
// media file of the school's exams, encrypted with its package key
// (docs/api/exam.md, "Media"). Range and If-Range resume a cut download.
func (a *api) syncMedia(w http.ResponseWriter, r *http.Request) {
	id := serverFrom(r.Context())
	if err := exam.CheckServer(id, r.URL.Query().Get("serverCode"), ""); err != nil {
		a.writeError(w, r, err)
		return
	}
	sm, err := a.svc.OpenSchoolMedia(r.Context(), id.NPSN, chi.URLParam(r, "sha256"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	h := w.Header()
	h.Set("X-Media-SHA256", sm.SHA256)
	h.Set("X-Media-Size", strconv.FormatInt(sm.Media.Size, 10))
	a.serveSealed(w, r, sm.Open, sm.ETag, "private, no-cache")
}

// getBlob handles GET and HEAD /api/v1/blobs/{name} (no credential): a
// blob, content sealed once for every school under its content key, which
// only a package carries (docs/api/exam.md, "Blobs"). The bytes under a
// name never change: a strong ETag (the name), cacheable by anyone for a
// year; Range and conditional requests answered. A name the portal did not
// issue is 404.
func (a *api) getBlob(w http.ResponseWriter, r *http.Request) {
	b, err := a.svc.OpenBlob(r.Context(), chi.URLParam(r, "name"))
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	a.serveSealed(w, r, b.Open, `"`+b.Name+`"`, "public, max-age=31536000, immutable")
}

// serveSealed answers with the sealed bytes open returns, as an octet
// stream under a strong etag: Range and conditional requests answered.
func (a *api) serveSealed(w http.ResponseWriter, r *http.Request, open func() (exam.PackageReader, error), etag, cacheControl string) {
	body, err := open()
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	defer body.Close()
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("ETag", etag)
	h.Set("Cache-Control", cacheControl)
	http.ServeContent(w, r, "", time.Time{}, body)
}
