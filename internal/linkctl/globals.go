package linkctl

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/seedhq/portal/internal/cliout"
	"github.com/seedhq/portal/internal/cmdutil"
	"github.com/seedhq/portal/internal/config"
	"github.com/seedhq/portal/pkg/client"
)

// EnvPrefix prefixes every environment variable of linkctl.
const EnvPrefix = "LINKCTL"

// Output formats.
const (
	outputAuto  = cliout.Auto
	outputTable = cliout.Table
	outputJSON  = cliout.JSON
)

// rateLimitRetries is how many times a 429 answer is waited out per call.
const rateLimitRetries = 10

// Globals are the settings every command shares, resolved once before the
// command runs.
type Globals struct {
	IO

	APIURL     string
	APIKey     string
	Profile    string // the profile used, "" for none
	ConfigFile string
	Output     string // outputAuto, outputTable or outputJSON
	All        bool
	Limit      int
	Page       int
	Timeout    time.Duration
	// NoWait fails at once on a 429 instead of waiting for the rate limit.
	NoWait bool
	// IdempotencyKey, when set, is the Idempotency-Key of the command's
	// creating call ("links import": of each row, KEY-row-N), so that the
	// same command run again creates nothing twice. Without it each
	// creating call has a random key of its own, kept over its retries.
	IdempotencyKey string

	// NewClient returns the API client; tests may replace it.
	NewClient func() (*client.Client, error)
}

// addFlags declares the global flags on root.
func (g *Globals) addFlags(root *cobra.Command) {
	f := root.PersistentFlags()
	f.String("api-url", "", "root address of the portal, e.g. https://portal.example.org (env LINKCTL_API_URL)")
	f.String("api-key", "", "API key of the link user (env LINKCTL_API_KEY; prefer the environment or a profile)")
	f.String("profile", "", "profile of the config file to use (env LINKCTL_PROFILE; default: the file's default_profile)")
	f.String(config.FlagConfig, "", "config file (env LINKCTL_CONFIG; default $XDG_CONFIG_HOME/linkctl/config.yaml)")
	f.StringP("output", "o", "", "output format: table or json (env LINKCTL_OUTPUT; default: table on a terminal, else json)")
	f.Bool("all", false, "lists: fetch every page")
	f.Bool("no-wait", false, "fail at once (exit 5) when the rate limit is reached, instead of waiting for it")
	f.Int("limit", 0, "lists: records per page, 1 to 1000 (default: the portal's, 10)")
	f.Int("page", 0, "lists: the page to fetch, from 1")
	f.Duration("timeout", 0, "time limit of the command (0: none)")
	f.String("idempotency-key", "", "creating commands: the Idempotency-Key to send, so that running the same command again\n"+
		"(after a cut connection or a crash) creates nothing twice within 24 hours; links import sends KEY-row-N for row N")
	_ = root.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{outputTable, outputJSON}, cobra.ShellCompDirectiveNoFileComp
	})
	_ = root.RegisterFlagCompletionFunc("profile", func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		file, _ := cmd.Flags().GetString(config.FlagConfig)
		if file == "" {
			file = defaultConfigFile()
		}
		cf, err := readConfigFile(file)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var names []string
		for n := range cf.Profiles {
			names = append(names, n)
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	})
}

// defaultConfigFile returns $XDG_CONFIG_HOME/linkctl/config.yaml (or the
// platform's user config directory).
func defaultConfigFile() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		d, err := os.UserConfigDir()
		if err != nil {
			return ""
		}
		dir = d
	}
	return filepath.Join(dir, "linkctl", "config.yaml")
}

// configFile is the content of the config file.
type configFile struct {
	DefaultProfile string             `mapstructure:"default_profile" yaml:"default_profile,omitempty"`
	Profiles       map[string]profile `mapstructure:"profiles" yaml:"profiles,omitempty"`
}

// profile is one named profile of the config file.
type profile struct {
	APIURL string `mapstructure:"api_url" yaml:"api_url,omitempty"`
	APIKey string `mapstructure:"api_key" yaml:"api_key,omitempty"`
}

