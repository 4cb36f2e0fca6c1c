// Package examsrv is labagent's exam server on the lab's LAN: the student
// and proctor pages and their JSON API (docs/api/labagent.md). It works with
// no internet: everything it needs is the exam package pulled earlier and
// labagent's local state (internal/agent/localdb).
//
// Times are portal time (the clock given in Options), so exam windows and
// timers agree with the portal whatever the lab server's clock says. The
// timer is kept here, not in the browser: it survives a browser or PC crash.
package examsrv

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/internal/agent/mediastore"
	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/pkg/client"
)

// Options configure a Server.
type Options struct {
	DB *localdb.DB
	// Now returns portal time; nil: time.Now.
	Now func() time.Time
	// MaxStudents is the licence's cap on students seated at once; 0: no cap.
	MaxStudents int
	SchoolName  string
	ServerCode  string
	// ProctorPassword signs the proctor in (required).
	ProctorPassword string
	// TokenPeriod is how often the students' session token rotates; 0: 15 minutes.
	TokenPeriod time.Duration
	// SyncStatus reports the sync state for the proctor page; nil: none.
	SyncStatus func() any
	// OnSave is called after each answer is on disk (to push it soon); nil: nothing.
	OnSave func()
	// Static holds index.html, proctor.html and the assets under /static/.
	Static fs.FS
	// Media holds the exams' images and audio.
	Media  *mediastore.Store
	Logger *slog.Logger
}

// Server serves the exam. It is safe for concurrent use.
type Server struct {
	o       Options
	db      *localdb.DB
	now     func() time.Time
	log     *slog.Logger
	proctor [32]byte // SHA-256 of the proctor password
	tokens  *sessionTokens
	limits  signInLimits

	mu          sync.Mutex
	pkg         *lab                            // nil until a package is loaded
	sessions    map[string]*session             // member id -> session
	byToken     map[string]string               // SHA-256 of session token -> member id
	attempts    map[attemptKey]*localdb.Attempt // every attempt
	answered    map[attemptKey]map[string]bool  // questions with a non-empty answer
	lastSeen    map[string]time.Time            // member id -> last request
	proctorSess map[string]time.Time            // SHA-256 of proctor token -> expiry
	memberLocks map[string]*sync.Mutex          // serialises one student's writes
	plays       map[playKey]time.Time           // started plays of limited audio -> end of their window
}

type attemptKey struct{ exam, member string }

type session struct {
	localdb.Session
}

// liveWindow is how recently a student must have been seen to count as
// connected in heartbeats.
const liveWindow = 2 * time.Minute

// New loads the sessions and attempts from the database and returns the
// server. The exam package is given later with SetPackage.
func New(ctx context.Context, o Options) (*Server, error) {
	if o.DB == nil {
		return nil, errors.New("examsrv: no database")
	}
	if o.ProctorPassword == "" {
		return nil, errors.New("examsrv: no proctor password")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.TokenPeriod <= 0 {
		o.TokenPeriod = 15 * time.Minute
	}
	// The password itself is in the data directory (proctor-password) or
	// the configuration: a slow hash would protect nothing, a digest
	// compared in constant time is enough.
	hash := sha256.Sum256([]byte(o.ProctorPassword))
	s := &Server{
		o: o, db: o.DB, now: o.Now, log: o.Logger, proctor: hash,
		limits:      newSignInLimits(),
		sessions:    make(map[string]*session),
		byToken:     make(map[string]string),
		attempts:    make(map[attemptKey]*localdb.Attempt),
		answered:    make(map[attemptKey]map[string]bool),
		lastSeen:    make(map[string]time.Time),
		proctorSess: make(map[string]time.Time),
		memberLocks: make(map[string]*sync.Mutex),
		plays:       make(map[playKey]time.Time),
	}
	var err error
	if s.tokens, err = loadSessionTokens(ctx, o.DB, o.TokenPeriod, o.Now); err != nil {
		return nil, err
	}
	sessions, err := o.DB.Sessions()
	if err != nil {
		return nil, fmt.Errorf("examsrv: load sessions: %w", err)
	}
	for _, ss := range sessions {
		s.sessions[ss.MemberID] = &session{ss}
		s.byToken[ss.TokenHash] = ss.MemberID
	}
	attempts, err := o.DB.Attempts()
	if err != nil {
		return nil, fmt.Errorf("examsrv: load attempts: %w", err)
	}
	for i := range attempts {
		a := attempts[i]
		s.attempts[attemptKey{a.ExamID, a.MemberID}] = &a
	}
	answered, err := o.DB.AnsweredQuestions()
	if err != nil {
		return nil, fmt.Errorf("examsrv: load answers: %w", err)
	}
	for k, qs := range answered {
		s.answered[attemptKey{k[0], k[1]}] = qs
	}
	return s, nil
}

// SetPackage makes p the exam package served from now on.
func (s *Server) SetPackage(p *client.Package) {
	l := newLab(p)
	s.mu.Lock()
	s.pkg = l
	s.mu.Unlock()
}

// ConnectedStudents counts the students with a session seen in the last two
// minutes.
func (s *Server) ConnectedStudents() int {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id := range s.sessions {
		if now.Sub(s.lastSeen[id]) <= liveWindow {
			n++
		}
	}
	return n
}

// ActiveExams counts the package's exams whose window is open now.
func (s *Server) ActiveExams() int {
	now := s.now()
	s.mu.Lock()
	l := s.pkg
	s.mu.Unlock()
	if l == nil {
		return 0
	}
	n := 0
	for _, e := range l.exams {
		if !now.Before(e.StartsAt) && now.Before(e.EndsAt) {
			n++
		}
	}
	return n
}

// RunTimers finishes attempts whose time is up, every second, until ctx ends,
// so that an attempt ends on time even when its student's browser is gone.
func (s *Server) RunTimers(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.finishExpired(ctx)
		}
	}
}

