package config_test

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/seedhq/portal/internal/config"
)

// mustLoad runs a small command tree ("app serve ...") with args and returns
// the viper instance that Load built inside the serve command.
func mustLoad(t *testing.T, args ...string) *viper.Viper {
	t.Helper()
	v, err := load(t, args...)
	if err != nil {
		t.Fatalf("load %v: %v", args, err)
	}
	return v
}

func load(t *testing.T, args ...string) (*viper.Viper, error) {
	t.Helper()
	var got *viper.Viper
	root := &cobra.Command{Use: "app", SilenceUsage: true, SilenceErrors: true}
	root.PersistentFlags().String(config.FlagConfig, "", "config file")
	serve := &cobra.Command{
		Use: "serve",
		RunE: func(cmd *cobra.Command, _ []string) error {
			file, _ := cmd.Flags().GetString(config.FlagConfig)
			v, err := config.Load(cmd, "TESTAPP", file, map[string]any{"app-name": "Default App"})
			got = v
			return err
		},
	}
	serve.Flags().String("listen", ":8080", "address")
	serve.Flags().String("log-level", "info", "level")
	serve.Flags().StringSlice("trusted-proxies", nil, "CIDRs")
	serve.Flags().Duration("shutdown-timeout", 30*time.Second, "timeout")
	other := &cobra.Command{Use: "other", RunE: func(*cobra.Command, []string) error { return nil }}
	other.Flags().String("url", "", "a key only another command knows")
	root.AddCommand(serve, other)
	root.SetArgs(args)
	root.SetOut(new(strings.Builder))
	root.SetErr(new(strings.Builder))
	err := root.Execute()
	return got, err
}