// readConfigFile reads a YAML config file; a missing file is empty.
func readConfigFile(file string) (*configFile, error) {
	v := viper.New()
	if err := readConfigInto(v, file); err != nil {
		return nil, err
	}
	return decodeConfig(v, file)
}

// readConfigInto reads file into v; a missing file reads nothing and is not
// an error.
func readConfigInto(v *viper.Viper, file string) error {
	if file == "" {
		return nil
	}
	v.SetConfigType("yaml")
	f, err := os.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	defer f.Close()
	if err := v.ReadConfig(f); err != nil {
		return fmt.Errorf("config file %s: %w", file, err)
	}
	return nil
}

// decodeConfig checks the keys of the file read into v and decodes them.
func decodeConfig(v *viper.Viper, file string) (*configFile, error) {
	for _, k := range v.AllKeys() {
		if !v.InConfig(k) {
			continue
		}
		parts := strings.Split(k, ".")
		ok := k == "default_profile" ||
			(len(parts) == 3 && parts[0] == "profiles" && (parts[2] == "api_url" || parts[2] == "api_key"))
		if !ok {
			return nil, &cmdutil.UsageError{Err: fmt.Errorf("config file %s: unknown key %q (known: default_profile, profiles.NAME.api_url, profiles.NAME.api_key)", file, k)}
		}
	}
	cf := &configFile{DefaultProfile: v.GetString("default_profile"), Profiles: map[string]profile{}}
	for name := range v.GetStringMap("profiles") {
		cf.Profiles[name] = profile{
			APIURL: v.GetString("profiles." + name + ".api_url"),
			APIKey: v.GetString("profiles." + name + ".api_key"),
		}
	}
	return cf, nil
}

