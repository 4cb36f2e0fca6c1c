package main

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/internal/cmdutil"
	"github.com/seedhq/portal/internal/config"
)

// Set at build time with -ldflags "-X main.version=... -X main.commit=... -X main.date=...".
var (
	version = "dev"
	commit  = "none"
	date    = "unknown"
)

// envPrefix prefixes every environment variable of the portal binary.
const envPrefix = "PORTAL"

// streams are the standard streams a command reads and writes; tests pass
// buffers.
type streams struct {
	in     io.Reader
	out    io.Writer
	errOut io.Writer
}

// Main runs the portal command line with args and returns the process exit
// status: 0 on success, 2 on a usage error, 1 on any other error (printed on
// stderr as "error: ...").
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd(streams{in: stdin, out: stdout, errOut: stderr})
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "error: "+humanError(err))
	if cmdutil.IsUsageError(err) {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", root.Name())
		return cmdutil.ExitUsage
	}
	return 1
}

// newRootCmd builds the command tree of the portal binary.
func newRootCmd(s streams) *cobra.Command {
	root := &cobra.Command{
		Use:   "portal",
		Short: "Exam synchronisation portal: serve the API, migrate the database, administer",
		Long: `portal serves the exam synchronisation API that schools' lab servers pull exam
packages from and push answers to, and that operators manage licences, exams
and members with.

Settings come from flags, then PORTAL_* environment variables, then a config
file (--config, YAML, TOML or JSON), then defaults. See docs/configuration.md.`,
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(s.in)
	root.SetOut(s.out)
	root.SetErr(s.errOut)
	root.PersistentFlags().String(config.FlagConfig, "", "config file (.yaml, .yml, .toml or .json; env PORTAL_CONFIG)")
	root.SetVersionTemplate("{{.Version}}\n")

	root.AddCommand(
		newServeCmd(s),
		newMigrateCmd(s),
		newBackupCmd(s),
		newAdminCmd(s),
		newVersionCmd(s),
	)
	cmdutil.Strict(root)
	return root
}

// loadConfig loads the configuration of cmd with the PORTAL prefix.
func loadConfig(cmd *cobra.Command, defaults map[string]any) (*config.Reader, error) {
	file, _ := cmd.Flags().GetString(config.FlagConfig)
	v, err := config.Load(cmd, envPrefix, file, defaults)
	if err != nil {
		return nil, err
	}
	return config.NewReader(v, envPrefix), nil
}

func versionString() string {
	return fmt.Sprintf("portal %s (commit %s, built %s, %s %s/%s)", version, commit, date, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func newVersionCmd(s streams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(s.out, versionString())
			return err
		},
	}
}
