package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/seedhq/portal/internal/cliout"
	"github.com/seedhq/portal/internal/cmdutil"
	"github.com/seedhq/portal/internal/config"
	"github.com/seedhq/portal/pkg/client"
)

// adminOptions are the settings every "portal admin" command shares, and
// the client it talks to the portal with.
type adminOptions struct {
	streams
	URL      string
	Username string
	Password string
	Token    string
	Output   string // outputAuto, outputTable or outputJSON
	Timeout  time.Duration

	// newClient returns a signed-in client; tests may replace it.
	newClient func(ctx context.Context) (*client.Client, error)
}

// adminDefaults are keys of the admin commands whose flag names differ.
var adminDefaults = map[string]any{
	"admin-username": "admin",
	"admin-password": "",
}

func newAdminCmd(s streams) *cobra.Command {
	opts := &adminOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "admin",
		Short: "Operator tasks through the portal's HTTP API",
		Long: `Operator tasks against a running portal, through its HTTP API.

Each command signs in with --username/--password (PORTAL_ADMIN_USERNAME,
PORTAL_ADMIN_PASSWORD) or uses --token (PORTAL_TOKEN, from "portal admin
login"). Results print as a table on a terminal and as JSON otherwise, or as
--output says.`,
		Example: `  export PORTAL_URL=http://127.0.0.1:8080 PORTAL_ADMIN_PASSWORD=$(cat data/initial-admin-password)
  portal admin license generate --npsn 20100001 --school "SMA Negeri 1" --hardware-id HW-1
  portal admin members import students.csv --npsn 20100001
  portal admin exam create --file exam.json
  portal admin monitors --status offline`,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return opts.load(cmd)
		},
	}
	f := cmd.PersistentFlags()
	f.String("url", "http://127.0.0.1:8080", "base URL of the portal (env PORTAL_URL)")
	f.String("username", "admin", "operator username (env PORTAL_ADMIN_USERNAME)")
	f.String("password", "", "operator password (env PORTAL_ADMIN_PASSWORD; prefer the environment)")
	f.String("token", "", "operator token from 'portal admin login', instead of a password (env PORTAL_TOKEN)")
	f.String("output", "", "output format: table or json (default: table on a terminal, else json); csv for exports such as exam answers")
	f.Duration("timeout", 5*time.Minute, "time limit of the command")
	mustSetKey(f, "username", "admin-username")
	mustSetKey(f, "password", "admin-password")

	cmd.AddCommand(
		newAdminLoginCmd(opts),
		newLicenseCmd(opts),
		newServerCmd(opts),
		newExamCmd(opts),
		newMembersCmd(opts),
		newMemberCmd(opts),
		newLoginCardsCmd(opts),
		newAcademicYearCmd(opts),
		newAPIKeyCmd(opts),
		newGraderCmd(opts),
		newMonitorsCmd(opts),
		newSyncLogsCmd(opts),
		newLinkUserCmd(opts),
		newImportAnswersCmd(opts),
		newOrderingCmd(opts),
		newBlobsCmd(opts),
	)
	return cmd
}

// mustSetKey makes a flag set the configuration key key (see config.SetKey).
func mustSetKey(fs *pflag.FlagSet, flag, key string) {
	if err := config.SetKey(fs, flag, key); err != nil {
		panic(err)
	}
}

// load reads and validates the admin settings.
func (o *adminOptions) load(cmd *cobra.Command) error {
	r, err := loadConfig(cmd, adminDefaults)
	if err != nil {
		return err
	}
	if u := r.URL("url", "http", "https"); u != nil {
		o.URL = u.String()
	} else if r.String("url") == "" {
		r.Fail("url", "is required")
	}
	o.Username = r.String("admin-username")
	o.Password = r.Viper().GetString("admin-password")
	o.Token = r.String("token")
	o.Timeout = r.Duration("timeout", time.Second, 24*time.Hour)
	if r.String("output") != "" {
		o.Output = r.OneOf("output", outputTable, outputJSON, outputCSV)
	}
	if o.newClient == nil {
		o.newClient = o.signIn
	}
	return r.Err()
}

// printer returns the printer of the chosen output format.
func (o *adminOptions) printer() *printer { return newPrinter(o.out, o.Output) }