func mustWrite(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPrecedence(t *testing.T) {
	file := mustWrite(t, "c.yaml", "listen: \":7000\"\nlog-level: warn\napp-name: File App\nurl: http://x\n")

	t.Run("defaults", func(t *testing.T) {
		v := mustLoad(t, "serve")
		if got := v.GetString("listen"); got != ":8080" {
			t.Errorf("listen = %q, want the flag default :8080", got)
		}
		if got := v.GetString("app-name"); got != "Default App" {
			t.Errorf("app-name = %q, want Default App", got)
		}
	})
	t.Run("file over default", func(t *testing.T) {
		v := mustLoad(t, "serve", "--config", file)
		if got := v.GetString("listen"); got != ":7000" {
			t.Errorf("listen = %q, want :7000 from the file", got)
		}
		if got := v.GetString("app-name"); got != "File App" {
			t.Errorf("app-name = %q, want File App from the file", got)
		}
	})
	t.Run("env over file", func(t *testing.T) {
		t.Setenv("TESTAPP_LISTEN", ":7100")
		t.Setenv("TESTAPP_LOG_LEVEL", "debug")
		v := mustLoad(t, "serve", "--config", file)
		if got := v.GetString("listen"); got != ":7100" {
			t.Errorf("listen = %q, want :7100 from the environment", got)
		}
		if got := v.GetString("log-level"); got != "debug" {
			t.Errorf("log-level = %q, want debug from TESTAPP_LOG_LEVEL", got)
		}
	})
	t.Run("flag over env", func(t *testing.T) {
		t.Setenv("TESTAPP_LISTEN", ":7100")
		v := mustLoad(t, "serve", "--config", file, "--listen", ":7200")
		if got := v.GetString("listen"); got != ":7200" {
			t.Errorf("listen = %q, want :7200 from the flag", got)
		}
		if got := v.GetString("log-level"); got != "warn" {
			t.Errorf("log-level = %q, want warn from the file", got)
		}
	})
	t.Run("config file from environment", func(t *testing.T) {
		t.Setenv("TESTAPP_CONFIG", file)
		v := mustLoad(t, "serve")
		if got := v.GetString("listen"); got != ":7000" {
			t.Errorf("listen = %q, want :7000 from TESTAPP_CONFIG's file", got)
		}
	})
}

func TestFileFormats(t *testing.T) {
	for name, content := range map[string]string{
		"c.toml": "listen = \":7300\"\ntrusted-proxies = [\"10.0.0.0/8\", \"192.168.1.1\"]\n",
		"c.json": `{"listen": ":7300", "trusted-proxies": ["10.0.0.0/8", "192.168.1.1"]}`,
		"c.yml":  "listen: \":7300\"\ntrusted-proxies:\n  - 10.0.0.0/8\n  - 192.168.1.1\n",
	} {
		t.Run(name, func(t *testing.T) {
			v := mustLoad(t, "serve", "--config", mustWrite(t, name, content))
			r := config.NewReader(v, "TESTAPP")
			if got := r.ListenAddr("listen"); got != ":7300" {
				t.Errorf("listen = %q", got)
			}
			got := r.Prefixes("trusted-proxies")
			want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.168.1.1/32")}
			if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
				t.Errorf("trusted-proxies = %v, want %v", got, want)
			}
			if err := r.Err(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestFileErrors(t *testing.T) {
	cases := []struct {
		name, file, content, want string
	}{
		{"unknown key", "c.yaml", "lisen: \":1\"\n", `unknown key "lisen"`},
		{"bad extension", "c.ini", "listen=:1\n", `unsupported extension ".ini"`},
		{"bad yaml", "c.yaml", "listen: [\n", "c.yaml"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(t, "serve", "--config", mustWrite(t, tc.file, tc.content))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		_, err := load(t, "serve", "--config", filepath.Join(t.TempDir(), "nope.yaml"))
		if !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("err = %v, want not exist", err)
		}
	})
}

func TestReaderValues(t *testing.T) {
	t.Setenv("TESTAPP_TRUSTED_PROXIES", "10.0.0.0/8, 172.16.0.0/12 ::1")
	t.Setenv("TESTAPP_SHUTDOWN_TIMEOUT", "45")
	v := mustLoad(t, "serve", "--log-level", "DEBUG")
	r := config.NewReader(v, "TESTAPP")
	if got := r.OneOf("log-level", "debug", "info"); got != "debug" {
		t.Errorf("log-level = %q", got)
	}
	if got := r.Duration("shutdown-timeout", 0, time.Hour); got != 45*time.Second {
		t.Errorf("shutdown-timeout = %v, want 45s (a bare number is seconds)", got)
	}
	t.Setenv("TESTAPP_SHUTDOWN_TIMEOUT", "2d")
	if got := r.Duration("shutdown-timeout", 0, 72*time.Hour); got != 48*time.Hour {
		t.Errorf("shutdown-timeout = %v, want 48h (2d is two days)", got)
	}
	if got := r.Prefixes("trusted-proxies"); len(got) != 3 || got[2] != netip.MustParsePrefix("::1/128") {
		t.Errorf("trusted-proxies = %v", got)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}

	t.Run("flag list", func(t *testing.T) {
		v := mustLoad(t, "serve", "--trusted-proxies", "10.0.0.0/8,192.168.0.0/16", "--trusted-proxies", "127.0.0.1")
		r := config.NewReader(v, "TESTAPP")
		if got := r.Prefixes("trusted-proxies"); len(got) != 3 {
			t.Errorf("trusted-proxies = %v, want 3 prefixes", got)
		}
	})
}

func TestReaderErrorsNameTheKey(t *testing.T) {
	t.Setenv("TESTAPP_SHUTDOWN_TIMEOUT", "soon")
	t.Setenv("TESTAPP_TRUSTED_PROXIES", "10.0.0.0/33")
	v := mustLoad(t, "serve", "--log-level", "loud", "--listen", "8080")
	r := config.NewReader(v, "TESTAPP")
	r.OneOf("log-level", "debug", "info", "warn", "error")
	r.Duration("shutdown-timeout", 0, time.Hour)
	r.Prefixes("trusted-proxies")
	r.ListenAddr("listen")
	err := r.Err()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`log-level (--log-level, TESTAPP_LOG_LEVEL): "loud" is not one of debug, info, warn, error`,
		`shutdown-timeout (--shutdown-timeout, TESTAPP_SHUTDOWN_TIMEOUT): "soon" is not a duration`,
		`trusted-proxies (--trusted-proxies, TESTAPP_TRUSTED_PROXIES): "10.0.0.0/33"`,
		`listen (--listen, TESTAPP_LISTEN): "8080" is not host:port`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error\n%v\ndoes not contain\n%s", err, want)
		}
	}
	if ke := config.AsKeyError(err); ke == nil || ke.Key != "log-level" {
		t.Errorf("AsKeyError = %+v, want the log-level error", ke)
	}
}

func TestReaderURLRedactsPassword(t *testing.T) {
	v := viper.New()
	v.Set("database-url", "mysql://user:hunter2@db/x")
	r := config.NewReader(v, "TESTAPP")
	r.URL("database-url", "postgres", "postgresql")
	err := r.Err()
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("err = %v, want an error without the password", err)
	}
}

func TestSetKey(t *testing.T) {
	root := &cobra.Command{Use: "app"}
	var got *viper.Viper
	admin := &cobra.Command{
		Use: "admin",
		RunE: func(cmd *cobra.Command, _ []string) error {
			v, err := config.Load(cmd, "TESTAPP", "", nil)
			got = v
			return err
		},
	}
	admin.Flags().String("username", "admin", "user")
	if err := config.SetKey(admin.Flags(), "username", "admin-username"); err != nil {
		t.Fatal(err)
	}
	root.AddCommand(admin)

	t.Setenv("TESTAPP_ADMIN_USERNAME", "from-env")
	root.SetArgs([]string{"admin"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if u := got.GetString("admin-username"); u != "from-env" {
		t.Errorf("admin-username = %q, want from-env (TESTAPP_ADMIN_USERNAME)", u)
	}
	root.SetArgs([]string{"admin", "--username", "from-flag"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if u := got.GetString("admin-username"); u != "from-flag" {
		t.Errorf("admin-username = %q, want from-flag", u)
	}
}
