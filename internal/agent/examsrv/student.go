package examsrv

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/pkg/client"
	"github.com/seedhq/portal/pkg/labwire"
)

// Cookie names.
const (
	cookieSession = "labagent_session"
	cookieDevice  = "labagent_device"
	cookieProctor = "labagent_proctor"
)

type ctxKey int

const ctxMember ctxKey = iota

type studentView struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	Nama     string `json:"nama"`
	Kelas    string `json:"kelas"`
}

func viewStudent(st *client.PackageStudent) studentView {
	return studentView{ID: st.ID, Username: st.Username, Nama: st.Nama, Kelas: st.Kelas}
}

// handleInfo is GET /api/student/info.
func (s *Server) handleInfo(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	ready := s.pkg != nil
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{
		"school_name": s.o.SchoolName, "server_code": s.o.ServerCode,
		"server_time": s.now().UTC(), "package_ready": ready,
	})
}

var (
	errBadCredentials  = apperr.New(apperr.Unauthorized, "INVALID_CREDENTIALS", "wrong username or exam password")
	errBadToken        = apperr.New(apperr.Unauthorized, "INVALID_SESSION_TOKEN", "wrong session token: ask the proctor for the current one")
	errOtherDevice     = apperr.New(apperr.Conflict, "ALREADY_SIGNED_IN", "you are signed in on another device: ask the proctor to reset your login")
	errLabFull         = apperr.New(apperr.Conflict, "LAB_FULL", "every seat of this lab's licence is taken: wait for a student to finish")
	errTooManyAttempts = apperr.New(apperr.RateLimited, "TOO_MANY_ATTEMPTS",
		"too many wrong passwords on this computer: wait 5 minutes, or ask the proctor to unlock it")
)

// handleLogin is POST /api/student/login.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Username string `json:"username"`
		Password string `json:"password"`
		Token    string `json:"token"`
	}
	if err := decodeJSON(r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	s.mu.Lock()
	l := s.pkg
	s.mu.Unlock()
	if l == nil {
		s.fail(w, r, errNoPackage)
		return
	}
	user := strings.ToLower(strings.TrimSpace(in.Username))
	addr := clientAddr(r)
	now := s.now()
	if wait := s.limits.blocked(addr, user, now); wait > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds())+1))
		s.fail(w, r, errTooManyAttempts)
		return
	}
	if !s.tokens.Valid(in.Token) {
		s.fail(w, r, errBadToken)
		return
	}
	st, ok := l.byUsername[user]
	if !ok || !labwire.CheckExamPassword(st.PasswordHash, in.Password) {
		s.limits.fail(addr, user, now)
		s.fail(w, r, errBadCredentials)
		return
	}
	s.limits.success(addr, user)

	device := ""
	if c, err := r.Cookie(cookieDevice); err == nil && len(c.Value) <= 64 {
		device = c.Value
	}
	if device == "" {
		device, _ = newToken()
	}
	token, hash := newToken()

	unlock := s.lockMember(st.ID)
	defer unlock()
	s.mu.Lock()
	prev, signedIn := s.sessions[st.ID]
	switch {
	case signedIn && prev.Device != device:
		s.mu.Unlock()
		s.fail(w, r, errOtherDevice)
		return
	case !signedIn && s.o.MaxStudents > 0 && len(s.sessions) >= s.o.MaxStudents:
		s.mu.Unlock()
		s.fail(w, r, errLabFull)
		return
	}
	s.mu.Unlock()
	sess := localdb.Session{MemberID: st.ID, TokenHash: hash, Device: device, SignedInAt: now.UTC()}
	if err := s.db.PutSession(r.Context(), sess); err != nil {
		s.fail(w, r, fmt.Errorf("save session: %w", err))
		return
	}
	s.mu.Lock()
	if signedIn {
		delete(s.byToken, prev.TokenHash)
	}
	s.sessions[st.ID] = &session{sess}
	s.byToken[hash] = st.ID
	s.lastSeen[st.ID] = now
	s.mu.Unlock()

	http.SetCookie(w, &http.Cookie{Name: cookieDevice, Value: device, Path: "/", MaxAge: 30 * 24 * 3600, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.SetCookie(w, &http.Cookie{Name: cookieSession, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	writeJSON(w, http.StatusOK, map[string]any{"session": token, "student": viewStudent(st)})
}

// requireStudent authenticates the student's session.
func (s *Server) requireStudent(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := bearer(r, cookieSession)
		if t == "" {
			s.fail(w, r, errUnauthorized)
			return
		}
		s.mu.Lock()
		id, ok := s.byToken[hashToken(t)]
		if ok {
			s.lastSeen[id] = s.now()
		}
		s.mu.Unlock()
		if !ok {
			s.fail(w, r, apperr.New(apperr.Unauthorized, "UNAUTHORIZED", "your session has ended: sign in again"))
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxMember, id)))
	})
}

