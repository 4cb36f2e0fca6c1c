// Package linkctl is the command line of the link-management API
// (docs/api/links.md), built on pkg/client: "linkctl domains list",
// "linkctl links import links.csv" and so on. cmd/linkctl only wires Main
// to the process.
//
// Every command follows the same shape: an options struct filled by its
// flags and the global settings, and a run function that tests call. Output
// is a table on a terminal and JSON otherwise (or as --output says).
//
// Settings come from flags, then LINKCTL_* environment variables, then the
// chosen profile of the config file, then defaults (see docs/linkctl.md).
package linkctl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/internal/cliout"
	"github.com/seedhq/portal/internal/cmdutil"
	"github.com/seedhq/portal/pkg/client"
)

// Build information, set by cmd/linkctl from its -ldflags -X values.
var (
	Version = "dev"
	Commit  = "none"
	Date    = "unknown"
)

// Exit statuses of Main.
const (
	ExitOK          = 0
	ExitError       = 1                 // any other error, and an import with failed rows
	ExitUsage       = cmdutil.ExitUsage // a mistake on the command line or in the settings
	ExitAuth        = 3                 // 401: no or bad API key
	ExitNotFound    = 4                 // 404: no such record, or not the caller's
	ExitRateLimited = 5                 // 429: rate limited, retries used up
)

// IO holds the standard streams a command reads and writes; tests pass
// buffers.
type IO struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// errSilent is returned by commands that already reported their failure
// (an import with failed rows): Main prints nothing more and exits 1.
var errSilent = errors.New("failed")

// Main runs linkctl with args and returns the process exit status (see the
// Exit* constants); errors are printed on stderr as "error: ...".
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := NewRootCmd(IO{In: stdin, Out: stdout, ErrOut: stderr})
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	code := exitCode(err)
	if !errors.Is(err, errSilent) {
		fmt.Fprintln(stderr, "error: "+humanError(err))
	}
	if code == ExitUsage {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", root.Name())
	}
	return code
}

// exitCode maps err to an exit status.
func exitCode(err error) int {
	if cmdutil.IsUsageError(err) {
		return ExitUsage
	}
	switch {
	case errors.Is(err, client.ErrUnauthorized):
		return ExitAuth
	case errors.Is(err, client.ErrNotFound):
		return ExitNotFound
	case errors.Is(err, client.ErrRateLimited):
		return ExitRateLimited
	}
	return ExitError
}

// humanError turns err into one line for people: the API's code and
// message, and a hint for the usual mistakes.
func humanError(err error) string {
	var ce *client.Error
	if errors.As(err, &ce) {
		msg := ce.Message
		if ce.Code != "" {
			msg = ce.Code + ": " + msg
		} else {
			msg = fmt.Sprintf("HTTP %d: %s", ce.Status, msg)
		}
		switch {
		case ce.Status == 401:
			msg += " (check --api-key, LINKCTL_API_KEY or the profile's api_key)"
		case ce.Status == 429 && ce.RetryAfter > 0:
			msg += fmt.Sprintf(" (retry in %s)", ce.RetryAfter.Round(time.Second))
		case ce.Status == 404 && ce.Code == "":
			msg += " (is --api-url the portal's root address?)"
		}
		return msg
	}
	if msg, ok := cliout.NetworkError(err); ok {
		return msg
	}
	return err.Error()
}

// NewRootCmd builds the command tree of linkctl.
func NewRootCmd(s IO) *cobra.Command {
	g := &Globals{IO: s}
	root := &cobra.Command{
		Use:   "linkctl",
		Short: "Manage short links, QR codes, domains and more through the link API",
		Long: `linkctl manages the short links, QR codes, branded domains, campaigns,
channels and pixels of a link-API user (docs/api/links.md).

Settings come from flags, then LINKCTL_* environment variables (LINKCTL_API_URL,
LINKCTL_API_KEY, LINKCTL_PROFILE, LINKCTL_OUTPUT), then the chosen profile of
the config file (--config, default $XDG_CONFIG_HOME/linkctl/config.yaml), then
defaults. Results print as a table on a terminal and as JSON otherwise, or as
--output says.

Exit status: 0 ok, 1 error, 2 usage, 3 bad or missing API key (401),
4 not found (404), 5 rate limited (429).`,
		Example: `  linkctl config set-profile work --api-url https://portal.example.org --api-key lk_...
  linkctl links list --all
  linkctl links add https://example.org/page --custom promo
  linkctl links import links.csv
  linkctl links export links.csv`,
		Version:       fmt.Sprintf("linkctl %s (commit %s, built %s, %s %s/%s)", Version, Commit, Date, runtime.Version(), runtime.GOOS, runtime.GOARCH),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return g.load(cmd)
		},
	}
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.ErrOut)
	root.SetVersionTemplate("{{.Version}}\n")
	g.addFlags(root)

	root.AddCommand(
		newConfigCmd(g),
		newAccountCmd(g),
		newDomainsCmd(g),
		newLinksCmd(g),
		newQRCmd(g),
		newCampaignsCmd(g),
		newChannelsCmd(g),
		newPixelsCmd(g),
		newOverlaysCmd(g),
		newSplashCmd(g),
	)
	// cobra's own "completion bash|zsh|fish|powershell".
	root.CompletionOptions.HiddenDefaultCmd = false
	root.InitDefaultCompletionCmd()
	cmdutil.Strict(root)
	return root
}

// parseID parses a record id argument.
func parseID(name, s string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || id <= 0 {
		return 0, cmdutil.Usagef("%s %q is not a positive integer", name, s)
	}
	return id, nil
}

// exactArgs is cobra.ExactArgs with a message naming the arguments.
func exactArgs(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != len(names) {
			return cmdutil.Usagef("%s takes %d argument(s): %s", cmd.CommandPath(), len(names), strings.Join(names, " "))
		}
		return nil
	}
}
