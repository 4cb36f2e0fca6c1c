package main

// The end-to-end test of linkctl: it builds the real portal and linkctl
// binaries, runs "portal serve" on bbolt, creates link users with "portal
// admin", and drives the linkctl binary as a marketer following README.md
// and docs/linkctl.md would.

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/testkit/proc"
)

// e2eVersion is stamped into both binaries, to check that the linkctl under
// test is the one just built.
const e2eVersion = "e2e-test"

// bins are the binaries under test, built once per test process, without
// -race (they are black boxes here).
var bins = &proc.Binaries{
	Packages:   []string{"github.com/seedhq/portal/cmd/portal", "github.com/seedhq/portal/cmd/linkctl"},
	BuildFlags: []string{"-ldflags", "-X main.version=" + e2eVersion},
}

func TestMain(m *testing.M) {
	code := m.Run()
	bins.Remove()
	os.Exit(code)
}

// dropEnv keeps a developer's own settings away from the processes.
var dropEnv = []string{"PORTAL_", "LINKCTL_", "XDG_CONFIG_HOME="}

// cli runs the linkctl binary with a home and config directory of its own.
type cli struct {
	t   *testing.T
	bin string
	env []string
}

// run runs linkctl with args and extra environment variables env.
func (c *cli) run(env []string, args ...string) proc.Result {
	c.t.Helper()
	return proc.Run(c.t, c.bin, proc.Options{Env: append(slices.Clone(c.env), env...), DropEnv: dropEnv}, args...)
}

// mustRun runs linkctl and fails the test unless it exits 0.
func (c *cli) mustRun(args ...string) string {
	c.t.Helper()
	r := c.run(nil, args...)
	if r.Code != 0 {
		c.t.Fatalf("linkctl %s: %s", strings.Join(args, " "), r)
	}
	return r.Stdout
}

