package localdb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/jsonx"
	"github.com/seedhq/portal/pkg/client"
)

// Session is a student's sign-in on one device.
type Session struct {
	MemberID   string    `json:"member_id"`
	TokenHash  string    `json:"token_hash"` // SHA-256 (hex) of the session token; the token itself is not kept
	Device     string    `json:"device"`
	SignedInAt time.Time `json:"signed_in_at"`
}

// Attempt is one student's sitting of one exam. Times are portal time.
type Attempt struct {
	ExamID          string    `json:"exam_id"`
	MemberID        string    `json:"member_id"`
	StartedAt       time.Time `json:"started_at"`
	Deadline        time.Time `json:"deadline"`
	ExtendedMinutes int       `json:"extended_minutes,omitempty"`
	FinishedAt      time.Time `json:"finished_at,omitzero"`
	FinishReason    string    `json:"finish_reason,omitempty"` // FinishStudent or FinishTimeUp
}

// Why an attempt finished.
const (
	FinishStudent = "student" // the student pressed finish
	FinishTimeUp  = "time_up" // the timer ran out
)

// Finished reports whether the attempt is over.
func (a Attempt) Finished() bool { return !a.FinishedAt.IsZero() }

// Extension records extra time a proctor gave one student.
type Extension struct {
	ExamID   string    `json:"exam_id"`
	MemberID string    `json:"member_id"`
	Minutes  int       `json:"minutes"`
	Reason   string    `json:"reason"`
	At       time.Time `json:"at"`
}

// Answer is a student's current answer to one question.
type Answer struct {
	Answer     string    `json:"answer"`
	AnsweredAt time.Time `json:"answered_at,omitzero"`
	Flagged    bool      `json:"-"` // kept apart, in the flags bucket
}

// Errors of the attempt rules, checked inside the write's transaction.
var (
	ErrNoAttempt       = errors.New("localdb: the exam has not been started")
	ErrAttemptFinished = errors.New("localdb: the attempt is finished")
	ErrTimeUp          = errors.New("localdb: the attempt's time is up")
)

func attemptKey(examID, memberID string) []byte {
	return append(append([]byte(examID), 0), memberID...)
}

func answerKey(examID, memberID, questionID string) []byte {
	return append(append(attemptKey(examID, memberID), 0), questionID...)
}

// PutSession stores s, replacing the member's previous session.
func (d *DB) PutSession(ctx context.Context, s Session) error {
	return d.update(ctx, func(tx *bbolt.Tx) error {
		return putJSON(tx.Bucket(bucketSessions), []byte(s.MemberID), s)
	})
}

// DeleteSession ends the member's session, if any.
func (d *DB) DeleteSession(ctx context.Context, memberID string) error {
	return d.update(ctx, func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketSessions).Delete([]byte(memberID))
	})
}

// Sessions returns every open session.
func (d *DB) Sessions() ([]Session, error) {
	var out []Session
	err := d.view(func(tx *bbolt.Tx) error {
		return forEachJSON(tx.Bucket(bucketSessions), nil, func(_ []byte, s Session) error {
			out = append(out, s)
			return nil
		})
	})
	return out, err
}

// StartAttempt stores a if the member has no attempt at the exam yet, and
// returns the attempt that is stored.
func (d *DB) StartAttempt(ctx context.Context, a Attempt) (Attempt, error) {
	out := a
	err := d.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketAttempts)
		var cur Attempt
		found, err := getJSON(b, attemptKey(a.ExamID, a.MemberID), &cur)
		if err != nil {
			return err
		}
		if found {
			out = cur
			return nil
		}
		out = a
		return putJSON(b, attemptKey(a.ExamID, a.MemberID), a)
	})
	return out, err
}

// Attempts returns every attempt.
func (d *DB) Attempts() ([]Attempt, error) {
	var out []Attempt
	err := d.view(func(tx *bbolt.Tx) error {
		return forEachJSON(tx.Bucket(bucketAttempts), nil, func(_ []byte, a Attempt) error {
			out = append(out, a)
			return nil
		})
	})
	return out, err
}

// FinishAttempt marks the attempt finished at at, for reason; an attempt
// already finished is returned unchanged.
func (d *DB) FinishAttempt(ctx context.Context, examID, memberID string, at time.Time, reason string) (Attempt, error) {
	var out Attempt
	err := d.update(ctx, func(tx *bbolt.Tx) error {
		// Decode into a zero value: the function runs again when its commit
		// group fails, and a decode fills only the fields present.
		out = Attempt{}
		b := tx.Bucket(bucketAttempts)
		found, err := getJSON(b, attemptKey(examID, memberID), &out)
		if err != nil {
			return err
		}
		if !found {
			return ErrNoAttempt
		}
		if out.Finished() {
			return nil
		}
		out.FinishedAt, out.FinishReason = at, reason
		return putJSON(b, attemptKey(examID, memberID), out)
	})
	return out, err
}