func (s *Server) finishExpired(ctx context.Context) {
	now := s.now()
	var due []attemptKey
	s.mu.Lock()
	for k, a := range s.attempts {
		if !a.Finished() && now.After(a.Deadline) {
			due = append(due, k)
		}
	}
	s.mu.Unlock()
	for _, k := range due {
		if _, err := s.finish(ctx, k, localdb.FinishTimeUp); err != nil {
			s.log.ErrorContext(ctx, "auto-finish attempt", "exam", k.exam, "member", k.member, "err", err)
		}
	}
}

// finish marks the attempt finished (once) and updates the cache.
func (s *Server) finish(ctx context.Context, k attemptKey, reason string) (localdb.Attempt, error) {
	unlock := s.lockMember(k.member)
	defer unlock()
	s.mu.Lock()
	cur, ok := s.attempts[k]
	s.mu.Unlock()
	if !ok {
		return localdb.Attempt{}, errNotStarted
	}
	at := s.now()
	if reason == localdb.FinishTimeUp && at.After(cur.Deadline) {
		at = cur.Deadline
	}
	a, err := s.db.FinishAttempt(ctx, k.exam, k.member, at, reason)
	if err != nil {
		return a, fmt.Errorf("finish attempt: %w", err)
	}
	s.mu.Lock()
	s.attempts[k] = &a
	s.mu.Unlock()
	return a, nil
}

// lockMember serialises the writes of one student, so that two saves of the
// same question land on disk in the order they were made.
func (s *Server) lockMember(id string) (unlock func()) {
	s.mu.Lock()
	m, ok := s.memberLocks[id]
	if !ok {
		m = new(sync.Mutex)
		s.memberLocks[id] = m
	}
	s.mu.Unlock()
	m.Lock()
	return m.Unlock
}

// Handler returns the HTTP handler of the pages and the API.
func (s *Server) Handler() http.Handler {
	r := chi.NewRouter()
	r.Use(s.recoverer, limitBody(64<<10))
	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") })
	if s.o.Static != nil {
		r.Get("/", s.page("index.html"))
		r.Get("/proctor", s.page("proctor.html"))
		r.Handle("/static/*", http.StripPrefix("/static/", http.FileServerFS(s.o.Static)))
	}
	r.Route("/api/student", func(r chi.Router) {
		r.Get("/info", s.handleInfo)
		r.Post("/login", s.handleLogin)
		r.Group(func(r chi.Router) {
			r.Use(s.requireStudent)
			r.Post("/logout", s.handleLogout)
			r.Get("/me", s.handleMe)
			r.Post("/exams/{exam}/start", s.handleStart)
			r.Get("/exams/{exam}", s.handleAttempt)
			r.Put("/exams/{exam}/answers/{question}", s.handleSaveAnswer)
			r.Put("/exams/{exam}/flags/{question}", s.handleFlag)
			r.Post("/exams/{exam}/finish", s.handleFinish)
			r.Post("/exams/{exam}/plays/{question}", s.handlePlay)
		})
	})
	if s.o.Media != nil {
		r.With(s.requireStudent).Get("/media/{sha256}", s.handleMedia)
	}
	r.Route("/api/proctor", func(r chi.Router) {
		r.Post("/login", s.handleProctorLogin)
		r.Group(func(r chi.Router) {
			r.Use(s.requireProctor)
			r.Get("/state", s.handleProctorState)
			r.Post("/token/rotate", s.handleRotateToken)
			r.Post("/students/{member}/reset", s.handleResetStudent)
			r.Post("/students/{member}/extend", s.handleExtend)
			r.Post("/students/{member}/plays", s.handleGrantPlay)
			r.Post("/locks/lift", s.handleLiftLock)
		})
	})
	r.NotFound(func(w http.ResponseWriter, _ *http.Request) {
		writeErr(w, apperr.New(apperr.NotFound, "NOT_FOUND", "no such page"))
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, _ *http.Request) {
		writeStatus(w, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "method not allowed")
	})
	return r
}

