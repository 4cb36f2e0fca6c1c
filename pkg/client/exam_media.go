package client

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"time"
)

// Media is an image or audio file stored on the portal, shown by a markdown
// text as ![description](media:SHA256) (Reference).
type Media struct {
	SHA256 string `json:"sha256"`
	// Type is the MIME type read from the bytes: image/png, image/jpeg,
	// image/webp, audio/mpeg, audio/ogg, audio/mp4 or audio/aac.
	Type string `json:"type"`
	// Kind is "image" or "audio".
	Kind      string    `json:"kind"`
	Size      int64     `json:"size"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
	// Reference is the link target to write in a text: "media:<SHA256>".
	Reference string `json:"reference"`
}

// UploadMedia uploads one image or audio file read from r (POST
// /api/v1/admin/media, operator token), named name for the authors' lists.
// The same bytes uploaded again return the stored media. A file of another
// type gives 415 UNSUPPORTED_MEDIA, one over the limits 413
// MEDIA_TOO_LARGE. r is streamed, not retried: a failed upload is sent
// again by calling again.
func (s *ExamAdminService) UploadMedia(ctx context.Context, name string, r io.Reader) (*Media, *Response, error) {
	if r == nil {
		return nil, nil, errorf("upload media: nil reader")
	}
	var q url.Values
	if name != "" {
		q = url.Values{"name": {name}}
	}
	return examData[*Media](ctx, s.client, http.MethodPost, "admin/media", q, r)
}
