package main

import (
	"bytes"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// mustServeOptions runs "portal serve args..." up to the validated options,
// without serving, and returns them.
func mustServeOptions(t *testing.T, args ...string) serveOptions {
	t.Helper()
	o, err := serveOptionsOf(t, args...)
	if err != nil {
		t.Fatalf("serve %v: %v", args, err)
	}
	return o
}

func serveOptionsOf(t *testing.T, args ...string) (serveOptions, error) {
	t.Helper()
	var got serveOptions
	root := newRootCmd(streams{in: strings.NewReader(""), out: new(bytes.Buffer), errOut: new(bytes.Buffer)})
	serve, _, err := root.Find([]string{"serve"})
	if err != nil {
		t.Fatal(err)
	}
	serve.RunE = func(cmd *cobra.Command, _ []string) error {
		r, err := loadConfig(cmd, serveDefaults)
		if err != nil {
			return err
		}
		got, err = serveOptionsFrom(r)
		return err
	}
	root.SetArgs(append([]string{"serve"}, args...))
	err = root.Execute()
	return got, err
}

// clearPortalEnv unsets every PORTAL_* variable for the test.
func clearPortalEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "PORTAL_") {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestServeDefaults(t *testing.T) {
	clearPortalEnv(t)
	o := mustServeOptions(t)
	want := serveOptions{
		Listen: ":8080", DataDir: "./data", LogLevel: slog.LevelInfo, LogFormat: "text",
		HeartbeatInterval: 60 * time.Second, ShutdownTimeout: 30 * time.Second, AdminUsername: "admin",
	}
	if o.Listen != want.Listen || o.DataDir != want.DataDir || o.LogLevel != want.LogLevel || o.LogFormat != want.LogFormat ||
		o.HeartbeatInterval != want.HeartbeatInterval || o.ShutdownTimeout != want.ShutdownTimeout ||
		o.AdminUsername != want.AdminUsername || o.BaseURL != "" || o.DatabaseURL != "" || o.JWTSecret != "" || len(o.TrustedProxies) != 0 {
		t.Errorf("defaults = %+v, want %+v", o, want)
	}
}

// TestServePrecedence checks flag > environment > config file > default for
// each kind of value.
func TestServePrecedence(t *testing.T) {
	clearPortalEnv(t)
	file := writeFile(t, "portal.yaml", `
listen: "127.0.0.1:7001"
log-level: warn
data-dir: /srv/file
shutdown-timeout: 40s
trusted-proxies: [10.0.0.0/8]
admin-username: fileadmin
`)

	o := mustServeOptions(t, "--config", file)
	if o.Listen != "127.0.0.1:7001" || o.LogLevel != slog.LevelWarn || o.DataDir != "/srv/file" ||
		o.ShutdownTimeout != 40*time.Second || o.AdminUsername != "fileadmin" ||
		len(o.TrustedProxies) != 1 || o.TrustedProxies[0] != netip.MustParsePrefix("10.0.0.0/8") {
		t.Errorf("file over defaults: %+v", o)
	}
	if o.HeartbeatInterval != time.Minute {
		t.Errorf("heartbeat-interval = %v, want the default 1m (not in the file)", o.HeartbeatInterval)
	}

	t.Setenv("PORTAL_LISTEN", "127.0.0.1:7002")
	t.Setenv("PORTAL_LOG_LEVEL", "error")
	t.Setenv("PORTAL_TRUSTED_PROXIES", "192.168.0.0/16,127.0.0.1")
	t.Setenv("PORTAL_ADMIN_USERNAME", "envadmin")
	t.Setenv("PORTAL_ADMIN_PASSWORD", "  env password  ")
	o = mustServeOptions(t, "--config", file)
	if o.Listen != "127.0.0.1:7002" || o.LogLevel != slog.LevelError || o.DataDir != "/srv/file" || o.AdminUsername != "envadmin" ||
		len(o.TrustedProxies) != 2 {
		t.Errorf("environment over file: %+v", o)
	}
	if o.AdminPassword != "  env password  " {
		t.Errorf("admin password = %q, want it verbatim", o.AdminPassword)
	}

	o = mustServeOptions(t, "--config", file, "--listen", "127.0.0.1:7003", "--log-level", "debug", "--trusted-proxies", "172.16.0.0/12")
	if o.Listen != "127.0.0.1:7003" || o.LogLevel != slog.LevelDebug || len(o.TrustedProxies) != 1 ||
		o.TrustedProxies[0] != netip.MustParsePrefix("172.16.0.0/12") {
		t.Errorf("flags over environment: %+v", o)
	}

	t.Setenv("PORTAL_CONFIG", file)
	t.Setenv("PORTAL_LISTEN", "")
	os.Unsetenv("PORTAL_LISTEN")
	if o := mustServeOptions(t); o.Listen != "127.0.0.1:7001" {
		t.Errorf("PORTAL_CONFIG: listen = %q, want the file's", o.Listen)
	}
}

func TestServeConfigErrors(t *testing.T) {
	clearPortalEnv(t)
	cases := []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"log level", nil, []string{"--log-level", "loud"}, `log-level (--log-level, PORTAL_LOG_LEVEL): "loud" is not one of debug, info, warn, error`},
		{"log format", map[string]string{"PORTAL_LOG_FORMAT": "xml"}, nil, `log-format (--log-format, PORTAL_LOG_FORMAT): "xml" is not one of text, json`},
		{"listen", nil, []string{"--listen", "8080"}, `listen (--listen, PORTAL_LISTEN): "8080" is not host:port`},
		{"proxies", map[string]string{"PORTAL_TRUSTED_PROXIES": "10.0.0.0/8,nonsense"}, nil, `trusted-proxies (--trusted-proxies, PORTAL_TRUSTED_PROXIES): "nonsense"`},
		{"jwt secret", map[string]string{"PORTAL_JWT_SECRET": "short"}, nil, `jwt-secret (--jwt-secret, PORTAL_JWT_SECRET): must be at least 32 bytes`},
		{"database url", nil, []string{"--database-url", "mysql://u:hunter2@db/x"}, `database-url (--database-url, PORTAL_DATABASE_URL): scheme "mysql"`},
		{"heartbeat", nil, []string{"--heartbeat-interval", "1s"}, `heartbeat-interval (--heartbeat-interval, PORTAL_HEARTBEAT_INTERVAL): 1s is out of range`},
		{"admin password", map[string]string{"PORTAL_ADMIN_PASSWORD": "short"}, nil, `admin-password`},
		{"base url", nil, []string{"--base-url", "portal.example.org"}, `base-url (--base-url, PORTAL_BASE_URL)`},
		{"link host", nil, []string{"--link-host", "https://s.example.org"}, `link-host (--link-host, PORTAL_LINK_HOST)`},
		{"link host path", map[string]string{"PORTAL_LINK_HOST": "s.example.org/x"}, nil, `link-host (--link-host, PORTAL_LINK_HOST)`},
		{"visit secret", map[string]string{"PORTAL_VISIT_SECRET": "short"}, nil, `visit-secret (--visit-secret, PORTAL_VISIT_SECRET): must be at least 16 bytes`},
		{"link home url", nil, []string{"--link-home-url", "ftp://example.org"}, `link-home-url (--link-home-url, PORTAL_LINK_HOME_URL)`},
		{"country header", nil, []string{"--country-header", "CF IPCountry"}, `country-header (--country-header, PORTAL_COUNTRY_HEADER)`},
		{"blob retention", nil, []string{"--blob-retention", "23h"}, `blob-retention (--blob-retention, PORTAL_BLOB_RETENTION): must be at least 24h0m0s`},
		{"blob retention env", map[string]string{"PORTAL_BLOB_RETENTION": "1h"}, nil, `blob-retention (--blob-retention, PORTAL_BLOB_RETENTION): must be at least 24h0m0s`},
		{"blob gc interval", nil, []string{"--blob-gc-interval", "10s"}, `blob-gc-interval (--blob-gc-interval, PORTAL_BLOB_GC_INTERVAL): must be 0`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, err := serveOptionsOf(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("the error shows a password: %v", err)
			}
		})
	}
}

