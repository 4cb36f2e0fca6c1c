package linkctl

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/internal/cmdutil"
	"github.com/seedhq/portal/pkg/client"
)

func newAccountCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{Use: "account", Short: "Show or change your account"}
	cmd.AddCommand(
		&cobra.Command{
			Use:   "get",
			Short: "Show your account",
			Args:  cobra.NoArgs,
			RunE: g.apiRun(func(ctx context.Context, c *client.Client, _ []string) error {
				return runAccountGet(ctx, g, c)
			}),
		},
		newAccountUpdateCmd(g),
	)
	return cmd
}

// runAccountGet prints the caller's account.
func runAccountGet(ctx context.Context, g *Globals, c *client.Client) error {
	a, _, err := c.Links.Account.Get(ctx)
	if err != nil {
		return err
	}
	return g.printer().Print(a, func(t *table) {
		t.Row("ID", "USERNAME", "EMAIL", "PLAN", "EXPIRES", "REGISTERED")
		t.Row(a.ID, a.Username, a.Email, a.Status, a.Expires, a.Registered)
	})
}

// accountUpdateOptions are the options of "account update".
type accountUpdateOptions struct {
	*Globals
	Email, Password       string
	SetEmail, SetPassword bool
}

func newAccountUpdateCmd(g *Globals) *cobra.Command {
	o := &accountUpdateOptions{Globals: g}
	cmd := &cobra.Command{
		Use:   "update [--email EMAIL] [--password PASSWORD]",
		Short: "Change your email, password or both",
		Args:  cobra.NoArgs,
		RunE: g.apiRun(func(ctx context.Context, c *client.Client, _ []string) error {
			return runAccountUpdate(ctx, o, c)
		}),
	}
	cmd.Flags().StringVar(&o.Email, "email", "", "new email")
	cmd.Flags().StringVar(&o.Password, "password", "", "new password")
	cmd.PreRun = func(cmd *cobra.Command, _ []string) {
		o.SetEmail, o.SetPassword = cmd.Flags().Changed("email"), cmd.Flags().Changed("password")
	}
	return cmd
}

// runAccountUpdate changes the caller's account.
func runAccountUpdate(ctx context.Context, o *accountUpdateOptions, c *client.Client) error {
	u := &client.LinkAccountUpdate{}
	if o.SetEmail {
		u.Email = &o.Email
	}
	if o.SetPassword {
		u.Password = &o.Password
	}
	if u.Email == nil && u.Password == nil {
		return cmdutil.Usagef("nothing to change: give --email, --password or both")
	}
	if _, err := c.Links.Account.Update(ctx, u); err != nil {
		return err
	}
	return o.printer().Done(map[string]string{"message": "Account has been successfully updated."}, "account updated")
}
