package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"

	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/config"
	"github.com/seedhq/portal/internal/console"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi"
	ordhttp "github.com/seedhq/portal/internal/httpapi/ordering"
	"github.com/seedhq/portal/internal/idempotency"
	"github.com/seedhq/portal/internal/identity"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/redirect"
	"github.com/seedhq/portal/internal/links/visits"
	"github.com/seedhq/portal/internal/ordering"
	"github.com/seedhq/portal/internal/throttle"
)

// Names of files the portal keeps in its data directory.
const (
	boltFileName          = "portal.db"
	adminPasswordFileName = "initial-admin-password"
	tempDirName           = "tmp"
)

// serveOptions is the validated configuration of "portal serve".
type serveOptions struct {
	Listen        string
	BaseURL       string // empty: derived from the bound address
	DataDir       string
	DatabaseURL   string
	BlobStore     string // the blob store's s3:// URL; empty: the store's own blobs
	BlobPublicURL string // where lab servers fetch exam blobs; empty: the portal's blob route
	// BlobRetention is how long a blob stays after nothing refers to it
	// any more (0: blobgc.DefaultRetention); BlobGCInterval how often the
	// portal collects (0: never by itself).
	BlobRetention     time.Duration
	BlobGCInterval    time.Duration
	LogLevel          slog.Level
	LogFormat         string
	TrustedProxies    []netip.Prefix
	JWTSecret         string
	HeartbeatInterval time.Duration
	ShutdownTimeout   time.Duration
	AdminUsername     string
	AdminPassword     string
	// TLS, from tls-cert-file and tls-key-file, serves HTTPS; nil: plain
	// HTTP (tls.go).
	TLS *tls.Config

	// LinkHost is the short-link host ("s.example.org", a port may be
	// given); empty: the host of BaseURL, or any host when that is empty.
	LinkHost string
	// VisitSecret keys the visitor hash of the click statistics; empty:
	// generated once and kept in the store.
	VisitSecret   string
	CountryHeader string // trusted country header; empty: none
	GeoIPDB       string // GeoLite2/GeoIP2 .mmdb file; empty: none
	// LinkCacheTTL keeps the redirector's look-ups in memory; 0: none.
	LinkCacheTTL time.Duration
	// Ordering configures the ordering service.
	Ordering orderingOptions
	// LinkVisitRetention is how long raw visits are kept; 0: for ever.
	// Statistics come from roll-ups and are kept regardless.
	LinkVisitRetention time.Duration
	// LinkHomeURL is where the short host's root (/) redirects; "": the 404 page.
	LinkHomeURL string
}

// linkBaseURL is the base URL of the short-link host, without a trailing
// slash: the scheme of BaseURL (http without one) and LinkHost, else
// BaseURL; empty (each request's own scheme and host) when neither is set.
// The link API's addresses and the redirector both use it.
func (o serveOptions) linkBaseURL() string {
	if o.LinkHost == "" {
		return strings.TrimSuffix(o.BaseURL, "/")
	}
	scheme := "http"
	if u, err := url.Parse(o.BaseURL); err == nil && u.Scheme != "" {
		scheme = u.Scheme
	}
	return scheme + "://" + o.LinkHost
}

