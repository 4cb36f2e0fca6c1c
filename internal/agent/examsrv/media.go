package examsrv

import (
	"errors"
	"io/fs"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/pkg/client"
)

// Media are served at /media/<sha256> (the URL the questions' HTML names)
// only to a student signed in with an open attempt at an exam that shows
// them. The audio of a question with a play limit is served only during a
// play the student started through the plays route (which counts it in
// localdb), for playWindow, and never cached by the browser.

// playWindow is how long a started play may fetch its audio: enough for
// the longest audio accepted, with seeking and a slow network.
const playWindow = 45 * time.Minute

// mediaRef finds the media a question's HTML shows.
var mediaRef = regexp.MustCompile(`data-media="([0-9a-f]{64})"`)

// labMedia is what a lab knows of one exam's media.
type labMedia struct {
	files map[string]client.PackageMedia // sha256 -> media
	// limited is the audio shown by a question with a play limit: sha256
	// -> question ids.
	limited map[string][]string
}

// indexMedia indexes the media of e.
func indexMedia(e *client.PackageExam) labMedia {
	m := labMedia{files: map[string]client.PackageMedia{}, limited: map[string][]string{}}
	for _, f := range e.Media {
		m.files[f.SHA256] = f
	}
	for _, q := range e.Questions {
		if q.PlayLimit <= 0 {
			continue
		}
		for _, ref := range mediaRef.FindAllStringSubmatch(q.HTML, -1) {
			if f, ok := m.files[ref[1]]; ok && f.Kind == "audio" {
				m.limited[ref[1]] = append(m.limited[ref[1]], q.ID)
			}
		}
	}
	return m
}

var (
	errMediaNotFound = apperr.New(apperr.NotFound, "NOT_FOUND", "no such image or audio in your open exams")
	errNoPlay        = apperr.New(apperr.Forbidden, "PLAY_NOT_STARTED", "this audio plays only from its question's play button")
	errNoPlaysLeft   = apperr.New(apperr.Conflict, "NO_PLAYS_LEFT", "you have used every play of this audio: ask the proctor if you need one more")
	errNoPlayLimit   = apperr.New(apperr.Invalid, "NO_PLAY_LIMIT", "this question's audio has no play limit")
)

// handleMedia is GET /media/{sha256}.
func (s *Server) handleMedia(w http.ResponseWriter, r *http.Request) {
	sha, member := chi.URLParam(r, "sha256"), memberOf(r)
	now := s.now()
	s.mu.Lock()
	var file client.PackageMedia
	found, limited := false, false
	if s.pkg != nil {
		for k, a := range s.attempts {
			if k.member != member || a.Finished() || now.After(a.Deadline) {
				continue
			}
			m := s.pkg.media[k.exam]
			if f, ok := m.files[sha]; ok {
				file, found = f, true
				limited = limited || len(m.limited[sha]) > 0
			}
		}
	}
	granted := now.Before(s.plays[playKey{member, sha}])
	s.mu.Unlock()
	switch {
	case !found:
		s.fail(w, r, errMediaNotFound)
		return
	case limited && !granted:
		s.fail(w, r, errNoPlay)
		return
	}
	f, err := s.o.Media.Open(sha)
	if errors.Is(err, fs.ErrNotExist) {
		s.fail(w, r, apperr.New(apperr.Unavailable, "MEDIA_MISSING", "this lab server has not received this file yet: tell the proctor"))
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer f.Close()
	h := w.Header()
	h.Set("Content-Type", file.Type)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	if limited {
		h.Set("Cache-Control", "no-store")
	} else {
		h.Set("Cache-Control", "private, max-age=31536000, immutable")
		h.Set("ETag", `"`+sha+`"`)
	}
	http.ServeContent(w, r, "", time.Time{}, f)
}

// playKey names a started play: a member's fetches of one audio.
type playKey struct{ member, sha string }

// playsView is the plays of a question's audio as the student page shows
// them.
type playsView struct {
	Limit int `json:"limit"`
	Used  int `json:"used"`
	Left  int `json:"left"`
}

func newPlaysView(limit int, p localdb.Plays) playsView {
	return playsView{Limit: limit, Used: p.Used, Left: p.Left(limit)}
}

// handlePlay is POST /api/student/exams/{exam}/plays/{question}: a play of
// the question's audio starts, counted against its limit (409
// NO_PLAYS_LEFT when none is left), and the audio may be fetched for
// playWindow.
func (s *Server) handlePlay(w http.ResponseWriter, r *http.Request) {
	e, q, err := s.questionFor(r, nil)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if q.PlayLimit <= 0 {
		s.fail(w, r, errNoPlayLimit)
		return
	}
	member := memberOf(r)
	k := attemptKey{e.ID, member}
	p, err := s.db.UsePlay(r.Context(), e.ID, member, q.ID, q.PlayLimit, s.now())
	switch {
	case errors.Is(err, localdb.ErrNoPlaysLeft):
		s.fail(w, r, errNoPlaysLeft)
		return
	case err != nil:
		s.fail(w, r, s.writeFailed(r.Context(), k, err))
		return
	}
	now := s.now()
	until := now.Add(playWindow)
	s.mu.Lock()
	for k, end := range s.plays {
		if !now.Before(end) {
			delete(s.plays, k)
		}
	}
	for _, ref := range mediaRef.FindAllStringSubmatch(q.HTML, -1) {
		s.plays[playKey{member, ref[1]}] = until
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, newPlaysView(q.PlayLimit, p))
}

// handleGrantPlay is POST /api/proctor/students/{member}/plays: the proctor
// gives the student one more play of a question's audio.
func (s *Server) handleGrantPlay(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ExamID     string `json:"exam_id"`
		QuestionID string `json:"question_id"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	member := chi.URLParam(r, "member")
	s.mu.Lock()
	var q *client.PackageQuestion
	if s.pkg != nil {
		q = s.pkg.questions[in.ExamID][in.QuestionID]
	}
	_, started := s.attempts[attemptKey{in.ExamID, member}]
	s.mu.Unlock()
	switch {
	case q == nil:
		s.fail(w, r, errQuestionNotFound)
		return
	case q.PlayLimit <= 0:
		s.fail(w, r, errNoPlayLimit)
		return
	case !started:
		s.fail(w, r, apperr.New(apperr.NotFound, "NOT_FOUND", "this student has not started this exam"))
		return
	}
	p, err := s.db.GrantPlay(r.Context(), in.ExamID, member, in.QuestionID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.log.InfoContext(r.Context(), "play granted", "exam", in.ExamID, "member", member, "question", in.QuestionID)
	writeJSON(w, http.StatusOK, newPlaysView(q.PlayLimit, p))
}

// listeningItem is a question with a play limit, as the proctor picks it to
// grant a play: its id and the start of its text (students see the
// questions in their own orders, so numbers would differ).
type listeningItem struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	Limit int    `json:"limit"`
}

// listeningItems lists e's questions with a play limit.
func listeningItems(e *client.PackageExam) []listeningItem {
	out := []listeningItem{}
	for _, q := range e.Questions {
		if q.PlayLimit > 0 {
			label := strings.Join(strings.Fields(q.Text), " ")
			if r := []rune(label); len(r) > 60 {
				label = string(r[:60]) + "…"
			}
			out = append(out, listeningItem{ID: q.ID, Label: label, Limit: q.PlayLimit})
		}
	}
	return out
}
