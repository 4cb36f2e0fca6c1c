package linkctl

import (
	"context"
	"iter"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/internal/cmdutil"
	"github.com/seedhq/portal/pkg/client"
)

func newChannelsCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{Use: "channels", Aliases: []string{"channel"}, Short: "Manage channels and their items"}
	cmd.AddCommand(
		&cobra.Command{
			Use:   "list",
			Short: "List your channels (--all for every page)",
			Args:  cobra.NoArgs,
			RunE: g.apiRun(func(ctx context.Context, c *client.Client, _ []string) error {
				return runChannelsList(ctx, g, c)
			}),
		},
		&cobra.Command{
			Use:   "items ID",
			Short: "List a channel's items, newest assignment first (--all for every page)",
			Args:  exactArgs("ID"),
			RunE: g.apiRun(func(ctx context.Context, c *client.Client, args []string) error {
				id, err := parseID("channel id", args[0])
				if err != nil {
					return err
				}
				return runChannelsItems(ctx, g, c, id)
			}),
		},
		newChannelWriteCmd(g, false),
		newChannelWriteCmd(g, true),
		&cobra.Command{
			Use:   "delete ID",
			Short: "Delete a channel (its items are unassigned)",
			Args:  exactArgs("ID"),
			RunE: g.apiRun(func(ctx context.Context, c *client.Client, args []string) error {
				id, err := parseID("channel id", args[0])
				if err != nil {
					return err
				}
				if _, err := c.Links.Channels.Delete(ctx, id); err != nil {
					return err
				}
				return g.printer().Done(okResult{ID: id, Message: "Channel has been deleted successfully."}, "channel %d deleted", id)
			}),
		},
		&cobra.Command{
			Use:       "assign CHANNEL_ID links|qr ITEM_ID",
			Short:     "Put a short link or a QR code in a channel",
			Args:      exactArgs("CHANNEL_ID", "TYPE", "ITEM_ID"),
			ValidArgs: []string{client.LinkItemLinks, client.LinkItemQR},
			RunE: g.apiRun(func(ctx context.Context, c *client.Client, args []string) error {
				cid, err := parseID("channel id", args[0])
				if err != nil {
					return err
				}
				typ := args[1]
				if typ != client.LinkItemLinks && typ != client.LinkItemQR && typ != client.LinkItemBio {
					return cmdutil.Usagef("item type %q is not links or qr", typ)
				}
				iid, err := parseID("item id", args[2])
				if err != nil {
					return err
				}
				if _, err := c.Links.Channels.Assign(ctx, cid, typ, iid); err != nil {
					return err
				}
				return g.printer().Done(map[string]any{"channel": cid, "type": typ, "item": iid, "message": "Item successfully added to the channel."},
					"%s %d assigned to channel %d", typ, iid, cid)
			}),
		},
	)
	return cmd
}

// runChannelsList prints the caller's channels.
func runChannelsList(ctx context.Context, g *Globals, c *client.Client) error {
	cs, err := fetchList(ctx, g, c.Links.Channels.List, c.Links.Channels.All)
	if err != nil {
		return err
	}
	return g.printer().Print(cs, func(t *table) {
		t.Row("ID", "NAME", "DESCRIPTION", "COLOR", "STARRED")
		for _, x := range cs {
			t.Row(x.ID, x.Name, x.Description, x.Color, x.Starred)
		}
	})
}

// runChannelsItems prints a channel's items.
func runChannelsItems(ctx context.Context, g *Globals, c *client.Client, id int64) error {
	page := func(ctx context.Context, o *client.LinkListOptions) ([]*client.LinkChannelItem, *client.Response, error) {
		return c.Links.Channels.ListItems(ctx, id, o)
	}
	all := func(ctx context.Context, o *client.LinkListOptions) iter.Seq2[*client.LinkChannelItem, error] {
		return c.Links.Channels.AllItems(ctx, id, o)
	}
	items, err := fetchList(ctx, g, page, all)
	if err != nil {
		return err
	}
	return g.printer().Print(items, func(t *table) {
		t.Row("TYPE", "ID", "TITLE", "LINK", "DATE")
		for _, x := range items {
			t.Row(x.Type, x.ID, x.Title, x.Link, x.Date)
		}
	})
}

// channelWriteOptions are the options of "channels add" and "channels
// update".
type channelWriteOptions struct {
	*Globals
	ID      int64 // 0: add
	Request client.LinkChannelRequest
}

func newChannelWriteCmd(g *Globals, update bool) *cobra.Command {
	o := &channelWriteOptions{Globals: g}
	var name, description, color string
	var starred bool
	cmd := &cobra.Command{
		Use:   "add --name NAME [--description D] [--color #RRGGBB] [--starred]",
		Short: "Create a channel",
		Args:  cobra.NoArgs,
		RunE: g.apiRun(func(ctx context.Context, c *client.Client, args []string) error {
			if update {
				id, err := parseID("channel id", args[0])
				if err != nil {
					return err
				}
				o.ID = id
			}
			return runChannelWrite(ctx, o, c)
		}),
	}
	if update {
		cmd.Use = "update ID [--name NAME] [--description D] [--color #RRGGBB] [--starred=true|false]"
		cmd.Short = "Change a channel (only the flags given are changed)"
		cmd.Args = exactArgs("ID")
	}
	f := cmd.Flags()
	f.StringVar(&name, "name", "", "name")
	f.StringVar(&description, "description", "", "description")
	f.StringVar(&color, "color", "", "colour, #RRGGBB")
	f.BoolVar(&starred, "starred", false, "star the channel")
	if !update {
		_ = cmd.MarkFlagRequired("name")
	}
	cmd.PreRun = func(cmd *cobra.Command, _ []string) {
		ch := cmd.Flags().Changed
		if ch("name") {
			o.Request.Name = &name
		}
		if ch("description") {
			o.Request.Description = &description
		}
		if ch("color") {
			o.Request.Color = &color
		}
		if ch("starred") {
			o.Request.Starred = &starred
		}
	}
	return cmd
}

// runChannelWrite creates or changes a channel.
func runChannelWrite(ctx context.Context, o *channelWriteOptions, c *client.Client) error {
	if o.ID == 0 {
		x, _, err := c.Links.Channels.Add(ctx, &o.Request)
		if err != nil {
			return err
		}
		return o.printer().Done(x, "channel %d added", x.ID)
	}
	if o.Request == (client.LinkChannelRequest{}) {
		return cmdutil.Usagef("nothing to change: give at least one flag (see --help)")
	}
	if _, err := c.Links.Channels.Update(ctx, o.ID, &o.Request); err != nil {
		return err
	}
	return o.printer().Done(okResult{ID: o.ID, Message: "Channel has been updated successfully."}, "channel %d updated", o.ID)
}
