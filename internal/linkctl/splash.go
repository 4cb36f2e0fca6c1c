package linkctl

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/pkg/client"
)

func newSplashCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{Use: "splash", Short: "List custom splash pages (created by operators)"}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List your splash pages (--all for every page)",
		Args:  cobra.NoArgs,
		RunE: g.apiRun(func(ctx context.Context, c *client.Client, _ []string) error {
			return runSplashList(ctx, g, c)
		}),
	})
	return cmd
}

// runSplashList prints the caller's splash pages.
func runSplashList(ctx context.Context, g *Globals, c *client.Client) error {
	ss, err := fetchList(ctx, g, c.Links.Splash.List, c.Links.Splash.All)
	if err != nil {
		return err
	}
	return g.printer().Print(ss, func(t *table) {
		t.Row("ID", "NAME", "DATE")
		for _, s := range ss {
			t.Row(s.ID, s.Name, s.Date)
		}
	})
}
