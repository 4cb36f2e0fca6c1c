package linkctl

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/pkg/client"
)

func newPixelsCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{Use: "pixels", Aliases: []string{"pixel"}, Short: "Manage tracking pixels"}
	add := &client.LinkPixelRequest{}
	addCmd := &cobra.Command{
		Use:     "add --type TYPE --name NAME --tag TAG",
		Short:   "Create a tracking pixel (types and tags: docs/api/links.md)",
		Example: "  linkctl pixels add --type gtmpixel --name GTM --tag GTM-ABC1234",
		Args:    cobra.NoArgs,
		RunE: g.apiRun(func(ctx context.Context, c *client.Client, _ []string) error {
			id, _, err := c.Links.Pixels.Add(ctx, add)
			if err != nil {
				return err
			}
			return g.printer().Done(idResult{ID: id}, "pixel %d added", id)
		}),
	}
	addCmd.Flags().StringVar(&add.Type, "type", "", "vendor, such as gtmpixel or fbpixel (required)")
	addCmd.Flags().StringVar(&add.Name, "name", "", "name (required)")
	addCmd.Flags().StringVar(&add.Tag, "tag", "", "the vendor's tag id (required)")
	for _, f := range []string{"type", "name", "tag"} {
		_ = addCmd.MarkFlagRequired(f)
	}

	upd := &client.LinkPixelUpdate{}
	var name string
	updCmd := &cobra.Command{
		Use:   "update ID --tag TAG [--name NAME]",
		Short: "Change a pixel's tag and name (the type never changes)",
		Args:  exactArgs("ID"),
		RunE: g.apiRun(func(ctx context.Context, c *client.Client, args []string) error {
			id, err := parseID("pixel id", args[0])
			if err != nil {
				return err
			}
			if _, err := c.Links.Pixels.Update(ctx, id, upd); err != nil {
				return err
			}
			return g.printer().Done(okResult{ID: id, Message: "Pixel has been updated successfully."}, "pixel %d updated", id)
		}),
	}
	updCmd.Flags().StringVar(&upd.Tag, "tag", "", "the vendor's tag id (required)")
	updCmd.Flags().StringVar(&name, "name", "", "name")
	_ = updCmd.MarkFlagRequired("tag")
	updCmd.PreRun = func(cmd *cobra.Command, _ []string) {
		if cmd.Flags().Changed("name") {
			upd.Name = &name
		}
	}

	cmd.AddCommand(
		&cobra.Command{
			Use:   "list",
			Short: "List your pixels (--all for every page)",
			Args:  cobra.NoArgs,
			RunE: g.apiRun(func(ctx context.Context, c *client.Client, _ []string) error {
				return runPixelsList(ctx, g, c)
			}),
		},
		addCmd,
		updCmd,
		&cobra.Command{
			Use:   "delete ID",
			Short: "Delete a pixel",
			Args:  exactArgs("ID"),
			RunE: g.apiRun(func(ctx context.Context, c *client.Client, args []string) error {
				id, err := parseID("pixel id", args[0])
				if err != nil {
					return err
				}
				if _, err := c.Links.Pixels.Delete(ctx, id); err != nil {
					return err
				}
				return g.printer().Done(okResult{ID: id, Message: "Pixel has been deleted successfully."}, "pixel %d deleted", id)
			}),
		},
	)
	return cmd
}

// runPixelsList prints the caller's pixels.
func runPixelsList(ctx context.Context, g *Globals, c *client.Client) error {
	ps, err := fetchList(ctx, g, c.Links.Pixels.List, c.Links.Pixels.All)
	if err != nil {
		return err
	}
	return g.printer().Print(ps, func(t *table) {
		t.Row("ID", "TYPE", "NAME", "TAG", "DATE")
		for _, p := range ps {
			t.Row(p.ID, p.Type, p.Name, p.Tag, p.Date)
		}
	})
}