// context returns the command's context bounded by the timeout.
func (o *adminOptions) context(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	return context.WithTimeout(cmd.Context(), o.Timeout)
}

// errNoCredentials is returned when neither a token nor a password is set.
var errNoCredentials = errors.New("no credentials: set PORTAL_ADMIN_PASSWORD (or --password) or PORTAL_TOKEN (or --token)")

// signIn returns a client for o.URL carrying o.Token, or else the token of a
// login with o.Username and o.Password.
func (o *adminOptions) signIn(ctx context.Context) (*client.Client, error) {
	c, err := client.NewClient(o.URL, client.WithUserAgent("portal-admin/"+version))
	if err != nil {
		return nil, err
	}
	if o.Token != "" {
		c.SetToken(o.Token)
		return c, nil
	}
	if o.Password == "" {
		return nil, errNoCredentials
	}
	res, _, err := c.Exam.Auth.Login(ctx, o.Username, o.Password)
	if err != nil {
		return nil, fmt.Errorf("sign in as %q: %w", o.Username, err)
	}
	c.SetToken(res.Token)
	return c, nil
}

// adminRun wraps a command's run function: it builds the signed-in client
// within the time limit.
func (o *adminOptions) adminRun(run func(ctx context.Context, c *client.Client, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if o.Output == outputCSV && cmd.Annotations[csvOutput] == "" {
			return &cmdutil.UsageError{Err: fmt.Errorf("--output csv is for exports (portal admin exam answers); %s prints table or json", cmd.CommandPath())}
		}
		ctx, cancel := o.context(cmd)
		defer cancel()
		c, err := o.newClient(ctx)
		if err != nil {
			return err
		}
		return run(ctx, c, args)
	}
}

func newAdminLoginCmd(o *adminOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "login",
		Short: "Sign in and print an operator token (valid 12 hours)",
		Long: `Sign in with --username/--password and print the operator token, to use
as PORTAL_TOKEN (or --token) in later commands:

  export PORTAL_TOKEN=$(portal admin login)

With --output json it prints the token, its expiry and the user.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := o.context(cmd)
			defer cancel()
			if o.Password == "" {
				return errors.New("no password: set PORTAL_ADMIN_PASSWORD (or --password)")
			}
			c, err := client.NewClient(o.URL, client.WithUserAgent("portal-admin/"+version))
			if err != nil {
				return err
			}
			res, _, err := c.Exam.Auth.Login(ctx, o.Username, o.Password)
			if err != nil {
				return err
			}
			if o.Output == outputJSON {
				return o.printer().Print(res, nil)
			}
			_, err = fmt.Fprintln(o.out, res.Token)
			return err
		},
	}
}

// humanError turns err into one line for people: the code and message of
// portal errors, and a hint for the usual mistakes.
func humanError(err error) string {
	var conflict *client.GradeConflictError
	if errors.As(err, &conflict) && conflict.Current != nil {
		cur := conflict.Current
		return fmt.Sprintf("%s\nthe grade now is %g points by %s (version %d, %s): to replace it, save again with --version %d",
			humanError(conflict.Err), cur.Points, cur.GraderUsername, cur.Version, cur.Comment, cur.Version)
	}
	var ce *client.Error
	if errors.As(err, &ce) {
		msg := ce.Message
		if ce.Code != "" {
			msg = ce.Code + ": " + msg
		} else {
			msg = fmt.Sprintf("HTTP %d: %s", ce.Status, msg)
		}
		switch ce.Code {
		case client.CodeTokenExpired, client.CodeUnauthorized:
			msg += " (sign in again: portal admin login)"
		case client.CodeTooManyAttempts:
			if ce.RetryAfter > 0 {
				msg += fmt.Sprintf(" (retry in %s)", ce.RetryAfter.Round(time.Second))
			}
		}
		if ce.Code == "" && ce.Status == 404 {
			msg += " (is --url the portal's root address?)"
		}
		return msg
	}
	if msg, ok := cliout.NetworkError(err); ok {
		return msg
	}
	return err.Error()
}

// exactArgs is cobra.ExactArgs with a message naming the arguments.
func exactArgs(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != len(names) {
			return &cmdutil.UsageError{Err: fmt.Errorf("%s takes %d argument(s): %s", cmd.CommandPath(), len(names), strings.Join(names, " "))}
		}
		return nil
	}
}
