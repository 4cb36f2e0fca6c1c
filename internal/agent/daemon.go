package agent

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/seedhq/portal/internal/agent/examsrv"
	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/internal/agent/mediastore"
	"github.com/seedhq/portal/internal/agent/webui"
	"github.com/seedhq/portal/pkg/client"
	"github.com/seedhq/portal/pkg/labwire"
)

// Files of the data directory written by Run.
const (
	// ProctorPasswordFile holds the proctor password generated at the first
	// run (mode 0600), unless one is configured.
	ProctorPasswordFile = "proctor-password"
	// ControlFile tells local commands (status, push --now) where the
	// running daemon listens and the token it expects; removed at exit.
	ControlFile = "control.json"
)

// RunOptions configure Run.
type RunOptions struct {
	DataDir string
	// Listen is the LAN address of the student and proctor pages; default ":8090".
	Listen string
	// ControlAddr is the loopback address of the control API used by
	// "labagent status" and "labagent push --now"; default "127.0.0.1:8091".
	ControlAddr string
	// ProctorPassword, when set, replaces the generated one.
	ProctorPassword string
	Version         string
	Logger          *slog.Logger
	// Sync tunes the Syncer (tests shorten its intervals); its Logger,
	// Version, OnPackage and Lab are set by Run.
	Sync SyncerOptions
}

// Control is the content of ControlFile.
type Control struct {
	PID         int    `json:"pid"`
	LANAddr     string `json:"lan_addr"`
	ControlAddr string `json:"control_addr"`
	Token       string `json:"token"`
}

// Run is "labagent run": it serves the exam on the LAN and syncs with the
// portal until ctx ends, then stops cleanly. It is safe to kill at any
// moment: every acknowledged answer is on disk, and what was not pushed
// is pushed after the restart.
func Run(ctx context.Context, o RunOptions) error {
	if o.Listen == "" {
		o.Listen = ":8090"
	}
	if o.ControlAddr == "" {
		o.ControlAddr = "127.0.0.1:8091"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	log := o.Logger
	cfg, err := ReadConfig(o.DataDir)
	if err != nil {
		return err
	}
	if err := checkLoopback(o.ControlAddr); err != nil {
		return err
	}
	db, err := localdb.Open(filepath.Join(o.DataDir, localdb.FileName), localdb.Options{Timeout: 2 * time.Second})
	if err != nil {
		if errors.Is(err, localdb.ErrLocked) {
			return fmt.Errorf("another labagent is already running with the data directory %s", o.DataDir)
		}
		return err
	}
	defer db.Close()

	proctorPassword, err := proctorPassword(o.DataDir, o.ProctorPassword)
	if err != nil {
		return err
	}

	var srv *examsrv.Server
	var pkgMu sync.Mutex
	var current *client.Package
	media, err := mediastore.Open(mediastore.Dir(o.DataDir))
	if err != nil {
		return err
	}
	so := o.Sync
	so.Logger, so.Version, so.Media = log, o.Version, media
	so.OnPackage = func(p *client.Package, meta localdb.PackageMeta) {
		pkgMu.Lock()
		current = p
		pkgMu.Unlock()
		srv.SetPackage(p)
	}
	syncer, err := NewSyncer(cfg, db, so)
	if err != nil {
		return err
	}
	srv, err = examsrv.New(ctx, examsrv.Options{
		DB: db, Now: syncer.Now, MaxStudents: cfg.MaxStudents, SchoolName: cfg.SchoolName, ServerCode: cfg.ServerCode,
		ProctorPassword: proctorPassword, SyncStatus: func() any { return syncer.Status() },
		OnSave: syncer.Kick, Static: webui.FS(), Media: media, Logger: log.With("component", "examsrv"),
	})
	if err != nil {
		return err
	}
	syncer.SetLab(srv)
	syncer.Restore(ctx) // the held package is served from the first request

	lanLn, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("listen for students on %s: %w", o.Listen, err)
	}
	ctlLn, err := net.Listen("tcp", o.ControlAddr)
	if err != nil {
		lanLn.Close()
		return fmt.Errorf("listen for local commands on %s (is another labagent running?): %w", o.ControlAddr, err)
	}
	ctl := Control{PID: os.Getpid(), LANAddr: lanLn.Addr().String(), ControlAddr: ctlLn.Addr().String(), Token: randomHex(24)}
	if err := writeFileAtomic(filepath.Join(o.DataDir, ControlFile), ctl); err != nil {
		lanLn.Close()
		ctlLn.Close()
		return err
	}
	defer os.Remove(filepath.Join(o.DataDir, ControlFile))

	status := func() Status {
		pkgMu.Lock()
		p := current
		pkgMu.Unlock()
		st := collectStatus(cfg, db, syncer, p)
		st.Running, st.LANAddr = true, ctl.LANAddr
		st.ConnectedStudents = srv.ConnectedStudents()
		return st
	}
	lan := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	control := &http.Server{Handler: controlHandler(ctl.Token, status, syncer), ReadHeaderTimeout: 10 * time.Second}

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errc := make(chan error, 2)
	serve := func(s *http.Server, ln net.Listener, what string) {
		if err := s.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errc <- fmt.Errorf("%s server: %w", what, err)
		}
	}
	wg.Go(func() { serve(lan, lanLn, "exam") })
	wg.Go(func() { serve(control, ctlLn, "control") })
	wg.Go(func() { srv.RunTimers(runCtx) })
	wg.Go(func() { syncer.Run(runCtx) })
	wg.Go(func() { watchDisk(runCtx, db.FreeSpace, log, time.Minute) })
	log.Info("labagent running", "server_code", cfg.ServerCode, "students", "http://"+ctl.LANAddr+"/",
		"proctor", "http://"+ctl.LANAddr+"/proctor", "control", ctl.ControlAddr, "version", o.Version)

	var runErr error
	select {
	case <-ctx.Done():
		log.Info("stopping")
	case runErr = <-errc:
		log.Error("stopping", "err", runErr)
	}
	cancel()
	shutCtx, stop := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer stop()
	lan.Shutdown(shutCtx)
	control.Shutdown(shutCtx)
	wg.Wait()
	return runErr
}

