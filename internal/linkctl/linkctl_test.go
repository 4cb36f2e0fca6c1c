package linkctl

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mustJSON runs linkctl with --output json and decodes stdout into v.
func mustJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	out := mustRun(t, append(args, "--output", "json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("linkctl %s: decode %q: %v", strings.Join(args, " "), out, err)
	}
}

// mustTable runs linkctl with --output table and checks that stdout holds
// every want.
func mustTable(t *testing.T, args []string, want ...string) {
	t.Helper()
	out := mustRun(t, append(args, "--output", "table")...)
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("linkctl %s: table lacks %q:\n%s", strings.Join(args, " "), w, out)
		}
	}
}

func TestConfigPrecedence(t *testing.T) {
	isolate(t)
	p := mustStartPortal(t)
	alice := p.mustLinkUser(t, "alice")
	bob := p.mustLinkUser(t, "bob")
	cfg := filepath.Join(t.TempDir(), "linkctl", "config.yaml")

	// set-profile writes the file with mode 0600; the first profile is the default.
	mustRun(t, "--config", cfg, "config", "set-profile", "work", "--api-url", p.URL, "--api-key", alice.Key)
	mustRun(t, "--config", cfg, "config", "set-profile", "home", "--api-url", p.URL, "--api-key", bob.Key)
	st, err := os.Stat(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("config file mode = %v, want 0600", st.Mode().Perm())
	}
	var profiles []profileRow
	mustJSON(t, &profiles, "--config", cfg, "config", "list")
	if len(profiles) != 2 || profiles[0].Name != "home" || profiles[0].Default || !profiles[1].Default || !profiles[1].HasKey {
		t.Errorf("profiles = %+v", profiles)
	}

	user := func(args ...string) string {
		t.Helper()
		var a struct{ Username string }
		mustJSON(t, &a, append(args, "account", "get")...)
		return a.Username
	}
	if got := user("--config", cfg); got != "alice" {
		t.Errorf("default profile: user %q, want alice", got)
	}
	if got := user("--config", cfg, "--profile", "home"); got != "bob" {
		t.Errorf("--profile home: user %q, want bob", got)
	}
	t.Setenv("LINKCTL_PROFILE", "home")
	if got := user("--config", cfg); got != "bob" {
		t.Errorf("LINKCTL_PROFILE=home: user %q, want bob", got)
	}
	os.Unsetenv("LINKCTL_PROFILE")
	// The environment beats the profile; the flag beats the environment.
	t.Setenv("LINKCTL_API_KEY", bob.Key)
	if got := user("--config", cfg); got != "bob" {
		t.Errorf("env over profile: user %q, want bob", got)
	}
	if got := user("--config", cfg, "--api-key", alice.Key); got != "alice" {
		t.Errorf("flag over env: user %q, want alice", got)
	}
	// LINKCTL_CONFIG names the file; the default file is under XDG_CONFIG_HOME.
	os.Unsetenv("LINKCTL_API_KEY")
	t.Setenv("LINKCTL_CONFIG", cfg)
	if got := user(); got != "alice" {
		t.Errorf("LINKCTL_CONFIG: user %q, want alice", got)
	}
	os.Unsetenv("LINKCTL_CONFIG")
	t.Setenv("XDG_CONFIG_HOME", filepath.Dir(filepath.Dir(cfg)))
	if got := user(); got != "alice" {
		t.Errorf("default config file: user %q, want alice", got)
	}

	// Mistakes in the settings are usage errors.
	for _, args := range [][]string{
		{"--config", cfg, "--profile", "nope", "account", "get"},
		{"--config", cfg, "--output", "yaml", "account", "get"},
		{"--config", filepath.Join(t.TempDir(), "missing.yaml"), "account", "get"},
		{"--api-url", "", "--api-key", "", "--config", filepath.Join(t.TempDir(), "x.yaml"), "domains", "list", "--profile", ""},
	} {
		if r := runCLI(t, "", args...); r.code != ExitUsage || !strings.HasPrefix(r.errOut, "error: ") {
			t.Errorf("linkctl %v: exit %d, stderr %q; want %d", args, r.code, r.errOut, ExitUsage)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("profiles:\n  w:\n    api_ur1: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, "", "--config", bad, "account", "get"); r.code != ExitUsage || !strings.Contains(r.errOut, "api_ur1") {
		t.Errorf("unknown key: exit %d, stderr %q", r.code, r.errOut)
	}
}

func TestErrorsAndExitCodes(t *testing.T) {
	isolate(t)
	p := mustStartPortal(t)
	alice := p.mustLinkUser(t, "alice")
	bob := p.mustLinkUser(t, "bob")
	t.Setenv("LINKCTL_API_URL", p.URL)
	t.Setenv("LINKCTL_API_KEY", alice.Key)
	var l struct{ ID int64 }
	mustJSON(t, &l, "links", "add", "https://example.org/a")

	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"wrong key", []string{"--api-key", "lk_wrong", "account", "get"}, ExitAuth, "error: UNAUTHORIZED: "},
		{"other user's id", []string{"--api-key", bob.Key, "links", "get", fmt.Sprint(l.ID)}, ExitNotFound, "error: NOT_FOUND: "},
		{"unknown command", []string{"nope"}, ExitUsage, "error: unknown command"},
		{"bad id", []string{"links", "get", "x"}, ExitUsage, "error: link id \"x\""},
		{"missing flag", []string{"qr", "add", "--type", "text"}, ExitUsage, "error: required flag"},
		{"conflict", []string{"links", "add", "https://example.org/b", "--custom", "dup"}, ExitOK, ""},
		{"conflict again", []string{"links", "add", "https://example.org/b", "--custom", "dup"}, ExitError, "error: ALIAS_TAKEN: "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, "", tc.args...)
			if r.code != tc.code || !strings.HasPrefix(r.errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.errOut, tc.code, tc.want)
			}
		})
	}
}

func TestCompletion(t *testing.T) {
	isolate(t)
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		out := mustRun(t, "completion", sh)
		if !strings.Contains(out, "linkctl") {
			t.Errorf("completion %s: %.100q", sh, out)
		}
	}
}
