package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/internal/cmdutil"
	"github.com/seedhq/portal/pkg/client"
)

// newLinkUserCmd is "portal admin link-user": users of the link-management
// API, their keys, and the overlays and splash pages operators make for them.
func newLinkUserCmd(o *adminOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "link-user", Aliases: []string{"link-users"}, Short: "Create and list link-management users, rotate their API keys, set their console passwords, add their overlays and splash pages"}

	var req client.LinkUserRequest
	create := &cobra.Command{
		Use:     "create --email EMAIL --account-username NAME",
		Short:   "Create a link-management user; the API key is shown this once only",
		Example: `  portal admin link-user create --email ana@example.org --account-username ana --plan pro --rate-limit 120`,
		Args:    cobra.NoArgs,
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, _ []string) error {
			u, _, err := c.Exam.Admin.CreateLinkUser(ctx, &req)
			if err != nil {
				return err
			}
			out := struct {
				*client.LinkUser
				Key string `json:"key"`
			}{u, u.Key}
			return o.printer().Print(out, func(t *table) {
				t.Row("id", u.ID)
				t.Row("email", u.Email)
				t.Row("username", u.Username)
				t.Row("rate_limit", u.RateLimit)
				t.Row("key", u.Key)
				fmt.Fprintln(o.errOut, "Keep the key now: the portal stores only its hash and cannot show it again.")
			})
		}),
	}
	f := create.Flags()
	f.StringVar(&req.Email, "email", "", "the user's email (required)")
	f.StringVar(&req.Username, "account-username", "", "the new account's username (required; --username is the operator's)")
	f.StringVar(&req.Password, "account-password", "", "the new account's password (optional; --password is the operator's)")
	f.StringVar(&req.Plan, "plan", "", "plan name shown as the account's status")
	f.IntVar(&req.RateLimit, "rate-limit", 0, "requests per minute (0: the default, 30)")
	create.MarkFlagRequired("email")
	create.MarkFlagRequired("account-username")

	var lo client.LinkListOptions
	list := &cobra.Command{
		Use:   "list",
		Short: "List link-management users",
		Args:  cobra.NoArgs,
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, _ []string) error {
			users, _, err := c.Exam.Admin.ListLinkUsers(ctx, &lo)
			if err != nil {
				return err
			}
			return o.printer().Print(nonNil(users), func(t *table) {
				t.Row("ID", "EMAIL", "USERNAME", "PLAN", "RATE LIMIT", "REGISTERED")
				for _, u := range users {
					t.Row(u.ID, u.Email, u.Username, u.Plan, u.RateLimit, u.RegisteredAt)
				}
			})
		}),
	}
	list.Flags().IntVar(&lo.Page, "page", 0, "page (from 1)")
	list.Flags().IntVar(&lo.Limit, "limit", 0, "users per page (default 10, at most 1000)")

	rotate := &cobra.Command{
		Use:   "rotate-key ID",
		Short: "Give the user a new API key; the old one stops working at once",
		Args:  exactArgs("ID"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			id, err := linkUserID(args[0])
			if err != nil {
				return err
			}
			key, _, err := c.Exam.Admin.RotateLinkUserKey(ctx, id)
			if err != nil {
				return err
			}
			out := struct {
				ID  int64  `json:"id"`
				Key string `json:"key"`
			}{id, key}
			return o.printer().Print(out, func(t *table) {
				t.Row("id", id)
				t.Row("key", key)
				fmt.Fprintln(o.errOut, "Keep the key now: the portal stores only its hash and cannot show it again.")
			})
		}),
	}

	var accountPassword string
	setPassword := &cobra.Command{
		Use:     "set-password ID --account-password PASSWORD",
		Short:   "Set or replace the account password the user signs in to the web console with",
		Example: "  portal admin link-user set-password 7 --account-password \"$(cat marketer-password.txt)\"",
		Args:    exactArgs("ID"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			id, err := linkUserID(args[0])
			if err != nil {
				return err
			}
			if _, err := c.Exam.Admin.SetLinkUserPassword(ctx, id, accountPassword); err != nil {
				return err
			}
			return o.done(map[string]any{"id": id, "password_set": true}, "password of link user %d set; their console sessions have ended", id)
		}),
	}
	setPassword.Flags().StringVar(&accountPassword, "account-password", "", "the account's new password, 8 to 72 bytes (required; --password is the operator's)")
	_ = setPassword.MarkFlagRequired("account-password")

	var overlayType string
	overlay := &cobra.Command{
		Use:   "add-overlay ID NAME --type message|contact",
		Short: "Create a CTA overlay for the user",
		Args:  exactArgs("ID", "NAME"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			id, err := linkUserID(args[0])
			if err != nil {
				return err
			}
			ov, _, err := c.Exam.Admin.CreateLinkOverlay(ctx, id, overlayType, args[1])
			if err != nil {
				return err
			}
			return o.printer().Print(ov, func(t *table) {
				t.Row("id", ov.ID)
				t.Row("user_id", ov.UserID)
				t.Row("type", ov.Type)
				t.Row("name", ov.Name)
			})
		}),
	}
	overlay.Flags().StringVar(&overlayType, "type", "message", "overlay type (message or contact)")

	splash := &cobra.Command{
		Use:   "add-splash ID NAME",
		Short: "Create a custom splash page for the user",
		Args:  exactArgs("ID", "NAME"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			id, err := linkUserID(args[0])
			if err != nil {
				return err
			}
			sp, _, err := c.Exam.Admin.CreateLinkSplash(ctx, id, args[1])
			if err != nil {
				return err
			}
			return o.printer().Print(sp, func(t *table) {
				t.Row("id", sp.ID)
				t.Row("user_id", sp.UserID)
				t.Row("name", sp.Name)
			})
		}),
	}
	cmd.AddCommand(create, list, rotate, setPassword, overlay, splash)
	return cmd
}

// linkUserID parses a link-management user id.
func linkUserID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, &cmdutil.UsageError{Err: fmt.Errorf("user id %q is not a positive integer", s)}
	}
	return id, nil
}
