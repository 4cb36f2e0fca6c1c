package linkctl

import (
	"context"
	"iter"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/internal/cmdutil"
	"github.com/seedhq/portal/pkg/client"
)

func newLinksCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{Use: "links", Aliases: []string{"link", "urls"}, Short: "Manage short links, import and export them as CSV"}
	var order string
	list := &cobra.Command{
		Use:   "list [--order date|clicks]",
		Short: "List your short links (--all for every page)",
		Args:  cobra.NoArgs,
		RunE: g.apiRun(func(ctx context.Context, c *client.Client, _ []string) error {
			return runLinksList(ctx, g, c, order)
		}),
	}
	list.Flags().StringVar(&order, "order", "", "date (newest first, the default) or clicks")
	cmd.AddCommand(
		list,
		&cobra.Command{
			Use:   "get ID",
			Short: "Show a short link and its statistics",
			Args:  exactArgs("ID"),
			RunE: g.apiRun(func(ctx context.Context, c *client.Client, args []string) error {
				id, err := parseID("link id", args[0])
				if err != nil {
					return err
				}
				return runLinksGet(ctx, g, c, id)
			}),
		},
		newLinksAddCmd(g),
		newLinksUpdateCmd(g),
		&cobra.Command{
			Use:   "delete ID",
			Short: "Delete a short link",
			Args:  exactArgs("ID"),
			RunE: g.apiRun(func(ctx context.Context, c *client.Client, args []string) error {
				id, err := parseID("link id", args[0])
				if err != nil {
					return err
				}
				if _, err := c.Links.URLs.Delete(ctx, id); err != nil {
					return err
				}
				return g.printer().Done(okResult{ID: id, Message: "Link has been deleted successfully."}, "link %d deleted", id)
			}),
		},
		newLinksImportCmd(g),
		newLinksExportCmd(g),
	)
	return cmd
}

// linksPage adapts the short-link list to fetchList.
func linksPage(c *client.Client, order string) (func(context.Context, *client.LinkListOptions) ([]*client.LinkURL, *client.Response, error), func(context.Context, *client.LinkListOptions) iter.Seq2[*client.LinkURL, error]) {
	page := func(ctx context.Context, o *client.LinkListOptions) ([]*client.LinkURL, *client.Response, error) {
		return c.Links.URLs.List(ctx, &client.LinkURLListOptions{LinkListOptions: *o, Order: order})
	}
	all := func(ctx context.Context, o *client.LinkListOptions) iter.Seq2[*client.LinkURL, error] {
		return c.Links.URLs.All(ctx, &client.LinkURLListOptions{LinkListOptions: *o, Order: order})
	}
	return page, all
}

// runLinksList prints the caller's short links.
func runLinksList(ctx context.Context, g *Globals, c *client.Client, order string) error {
	if order != "" && order != client.LinkOrderDate && order != client.LinkOrderClicks {
		return cmdutil.Usagef("--order %q is not date or clicks", order)
	}
	page, all := linksPage(c, order)
	ls, err := fetchList(ctx, g, page, all)
	if err != nil {
		return err
	}
	return g.printer().Print(ls, func(t *table) {
		t.Row("ID", "SHORT URL", "LONG URL", "CLICKS", "EXPIRY", "DATE")
		for _, l := range ls {
			t.Row(l.ID, l.ShortURL, l.LongURL, l.Clicks, l.Expiry, l.Date)
		}
	})
}

// linkWithStats is a short link and its statistics, as "links get" prints
// it in JSON.
type linkWithStats struct {
	*client.LinkURL
	Stats *client.LinkStats `json:"stats"`
}

// runLinksGet prints one short link.
func runLinksGet(ctx context.Context, g *Globals, c *client.Client, id int64) error {
	l, _, err := c.Links.URLs.Get(ctx, id)
	if err != nil {
		return err
	}
	return g.printer().Print(linkWithStats{l, l.Stats}, func(t *table) {
		t.Row("ID", l.ID)
		t.Row("SHORT URL", l.ShortURL)
		t.Row("LONG URL", l.LongURL)
		t.Row("TITLE", l.Title)
		t.Row("DESCRIPTION", l.Description)
		t.Row("DOMAIN", l.Domain)
		t.Row("CAMPAIGN", l.Campaign)
		t.Row("CHANNELS", l.Channels)
		t.Row("PIXELS", l.Pixels)
		t.Row("EXPIRY", l.Expiry)
		t.Row("PASSWORD", l.Password)
		t.Row("CLICKS", l.Clicks)
		t.Row("UNIQUE CLICKS", l.UniqueClicks)
		t.Row("DATE", l.Date)
	})
}

// linksAddOptions are the options of "links add".
type linksAddOptions struct {
	*Globals
	Request client.LinkURLRequest
}

