package qbank

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"mime"
	"net/url"
	"strings"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
)

// ImportOptions are the operator's choices for one import.
type ImportOptions struct {
	// AllowMissingMedia keeps an item whose texts show an image or audio
	// that cannot be found or stored as a changed question, the figure
	// dropped with a note. Without it such an item is refused
	// (MEDIA_NOT_FOUND): an exam must not ask about a chart its students
	// cannot see.
	AllowMissingMedia bool
}

// CodeMediaNotFound is the code of an item refused for a figure it would
// lose.
const CodeMediaNotFound = "MEDIA_NOT_FOUND"

// IsDataURI reports whether src is a data: URI.
func IsDataURI(src string) bool {
	return len(src) >= 5 && strings.EqualFold(src[:5], "data:")
}

// StoreDataURI stores the image or audio a data: URI holds
// (data:image/png;base64,...) with media, by the same rules as a file of
// the bank (its type read from its bytes, the same sizes). A URI that is
// not well-formed, or whose declared type is neither an image nor an
// audio, is refused with an *apperr.Error (INVALID_DATA_URI); so is a file
// the portal does not take (UNSUPPORTED_MEDIA, MEDIA_TOO_LARGE). Any other
// error is the store's.
func StoreDataURI(ctx context.Context, media MediaStore, uri string) (exam.Media, error) {
	if !IsDataURI(uri) {
		return exam.Media{}, invalidDataURI("it does not start with data:")
	}
	head, payload, ok := strings.Cut(uri[5:], ",")
	if !ok {
		return exam.Media{}, invalidDataURI("it has no comma before its data")
	}
	params := strings.Split(head, ";")
	isBase64 := false
	if n := len(params); n > 1 && strings.EqualFold(strings.TrimSpace(params[n-1]), "base64") {
		isBase64, params = true, params[:n-1]
	}
	typ := strings.ToLower(strings.TrimSpace(params[0]))
	if typ == "" {
		typ = "text/plain"
	} else if t, _, err := mime.ParseMediaType(strings.Join(params, ";")); err == nil {
		typ = t
	}
	if !strings.HasPrefix(typ, "image/") && !strings.HasPrefix(typ, "audio/") {
		return exam.Media{}, invalidDataURI(fmt.Sprintf("its type %s is neither an image nor an audio", clip(typ, 60)))
	}
	var data []byte
	if isBase64 {
		p := payload
		if strings.Contains(p, "%") {
			if u, err := url.PathUnescape(p); err == nil {
				p = u
			}
		}
		p = strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, p)
		var err error
		if data, err = base64.StdEncoding.DecodeString(p); err != nil {
			if data, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(p, "=")); err != nil {
				return exam.Media{}, invalidDataURI("its base64 does not decode")
			}
		}
	} else {
		u, err := url.PathUnescape(payload)
		if err != nil {
			return exam.Media{}, invalidDataURI("its data is not percent-encoded")
		}
		data = []byte(u)
	}
	if len(data) == 0 {
		return exam.Media{}, invalidDataURI("it holds no bytes")
	}
	ext := strings.TrimPrefix(typ[strings.IndexByte(typ, '/')+1:], "x-")
	if i := strings.IndexAny(ext, "+."); i >= 0 {
		ext = ext[:i]
	}
	return media.UploadMedia(ctx, "data."+ext, bytes.NewReader(data))
}

func invalidDataURI(why string) error {
	return apperr.Errorf(apperr.Invalid, "INVALID_DATA_URI", "a data: URI that is not an image or audio the portal can store: %s", why)
}

// DataURIShown is how a report names a data: URI: its type, not its bytes.
func DataURIShown(uri string) string {
	head, _, _ := strings.Cut(uri, ",")
	return clip(head, 60) + ",…"
}

// RefuseLostMedia refuses every item of b that would lose a figure
// (ItemReport.Lost), MEDIA_NOT_FOUND, taking its question or stimulus out
// of b; a question whose stimulus is so refused is refused too, and a
// stimulus only refused questions used is taken out. formats.Import calls
// it unless ImportOptions.AllowMissingMedia.
func (b *Bank) RefuseLostMedia() {
	qids, sids := map[string]bool{}, map[string]bool{}
	for _, q := range b.Questions {
		qids[q.ID] = true
	}
	for _, s := range b.Stimuli {
		sids[s.ID] = true
	}
	gone := map[string]bool{}        // questions refused here
	goneStimuli := map[string]bool{} // stimuli refused here
	for i := range b.Items {
		it := &b.Items[i]
		if it.Status == Refused || len(it.Lost) == 0 {
			continue
		}
		msg := "the item would lose a figure: " + it.Lost[0]
		if n := len(it.Lost) - 1; n > 0 {
			msg += fmt.Sprintf(" (and %d more)", n)
		}
		msg += "; import with allow-missing-media to keep it without"
		it.Status, it.Code, it.Message, it.Changes = Refused, CodeMediaNotFound, msg, nil
		switch {
		case qids[it.QuestionID]:
			gone[it.QuestionID] = true
		case sids[it.QuestionID]:
			goneStimuli[it.QuestionID] = true
		}
	}
	if len(gone) == 0 && len(goneStimuli) == 0 {
		return
	}
	stimuli := b.Stimuli[:0]
	for _, s := range b.Stimuli {
		if !goneStimuli[s.ID] {
			stimuli = append(stimuli, s)
		}
	}
	b.Stimuli = stimuli
	used := map[string]bool{}
	dropped := map[string]bool{}
	questions := b.Questions[:0]
	for _, q := range b.Questions {
		if goneStimuli[q.Stimulus] && !gone[q.ID] {
			for i := range b.Items {
				if it := &b.Items[i]; it.QuestionID == q.ID && it.Status != Refused {
					it.Status, it.Code, it.Changes = Refused, CodeMediaNotFound, nil
					it.Message = "its passage " + q.Stimulus + " was refused: it would lose a figure"
				}
			}
			gone[q.ID] = true
		}
		if gone[q.ID] {
			dropped[q.Stimulus] = true
			continue
		}
		used[q.Stimulus] = true
		questions = append(questions, q)
	}
	b.Questions = questions
	stimuli = b.Stimuli[:0]
	for _, s := range b.Stimuli {
		if dropped[s.ID] && !used[s.ID] {
			continue
		}
		stimuli = append(stimuli, s)
	}
	b.Stimuli = stimuli
}
