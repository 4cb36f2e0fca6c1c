package examsrv

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/internal/apperr"
)

// proctorSessionTTL is how long a proctor stays signed in.
const proctorSessionTTL = 12 * time.Hour

// handleProctorLogin is POST /api/proctor/login.
func (s *Server) handleProctorLogin(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Password string `json:"password"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	addr := clientAddr(r)
	now := time.Now() // proctor sessions run on this machine's clock
	if wait := s.limits.proctor.Blocked(addr, now); wait > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds())+1))
		s.fail(w, r, apperr.New(apperr.RateLimited, "TOO_MANY_ATTEMPTS", "too many wrong passwords: wait a few minutes"))
		return
	}
	if got := sha256.Sum256([]byte(in.Password)); subtle.ConstantTimeCompare(got[:], s.proctor[:]) != 1 {
		s.limits.proctor.Fail(addr, now)
		s.fail(w, r, apperr.New(apperr.Unauthorized, "INVALID_CREDENTIALS", "wrong proctor password"))
		return
	}
	s.limits.proctor.Reset(addr)
	token, hash := newToken()
	s.mu.Lock()
	for h, exp := range s.proctorSess {
		if now.After(exp) {
			delete(s.proctorSess, h)
		}
	}
	s.proctorSess[hash] = now.Add(proctorSessionTTL)
	s.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: cookieProctor, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, MaxAge: int(proctorSessionTTL.Seconds())})
	writeJSON(w, http.StatusOK, map[string]any{"session": token})
}

// requireProctor authenticates the proctor's session.
func (s *Server) requireProctor(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := bearer(r, cookieProctor)
		s.mu.Lock()
		exp, ok := s.proctorSess[hashToken(t)]
		s.mu.Unlock()
		if t == "" || !ok || time.Now().After(exp) {
			s.fail(w, r, apperr.New(apperr.Unauthorized, "UNAUTHORIZED", "sign in as the proctor first"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

type attemptView struct {
	ExamID          string    `json:"exam_id"`
	Answered        int       `json:"answered"`
	Total           int       `json:"total"`
	Finished        bool      `json:"finished"`
	FinishReason    string    `json:"finish_reason,omitempty"`
	StartedAt       time.Time `json:"started_at"`
	Deadline        time.Time `json:"deadline"`
	ExtendedMinutes int       `json:"extended_minutes"`
}

type proctorStudent struct {
	studentView
	SignedIn   bool          `json:"signed_in"`
	SignedInAt *time.Time    `json:"signed_in_at"`
	LastSeen   *time.Time    `json:"last_seen"`
	Attempts   []attemptView `json:"attempts"`
	// LockedUntil is the end of the latest sign-in lock of the student on
	// some computer; nil when none.
	LockedUntil *time.Time `json:"locked_until,omitempty"`
}

// handleProctorState is GET /api/proctor/state.
func (s *Server) handleProctorState(w http.ResponseWriter, _ *http.Request) {
	now := s.now()
	token, rotates := s.tokens.Current()
	var syncState any
	if s.o.SyncStatus != nil {
		syncState = s.o.SyncStatus()
	}
	space, err := s.db.FreeSpace()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]any{
		"server_time": now.UTC(), "max_students": s.o.MaxStudents, "seated": len(s.sessions),
		"token": map[string]any{"value": token, "rotates_at": rotates.UTC()},
		"sync":  syncState, "exams": []any{}, "students": []proctorStudent{},
		"package_ready": s.pkg != nil, "locks": []lockView{},
	}
	if err == nil { // a failure is logged by labagent's disk watch, hourly
		out["disk"] = space
	}
	if s.pkg == nil {
		writeJSON(w, http.StatusOK, out)
		return
	}
	exams := make([]map[string]any, 0, len(s.pkg.pkg.Exams))
	for _, e := range s.pkg.pkg.Exams {
		exams = append(exams, map[string]any{"id": e.ID, "title": e.Title, "subject": e.Subject, "starts_at": e.StartsAt,
			"ends_at": e.EndsAt, "duration_minutes": e.DurationMinutes, "question_count": len(e.Questions),
			"listening": listeningItems(&e)})
	}
	out["exams"] = exams

	byMember := map[string]*proctorStudent{}
	get := func(id string) *proctorStudent {
		if p, ok := byMember[id]; ok {
			return p
		}
		p := &proctorStudent{studentView: studentView{ID: id}, Attempts: []attemptView{}}
		if st, ok := s.pkg.byID[id]; ok {
			p.studentView = viewStudent(st)
		}
		if seen, ok := s.lastSeen[id]; ok {
			p.LastSeen = &seen
		}
		byMember[id] = p
		return p
	}
	for id, sess := range s.sessions {
		p := get(id)
		p.SignedIn = true
		at := sess.SignedInAt
		p.SignedInAt = &at
	}
	locks := s.limits.locks(now)
	out["locks"] = locks
	for _, lk := range locks {
		if st, ok := s.pkg.byUsername[lk.Username]; ok {
			if p := get(st.ID); p.LockedUntil == nil || lk.Until.After(*p.LockedUntil) {
				p.LockedUntil = &lk.Until
			}
		}
	}
	for k, a := range s.attempts {
		e, ok := s.pkg.exams[k.exam]
		total := 0
		if ok {
			total = len(e.Questions)
		}
		p := get(k.member)
		p.Attempts = append(p.Attempts, attemptView{ExamID: k.exam, Answered: len(s.answered[k]), Total: total,
			Finished: a.Finished() || now.After(a.Deadline), FinishReason: a.FinishReason, StartedAt: a.StartedAt,
			Deadline: a.Deadline, ExtendedMinutes: a.ExtendedMinutes})
	}
	students := make([]proctorStudent, 0, len(byMember))
	for _, p := range byMember {
		slices.SortFunc(p.Attempts, func(a, b attemptView) int { return strings.Compare(a.ExamID, b.ExamID) })
		students = append(students, *p)
	}
	slices.SortFunc(students, func(a, b proctorStudent) int {
		return strings.Compare(a.Kelas+"\x00"+a.Nama+"\x00"+a.ID, b.Kelas+"\x00"+b.Nama+"\x00"+b.ID)
	})
	out["students"] = students
	writeJSON(w, http.StatusOK, out)
}

// handleRotateToken is POST /api/proctor/token/rotate.
func (s *Server) handleRotateToken(w http.ResponseWriter, r *http.Request) {
	v, at, err := s.tokens.Rotate(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"value": v, "rotates_at": at.UTC()})
}

// handleResetStudent is POST /api/proctor/students/{member}/reset: it
// ends the student's session and lifts their sign-in locks on every
// computer.
func (s *Server) handleResetStudent(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "member")
	s.mu.Lock()
	_, signedIn := s.sessions[id]
	username := ""
	if s.pkg != nil {
		if st, ok := s.pkg.byID[id]; ok {
			username = strings.ToLower(st.Username)
		}
	}
	s.mu.Unlock()
	lifted := username != "" && s.limits.liftUser(username, s.now())
	if !signedIn && !lifted {
		s.fail(w, r, apperr.New(apperr.NotFound, "NOT_FOUND", "this student is neither signed in nor locked out"))
		return
	}
	if signedIn {
		if err := s.endSession(r.Context(), id); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "session_ended": signedIn, "lock_lifted": lifted})
}

// handleLiftLock is POST /api/proctor/locks/lift {"address"}: it lifts
// the sign-in locks of one computer.
func (s *Server) handleLiftLock(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Address string `json:"address"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	if in.Address == "" {
		s.fail(w, r, apperr.New(apperr.Invalid, "VALIDATION_ERROR", "address is required"))
		return
	}
	if !s.limits.liftAddress(in.Address, s.now()) {
		s.fail(w, r, apperr.New(apperr.NotFound, "NOT_FOUND", "no sign-in lock on this computer"))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true})
}