// TestServeBlobGCOptions: blob-retention defaults to a week and takes
// days; blob-gc-interval defaults to an hour and 0 turns it off.
func TestServeBlobGCOptions(t *testing.T) {
	clearPortalEnv(t)
	if o := mustServeOptions(t); o.BlobRetention != 168*time.Hour || o.BlobGCInterval != time.Hour {
		t.Errorf("defaults: retention %s, interval %s", o.BlobRetention, o.BlobGCInterval)
	}
	if o := mustServeOptions(t, "--blob-retention", "14d", "--blob-gc-interval", "0"); o.BlobRetention != 14*24*time.Hour || o.BlobGCInterval != 0 {
		t.Errorf("14d and 0: retention %s, interval %s", o.BlobRetention, o.BlobGCInterval)
	}
}

func TestServeAcceptsKeyValueDatabaseURL(t *testing.T) {
	clearPortalEnv(t)
	o := mustServeOptions(t, "--database-url", "host=127.0.0.1 dbname=portal password=secret")
	if o.DatabaseURL != "host=127.0.0.1 dbname=portal password=secret" {
		t.Errorf("database url = %q", o.DatabaseURL)
	}
	if got := redactDatabaseURL(o.DatabaseURL); strings.Contains(got, "secret") {
		t.Errorf("redacted = %q", got)
	}
	if got := redactDatabaseURL("postgres://u:secret@db/x"); strings.Contains(got, "secret") {
		t.Errorf("redacted = %q", got)
	}
}

