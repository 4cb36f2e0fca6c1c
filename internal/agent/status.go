package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/pkg/client"
)

// Status is what "labagent status" reports.
type Status struct {
	// Running tells whether a "labagent run" daemon answered; without one
	// the figures come from the state file.
	Running    bool   `json:"running"`
	LANAddr    string `json:"lan_addr,omitempty"`
	ServerCode string `json:"server_code"`
	NPSN       string `json:"npsn"`
	SchoolName string `json:"school_name"`
	PortalURL  string `json:"portal_url"`
	HardwareID string `json:"hardware_id"`
	// Sync is the handshake, package, push and heartbeat state.
	Sync  SyncStatus   `json:"sync"`
	Exams []ExamWindow `json:"exams"`
	// ConnectedStudents counts students seen in the last two minutes
	// (zero when the daemon is not running).
	ConnectedStudents int `json:"connected_students"`
	SignedIn          int `json:"signed_in"`
	Attempts          int `json:"attempts"`
	// AnswersSaved counts the answers held (one per student and question);
	// AnswersPending the saves not yet acknowledged by the portal.
	AnswersSaved   int `json:"answers_saved"`
	AnswersPending int `json:"answers_pending"`
	// Disk is the free space of the disk holding the state file (absent
	// when it could not be read).
	Disk *localdb.Space `json:"disk,omitempty"`
}

// ExamWindow is one exam of the package held.
type ExamWindow struct {
	ID              string    `json:"id"`
	Title           string    `json:"title"`
	StartsAt        time.Time `json:"starts_at"`
	EndsAt          time.Time `json:"ends_at"`
	DurationMinutes int       `json:"duration_minutes"`
	Questions       int       `json:"questions"`
}

func collectStatus(cfg *Config, db *localdb.DB, syncer *Syncer, p *client.Package) Status {
	st := Status{
		ServerCode: cfg.ServerCode, NPSN: cfg.NPSN, SchoolName: cfg.SchoolName, PortalURL: cfg.PortalURL,
		HardwareID: cfg.HardwareID, Sync: syncer.Status(), Exams: []ExamWindow{},
	}
	if p != nil {
		for _, e := range p.Exams {
			st.Exams = append(st.Exams, ExamWindow{ID: e.ID, Title: e.Title, StartsAt: e.StartsAt, EndsAt: e.EndsAt,
				DurationMinutes: e.DurationMinutes, Questions: len(e.Questions)})
		}
	}
	if c, err := db.Counts(); err == nil {
		st.SignedIn, st.Attempts, st.AnswersSaved, st.AnswersPending = c.Sessions, c.Attempts, c.Answers, c.Pending
	}
	if space, err := db.FreeSpace(); err == nil {
		st.Disk = &space
	}
	return st
}

// ReadControl returns the control file of a running daemon, or
// os.ErrNotExist when none is running.
func ReadControl(dir string) (*Control, error) {
	b, err := os.ReadFile(filepath.Join(dir, ControlFile))
	if err != nil {
		return nil, err
	}
	c := new(Control)
	if err := json.Unmarshal(b, c); err != nil {
		return nil, fmt.Errorf("control file: %w", err)
	}
	return c, nil
}

// errNotRunning means no daemon answered on the control address.
var errNotRunning = errors.New("labagent run is not running")

// callDaemon sends one control request to the running daemon.
func callDaemon(ctx context.Context, dir, method, path string, out any) (int, error) {
	c, err := ReadControl(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, errNotRunning
	}
	if err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://"+c.ControlAddr+path, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		// A control file left by a killed daemon: nothing listens.
		return 0, fmt.Errorf("%w (%v)", errNotRunning, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized {
		return resp.StatusCode, errors.New("the running labagent refused the control token (another data directory?)")
	}
	return resp.StatusCode, json.NewDecoder(resp.Body).Decode(out)
}

// QueryStatus asks the running daemon for its status; when none runs, it
// reads the state file itself.
func QueryStatus(ctx context.Context, dir string) (Status, error) {
	var st Status
	_, err := callDaemon(ctx, dir, http.MethodGet, "/status", &st)
	if err == nil {
		return st, nil
	}
	if !errors.Is(err, errNotRunning) {
		return st, err
	}
	cfg, err := ReadConfig(dir)
	if err != nil {
		return st, err
	}
	path := filepath.Join(dir, localdb.FileName)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return Status{ServerCode: cfg.ServerCode, NPSN: cfg.NPSN, SchoolName: cfg.SchoolName, PortalURL: cfg.PortalURL,
			HardwareID: cfg.HardwareID, Exams: []ExamWindow{}, Sync: SyncStatus{State: SyncOffline, ServerCode: cfg.ServerCode}}, nil
	}
	db, err := localdb.Open(path, localdb.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return st, err
	}
	defer db.Close()
	syncer, err := NewSyncer(cfg, db, SyncerOptions{})
	if err != nil {
		return st, err
	}
	p, _, _ := syncer.LoadLocalPackage()
	return collectStatus(cfg, db, syncer, p), nil
}

// PushNow pushes every pending answer now: through the running daemon when
// there is one, else directly from the state file.
func PushNow(ctx context.Context, dir string, logger *slog.Logger) (PushResult, error) {
	var reply struct {
		Result PushResult `json:"result"`
		Error  string     `json:"error"`
	}
	status, err := callDaemon(ctx, dir, http.MethodPost, "/push", &reply)
	switch {
	case err == nil && status == http.StatusOK:
		return reply.Result, nil
	case err == nil:
		return reply.Result, errors.New(reply.Error)
	case !errors.Is(err, errNotRunning):
		return PushResult{}, err
	}
	cfg, err := ReadConfig(dir)
	if err != nil {
		return PushResult{}, err
	}
	db, err := localdb.Open(filepath.Join(dir, localdb.FileName), localdb.Options{Timeout: 2 * time.Second})
	if err != nil {
		return PushResult{}, err
	}
	defer db.Close()
	syncer, err := NewSyncer(cfg, db, SyncerOptions{Logger: logger})
	if err != nil {
		return PushResult{}, err
	}
	return syncer.PushNow(ctx)
}