func newLinksAddCmd(g *Globals) *cobra.Command {
	o := &linksAddOptions{Globals: g}
	cmd := &cobra.Command{
		Use:     "add URL",
		Short:   "Shorten a URL",
		Args:    exactArgs("URL"),
		Example: "  linkctl links add https://example.org/page --custom promo --expiry 2030-01-01",
		RunE: g.apiRun(func(ctx context.Context, c *client.Client, args []string) error {
			o.Request.URL = args[0]
			return runLinksAdd(ctx, o, c)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.Request.Custom, "custom", "", "alias (default: a generated one)")
	f.Int64Var(&o.Request.Domain, "domain", 0, "branded domain id (default: the short host)")
	f.StringVar(&o.Request.Expiry, "expiry", "", `expiry: "YYYY-MM-DD HH:MM:SS" UTC, RFC 3339 or YYYY-MM-DD`)
	f.StringVar(&o.Request.Password, "password", "", "password visitors must give")
	f.Int64SliceVar(&o.Request.Pixels, "pixel", nil, "pixel id (repeat or comma-separate)")
	f.Int64Var(&o.Request.Campaign, "campaign", 0, "campaign id")
	f.Int64SliceVar(&o.Request.Channels, "channel", nil, "channel id (repeat or comma-separate)")
	f.StringVar(&o.Request.Title, "title", "", "title")
	f.StringVar(&o.Request.Description, "description", "", "description")
	return cmd
}

// runLinksAdd creates a short link.
func runLinksAdd(ctx context.Context, o *linksAddOptions, c *client.Client) error {
	l, _, err := c.Links.URLs.Add(ctx, &o.Request)
	if err != nil {
		return err
	}
	return o.printer().Done(shortURLResult{l.ID, l.ShortURL}, "link %d: %s", l.ID, l.ShortURL)
}

// linksUpdateOptions are the options of "links update".
type linksUpdateOptions struct {
	*Globals
	ID     int64
	Update client.LinkURLUpdate
}

func newLinksUpdateCmd(g *Globals) *cobra.Command {
	o := &linksUpdateOptions{Globals: g}
	var (
		url, custom, expiry, password, title, description string
		domain, campaign                                  int64
		pixels, channels                                  []int64
	)
	cmd := &cobra.Command{
		Use:   "update ID [flags]",
		Short: "Change a short link (only the flags given are changed)",
		Args:  exactArgs("ID"),
		RunE: g.apiRun(func(ctx context.Context, c *client.Client, args []string) error {
			id, err := parseID("link id", args[0])
			if err != nil {
				return err
			}
			o.ID = id
			return runLinksUpdate(ctx, o, c)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&url, "url", "", "long URL")
	f.StringVar(&custom, "custom", "", "alias")
	f.Int64Var(&domain, "domain", 0, "branded domain id (0: the short host)")
	f.StringVar(&expiry, "expiry", "", `expiry ("" removes it)`)
	f.StringVar(&password, "password", "", `password ("" removes it)`)
	f.Int64SliceVar(&pixels, "pixel", nil, "pixel ids (replace the link's)")
	f.Int64Var(&campaign, "campaign", 0, "campaign id")
	f.Int64SliceVar(&channels, "channel", nil, "channel ids (replace the link's)")
	f.StringVar(&title, "title", "", "title")
	f.StringVar(&description, "description", "", "description")
	cmd.PreRun = func(cmd *cobra.Command, _ []string) {
		ch := cmd.Flags().Changed
		u := &o.Update
		if ch("url") {
			u.URL = &url
		}
		if ch("custom") {
			u.Custom = &custom
		}
		if ch("domain") {
			u.Domain = &domain
		}
		if ch("expiry") {
			u.Expiry = &expiry
		}
		if ch("password") {
			u.Password = &password
		}
		if ch("pixel") {
			u.Pixels = &pixels
		}
		if ch("campaign") {
			u.Campaign = &campaign
		}
		if ch("channel") {
			u.Channels = &channels
		}
		if ch("title") {
			u.Title = &title
		}
		if ch("description") {
			u.Description = &description
		}
	}
	return cmd
}

// runLinksUpdate changes a short link.
func runLinksUpdate(ctx context.Context, o *linksUpdateOptions, c *client.Client) error {
	if o.Update == (client.LinkURLUpdate{}) {
		return cmdutil.Usagef("nothing to change: give at least one flag (see --help)")
	}
	l, _, err := c.Links.URLs.Update(ctx, o.ID, &o.Update)
	if err != nil {
		return err
	}
	return o.printer().Done(shortURLResult{l.ID, l.ShortURL}, "link %d updated: %s", l.ID, l.ShortURL)
}