func TestAdminPrecedence(t *testing.T) {
	clearPortalEnv(t)
	load := func(args ...string) *adminOptions {
		t.Helper()
		var got *adminOptions
		root := newRootCmd(streams{in: strings.NewReader(""), out: new(bytes.Buffer), errOut: new(bytes.Buffer)})
		login, _, err := root.Find([]string{"admin", "login"})
		if err != nil {
			t.Fatal(err)
		}
		login.RunE = func(cmd *cobra.Command, _ []string) error {
			o := &adminOptions{}
			got = o
			return o.load(cmd)
		}
		root.SetArgs(append([]string{"admin", "login"}, args...))
		if err := root.Execute(); err != nil {
			t.Fatalf("admin login %v: %v", args, err)
		}
		return got
	}
	file := writeFile(t, "portal.toml", "url = \"http://file:1\"\nadmin-username = \"fileop\"\ntoken = \"filetoken\"\n")

	o := load()
	if o.URL != "http://127.0.0.1:8080" || o.Username != "admin" || o.Token != "" || o.Timeout != 5*time.Minute {
		t.Errorf("defaults: %+v", o)
	}
	o = load("--config", file)
	if o.URL != "http://file:1" || o.Username != "fileop" || o.Token != "filetoken" {
		t.Errorf("file: %+v", o)
	}
	t.Setenv("PORTAL_URL", "http://env:2")
	t.Setenv("PORTAL_ADMIN_USERNAME", "envop")
	t.Setenv("PORTAL_ADMIN_PASSWORD", "envpass")
	o = load("--config", file)
	if o.URL != "http://env:2" || o.Username != "envop" || o.Password != "envpass" || o.Token != "filetoken" {
		t.Errorf("environment: %+v", o)
	}
	o = load("--config", file, "--url", "http://flag:3", "--username", "flagop", "--password", "flagpass", "--output", "JSON")
	if o.URL != "http://flag:3" || o.Username != "flagop" || o.Password != "flagpass" || o.Output != outputJSON {
		t.Errorf("flags: %+v", o)
	}
}

func TestLocalURL(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:8080": "http://127.0.0.1:8080",
		"0.0.0.0:8080":   "http://localhost:8080",
		"[::]:9000":      "http://localhost:9000",
		"[::1]:9000":     "http://[::1]:9000",
	} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := localURL(a); got != want {
			t.Errorf("localURL(%s) = %q, want %q", addr, got, want)
		}
	}
}

func TestServeLinkHost(t *testing.T) {
	clearPortalEnv(t)
	cases := []struct {
		args                []string
		env                 map[string]string
		wantBase, wantShort string
	}{
		{nil, nil, "", ""},
		{[]string{"--base-url", "https://portal.example.org/"}, nil, "https://portal.example.org", "portal.example.org"},
		{[]string{"--base-url", "https://portal.example.org", "--link-host", "S.Example.org"}, nil, "https://s.example.org", "s.example.org"},
		{nil, map[string]string{"PORTAL_LINK_HOST": "localhost:8081"}, "http://localhost:8081", "localhost:8081"},
	}
	for _, tc := range cases {
		for k, v := range tc.env {
			t.Setenv(k, v)
		}
		o := mustServeOptions(t, tc.args...)
		if got := o.linkBaseURL(); got != tc.wantBase {
			t.Errorf("%v %v: link base URL = %q, want %q", tc.args, tc.env, got, tc.wantBase)
		}
		if got := o.shortHost(); got != tc.wantShort {
			t.Errorf("%v %v: short host = %q, want %q", tc.args, tc.env, got, tc.wantShort)
		}
		for k := range tc.env {
			os.Unsetenv(k)
		}
	}
	o := mustServeOptions(t, "--visit-secret", " sixteen bytes!! ", "--country-header", "CF-IPCountry", "--geoip-db", "/x/GeoLite2-Country.mmdb")
	if o.VisitSecret != " sixteen bytes!! " || o.CountryHeader != "CF-IPCountry" || o.GeoIPDB != "/x/GeoLite2-Country.mmdb" {
		t.Errorf("options = %+v", o)
	}
	if o := mustServeOptions(t, "--link-home-url", "https://example.org/"); o.LinkHomeURL != "https://example.org/" {
		t.Errorf("link-home-url = %q", o.LinkHomeURL)
	}
}
