package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/pkg/client"
)

// newOrderingCmd is "portal admin ordering": the shop's users, roles and
// login bans, and the developer's helpers of the login flow.
func newOrderingCmd(o *adminOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "ordering", Short: "Administer the ordering service: users and roles, login bans, test messages"}

	users := &cobra.Command{Use: "users", Short: "List the shop's users and set their roles"}
	users.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List every user, oldest first",
		Args:  cobra.NoArgs,
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, _ []string) error {
			us, _, err := c.Ordering.Admin.ListUsers(ctx)
			if err != nil {
				return err
			}
			return o.printer().Print(nonNil(us), func(t *table) {
				t.Row("ID", "NUMBER", "NAME", "ROLE", "MENUS")
				for _, u := range us {
					t.Row(u.ID, u.MessengerNumber, u.Name, u.Role, strings.Join(u.AllowedMenus, ","))
				}
			})
		}),
	})
	var role client.RoleRequest
	setRole := &cobra.Command{
		Use:     "set-role ID --role ROLE",
		Short:   "Set a user's role (CUSTOMER, STAFF, ADMIN or OWNER) and a STAFF user's menus",
		Example: `  portal admin ordering users set-role 0193... --role STAFF --menus kitchen,payments`,
		Args:    exactArgs("ID"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			role.Role = strings.ToUpper(role.Role)
			u, _, err := c.Ordering.Admin.SetRole(ctx, args[0], &role)
			if err != nil {
				return err
			}
			return o.printer().Print(u, func(t *table) {
				t.Row("id", u.ID)
				t.Row("number", u.MessengerNumber)
				t.Row("role", u.Role)
				t.Row("menus", strings.Join(u.AllowedMenus, ","))
			})
		}),
	}
	setRole.Flags().StringVar(&role.Role, "role", "", "CUSTOMER, STAFF, ADMIN or OWNER (required)")
	setRole.Flags().StringSliceVar(&role.AllowedMenus, "menus", nil, "a STAFF user's menus: kitchen, pos, payments (default: kept)")
	setRole.MarkFlagRequired("role")
	users.AddCommand(setRole)

	bans := &cobra.Command{Use: "bans", Short: "List and lift login bans"}
	bans.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the numbers and addresses with failed logins or bans, level 3 (permanent) ones for review",
		Args:  cobra.NoArgs,
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, _ []string) error {
			bs, _, err := c.Ordering.Admin.ListBans(ctx)
			if err != nil {
				return err
			}
			return o.printer().Print(nonNil(bs), func(t *table) {
				t.Row("ID", "KIND", "NUMBER OR ADDRESS", "LEVEL", "ATTEMPTS", "UNTIL", "LAST ATTEMPT")
				for _, b := range bs {
					until := "-"
					switch {
					case b.BanLevel >= 3:
						until = "permanent (review)"
					case b.BanUntil != nil:
						until = b.BanUntil.Format("2006-01-02 15:04:05Z07:00")
					}
					t.Row(b.ID, b.Kind, b.MessengerNumber+b.Address, b.BanLevel, b.Attempts, until, b.LastAttemptAt)
				}
			})
		}),
	}, &cobra.Command{
		Use:   "lift ID",
		Short: "Lift a ban, a permanent one included",
		Args:  exactArgs("ID"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			if _, err := c.Ordering.Admin.LiftBan(ctx, args[0]); err != nil {
				return err
			}
			fmt.Fprintf(o.errOut, "Ban %s lifted.\n", args[0])
			return nil
		}),
	})

	cmd.AddCommand(users, bans, newOrderingMenuCmd(o), newOrderingLedgerCmd(o), newSimulateMessageCmd(o), newChallengeCmd(o))
	return cmd
}