// ExtendAttempt moves the attempt's deadline by minutes and records the
// extension, in one transaction. An attempt the student finished cannot be
// extended; one whose time ran out is reopened.
func (d *DB) ExtendAttempt(ctx context.Context, e Extension) (Attempt, error) {
	var out Attempt
	err := d.update(ctx, func(tx *bbolt.Tx) error {
		out = Attempt{} // as in FinishAttempt: the function may run twice
		b := tx.Bucket(bucketAttempts)
		found, err := getJSON(b, attemptKey(e.ExamID, e.MemberID), &out)
		if err != nil {
			return err
		}
		switch {
		case !found:
			return ErrNoAttempt
		case out.Finished() && out.FinishReason != FinishTimeUp:
			return ErrAttemptFinished
		}
		if out.Finished() {
			// The time ran out (a power cut, say): reopen the attempt, with
			// the extra minutes counted from now.
			out.FinishedAt, out.FinishReason = time.Time{}, ""
			if e.At.After(out.Deadline) {
				out.Deadline = e.At
			}
		}
		out.Deadline = out.Deadline.Add(time.Duration(e.Minutes) * time.Minute)
		out.ExtendedMinutes += e.Minutes
		if err := putJSON(b, attemptKey(e.ExamID, e.MemberID), out); err != nil {
			return err
		}
		ext := tx.Bucket(bucketExtensions)
		seq, err := ext.NextSequence()
		if err != nil {
			return err
		}
		return putJSON(ext, seqKey(seq), e)
	})
	return out, err
}

// Extensions returns every recorded extension, oldest first.
func (d *DB) Extensions() ([]Extension, error) {
	var out []Extension
	err := d.view(func(tx *bbolt.Tx) error {
		return forEachJSON(tx.Bucket(bucketExtensions), nil, func(_ []byte, e Extension) error {
			out = append(out, e)
			return nil
		})
	})
	return out, err
}

// SaveAnswer stores the member's answer to a question and queues it in the
// outbox for the portal, in one transaction, provided the attempt is started,
// not finished and at is not past its deadline. It returns once the
// transaction is on disk, with the time the answer was stamped with.
//
// The portal keeps the answer with the newest answered_at, so a save is
// never stamped at or before the previous answer to the same question: a
// clock-skew correction that moves portal time back (a new handshake, NTP)
// gets the previous stamp plus one microsecond, the portal's precision.
//
// The save is worked out (checks, stamp, encoding) from a read transaction
// in the caller's goroutine; the shared commit only checks that the attempt
// and the previous answer are still the ones it was worked out from (or
// works it out again) and writes. Every save of the lab waits for that
// commit, so it must do as little as it can.
func (d *DB) SaveAnswer(ctx context.Context, examID, memberID, questionID, answer string, at time.Time) (time.Time, error) {
	p := &savePlan{examID: examID, memberID: memberID, questionID: questionID, answer: answer, at: at.UTC(),
		key: answerKey(examID, memberID, questionID), attempt: attemptKey(examID, memberID)}
	if err := d.view(p.plan); err != nil {
		return time.Time{}, err
	}
	err := d.update(ctx, func(tx *bbolt.Tx) error {
		if !p.current(tx) {
			// Changed since it was read (a save of the same question in
			// this commit, a finish, an extension): work it out again.
			if err := p.plan(tx); err != nil {
				return err
			}
		}
		return p.write(tx)
	})
	if err != nil {
		return time.Time{}, err
	}
	return p.stamped, nil
}

// savePlan is one save of SaveAnswer worked out from the attempt and the
// previous answer as read: the stamp and the encoded records.
type savePlan struct {
	examID, memberID, questionID, answer string
	at                                   time.Time
	key, attempt                         []byte // keys of the answer and the attempt

	ok                  bool   // worked out: the last plan succeeded
	attemptRaw, prevRaw []byte // the records read (nil: none)
	stamped             time.Time
	val, rec            []byte // the answer record and the outbox entry
}

// plan reads the attempt and the previous answer in tx and works the save
// out; it fails as the save must (ErrNoAttempt, ErrAttemptFinished,
// ErrTimeUp).
func (p *savePlan) plan(tx *bbolt.Tx) error {
	// Not current until it succeeds: a save refused inside a commit group
	// that then failed is worked out again when it reruns alone.
	p.ok = false
	p.attemptRaw = bytes.Clone(tx.Bucket(bucketAttempts).Get(p.attempt))
	p.prevRaw = bytes.Clone(tx.Bucket(bucketAnswers).Get(p.key))
	if err := openErr(p.attempt, p.attemptRaw, p.at); err != nil {
		return err
	}
	p.stamped = p.at
	if p.prevRaw != nil {
		var prev Answer
		if err := jsonx.Unmarshal(p.prevRaw, &prev); err != nil {
			return fmt.Errorf("localdb: decode %q: %w", p.key, err)
		}
		if floor := prev.AnsweredAt.Truncate(time.Microsecond).Add(time.Microsecond); p.stamped.Before(floor) {
			p.stamped = floor
		}
	}
	var err error
	if p.val, err = json.Marshal(Answer{Answer: p.answer, AnsweredAt: p.stamped}); err != nil {
		return fmt.Errorf("localdb: encode answer: %w", err)
	}
	p.rec, err = json.Marshal(client.Answer{ExamID: p.examID, MemberID: p.memberID, QuestionID: p.questionID,
		Answer: p.answer, AnsweredAt: p.stamped})
	if err != nil {
		return fmt.Errorf("localdb: encode answer: %w", err)
	}
	p.ok = true
	return nil
}

