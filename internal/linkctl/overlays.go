package linkctl

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/pkg/client"
)

func newOverlaysCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{Use: "overlays", Aliases: []string{"overlay"}, Short: "List CTA overlays (created by operators)"}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List your CTA overlays (--all for every page)",
		Args:  cobra.NoArgs,
		RunE: g.apiRun(func(ctx context.Context, c *client.Client, _ []string) error {
			return runOverlaysList(ctx, g, c)
		}),
	})
	return cmd
}

// runOverlaysList prints the caller's CTA overlays.
func runOverlaysList(ctx context.Context, g *Globals, c *client.Client) error {
	os, err := fetchList(ctx, g, c.Links.Overlays.List, c.Links.Overlays.All)
	if err != nil {
		return err
	}
	return g.printer().Print(os, func(t *table) {
		t.Row("ID", "TYPE", "NAME", "DATE")
		for _, o := range os {
			t.Row(o.ID, o.Type, o.Name, o.Date)
		}
	})
}