// newSimulateMessageCmd is "portal admin ordering simulate-message".
func newSimulateMessageCmd(o *adminOptions) *cobra.Command {
	var from, text, secret string
	cmd := &cobra.Command{
		Use:   "simulate-message --from NUMBER --text TEXT",
		Short: "Deliver an inbound messenger message to the portal, signed as the gateway signs it",
		Long: `Deliver an inbound message from a number, as the messaging gateway would:
with --text "VERIFY_tok_..." it completes a login by hand.

With --gateway-secret (env PORTAL_ORDERING_GATEWAY_SECRET) the message is
signed with that secret and posted to /api/auth/gateway-webhook. Without it,
it goes through the portal's built-in gateway stand-in (/sandbox/messenger),
which answers only on the portal's own machine unless ordering-sandbox-public
is set. No operator credentials are needed.`,
		Example: `  portal admin ordering simulate-message --from 081234567890 --text "VERIFY_tok_..."`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := o.context(cmd)
			defer cancel()
			c, err := client.NewClient(o.URL, client.WithUserAgent("portal-admin/"+version))
			if err != nil {
				return err
			}
			if secret == "" {
				secret = os.Getenv("PORTAL_ORDERING_GATEWAY_SECRET")
			}
			var res *client.GatewayResult
			if secret != "" {
				res, _, err = c.Ordering.Auth.DeliverGatewayMessage(ctx, secret, "cli_"+rand.Text(), from, text)
			} else {
				res, err = sandboxMessage(ctx, c, from, text)
			}
			if err != nil {
				return err
			}
			return o.printer().Print(res, func(t *table) { t.Row("status", res.Status) })
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the sender's messenger number (required)")
	cmd.Flags().StringVar(&text, "text", "", "the message (required)")
	cmd.Flags().StringVar(&secret, "gateway-secret", "", "the gateway's Standard Webhooks secret (env PORTAL_ORDERING_GATEWAY_SECRET; default: the built-in stand-in)")
	cmd.MarkFlagRequired("from")
	cmd.MarkFlagRequired("text")
	return cmd
}

// sandboxMessage sends a message through the built-in stand-in.
func sandboxMessage(ctx context.Context, c *client.Client, from, text string) (*client.GatewayResult, error) {
	u := c.BaseURL().JoinPath("sandbox", "messenger")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(),
		strings.NewReader(url.Values{"from": {from}, "text": {text}}.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("deliver through the gateway stand-in: %w", err)
	}
	defer resp.Body.Close()
	var body struct {
		client.GatewayResult
		Error string `json:"error"`
		Code  string `json:"code"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("deliver through the gateway stand-in (%s): %w", resp.Status, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("deliver through the gateway stand-in: %s %s: %s", resp.Status, body.Code, body.Error)
	}
	return &body.GatewayResult, nil
}

// newChallengeCmd is "portal admin ordering challenge".
func newChallengeCmd(o *adminOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "challenge",
		Short: "Fetch and solve the built-in anti-bot challenge; print the challengeToken of a login",
		Long: `Fetch a proof-of-work challenge (GET /api/auth/challenge), solve it and
print the challengeToken that POST /api/auth/login takes, for trying the
login with curl. A token is good for one login, for 5 minutes.`,
		Example: `  curl -s localhost:8080/api/auth/login -d "{\"messengerNumber\":\"081234567890\",\"challengeToken\":\"$(portal admin ordering challenge)\"}"`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := o.context(cmd)
			defer cancel()
			c, err := client.NewClient(o.URL, client.WithUserAgent("portal-admin/"+version))
			if err != nil {
				return err
			}
			ch, _, err := c.Ordering.Auth.Challenge(ctx)
			if err != nil {
				return err
			}
			tok, err := client.SolveChallenge(ch)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(o.out, tok)
			return err
		},
	}
}

// newOrderingMenuCmd is "portal admin ordering menu".
func newOrderingMenuCmd(o *adminOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "menu", Short: "Import the shop's menu from a CSV file"}
	cmd.AddCommand(&cobra.Command{
		Use:   "import FILE.csv",
		Short: "Create and update categories and items from a CSV file: all rows or none",
		Long: `Import a menu from a CSV file with a header line and the columns
category,name,description,price,available,image_url (category, name and price
required; price in whole rupiah; available yes or no, default yes). A category
is matched by its name and an item by its category and name, case aside:
existing ones are updated, the others created. A file with any bad row imports
nothing and every bad row is listed.`,
		Example: `  portal admin ordering menu import menu.csv`,
		Args:    exactArgs("FILE.csv"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			f, err := os.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			rep, _, err := c.Ordering.Admin.ImportMenu(ctx, f)
			if err != nil && rep != nil {
				for _, e := range rep.Errors {
					fmt.Fprintf(o.errOut, "%s:%d: %s\n", args[0], e.Row, e.Message)
				}
			}
			if err != nil {
				return err
			}
			return o.printer().Print(rep, func(t *table) {
				t.Row("categories created", rep.CategoriesCreated)
				t.Row("items created", rep.ItemsCreated)
				t.Row("items updated", rep.ItemsUpdated)
			})
		}),
	})
	return cmd
}

// newOrderingLedgerCmd is "portal admin ordering ledger".
func newOrderingLedgerCmd(o *adminOptions) *cobra.Command {
	var from, to string
	cmd := &cobra.Command{
		Use:   "ledger --from YYYY-MM-DD --to YYYY-MM-DD",
		Short: "The paid orders of a period with totals per day and payment method (--output csv exports them)",
		Example: `  portal admin ordering ledger --from 2026-11-01 --to 2026-11-30
  portal admin ordering ledger --from 2026-11-01 --to 2026-11-30 --output csv > ledger.csv`,
		Args:        cobra.NoArgs,
		Annotations: map[string]string{csvOutput: "yes"},
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, _ []string) error {
			if o.Output == outputCSV {
				_, err := c.Ordering.Admin.LedgerCSV(ctx, from, to, o.out)
				return err
			}
			l, _, err := c.Ordering.Admin.Ledger(ctx, from, to)
			if err != nil {
				return err
			}
			return o.printer().Print(l, func(t *table) {
				t.Row("DAY", "PAID AT", "ORDER", "METHOD", "TOTAL", "STATUS")
				for _, e := range l.Entries {
					t.Row(e.Day, e.PaidAt, e.OrderNumber, e.PaymentMethod, e.TotalPrice, e.Status)
				}
				t.Row("", "", "", "total", l.Total, fmt.Sprintf("%d orders", l.OrderCount))
			})
		}),
	}
	cmd.Flags().StringVar(&from, "from", "", "first day, the shop's date (required)")
	cmd.Flags().StringVar(&to, "to", "", "last day (required)")
	cmd.MarkFlagRequired("from")
	cmd.MarkFlagRequired("to")
	return cmd
}
