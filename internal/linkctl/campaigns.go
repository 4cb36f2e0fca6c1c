package linkctl

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/pkg/client"
)

func newCampaignsCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{Use: "campaigns", Aliases: []string{"campaign"}, Short: "Manage campaigns"}
	cmd.AddCommand(
		&cobra.Command{
			Use:   "list",
			Short: "List your campaigns (--all for every page)",
			Args:  cobra.NoArgs,
			RunE: g.apiRun(func(ctx context.Context, c *client.Client, _ []string) error {
				return runCampaignsList(ctx, g, c)
			}),
		},
		newCampaignWriteCmd(g, false),
		newCampaignWriteCmd(g, true),
		&cobra.Command{
			Use:   "delete ID",
			Short: "Delete a campaign (its links stay, without campaign)",
			Args:  exactArgs("ID"),
			RunE: g.apiRun(func(ctx context.Context, c *client.Client, args []string) error {
				id, err := parseID("campaign id", args[0])
				if err != nil {
					return err
				}
				if _, err := c.Links.Campaigns.Delete(ctx, id); err != nil {
					return err
				}
				return g.printer().Done(okResult{ID: id, Message: "Campaign has been deleted successfully."}, "campaign %d deleted", id)
			}),
		},
		&cobra.Command{
			Use:   "assign CAMPAIGN_ID LINK_ID",
			Short: "Put a short link in a campaign",
			Args:  exactArgs("CAMPAIGN_ID", "LINK_ID"),
			RunE: g.apiRun(func(ctx context.Context, c *client.Client, args []string) error {
				cid, err := parseID("campaign id", args[0])
				if err != nil {
					return err
				}
				lid, err := parseID("link id", args[1])
				if err != nil {
					return err
				}
				if _, err := c.Links.Campaigns.AssignLink(ctx, cid, lid); err != nil {
					return err
				}
				return g.printer().Done(map[string]any{"campaign": cid, "link": lid, "message": "Link successfully assigned to campaign."},
					"link %d assigned to campaign %d", lid, cid)
			}),
		},
	)
	return cmd
}

// runCampaignsList prints the caller's campaigns.
func runCampaignsList(ctx context.Context, g *Globals, c *client.Client) error {
	cs, err := fetchList(ctx, g, c.Links.Campaigns.List, c.Links.Campaigns.All)
	if err != nil {
		return err
	}
	return g.printer().Print(cs, func(t *table) {
		t.Row("ID", "NAME", "SLUG", "PUBLIC", "ROTATOR", "LIST")
		for _, x := range cs {
			t.Row(x.ID, x.Name, x.Slug, x.Public, string(x.Rotator), x.List)
		}
	})
}

// campaignWriteOptions are the options of "campaigns add" and "campaigns
// update".
type campaignWriteOptions struct {
	*Globals
	ID      int64 // 0: add
	Request client.LinkCampaignRequest
}

func newCampaignWriteCmd(g *Globals, update bool) *cobra.Command {
	o := &campaignWriteOptions{Globals: g}
	var name, slug string
	var public bool
	cmd := &cobra.Command{
		Use:   "add --name NAME [--slug SLUG] [--public]",
		Short: "Create a campaign",
		Args:  cobra.NoArgs,
		RunE: g.apiRun(func(ctx context.Context, c *client.Client, args []string) error {
			if update {
				id, err := parseID("campaign id", args[0])
				if err != nil {
					return err
				}
				o.ID = id
			}
			return runCampaignWrite(ctx, o, c)
		}),
	}
	if update {
		cmd.Use = "update ID --name NAME [--slug SLUG] [--public=true|false]"
		cmd.Short = "Change a campaign (--name is required; an empty --slug removes the rotator)"
		cmd.Args = exactArgs("ID")
	}
	cmd.Flags().StringVar(&name, "name", "", "name (required)")
	cmd.Flags().StringVar(&slug, "slug", "", "rotator slug")
	cmd.Flags().BoolVar(&public, "public", false, "whether the campaign's list is public")
	_ = cmd.MarkFlagRequired("name")
	cmd.PreRun = func(cmd *cobra.Command, _ []string) {
		o.Request.Name = &name
		if cmd.Flags().Changed("slug") {
			o.Request.Slug = &slug
		}
		if cmd.Flags().Changed("public") {
			o.Request.Public = &public
		}
	}
	return cmd
}

// runCampaignWrite creates or changes a campaign.
func runCampaignWrite(ctx context.Context, o *campaignWriteOptions, c *client.Client) error {
	if o.ID == 0 {
		x, _, err := c.Links.Campaigns.Add(ctx, &o.Request)
		if err != nil {
			return err
		}
		return o.printer().Done(x, "campaign %d added", x.ID)
	}
	x, _, err := c.Links.Campaigns.Update(ctx, o.ID, &o.Request)
	if err != nil {
		return err
	}
	return o.printer().Done(x, "campaign %d updated", x.ID)
}