func memberOf(r *http.Request) string { return r.Context().Value(ctxMember).(string) }

// handleLogout is POST /api/student/logout.
func (s *Server) handleLogout(w http.ResponseWriter, r *http.Request) {
	if err := s.endSession(r.Context(), memberOf(r)); err != nil {
		s.fail(w, r, err)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieSession, Value: "", Path: "/", MaxAge: -1})
	writeJSON(w, http.StatusOK, map[string]any{"success": true})
}

// endSession signs the member out and frees the seat.
func (s *Server) endSession(ctx context.Context, memberID string) error {
	unlock := s.lockMember(memberID)
	defer unlock()
	if err := s.db.DeleteSession(ctx, memberID); err != nil {
		return fmt.Errorf("end session: %w", err)
	}
	s.mu.Lock()
	if sess, ok := s.sessions[memberID]; ok {
		delete(s.byToken, sess.TokenHash)
		delete(s.sessions, memberID)
	}
	s.mu.Unlock()
	return nil
}

type examSummary struct {
	ID               string    `json:"id"`
	Title            string    `json:"title"`
	Subject          string    `json:"subject"`
	StartsAt         time.Time `json:"starts_at"`
	EndsAt           time.Time `json:"ends_at"`
	DurationMinutes  int       `json:"duration_minutes"`
	QuestionCount    int       `json:"question_count"`
	State            string    `json:"state"`
	Answered         int       `json:"answered"`
	RemainingSeconds int       `json:"remaining_seconds"`
}

// handleMe is GET /api/student/me.
func (s *Server) handleMe(w http.ResponseWriter, r *http.Request) {
	id := memberOf(r)
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pkg == nil {
		writeErr(w, errNoPackage)
		return
	}
	st, ok := s.pkg.byID[id]
	if !ok {
		writeErr(w, apperr.New(apperr.Unauthorized, "UNAUTHORIZED", "you are no longer on this school's roster"))
		return
	}
	exams := make([]examSummary, 0, len(s.pkg.pkg.Exams))
	for _, e := range s.pkg.pkg.Exams {
		k := attemptKey{e.ID, id}
		sum := examSummary{ID: e.ID, Title: e.Title, Subject: e.Subject, StartsAt: e.StartsAt, EndsAt: e.EndsAt,
			DurationMinutes: e.DurationMinutes, QuestionCount: len(e.Questions), Answered: len(s.answered[k])}
		a := s.attempts[k]
		switch {
		case a != nil && a.Finished():
			sum.State = "finished"
		case a != nil && now.After(a.Deadline):
			sum.State = "finished"
		case a != nil:
			sum.State, sum.RemainingSeconds = "in_progress", remaining(a.Deadline, now)
		case now.Before(e.StartsAt):
			sum.State = "upcoming"
		case now.Before(e.EndsAt):
			sum.State = "open"
		default:
			sum.State = "closed"
		}
		exams = append(exams, sum)
	}
	writeJSON(w, http.StatusOK, map[string]any{"student": viewStudent(st), "server_time": now.UTC(), "exams": exams})
}

func remaining(deadline, now time.Time) int {
	d := deadline.Sub(now)
	if d <= 0 {
		return 0
	}
	return int((d + time.Second - 1) / time.Second)
}

// examFor returns the package's exam for the request's {exam}.
func (s *Server) examFor(r *http.Request) (*client.PackageExam, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pkg == nil {
		return nil, errNoPackage
	}
	e, ok := s.pkg.exams[chi.URLParam(r, "exam")]
	if !ok {
		return nil, errExamNotFound
	}
	return e, nil
}

