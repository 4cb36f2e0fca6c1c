package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"

	"github.com/seedhq/portal/internal/config"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi"
	"github.com/seedhq/portal/internal/links"
)

// Names of files the portal keeps in its data directory.
const (
	boltFileName          = "portal.db"
	adminPasswordFileName = "initial-admin-password"
	tempDirName           = "tmp"
)

// serveOptions is the validated configuration of "portal serve".
type serveOptions struct {
	Listen            string
	BaseURL           string // empty: derived from the bound address
	DataDir           string
	DatabaseURL       string
	LogLevel          slog.Level
	LogFormat         string
	TrustedProxies    []netip.Prefix
	JWTSecret         string
	HeartbeatInterval time.Duration
	ShutdownTimeout   time.Duration
	AdminUsername     string
	AdminPassword     string
}

// serveDefaults are keys that have no flag of their own.
var serveDefaults = map[string]any{
	"admin-username": "admin",
	"admin-password": "",
}

func newServeCmd(s streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the HTTP API",
		Long: `Serve the exam synchronisation API, /healthz, /readyz and /metrics.

Without --database-url the data is kept in a bbolt file, <data-dir>/portal.db.
On first start an operator account is created: PORTAL_ADMIN_USERNAME (default
admin) with PORTAL_ADMIN_PASSWORD, or a generated password written to
<data-dir>/initial-admin-password (mode 0600).

SIGINT or SIGTERM stops accepting connections, lets requests in flight finish
for up to --shutdown-timeout and closes the store.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := loadConfig(cmd, serveDefaults)
			if err != nil {
				return err
			}
			opts, err := serveOptionsFrom(r)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			go func() { <-ctx.Done(); stop() }() // a second signal kills at once
			logger := config.NewLogger(s.errOut, opts.LogLevel, opts.LogFormat)
			return runServe(ctx, opts, logger)
		},
	}
	f := cmd.Flags()
	f.String("listen", ":8080", "address to listen on (host:port; port 0 picks a free one)")
	f.String("base-url", "", "public base URL of the portal, e.g. https://portal.example.org (default: the bound address)")
	f.String("data-dir", "./data", "directory for the bbolt store, temporary files and the initial admin password")
	f.String("database-url", "", "PostgreSQL URL (postgres://user:pass@host/db); empty keeps data in <data-dir>/portal.db")
	config.AddLogFlags(f)
	f.StringSlice("trusted-proxies", nil, "CIDR prefixes of reverse proxies whose X-Forwarded-For is believed (comma-separated)")
	f.String("jwt-secret", "", "secret (at least 32 bytes) signing operator and server tokens; default: generated once and kept in the store")
	f.Duration("heartbeat-interval", 60*time.Second, "interval lab servers are asked to send heartbeats at")
	f.Duration("shutdown-timeout", 30*time.Second, "how long requests in flight may take to finish on shutdown")
	return cmd
}

// serveOptionsFrom reads and validates the configuration of "portal serve".
func serveOptionsFrom(r *config.Reader) (serveOptions, error) {
	o := serveOptions{
		Listen:            r.ListenAddr("listen"),
		DataDir:           r.Required("data-dir"),
		TrustedProxies:    r.Prefixes("trusted-proxies"),
		JWTSecret:         r.String("jwt-secret"),
		HeartbeatInterval: r.Duration("heartbeat-interval", 5*time.Second, 24*time.Hour),
		ShutdownTimeout:   r.Duration("shutdown-timeout", 0, time.Hour),
		AdminUsername:     r.String("admin-username"),
		AdminPassword:     r.Viper().GetString("admin-password"), // kept verbatim: spaces may be part of it
	}
	if u := r.URL("base-url", "http", "https"); u != nil {
		o.BaseURL = u.String()
	}
	o.DatabaseURL = databaseURL(r, "database-url")
	o.LogLevel, o.LogFormat = r.Log()
	if o.JWTSecret != "" && len(o.JWTSecret) < 32 {
		r.Fail("jwt-secret", "must be at least 32 bytes, got %d", len(o.JWTSecret))
	}
	if o.AdminUsername == "" {
		o.AdminUsername = "admin"
	}
	if o.AdminPassword != "" && (len(o.AdminPassword) < 8 || len(o.AdminPassword) > 72) {
		r.Fail("admin-password", "must be 8 to 72 characters")
	}
	return o, r.Err()
}

// runServe serves the portal until ctx is done, then shuts down gracefully.
func runServe(ctx context.Context, o serveOptions, logger *slog.Logger) error {
	logger.Info("starting portal", "version", version, "commit", commit)

	if err := os.MkdirAll(o.DataDir, 0o700); err != nil {
		return fmt.Errorf("create data directory: %w", err)
	}
	if st, err := os.Stat(o.DataDir); err == nil && st.Mode().Perm()&0o077 != 0 {
		logger.Warn("the data directory holds the store and its secrets but others may read it: chmod 700 it",
			"data_dir", o.DataDir, "mode", st.Mode().Perm().String())
	}
	tempDir := filepath.Join(o.DataDir, tempDirName)
	if err := os.MkdirAll(tempDir, 0o700); err != nil {
		return fmt.Errorf("create temporary directory: %w", err)
	}

	st, err := openStore(ctx, o, logger)
	if err != nil {
		return err
	}
	defer func() {
		if err := st.Close(); err != nil {
			logger.Error("closing the store", "err", err)
		} else {
			logger.Info("store closed")
		}
	}()

	svc, err := exam.NewService(ctx, st, exam.Config{
		JWTSecret:         []byte(o.JWTSecret),
		HeartbeatInterval: o.HeartbeatInterval,
		TempDir:           tempDir,
	}, logger)
	if err != nil {
		return fmt.Errorf("start exam service: %w", err)
	}
	if err := ensureAdmin(ctx, svc, o, logger); err != nil {
		return err
	}

	// The link-management API runs on every store that implements its
	// Store (bbolt; PostgreSQL once its links tables exist).
	var linkSvc *links.Service
	if ls, ok := st.(links.Store); ok {
		linkSvc = links.NewService(ls, links.Config{})
	} else {
		logger.Warn("this store does not implement the link-management API; its routes are not served")
	}

	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewBuildInfoCollector(),
	)
	handler := httpapi.New(httpapi.Options{
		Exam:           svc,
		Links:          linkSvc,
		LinkBaseURL:    o.BaseURL,
		Logger:         logger,
		TrustedProxies: o.TrustedProxies,
		Registry:       reg,
		Gatherer:       reg,
	})

	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", o.Listen, err)
	}
	return serveHTTP(ctx, ln, handler, o, logger)
}

// serveHTTP serves handler on ln until ctx is done, then stops accepting,
// waits up to o.ShutdownTimeout for requests in flight and closes what is
// left.
func serveHTTP(ctx context.Context, ln net.Listener, handler http.Handler, o serveOptions, logger *slog.Logger) error {
	// Requests get a context of their own, not ctx: a signal must not cancel
	// the requests that shutdown lets finish. baseCancel aborts them when the
	// shutdown timeout is over.
	baseCtx, baseCancel := context.WithCancel(context.WithoutCancel(ctx))
	defer baseCancel()
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		// No ReadTimeout or WriteTimeout: answer uploads and package pulls
		// may take minutes on a school's line. Handlers bound their work
		// with the request's context instead, and slow clients that send
		// nothing are cut by ReadHeaderTimeout and IdleTimeout.
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
		BaseContext:    func(net.Listener) context.Context { return baseCtx },
		ErrorLog:       slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	baseURL := o.BaseURL
	if baseURL == "" {
		baseURL = localURL(ln.Addr())
	}
	logger.Info("listening", "addr", ln.Addr().String(), "base_url", baseURL)

	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}

	logger.Info("shutting down", "timeout", o.ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), o.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	<-errc // Serve has returned http.ErrServerClosed
	if err != nil {
		baseCancel()
		srv.Close()
		logger.Warn("requests still in flight were cut off", "timeout", o.ShutdownTimeout.String())
		return fmt.Errorf("shutdown: requests did not finish within %s", o.ShutdownTimeout)
	}
	logger.Info("server stopped")
	return nil
}

// localURL is the base URL of a listener when none is configured: its
// address, with localhost for the unspecified address.
func localURL(addr net.Addr) string {
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ap.Addr().IsUnspecified() {
		return fmt.Sprintf("http://localhost:%d", ap.Port())
	}
	return "http://" + ap.String()
}

// ensureAdmin creates the first operator account when there is none.
func ensureAdmin(ctx context.Context, svc *exam.Service, o serveOptions, logger *slog.Logger) error {
	generated, created, err := svc.EnsureAdmin(ctx, o.AdminUsername, o.AdminPassword)
	if err != nil {
		return fmt.Errorf("create the first operator account %q: %w", o.AdminUsername, err)
	}
	switch {
	case !created:
		return nil
	case generated == "":
		logger.Info("created the first operator account with PORTAL_ADMIN_PASSWORD", "username", o.AdminUsername)
		return nil
	}
	path := filepath.Join(o.DataDir, adminPasswordFileName)
	if err := writeSecretFile(path, generated+"\n"); err != nil {
		return fmt.Errorf("write the initial admin password: %w", err)
	}
	logger.Warn("created the first operator account with a generated password; read it from the file, then change or delete it",
		"username", o.AdminUsername, "password_file", path)
	return nil
}

// writeSecretFile writes content to path, readable by the owner only, even
// when the file exists already with wider permissions.
func writeSecretFile(path, content string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := io.WriteString(f, content); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// errNoDatabaseURL is returned by commands that need PostgreSQL.
var errNoDatabaseURL = errors.New("no database URL: pass --database-url or set PORTAL_DATABASE_URL (postgres://user:pass@host:5432/db)")