// shortHost is the host the redirector serves as the short host: LinkHost,
// else the host of BaseURL; empty when neither is set (any host that is
// not a branded domain).
func (o serveOptions) shortHost() string {
	if o.LinkHost != "" {
		return o.LinkHost
	}
	if u, err := url.Parse(o.BaseURL); err == nil {
		return strings.ToLower(u.Host)
	}
	return ""
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
		Long: `Serve the exam synchronisation API, the link-management API, /healthz,
/readyz and /metrics; every other path goes to the short-link redirector.

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
	f.String("blob-store", "", "where payment receipts and QR logos are kept: empty, the portal's own store; s3://BUCKET[/PREFIX]?endpoint=...&region=..., S3-compatible object storage (docs/object-storage.md)")
	f.String("blob-public-url", "", "public base URL of a CDN or cache serving exam blobs as <URL>/<name> (in front of the portal's /api/v1/blobs/ or the object store's exam/ prefix); empty: lab servers fetch them from the portal (docs/operations.md)")
	f.String("blob-retention", "168h", "how long a blob nothing refers to any more is kept before it is deleted (at least 24h; e.g. 168h, 14d)")
	f.Duration("blob-gc-interval", time.Hour, "how often the portal deletes the blobs kept past blob-retention (0: never by itself; portal admin blobs gc still runs one)")
	config.AddLogFlags(f)
	f.StringSlice("trusted-proxies", nil, "CIDR prefixes of reverse proxies whose X-Forwarded-For is believed (comma-separated)")
	f.String("jwt-secret", "", "secret (at least 32 bytes) signing operator and server tokens; default: generated once and kept in the store")
	f.Duration("heartbeat-interval", 60*time.Second, "interval lab servers are asked to send heartbeats at")
	f.Duration("shutdown-timeout", 30*time.Second, "how long requests in flight may take to finish on shutdown")
	f.String("link-host", "", "short-link host served by the redirector, e.g. s.example.org (default: the host of --base-url; empty base URL: any host)")
	f.String("visit-secret", "", "secret (at least 16 bytes) keying the visitor hash of click statistics; default: generated once and kept in the store")
	f.String("country-header", "", "request header set by a trusted proxy with the visitor's ISO country code, e.g. CF-IPCountry (default: none)")
	f.String("link-home-url", "", "where a visit to the short-link host's root (/) is redirected (default: a 404 page)")
	f.Duration("link-cache-ttl", 5*time.Second, "how long the redirector keeps looked-up links, domains, campaigns and QR codes in memory (0: no cache)")
	f.String("link-visit-retention", "90d", "how long raw click records are kept (e.g. 90d, 720h; 0: for ever); statistics are kept regardless")
	addOrderingFlags(f)
	f.String("geoip-db", "", "GeoLite2/GeoIP2 Country or City .mmdb file for the visitors' countries (optional)")
	f.String("tls-cert-file", "", "PEM certificate (chain) to serve HTTPS with; needs --tls-key-file (default: plain HTTP)")
	f.String("tls-key-file", "", "PEM private key of --tls-cert-file")
	return cmd
}

// serveOptionsFrom reads and validates the configuration of "portal serve".
func serveOptionsFrom(r *config.Reader) (serveOptions, error) {
	o := serveOptions{
		Listen:             r.ListenAddr("listen"),
		DataDir:            r.Required("data-dir"),
		TrustedProxies:     r.Prefixes("trusted-proxies"),
		JWTSecret:          r.String("jwt-secret"),
		HeartbeatInterval:  r.Duration("heartbeat-interval", 5*time.Second, 24*time.Hour),
		ShutdownTimeout:    r.Duration("shutdown-timeout", 0, time.Hour),
		AdminUsername:      r.String("admin-username"),
		AdminPassword:      r.Viper().GetString("admin-password"), // kept verbatim: spaces may be part of it
		LinkHost:           strings.ToLower(r.String("link-host")),
		VisitSecret:        r.Viper().GetString("visit-secret"), // kept verbatim, as admin-password
		CountryHeader:      r.String("country-header"),
		GeoIPDB:            r.String("geoip-db"),
		LinkCacheTTL:       r.Duration("link-cache-ttl", 0, time.Hour),
		LinkVisitRetention: r.Duration("link-visit-retention", 0, 100*365*24*time.Hour),
	}
	if u := r.URL("base-url", "http", "https"); u != nil {
		o.BaseURL = u.String()
	}
	if u := r.URL("link-home-url", "http", "https"); u != nil {
		o.LinkHomeURL = u.String()
	}
	o.DatabaseURL = databaseURL(r, "database-url")
	o.BlobStore = blobStoreURL(r)
	if u := r.URL("blob-public-url", "http", "https"); u != nil {
		if err := exam.CheckBlobPublicURL(u.String()); err != nil {
			r.Fail("blob-public-url", "%v", err)
		}
		o.BlobPublicURL = u.String()
	}
	o.BlobRetention, o.BlobGCInterval = blobGCOptionsFrom(r)
	o.TLS = tlsConfigFrom(r)
	o.Ordering = orderingOptionsFrom(r)
	o.LogLevel, o.LogFormat = r.Log()
	if o.JWTSecret != "" && len(o.JWTSecret) < 32 {
		r.Fail("jwt-secret", "must be at least 32 bytes, got %d", len(o.JWTSecret))
	}
	if o.LinkHost != "" && !validHostPort(o.LinkHost) {
		r.Fail("link-host", "%q is not a host name with an optional port (e.g. s.example.org)", o.LinkHost)
	}
	if o.VisitSecret != "" && len(o.VisitSecret) < visits.MinSecretLen {
		r.Fail("visit-secret", "must be at least %d bytes, got %d", visits.MinSecretLen, len(o.VisitSecret))
	}
	if o.CountryHeader != "" && !validHeaderName(o.CountryHeader) {
		r.Fail("country-header", "%q is not a header name", o.CountryHeader)
	}
	if o.AdminUsername == "" {
		o.AdminUsername = "admin"
	}
	if o.AdminPassword != "" && (len(o.AdminPassword) < 8 || len(o.AdminPassword) > 72) {
		r.Fail("admin-password", "must be 8 to 72 characters")
	}
	return o, r.Err()
}

// validHostPort reports whether s is a host name or address with an
// optional port, and nothing else.
func validHostPort(s string) bool {
	u, err := url.Parse("http://" + s)
	return err == nil && u.Host == s && u.Hostname() != "" && u.User == nil && u.Path == "" &&
		!strings.ContainsAny(s, "?#/@")
}

// validHeaderName reports whether s is a token, as header names are.
func validHeaderName(s string) bool {
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return s != ""
}

// runServe is "portal serve": it opens the store and the blob store, builds
// the services on them, the APIs, the console and the redirector, starts
// their background jobs and serves HTTP until ctx ends. Then it drains the
// requests, stops the jobs and closes the store, in that order.
func runServe(ctx context.Context, o serveOptions, logger *slog.Logger) error {
	logger.Info("starting portal", "version", version, "commit", commit)
	tempDir, err := prepareDataDir(o.DataDir, logger)
	if err != nil {
		return err
	}
	st, err := openStore(ctx, o, logger)
	if err != nil {
		return err
	}
	defer closeStore(st, logger)
	// The background jobs run until runServe returns (an error after they
	// started, such as a port in use, ends them too), then are waited for.
	ctx, cancel := context.WithCancel(ctx)
	var jobs sync.WaitGroup
	defer jobs.Wait()
	defer cancel()

	blobs, err := openBlobStore(ctx, o, st, logger)
	if err != nil {
		return err
	}
	ids, err := newIdentity(ctx, st, o, logger)
	if err != nil {
		return err
	}
	idem := idempotency.New(st, idempotency.Options{Logger: logger})
	startPrune(ctx, &jobs, st, logger)
	svc, err := exam.NewService(ctx, st, exam.Config{Tokens: ids.Tokens(), HeartbeatInterval: o.HeartbeatInterval,
		TempDir: tempDir, Blobs: blobs, BlobPublicURL: o.BlobPublicURL}, logger)
	if err != nil {
		return fmt.Errorf("start exam service: %w", err)
	}
	reg := newRegistry()
	linkSvc, redir, closeRecorder, err := newLinks(ctx, &jobs, st, blobs, reg, o, logger)
	if err != nil {
		return err
	}
	// The recorder saves what is queued once the requests have drained.
	defer closeRecorder()
	ln, baseURL, err := listen(o)
	if err != nil {
		return err
	}
	defer ln.Close()
	ord, err := newOrdering(ctx, st, blobs, o.Ordering, baseURL, o.DataDir, logger)
	if err != nil {
		return err
	}
	startOrdering(ctx, &jobs, ord.Service, o)
	blobGC, err := newBlobGC(ctx, &jobs, st, blobs, svc, linkSvc, ord.Service, o, logger)
	if err != nil {
		return err
	}
	consoleKey, err := storedSecret(ctx, st, consoleSecretName)
	if err != nil {
		return err
	}
	api := httpapi.New(httpapi.Options{
		Exam:        svc,
		Identity:    ids,
		Idempotency: idem,
		Console: console.New(console.Options{Exam: svc, Identity: ids, Key: consoleKey, Links: linkSvc,
			LinkBaseURL: o.linkBaseURL(), Ordering: consoleOrdering(ord), Logger: logger}),
		Links:          linkSvc,
		Ordering:       ord,
		LinkBaseURL:    o.linkBaseURL(),
		Logger:         logger,
		TrustedProxies: o.TrustedProxies,
		Registry:       reg,
		Gatherer:       reg,
		Backup:         storeBackup(st),
		Blobs:          blobs,
		BlobGC:         blobGC,
	})
	handler := mountRedirector(api, api.Serves, httpapi.ClientAddr(o.TrustedProxies, redir))
	return serveHTTP(ctx, ln, handler, baseURL, o, logger)
}

// prepareDataDir creates the data directory and its temporary directory
// (returned), warning when others may read the data directory.
func prepareDataDir(dir string, logger *slog.Logger) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create data directory: %w", err)
	}
	if st, err := os.Stat(dir); err == nil && st.Mode().Perm()&0o077 != 0 {
		logger.Warn("the data directory holds the store and its secrets but others may read it: chmod 700 it",
			"data_dir", dir, "mode", st.Mode().Perm().String())
	}
	tempDir := filepath.Join(dir, tempDirName)
	if err := os.MkdirAll(tempDir, 0o700); err != nil {
		return "", fmt.Errorf("create temporary directory: %w", err)
	}
	return tempDir, nil
}

// closeStore closes the store, logging how it went.
func closeStore(st store, logger *slog.Logger) {
	if err := st.Close(); err != nil {
		logger.Error("closing the store", "err", err)
	} else {
		logger.Info("store closed")
	}
}

// newIdentity returns the operators' identity service, signing with
// o.JWTSecret, else the store's secret, and creates the first operator
// account when there is none.
func newIdentity(ctx context.Context, st store, o serveOptions, logger *slog.Logger) (*identity.Service, error) {
	ids, err := identity.Open(ctx, st, []byte(o.JWTSecret), identity.Config{})
	if err != nil {
		return nil, err
	}
	if err := ensureAdmin(ctx, ids, o, logger); err != nil {
		return nil, err
	}
	return ids, nil
}

// startPrune starts the hourly removal of what expired of the failed
// sign-ins and the Idempotency-Key receipts, kept in the store and shared
// by every instance.
func startPrune(ctx context.Context, jobs *sync.WaitGroup, st store, logger *slog.Logger) {
	jobs.Go(func() {
		throttle.RunPrune(ctx, st, func(err error) { logger.Warn("prune failed sign-ins", "err", err) })
	})
	jobs.Go(func() {
		idempotency.RunPrune(ctx, st, func(err error) { logger.Warn("prune idempotency keys", "err", err) })
	})
}

// newRegistry returns the registry of the portal's metrics, with the Go
// runtime's, the process's and the build's.
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewBuildInfoCollector(),
	)
	return reg
}

// newLinks returns the link-management service and the redirector, with
// the recorder of visits (closeRecorder saves what it has queued and stops
// it) and the retention of old visits running in jobs.
func newLinks(ctx context.Context, jobs *sync.WaitGroup, st store, blobs blobstore.Store, reg *prometheus.Registry, o serveOptions,
	logger *slog.Logger) (svc *links.Service, redir http.Handler, closeRecorder func(), err error) {
	rec, err := newVisitRecorder(ctx, st, o, logger)
	if err != nil {
		return nil, nil, nil, err
	}
	recDone := make(chan struct{})
	go func() {
		defer close(recDone)
		// Not ctx: the recorder outlives the signal, to save the visits of
		// the requests still draining.
		if err := rec.Run(context.WithoutCancel(ctx)); err != nil {
			logger.Error("visit recorder", "err", err)
		}
	}()
	closeRecorder = func() {
		rec.Close()
		<-recDone
		logger.Info("visit recorder stopped", "saved", rec.Saved(), "dropped", rec.Dropped(), "failed", rec.Failed())
	}
	jobs.Go(func() { visits.RunRetention(ctx, st, o.LinkVisitRetention, logger) })
	ro := redirect.Options{
		Store:     st,
		Recorder:  rec,
		ShortHost: o.shortHost(),
		Logger:    logger,
		CacheTTL:  o.LinkCacheTTL,
		HomeURL:   o.LinkHomeURL,
		Blobs:     blobs,
	}
	if base := o.linkBaseURL(); base != "" {
		ro.PublicURL = func(*http.Request) string { return base }
	}
	registerClickMetrics(reg, rec)
	rh := redirect.New(ro)
	svc = links.NewService(st, links.Config{OnChange: cacheInvalidation(ctx, st, rh, logger), Blobs: blobs})
	return svc, countRedirects(reg, rh), closeRecorder, nil
}

// listen opens the listener of o.Listen (TLS when configured) and returns
// it with the portal's base URL: o.BaseURL, else the listener's.
func listen(o serveOptions) (net.Listener, string, error) {
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return nil, "", fmt.Errorf("listen on %s: %w", o.Listen, err)
	}
	ln, scheme := listenTLS(ln, o.TLS)
	baseURL := o.BaseURL
	if baseURL == "" {
		baseURL = withScheme(localURL(ln.Addr()), scheme)
	}
	return ln, baseURL, nil
}

// startOrdering starts the ordering service's jobs: expiring unpaid orders,
// housekeeping and sending messages (as this instance's owner name).
func startOrdering(ctx context.Context, jobs *sync.WaitGroup, svc *ordering.Service, o serveOptions) {
	jobs.Go(func() { svc.RunExpiry(ctx) })
	jobs.Go(func() { svc.RunHousekeeping(ctx) })
	owner := fmt.Sprintf("%s-%d-%s", hostname(), os.Getpid(), rand.Text()[:6])
	jobs.Go(func() { svc.RunSender(ctx, o.Ordering.messenger(), owner) })
}

// newBlobGC returns the garbage collection of blobs that
// POST /api/v1/admin/blobs/gc runs, also every o.BlobGCInterval in jobs
// when it is set.
func newBlobGC(ctx context.Context, jobs *sync.WaitGroup, st store, blobs blobstore.Store, svc *exam.Service, linkSvc *links.Service,
	ord *ordering.Service, o serveOptions, logger *slog.Logger) (httpapi.BlobGC, error) {
	gc, err := newBlobCollector(st, blobs, svc, linkSvc, ord, o.BlobRetention, logger)
	if err != nil {
		return nil, err
	}
	if o.BlobGCInterval > 0 {
		jobs.Go(func() { gc.Loop(ctx, o.BlobGCInterval) })
	}
	logger.Info("blob garbage collection", "retention", gc.Retention().String(), "interval", o.BlobGCInterval.String())
	return gc.Run, nil
}

// consoleOrdering is what the console's shop shares with the ordering API
// configured by o; nil (no shop pages) when o is nil.
func consoleOrdering(o *ordhttp.Options) *console.Ordering {
	if o == nil {
		return nil
	}
	return &console.Ordering{Service: o.Service, PoW: o.PoW, Now: o.Now,
		MessengerStandIn: o.Sandbox != nil && o.Sandbox.GatewaySecret != ""}
}

// cacheInvalidation returns what the link service calls after each write:
// the redirector's cached look-ups of that kind are dropped at once, and,
// on a store shared by several instances (links.ChangeFeed), the change is
// published to the others, whose look-ups of that kind are dropped when it
// arrives (listened to until ctx ends).
func cacheInvalidation(ctx context.Context, st any, rh *redirect.Handler, logger *slog.Logger) func(links.Change) {
	feed, ok := st.(links.ChangeFeed)
	if !ok {
		return rh.Invalidate
	}
	go feed.ListenChanges(ctx, rh.Invalidate, func(err error) {
		logger.Warn("lost the link changes of the other instances; cached look-ups are dropped when listening again", "err", err)
	})
	return func(c links.Change) {
		rh.Invalidate(c)
		if err := feed.PublishChange(context.WithoutCancel(ctx), c); err != nil {
			logger.Warn("could not tell the other instances of a link change; they see it within link-cache-ttl", "kind", c, "err", err)
		}
	}
}

// consoleSecretName is the name of the console's generated key in the
// store (its forms' CSRF tokens), shared by every instance.
const consoleSecretName = "console-csrf"

// visitSecretName is the name of the generated visit secret in the store.
const visitSecretName = "visit-hmac"

// newVisitRecorder returns the recorder of link visits, saving to st. Its
// secret is o.VisitSecret, else one generated on first start and kept in
// the store (shared by every instance on the same database).
func newVisitRecorder(ctx context.Context, st store, o serveOptions, logger *slog.Logger) (*visits.Recorder, error) {
	secret := []byte(o.VisitSecret)
	if len(secret) == 0 {
		fresh := make([]byte, 32)
		if _, err := rand.Read(fresh); err != nil {
			return nil, fmt.Errorf("generate the visit secret: %w", err)
		}
		var err error
		if secret, err = st.GetOrCreateSecret(ctx, visitSecretName, fresh); err != nil {
			return nil, fmt.Errorf("load the visit secret: %w", err)
		}
	}
	rec, err := visits.NewRecorder(st, visits.Options{
		Secret:        secret,
		CountryHeader: o.CountryHeader,
		GeoIPPath:     o.GeoIPDB,
		Logger:        logger,
	})
	if err != nil {
		return nil, fmt.Errorf("start the visit recorder: %w", err)
	}
	return rec, nil
}

// mountRedirector returns the portal's root handler: the paths api serves
// (httpapi.Router.Serves: /api and everything under /api/, /healthz,
// /readyz, /metrics, the console, ...) go to api; every other path goes to
// redir, which decides by host (an unknown host gets its 404 page).
func mountRedirector(api http.Handler, serves func(path string) bool, redir http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if serves(r.URL.Path) {
			api.ServeHTTP(w, r)
			return
		}
		redir.ServeHTTP(w, r)
	})
}

// serveHTTP serves handler on ln until ctx is done, then stops accepting,
// waits up to o.ShutdownTimeout for requests in flight and closes what is
// left.
func serveHTTP(ctx context.Context, ln net.Listener, handler http.Handler, baseURL string, o serveOptions, logger *slog.Logger) error {
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
func ensureAdmin(ctx context.Context, ids *identity.Service, o serveOptions, logger *slog.Logger) error {
	generated, created, err := ids.EnsureAdmin(ctx, o.AdminUsername, o.AdminPassword)
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

// hostname names this machine in the leases of outbound messages.
func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "portal"
	}
	return h
}