// handleStart is POST /api/student/exams/{exam}/start.
func (s *Server) handleStart(w http.ResponseWriter, r *http.Request) {
	e, err := s.examFor(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	id := memberOf(r)
	k := attemptKey{e.ID, id}
	s.mu.Lock()
	_, started := s.attempts[k]
	s.mu.Unlock()
	if !started {
		now := s.now()
		if now.Before(e.StartsAt) || !now.Before(e.EndsAt) {
			s.fail(w, r, apperr.New(apperr.Forbidden, "EXAM_NOT_OPEN",
				fmt.Sprintf("this exam is open from %s to %s", e.StartsAt.Format(time.RFC3339), e.EndsAt.Format(time.RFC3339))))
			return
		}
		deadline := now.Add(time.Duration(e.DurationMinutes) * time.Minute)
		if deadline.After(e.EndsAt) {
			deadline = e.EndsAt
		}
		unlock := s.lockMember(id)
		a, err := s.db.StartAttempt(r.Context(), localdb.Attempt{ExamID: e.ID, MemberID: id, StartedAt: now.UTC(), Deadline: deadline.UTC()})
		if err == nil {
			s.mu.Lock()
			s.attempts[k] = &a
			s.mu.Unlock()
		}
		unlock()
		if err != nil {
			s.fail(w, r, fmt.Errorf("start attempt: %w", err))
			return
		}
	}
	s.writeAttempt(w, r, e, id)
}

// handleAttempt is GET /api/student/exams/{exam}.
func (s *Server) handleAttempt(w http.ResponseWriter, r *http.Request) {
	e, err := s.examFor(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.writeAttempt(w, r, e, memberOf(r))
}

type questionView struct {
	Number int    `json:"number"`
	ID     string `json:"id"`
	Type   string `json:"type"`
	Text   string `json:"text"`
	// HTML is the question's text rendered (a rich format), shown instead
	// of Text; the options carry theirs.
	HTML string `json:"html,omitempty"`
	// Statements and Columns are a statement grid's rows and columns.
	Statements []client.QuestionOption `json:"statements,omitempty"`
	Columns    []client.QuestionOption `json:"columns,omitempty"`
	// Premises and Responses are a matching question's (the responses in
	// the student's own order); ReuseResponses lets one response go with
	// several premises.
	Premises       []client.QuestionOption `json:"premises,omitempty"`
	Responses      []client.QuestionOption `json:"responses,omitempty"`
	ReuseResponses bool                    `json:"reuse_responses,omitempty"`
	// Blanks are a cloze question's (kind, a choice blank's options,
	// points), each shown where the HTML has its <span data-blank>.
	Blanks []client.PackageBlank `json:"blanks,omitempty"`
	// Stimulus is the id of the attempt's stimulus the question goes with.
	Stimulus string                  `json:"stimulus,omitempty"`
	Options  []client.QuestionOption `json:"options"`
	Answer   string                  `json:"answer"`
	Flagged  bool                    `json:"flagged"`
	// Plays counts the plays of the question's audio, when it has a limit.
	Plays *playsView `json:"plays,omitempty"`
}

func (s *Server) writeAttempt(w http.ResponseWriter, r *http.Request, e *client.PackageExam, memberID string) {
	s.mu.Lock()
	cur, ok := s.attempts[attemptKey{e.ID, memberID}]
	var a localdb.Attempt
	if ok {
		a = *cur
	}
	s.mu.Unlock()
	if !ok {
		s.fail(w, r, errNotStarted)
		return
	}
	answers, err := s.db.Answers(e.ID, memberID)
	if err != nil {
		s.fail(w, r, fmt.Errorf("read answers: %w", err))
		return
	}
	plays, err := s.db.Plays(e.ID, memberID)
	if err != nil {
		s.fail(w, r, fmt.Errorf("read plays: %w", err))
		return
	}
	now := s.now()
	qs := order(e, memberID)
	views := make([]questionView, len(qs))
	for i, q := range qs {
		ans := answers[q.ID]
		opts := q.Options
		if opts == nil {
			opts = []client.QuestionOption{}
		}
		views[i] = questionView{Number: i + 1, ID: q.ID, Type: q.Type, Text: q.Text, HTML: q.HTML, Options: opts,
			Statements: q.Statements, Columns: q.Columns, Premises: q.Premises, Responses: q.Responses,
			ReuseResponses: q.ReuseResponses, Blanks: q.Blanks, Stimulus: q.Stimulus, Answer: ans.Answer, Flagged: ans.Flagged}
		if q.PlayLimit > 0 {
			p := newPlaysView(q.PlayLimit, plays[q.ID])
			views[i].Plays = &p
		}
	}
	finished := a.Finished() || now.After(a.Deadline)
	out := map[string]any{
		"exam":       map[string]string{"id": e.ID, "title": e.Title, "subject": e.Subject},
		"started_at": a.StartedAt, "deadline": a.Deadline, "server_time": now.UTC(),
		"remaining_seconds": remaining(a.Deadline, now), "finished": finished,
		"finished_at": nil, "extended_minutes": a.ExtendedMinutes, "questions": views,
		"stimuli": nonNilStimuli(e.Stimuli),
	}
	if finished {
		out["remaining_seconds"] = 0
	}
	if a.Finished() {
		out["finished_at"] = a.FinishedAt
	}
	writeJSON(w, http.StatusOK, out)
}

// nonNilStimuli is sts, or an empty list, so that the page reads [].
func nonNilStimuli(sts []client.Stimulus) []client.Stimulus {
	if sts == nil {
		return []client.Stimulus{}
	}
	return sts
}

// writeFailed turns a refused write into the LAN API's error; a write
// refused for a passed deadline finishes the attempt.
func (s *Server) writeFailed(ctx context.Context, k attemptKey, err error) error {
	switch {
	case errors.Is(err, localdb.ErrNoAttempt):
		return errNotStarted
	case errors.Is(err, localdb.ErrAttemptFinished):
		return errExamFinished
	case errors.Is(err, localdb.ErrTimeUp):
		if _, ferr := s.finish(ctx, k, localdb.FinishTimeUp); ferr != nil {
			return ferr
		}
		return errTimeUp
	}
	return err
}

// questionFor returns the exam and question of the request's {exam} and
// {question}, and decodes its body into in (nil: the body is ignored).
func (s *Server) questionFor(r *http.Request, in any) (*client.PackageExam, *client.PackageQuestion, error) {
	e, err := s.examFor(r)
	if err != nil {
		return nil, nil, err
	}
	if in != nil {
		if err := decodeJSON(r, in); err != nil {
			return nil, nil, err
		}
	}
	s.mu.Lock()
	q, ok := s.pkg.questions[e.ID][chi.URLParam(r, "question")]
	s.mu.Unlock()
	if !ok {
		return nil, nil, errQuestionNotFound
	}
	return e, q, nil
}

// savedView acknowledges a save.
type savedView struct {
	Saved            bool      `json:"saved"`
	AnsweredAt       time.Time `json:"answered_at"`
	RemainingSeconds int       `json:"remaining_seconds"`
}

// handleSaveAnswer is PUT /api/student/exams/{exam}/answers/{question}. It
// answers only once the answer and its outbox entry are on disk.
func (s *Server) handleSaveAnswer(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Answer string `json:"answer"`
	}
	e, q, err := s.questionFor(r, &in)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	answer, err := normaliseAnswer(q, in.Answer)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	id := memberOf(r)
	k := attemptKey{e.ID, id}
	unlock := s.lockMember(id)
	at, err := s.db.SaveAnswer(r.Context(), e.ID, id, q.ID, answer, s.now())
	if err == nil {
		s.mu.Lock()
		if s.answered[k] == nil {
			s.answered[k] = make(map[string]bool)
		}
		if answer == "" {
			delete(s.answered[k], q.ID)
		} else {
			s.answered[k][q.ID] = true
		}
		deadline := s.attempts[k].Deadline
		s.mu.Unlock()
		unlock()
		if s.o.OnSave != nil {
			s.o.OnSave()
		}
		writeJSON(w, http.StatusOK, savedView{Saved: true, AnsweredAt: at.UTC(), RemainingSeconds: remaining(deadline, s.now())})
		return
	}
	unlock()
	s.fail(w, r, s.writeFailed(r.Context(), k, err))
}

// handleFlag is PUT /api/student/exams/{exam}/flags/{question}.
func (s *Server) handleFlag(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Flagged bool `json:"flagged"`
	}
	e, q, err := s.questionFor(r, &in)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	id := memberOf(r)
	unlock := s.lockMember(id)
	err = s.db.SetFlag(r.Context(), e.ID, id, q.ID, in.Flagged, s.now())
	unlock()
	if err != nil {
		s.fail(w, r, s.writeFailed(r.Context(), attemptKey{e.ID, id}, err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"flagged": in.Flagged})
}

// handleFinish is POST /api/student/exams/{exam}/finish.
func (s *Server) handleFinish(w http.ResponseWriter, r *http.Request) {
	e, err := s.examFor(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	k := attemptKey{e.ID, memberOf(r)}
	a, err := s.finish(r.Context(), k, localdb.FinishStudent)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.mu.Lock()
	answered := len(s.answered[k])
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"finished": true, "finished_at": a.FinishedAt, "answered": answered, "total": len(e.Questions)})
}