// handleExtend is POST /api/proctor/students/{member}/extend.
func (s *Server) handleExtend(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ExamID  string `json:"exam_id"`
		Minutes int    `json:"minutes"`
		Reason  string `json:"reason"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	in.Reason = strings.TrimSpace(in.Reason)
	switch {
	case in.Minutes < 1 || in.Minutes > 240:
		s.fail(w, r, apperr.New(apperr.Invalid, "VALIDATION_FAILED", "minutes must be between 1 and 240"))
		return
	case len(in.Reason) > 500:
		s.fail(w, r, apperr.New(apperr.Invalid, "VALIDATION_FAILED", "reason must be at most 500 characters"))
		return
	}
	id := chi.URLParam(r, "member")
	k := attemptKey{in.ExamID, id}
	a, err := s.extend(r.Context(), k, localdb.Extension{ExamID: in.ExamID, MemberID: id, Minutes: in.Minutes, Reason: in.Reason, At: s.now().UTC()})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, attemptView{ExamID: a.ExamID, Deadline: a.Deadline, StartedAt: a.StartedAt,
		ExtendedMinutes: a.ExtendedMinutes, Finished: a.Finished()})
}

// extend gives the attempt more time; an attempt whose time ran out (lost
// to a power cut, say) reopens, one the student finished cannot be extended.
func (s *Server) extend(ctx context.Context, k attemptKey, e localdb.Extension) (localdb.Attempt, error) {
	unlock := s.lockMember(k.member)
	defer unlock()
	s.mu.Lock()
	_, ok := s.attempts[k]
	s.mu.Unlock()
	if !ok {
		return localdb.Attempt{}, apperr.New(apperr.NotFound, "NOT_FOUND", "this student has not started this exam")
	}
	a, err := s.db.ExtendAttempt(ctx, e)
	if err != nil {
		if err == localdb.ErrAttemptFinished {
			return a, apperr.New(apperr.Conflict, "EXAM_FINISHED", "the student has finished this exam")
		}
		return a, fmt.Errorf("extend attempt: %w", err)
	}
	s.mu.Lock()
	s.attempts[k] = &a
	s.mu.Unlock()
	return a, nil
}