// current reports whether the plan was worked out and the attempt and the
// previous answer in tx are still those it was worked out from.
func (p *savePlan) current(tx *bbolt.Tx) bool {
	return p.ok && bytes.Equal(tx.Bucket(bucketAttempts).Get(p.attempt), p.attemptRaw) &&
		bytes.Equal(tx.Bucket(bucketAnswers).Get(p.key), p.prevRaw)
}

// write stores the answer, queues its outbox entry and counts it pending.
func (p *savePlan) write(tx *bbolt.Tx) error {
	if err := tx.Bucket(bucketAnswers).Put(p.key, p.val); err != nil {
		return err
	}
	ob := tx.Bucket(bucketOutbox)
	seq, err := ob.NextSequence()
	if err != nil {
		return err
	}
	if err := ob.Put(seqKey(seq), p.rec); err != nil {
		return err
	}
	return addPending(tx, 1)
}

// SetFlag marks or unmarks a question as unsure. Flags stay on labagent.
func (d *DB) SetFlag(ctx context.Context, examID, memberID, questionID string, flagged bool, at time.Time) error {
	key := answerKey(examID, memberID, questionID)
	return d.update(ctx, func(tx *bbolt.Tx) error {
		if err := checkOpen(tx, examID, memberID, at); err != nil {
			return err
		}
		if flagged {
			return tx.Bucket(bucketFlags).Put(key, nil)
		}
		return tx.Bucket(bucketFlags).Delete(key)
	})
}

func checkOpen(tx *bbolt.Tx, examID, memberID string, at time.Time) error {
	key := attemptKey(examID, memberID)
	return openErr(key, tx.Bucket(bucketAttempts).Get(key), at)
}

// openErr tells whether the attempt record raw (nil: none) under key takes
// writes at time at.
func openErr(key, raw []byte, at time.Time) error {
	if raw == nil {
		return ErrNoAttempt
	}
	// Only what the rule needs: this runs for every save.
	var a struct {
		Deadline   time.Time `json:"deadline"`
		FinishedAt time.Time `json:"finished_at"`
	}
	if err := jsonx.Unmarshal(raw, &a); err != nil {
		return fmt.Errorf("localdb: decode %q: %w", key, err)
	}
	switch {
	case !a.FinishedAt.IsZero():
		return ErrAttemptFinished
	case at.After(a.Deadline):
		return ErrTimeUp
	}
	return nil
}

// Answers returns the member's answers to the exam by question id, with
// the flags.
func (d *DB) Answers(examID, memberID string) (map[string]Answer, error) {
	out := make(map[string]Answer)
	prefix := append(attemptKey(examID, memberID), 0)
	err := d.view(func(tx *bbolt.Tx) error {
		err := forEachJSON(tx.Bucket(bucketAnswers), prefix, func(k []byte, a Answer) error {
			out[string(k[len(prefix):])] = a
			return nil
		})
		if err != nil {
			return err
		}
		c := tx.Bucket(bucketFlags).Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			q := string(k[len(prefix):])
			a := out[q]
			a.Flagged = true
			out[q] = a
		}
		return nil
	})
	return out, err
}

// AnsweredQuestions returns, per attempt (exam id, member id), the
// questions that have a non-empty answer.
func (d *DB) AnsweredQuestions() (map[[2]string]map[string]bool, error) {
	out := make(map[[2]string]map[string]bool)
	err := d.view(func(tx *bbolt.Tx) error {
		return forEachJSON(tx.Bucket(bucketAnswers), nil, func(k []byte, a Answer) error {
			parts := bytes.SplitN(k, []byte{0}, 3)
			if len(parts) != 3 || a.Answer == "" {
				return nil
			}
			key := [2]string{string(parts[0]), string(parts[1])}
			if out[key] == nil {
				out[key] = make(map[string]bool)
			}
			out[key][string(parts[2])] = true
			return nil
		})
	})
	return out, err
}

func forEachJSON[T any](b *bbolt.Bucket, prefix []byte, fn func(k []byte, v T) error) error {
	if b == nil {
		return nil
	}
	c := b.Cursor()
	for k, raw := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, raw = c.Next() {
		var v T
		if err := jsonx.Unmarshal(raw, &v); err != nil {
			return fmt.Errorf("localdb: decode %q: %w", k, err)
		}
		if err := fn(k, v); err != nil {
			return err
		}
	}
	return nil
}