// mustJSON runs linkctl with --output json and decodes its stdout into v.
func (c *cli) mustJSON(v any, args ...string) {
	c.t.Helper()
	out := c.mustRun(append(args, "--output", "json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		c.t.Fatalf("linkctl %s: decode %q: %v", strings.Join(args, " "), out, err)
	}
}

// mustExit runs linkctl with env and fails the test unless it exits with
// code and its stderr contains want.
func (c *cli) mustExit(code int, want string, env []string, args ...string) {
	c.t.Helper()
	r := c.run(env, args...)
	if r.Code != code || !strings.Contains(r.Stderr, want) {
		c.t.Errorf("linkctl %s: %s\nwant exit %d and stderr containing %q", strings.Join(args, " "), r, code, want)
	}
}

// link is a short link as "links list --output json" prints it.
type link struct {
	ID       int64  `json:"id"`
	Alias    string `json:"alias"`
	ShortURL string `json:"shorturl"`
	LongURL  string `json:"longurl"`
	Title    string `json:"title"`
}

// importRow is one row of the "links import --output json" report.
type importRow struct {
	Row      int    `json:"row"`
	URL      string `json:"url"`
	ID       int64  `json:"id"`
	ShortURL string `json:"shorturl"`
	Error    string `json:"error"`
}

func TestLinkctlEndToEnd(t *testing.T) {
	portalBin, linkctlBin := bins.Path(t, "portal"), bins.Path(t, "linkctl")
	tmp := t.TempDir()

	// The portal, on bbolt, on a free loopback port.
	const password = "e2e-linkctl-Password"
	p := proc.Start(t, portalBin, proc.Options{Env: []string{"PORTAL_ADMIN_PASSWORD=" + password}, DropEnv: dropEnv},
		"serve", "--listen", "127.0.0.1:0", "--data-dir", filepath.Join(tmp, "data"), "--log-format", "json")
	base := "http://" + p.WaitListening(time.Minute)
	proc.WaitReady(t, base+"/readyz", 30*time.Second)

	// The operator signs in once and creates two link users.
	admin := func(env []string, args ...string) string {
		t.Helper()
		r := proc.Run(t, portalBin, proc.Options{Env: append(env, "PORTAL_URL="+base), DropEnv: dropEnv},
			append([]string{"admin"}, args...)...)
		if r.Code != 0 {
			t.Fatalf("portal admin %s: %s", strings.Join(args, " "), r)
		}
		return r.Stdout
	}
	token := strings.TrimSpace(admin([]string{"PORTAL_ADMIN_PASSWORD=" + password}, "login"))
	newUser := func(name string) string {
		t.Helper()
		var u struct {
			ID  int64  `json:"id"`
			Key string `json:"key"`
		}
		out := admin([]string{"PORTAL_TOKEN=" + token}, "link-user", "create", "--email", name+"@example.org",
			"--account-username", name, "--plan", "pro", "--rate-limit", "600", "--output", "json")
		if err := json.Unmarshal([]byte(out), &u); err != nil || u.ID == 0 || u.Key == "" {
			t.Fatalf("link-user create %s: %v\n%s", name, err, out)
		}
		return u.Key
	}
	anaKey, benKey := newUser("ana"), newUser("ben")

	configHome := filepath.Join(tmp, "config")
	lc := &cli{t: t, bin: linkctlBin, env: []string{"HOME=" + filepath.Join(tmp, "home"), "XDG_CONFIG_HOME=" + configHome}}
	if out := lc.mustRun("--version"); !strings.HasPrefix(out, "linkctl "+e2eVersion+" ") {
		t.Errorf("--version = %q", out)
	}
	ana := []string{"--api-url", base, "--api-key", anaKey} // explicit flags, as a first try would use

	// links add, and the short link redirects.
	var added struct {
		ID       int64  `json:"id"`
		ShortURL string `json:"shorturl"`
	}
	lc.mustJSON(&added, append(ana, "links", "add", "https://example.org/spring-sale", "--custom", "spring", "--title", "Spring sale")...)
	if added.ID == 0 || added.ShortURL != base+"/spring" {
		t.Fatalf("links add = %+v, want shorturl %s/spring", added, base)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(added.ShortURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 3 || resp.Header.Get("Location") != "https://example.org/spring-sale" {
		t.Errorf("GET %s: %s, Location %q", added.ShortURL, resp.Status, resp.Header.Get("Location"))
	}

	// links list.
	var listed []link
	lc.mustJSON(&listed, append(ana, "links", "list")...)
	if len(listed) != 1 || listed[0].ID != added.ID || listed[0].Alias != "spring" ||
		listed[0].LongURL != "https://example.org/spring-sale" || listed[0].Title != "Spring sale" {
		t.Errorf("links list = %+v", listed)
	}

	// qr add and qr download as PNG.
	var qr struct {
		ID   int64  `json:"id"`
		Link string `json:"link"`
	}
	lc.mustJSON(&qr, append(ana, "qr", "add", "--type", "link", "--data", "https://example.org/poster", "--name", "poster")...)
	if qr.ID == 0 || !strings.HasPrefix(qr.Link, base+"/qr/") {
		t.Fatalf("qr add = %+v", qr)
	}
	pngFile := filepath.Join(tmp, "poster.png")
	lc.mustRun(append(ana, "qr", "download", fmt.Sprint(qr.ID), "--format", "png", "-f", pngFile)...)
	img, err := os.ReadFile(pngFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(img, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("%s does not start with the PNG signature: % x", pngFile, img[:min(len(img), 16)])
	}
	if cfg, err := png.DecodeConfig(bytes.NewReader(img)); err != nil || cfg.Width < 21 || cfg.Height != cfg.Width {
		t.Errorf("QR PNG: %v, %dx%d", err, cfg.Width, cfg.Height)
	}

	// links import of a CSV, then links export of every link.
	in := filepath.Join(tmp, "campaign.csv")
	if err := os.WriteFile(in, []byte("url,custom,title\n"+
		"https://example.org/a,summer-a,Summer A\n"+
		"https://example.org/b,summer-b,Summer B\n"+
		"https://example.org/c,,Summer C\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var imported []importRow
	lc.mustJSON(&imported, append(ana, "links", "import", in)...)
	if len(imported) != 3 {
		t.Fatalf("links import = %+v", imported)
	}
	for i, r := range imported {
		if r.Error != "" || r.ID == 0 || r.Row != i+2 || !strings.HasPrefix(r.ShortURL, base+"/") {
			t.Errorf("import row %d = %+v", i, r)
		}
	}
	exported := filepath.Join(tmp, "all-links.csv")
	lc.mustRun(append(ana, "links", "export", exported)...)
	recs := mustReadCSV(t, exported)
	wantHeader := "id,url,custom,domain,description,expiry,title,campaign,pixels,channels,shorturl,clicks,unique_clicks,password_protected,date"
	if len(recs) != 5 || strings.Join(recs[0], ",") != wantHeader {
		t.Fatalf("export: %q", recs)
	}
	exportedURLs := columnSet(recs, "url")
	for _, u := range []string{"https://example.org/spring-sale", "https://example.org/a", "https://example.org/b", "https://example.org/c"} {
		if !exportedURLs[u] {
			t.Errorf("export lacks %s: %q", u, recs)
		}
	}

	// Profiles of the config file: ana's is the default, ben's by name.
	lc.mustRun("config", "set-profile", "work", "--api-url", base, "--api-key", anaKey)
	lc.mustRun("config", "set-profile", "colleague", "--api-url", base, "--api-key", benKey)
	if st, err := os.Stat(filepath.Join(configHome, "linkctl", "config.yaml")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("config file: %v, mode %v", err, st.Mode().Perm())
	}
	var mine []link
	lc.mustJSON(&mine, "links", "list", "--all") // no flags: the default profile
	if len(mine) != 4 {
		t.Fatalf("links list (default profile) = %+v", mine)
	}
	// Hand the links over to the colleague: aliases are unique per domain,
	// so ana deletes hers before ben imports the export.
	for _, l := range mine {
		lc.mustRun("links", "delete", fmt.Sprint(l.ID))
	}
	r := lc.run([]string{"LINKCTL_PROFILE=colleague"}, "links", "import", exported, "--output", "json")
	if r.Code != 0 {
		t.Fatalf("import as the colleague: %s", r)
	}
	var theirs []link
	lc.mustJSON(&theirs, "--profile", "colleague", "links", "list", "--all")
	var theirURLs []string
	for _, l := range theirs {
		theirURLs = append(theirURLs, l.LongURL)
	}
	slices.Sort(theirURLs)
	if want := []string{"https://example.org/a", "https://example.org/b", "https://example.org/c", "https://example.org/spring-sale"}; !slices.Equal(theirURLs, want) {
		t.Errorf("the colleague's links = %v, want %v", theirURLs, want)
	}
	lc.mustJSON(&mine, "links", "list")
	if len(mine) != 0 {
		t.Errorf("ana still has %+v", mine)
	}

	// Exit statuses (docs/linkctl.md).
	lc.mustExit(3, "check --api-key", nil, "--api-url", base, "--api-key", "lk_wrong", "links", "list")
	lc.mustExit(3, "error:", []string{"LINKCTL_API_KEY=lk_wrong"}, "links", "list") // the environment beats the profile
	lc.mustExit(4, "error:", nil, "links", "get", "999999")
	lc.mustExit(4, "error:", nil, "--profile", "colleague", "links", "get", fmt.Sprint(added.ID)) // gone from ana, never ben's
	lc.mustExit(2, "takes 1 argument", nil, "links", "add")
	lc.mustExit(2, "unknown flag", nil, "links", "list", "--frobnicate")
	lc.mustExit(2, `profile "nope"`, nil, "--profile", "nope", "links", "list")

	p.Stop()
}

// mustReadCSV reads a whole CSV file.
func mustReadCSV(t *testing.T, file string) [][]string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return recs
}

// columnSet returns the values of the column named col (by the header).
func columnSet(recs [][]string, col string) map[string]bool {
	i := slices.Index(recs[0], col)
	out := map[string]bool{}
	for _, rec := range recs[1:] {
		if i >= 0 && i < len(rec) {
			out[rec[i]] = true
		}
	}
	return out
}