func (s *Server) page(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := fs.ReadFile(s.o.Static, name)
		if err != nil {
			http.Error(w, "page missing from this build", http.StatusInternalServerError)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:")
		w.Write(b)
	}
}

func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.ErrorContext(r.Context(), "panic serving request", "path", r.URL.Path, "panic", v)
				writeStatus(w, http.StatusInternalServerError, "INTERNAL", "internal error")
			}
		}()
		next.ServeHTTP(w, r)
	})
}

func limitBody(n int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Body = http.MaxBytesReader(w, r.Body, n)
			next.ServeHTTP(w, r)
		})
	}
}

// Errors of the LAN API.
var (
	errUnauthorized     = apperr.New(apperr.Unauthorized, "UNAUTHORIZED", "sign in first")
	errNoPackage        = apperr.New(apperr.Unavailable, "NO_PACKAGE", "no exam package on this server yet; ask the proctor")
	errNotStarted       = apperr.New(apperr.Conflict, "NOT_STARTED", "start the exam first")
	errExamFinished     = apperr.New(apperr.Conflict, "EXAM_FINISHED", "you have finished this exam")
	errTimeUp           = apperr.New(apperr.Conflict, "TIME_UP", "the time for this exam is up")
	errExamNotFound     = apperr.New(apperr.NotFound, "NOT_FOUND", "no such exam for you")
	errQuestionNotFound = apperr.New(apperr.NotFound, "NOT_FOUND", "no such question in this exam")
	errDiskFull         = apperr.New(apperr.Unavailable, "DISK_FULL",
		"the lab server's disk is full, so this was not saved: tell the proctor (the page tries again by itself)")
)

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"success":false,"error":"internal error","code":"INTERNAL"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

func writeStatus(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"success": false, "error": msg, "code": code})
}

// writeErr answers err in the exam envelope; anything but an *apperr.Error
// is an internal error, logged by the caller.
func writeErr(w http.ResponseWriter, err error) {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		writeStatus(w, http.StatusRequestEntityTooLarge, "BODY_TOO_LARGE", "request body is too large")
		return
	}
	e := apperr.From(err)
	if e == nil {
		writeStatus(w, http.StatusInternalServerError, "INTERNAL", "internal error")
		return
	}
	writeStatus(w, e.Kind.Status(), e.Code, e.Message)
}

// fail logs internal errors and answers err.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, localdb.ErrDiskFull) {
		s.log.ErrorContext(r.Context(), "a write was refused: the disk is full", "method", r.Method, "path", r.URL.Path, "err", err)
		writeErr(w, errDiskFull)
		return
	}
	if apperr.From(err) == nil && !errors.As(err, new(*http.MaxBytesError)) {
		s.log.ErrorContext(r.Context(), "internal error", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	writeErr(w, err)
}

func decodeJSON(r *http.Request, dst any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return err
		}
		return apperr.New(apperr.Invalid, "INVALID_JSON", "the request body is not valid JSON for this call: "+err.Error())
	}
	return nil
}

// newToken returns a random token and its SHA-256 (hex), the only form kept.
func newToken() (token, hash string) {
	var b [24]byte
	rand.Read(b[:])
	token = base64.RawURLEncoding.EncodeToString(b[:])
	return token, hashToken(token)
}

func hashToken(t string) string {
	sum := sha256.Sum256([]byte(t))
	return hex.EncodeToString(sum[:])
}

// bearer returns the token of the cookie name or of the Authorization header.
func bearer(r *http.Request, cookie string) string {
	if v, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return strings.TrimSpace(v)
	}
	if c, err := r.Cookie(cookie); err == nil {
		return c.Value
	}
	return ""
}
