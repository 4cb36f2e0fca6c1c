// Command labagent runs on a school's lab server. "labagent hardware-id"
// prints the id the operator binds the licence to; "labagent enroll" checks
// the school's licence against the portal's public key, performs the first
// handshake and writes the agent's configuration; "labagent run" serves the
// exam on the LAN and syncs with the portal; "labagent status", "push --now"
// and "export" inspect it and get the answers out. On Windows, "labagent
// service install" runs it as a Windows service.
//
// Flags win over LABAGENT_* environment variables, which win over the file
// given with --config.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/cmdutil"
	"github.com/seedhq/portal/internal/config"
)

var version = "dev"

const envPrefix = "LABAGENT"

func main() {
	if code, ok := runAsService(os.Args[1:]); ok {
		os.Exit(code)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Main runs labagent with args and returns the process exit code: 0 on
// success, 2 on a mistake on the command line, 1 on any other error.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		if cmdutil.IsUsageError(err) {
			return cmdutil.ExitUsage
		}
		return 1
	}
	return 0
}

// newRootCmd builds the command tree of labagent.
func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "labagent",
		Short:         "The lab server's agent of the exam portal",
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().String(config.FlagConfig, "", "config file (YAML, TOML or JSON)")
	root.PersistentFlags().String("data-dir", "./labagent-data", "directory of the agent's state and configuration")
	root.AddCommand(newEnrollCmd(stdout), newHardwareIDCmd(stdout), newRunCmd(stderr), newStatusCmd(stdout),
		newPushCmd(stdout, stderr), newExportCmd(stdout))
	if svc := newServiceCmd(stdout); svc != nil {
		root.AddCommand(svc) // Windows
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmdutil.Strict(root)
	return root
}

func newEnrollCmd(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "enroll",
		Short: "Check the licence, handshake once with the portal and write the configuration",
		Example: `  labagent enroll --portal-url https://portal.example.org --server-code LAB-01 \
    --npsn 20100001 --license-file licence.txt`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			file, _ := cmd.Flags().GetString(config.FlagConfig)
			v, err := config.Load(cmd, envPrefix, file, nil)
			if err != nil {
				return err
			}
			r := config.NewReader(v, envPrefix)
			if skip, _ := cmd.Flags().GetBool("skip-if-enrolled"); skip {
				// The installer's enrolment at every install and upgrade:
				// an enrolled data directory is left as it is.
				dir := r.Required("data-dir")
				if err := r.Err(); err != nil {
					return err
				}
				if cfg, err := agent.ReadConfig(dir); err == nil {
					fmt.Fprintf(stdout, "already enrolled as %s (npsn %s) with the portal at %s: %s/%s left as it is\n",
						cfg.ServerCode, cfg.NPSN, cfg.PortalURL, dir, agent.ConfigFile)
					return nil
				}
			}
			o := agent.EnrollOptions{
				PortalURL:    r.Required("portal-url"),
				ServerCode:   r.Required("server-code"),
				NPSN:         r.Required("npsn"),
				HardwareID:   r.String("hardware-id"),
				DataDir:      r.Required("data-dir"),
				LicenseToken: r.String("license-token"),
			}
			if lf := r.String("license-file"); lf != "" && o.LicenseToken == "" {
				b, err := os.ReadFile(lf)
				if err != nil {
					return fmt.Errorf("read licence file: %w", err)
				}
				o.LicenseToken = strings.TrimSpace(string(b))
			}
			if err := r.Err(); err != nil {
				return err
			}
			if o.LicenseToken == "" {
				return errors.New("give the licence with --license-token or --license-file")
			}
			cfg, err := agent.Enroll(cmd.Context(), o)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "enrolled %s (%s, npsn %s) with the portal at %s\n", cfg.ServerCode, cfg.SchoolName, cfg.NPSN, cfg.PortalURL)
			fmt.Fprintf(stdout, "hardware id %s; licence %s valid until %s for %d students\n",
				cfg.HardwareID, cfg.LicenseID, cfg.LicenseEnds.Format("2006-01-02"), cfg.MaxStudents)
			fmt.Fprintf(stdout, "configuration written to %s/%s\n", o.DataDir, agent.ConfigFile)
			return nil
		},
	}
	f := cmd.Flags()
	f.String("portal-url", "", "base URL of the portal, e.g. https://portal.example.org")
	f.String("server-code", "", "this lab server's code (1 to 64 letters, digits, dots, dashes, underscores)")
	f.String("npsn", "", "the school's npsn (8 digits)")
	f.String("license-token", "", "the licence token issued by the operator")
	f.String("license-file", "", "a file holding the licence token")
	f.String("hardware-id", "", "override the hardware id derived from this machine")
	f.Bool("skip-if-enrolled", false, "do nothing when the data directory is already enrolled (the Windows installer's upgrades)")
	return cmd
}

func newHardwareIDCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "hardware-id",
		Short: "Print this machine's hardware id, for the operator who issues its licence",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			id, err := agent.MachineHardwareID()
			if err != nil {
				return err
			}
			fmt.Fprintln(stdout, id)
			return nil
		},
	}
}
