package localdb

import (
	"context"
	"errors"
	"time"

	"go.etcd.io/bbolt"
)

// Plays counts a student's plays of a question's audio (a listening item
// with a play limit): they live here, not in the browser, so that a reload,
// a restart of labagent or a move to another computer changes nothing.
type Plays struct {
	// Used is the plays started.
	Used int `json:"used"`
	// Granted is the extra plays the proctor gave.
	Granted int `json:"granted,omitempty"`
}

// Left is the plays left under limit.
func (p Plays) Left(limit int) int { return max(limit+p.Granted-p.Used, 0) }

// ErrNoPlaysLeft refuses a play over the limit.
var ErrNoPlaysLeft = errors.New("localdb: no plays left")

// UsePlay counts one play of the question's audio by the member, while the
// attempt is open at time at and a play is left under limit; else it
// returns the count with ErrNoPlaysLeft (or the attempt's error).
func (d *DB) UsePlay(ctx context.Context, examID, memberID, questionID string, limit int, at time.Time) (Plays, error) {
	return d.changePlays(ctx, examID, memberID, questionID, func(tx *bbolt.Tx, p *Plays) error {
		if err := checkOpen(tx, examID, memberID, at); err != nil {
			return err
		}
		if p.Left(limit) == 0 {
			return ErrNoPlaysLeft
		}
		p.Used++
		return nil
	})
}

// GrantPlay gives the member one more play of the question's audio.
func (d *DB) GrantPlay(ctx context.Context, examID, memberID, questionID string) (Plays, error) {
	return d.changePlays(ctx, examID, memberID, questionID, func(_ *bbolt.Tx, p *Plays) error {
		p.Granted++
		return nil
	})
}

// changePlays applies change to the plays record in one transaction; on an
// error of change, nothing is written and the record read is returned.
func (d *DB) changePlays(ctx context.Context, examID, memberID, questionID string, change func(*bbolt.Tx, *Plays) error) (Plays, error) {
	key := answerKey(examID, memberID, questionID)
	var out Plays
	err := d.update(ctx, func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketPlays)
		var p Plays
		if _, err := getJSON(b, key, &p); err != nil {
			return err
		}
		out = p
		if err := change(tx, &p); err != nil {
			return err
		}
		out = p
		return putJSON(b, key, p)
	})
	return out, err
}

// Plays returns the member's play counts in the exam by question id.
func (d *DB) Plays(examID, memberID string) (map[string]Plays, error) {
	out := make(map[string]Plays)
	prefix := append(attemptKey(examID, memberID), 0)
	err := d.view(func(tx *bbolt.Tx) error {
		return forEachJSON(tx.Bucket(bucketPlays), prefix, func(k []byte, p Plays) error {
			out[string(k[len(prefix):])] = p
			return nil
		})
	})
	return out, err
}