// load resolves the global settings of cmd: flags > LINKCTL_* environment
// > the profile of the config file > defaults.
func (g *Globals) load(cmd *cobra.Command) error {
	v := viper.New()
	v.SetEnvPrefix(EnvPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_", ".", "_"))
	v.AutomaticEnv()
	for _, name := range []string{"api-url", "api-key", "profile", "output", "all", "no-wait", "limit", "page", "timeout"} {
		if err := v.BindPFlag(name, cmd.Flags().Lookup(name)); err != nil {
			return fmt.Errorf("config: bind --%s: %w", name, err)
		}
	}
	g.ConfigFile, _ = cmd.Flags().GetString(config.FlagConfig)
	// A missing file is empty: "config set-profile" creates it.
	if g.ConfigFile == "" {
		g.ConfigFile = os.Getenv(EnvPrefix + "_CONFIG")
	}
	if g.ConfigFile == "" {
		g.ConfigFile = defaultConfigFile()
	}
	if err := readConfigInto(v, g.ConfigFile); err != nil {
		return &cmdutil.UsageError{Err: err}
	}
	cf, err := decodeConfig(v, g.ConfigFile)
	if err != nil {
		return err
	}

	r := config.NewReader(v, EnvPrefix)
	g.Profile = r.String("profile")
	if g.Profile == "" {
		g.Profile = cf.DefaultProfile
	}
	if g.Profile != "" {
		p, ok := cf.Profiles[g.Profile]
		if !ok {
			return cmdutil.Usagef("profile %q is not in the config file %s (add it with: linkctl config set-profile %s --api-url URL --api-key KEY)", g.Profile, g.ConfigFile, g.Profile)
		}
		// The profile's values rank below flags and the environment.
		v.SetDefault("api-url", p.APIURL)
		v.SetDefault("api-key", p.APIKey)
	}
	if u := r.URL("api-url", "http", "https"); u != nil {
		g.APIURL = u.String()
	}
	g.APIKey = strings.TrimSpace(v.GetString("api-key"))
	if r.String("output") != "" {
		g.Output = r.OneOf("output", outputTable, outputJSON)
	}
	g.All = r.Bool("all")
	g.NoWait = r.Bool("no-wait")
	g.Limit = r.Int("limit", 0, 1000)
	g.Page = r.Int("page", 0, 1<<30)
	g.Timeout = r.Duration("timeout", 0, 24*time.Hour)
	// The key is a flag only: in the environment or a profile it would be
	// sent by every command, and a second creation would be refused.
	g.IdempotencyKey, _ = cmd.Flags().GetString("idempotency-key")
	if k := g.IdempotencyKey; k != "" && !validCommandKey(k) {
		return cmdutil.Usagef("--idempotency-key must be 1 to %d printable ASCII characters", maxCommandKey)
	}
	if err := r.Err(); err != nil {
		return &cmdutil.UsageError{Err: err}
	}
	if g.NewClient == nil {
		g.NewClient = g.newClient
	}
	return nil
}

// newClient returns a client for the API URL and key, which waits out rate
// limits (429) before giving up.
func (g *Globals) newClient() (*client.Client, error) {
	if g.APIURL == "" {
		return nil, cmdutil.Usagef("no API URL: set --api-url, LINKCTL_API_URL or a profile (linkctl config set-profile)")
	}
	if g.APIKey == "" {
		return nil, cmdutil.Usagef("no API key: set LINKCTL_API_KEY, --api-key or a profile (linkctl config set-profile)")
	}
	retries := rateLimitRetries
	if g.NoWait {
		retries = 0
	}
	return client.NewClient(g.APIURL,
		client.WithLinkKey(g.APIKey),
		client.WithHTTPClient(retryingHTTPClient()),
		client.WithRateLimitRetry(retries),
		client.WithUserAgent("linkctl/"+Version))
}

// maxCommandKey is the longest --idempotency-key: the portal takes 200
// characters, and links import adds "-row-N".
const maxCommandKey = 180

// validCommandKey reports whether k is 1 to maxCommandKey printable ASCII
// characters.
func validCommandKey(k string) bool {
	if len(k) > maxCommandKey || strings.TrimSpace(k) == "" {
		return false
	}
	for _, c := range []byte(k) {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// retryingHTTPClient sends a request again, up to 4 times with a growing
// wait (Retry-After when the portal gives one), when the connection fails
// or a proxy or the portal answers 502, 503 or 504. That is safe for every
// call linkctl makes: reads, updates and deletes repeat harmlessly, and
// creating calls carry an Idempotency-Key. 429 is left to the client's own
// rate-limit wait (--no-wait).
func retryingHTTPClient() *http.Client {
	rc := retryablehttp.NewClient()
	rc.RetryMax = 4
	rc.RetryWaitMin, rc.RetryWaitMax = 500*time.Millisecond, 10*time.Second
	rc.Logger = nil
	rc.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if err != nil || ctx.Err() != nil {
			return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
		}
		switch resp.StatusCode {
		case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return true, nil
		}
		return false, nil
	}
	// The last answer is passed on as it is, so that its error envelope
	// reaches the user.
	rc.ErrorHandler = retryablehttp.PassthroughErrorHandler
	return rc.StandardClient()
}

// printer returns the printer of the chosen output format on stdout.
func (g *Globals) printer() *printer { return newPrinter(g.Out, g.Output) }

// listOptions returns the paging options of the global flags.
func (g *Globals) listOptions() *client.LinkListOptions {
	return &client.LinkListOptions{Page: g.Page, Limit: g.Limit}
}

// apiRun wraps a command's run function: it bounds the context by the
// timeout and builds the client.
func (g *Globals) apiRun(run func(ctx context.Context, c *client.Client, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		if g.Timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, g.Timeout)
			defer cancel()
		}
		c, err := g.NewClient()
		if err != nil {
			return err
		}
		if g.IdempotencyKey != "" {
			ctx = client.WithIdempotencyKey(ctx, g.IdempotencyKey)
		}
		return run(ctx, c, args)
	}
}

// fetchList returns one page of a list (--page, --limit) or, with --all,
// every page.
func fetchList[T any](ctx context.Context, g *Globals,
	page func(context.Context, *client.LinkListOptions) ([]*T, *client.Response, error),
	all func(context.Context, *client.LinkListOptions) iter.Seq2[*T, error]) ([]*T, error) {
	opts := g.listOptions()
	if !g.All {
		items, _, err := page(ctx, opts)
		return items, err
	}
	if opts.Limit == 0 {
		opts.Limit = 100
	}
	out := []*T{}
	for it, err := range all(ctx, opts) {
		if err != nil {
			return nil, err
		}
		out = append(out, it)
	}
	return out, nil
}