// watchDisk checks the free space of the disk holding the state file every
// period and logs a warning when it is low (localdb.LowSpace) or cannot be
// read, then once an hour while that lasts: saves fail once the disk is
// full.
func watchDisk(ctx context.Context, free func() (localdb.Space, error), log *slog.Logger, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	var warned time.Time
	for {
		switch space, err := free(); {
		case err == nil && !space.Low:
			warned = time.Time{}
		case time.Since(warned) < time.Hour:
		case err != nil:
			log.Warn("cannot read the free disk space", "err", err)
			warned = time.Now()
		default:
			log.Warn("the disk holding labagent's state is nearly full: free some space, or saves will fail once it is full",
				"free_bytes", space.FreeBytes)
			warned = time.Now()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// proctorPassword returns the configured password, or the one kept in the
// data directory, creating it at the first run.
func proctorPassword(dir, configured string) (string, error) {
	if configured != "" {
		return configured, nil
	}
	path := filepath.Join(dir, ProctorPasswordFile)
	b, err := os.ReadFile(path)
	if err == nil && strings.TrimSpace(string(b)) != "" {
		return strings.TrimSpace(string(b)), nil
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read the proctor password: %w", err)
	}
	pw, err := labwire.RandomPassword(12)
	if err != nil {
		return "", err
	}
	if err := writeFileAtomic(path, pw); err != nil {
		return "", fmt.Errorf("write the proctor password: %w", err)
	}
	return pw, nil
}

func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("control address %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("control address %q must be on the loopback interface (127.0.0.1)", addr)
	}
	return nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// writeFileAtomic writes v (a string as is, anything else as JSON) to path
// with mode 0600: a crash leaves the old file or the new one.
func writeFileAtomic(path string, v any) error {
	var b []byte
	switch x := v.(type) {
	case string:
		b = []byte(x + "\n")
	default:
		var err error
		if b, err = json.MarshalIndent(v, "", "  "); err != nil {
			return err
		}
		b = append(b, '\n')
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// controlHandler serves the loopback control API: GET /status and POST
// /push, each with the token of ControlFile.
func controlHandler(token string, status func() Status, syncer *Syncer) http.Handler {
	mux := http.NewServeMux()
	auth := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			got, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			h(w, r)
		}
	}
	reply := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("GET /status", auth(func(w http.ResponseWriter, _ *http.Request) {
		reply(w, http.StatusOK, status())
	}))
	mux.HandleFunc("POST /push", auth(func(w http.ResponseWriter, r *http.Request) {
		res, err := syncer.PushNow(r.Context())
		if err != nil {
			reply(w, http.StatusBadGateway, map[string]any{"result": res, "error": err.Error()})
			return
		}
		reply(w, http.StatusOK, map[string]any{"result": res})
	}))
	return mux
}
