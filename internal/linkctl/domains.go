package linkctl

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/internal/cmdutil"
	"github.com/seedhq/portal/pkg/client"
)

func newDomainsCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{Use: "domains", Aliases: []string{"domain"}, Short: "Manage branded domains"}
	cmd.AddCommand(
		&cobra.Command{
			Use:   "list",
			Short: "List your branded domains (--all for every page)",
			Args:  cobra.NoArgs,
			RunE: g.apiRun(func(ctx context.Context, c *client.Client, _ []string) error {
				return runDomainsList(ctx, g, c)
			}),
		},
		newDomainsAddCmd(g),
		newDomainsUpdateCmd(g),
		&cobra.Command{
			Use:   "delete ID",
			Short: "Delete a branded domain",
			Args:  exactArgs("ID"),
			RunE: g.apiRun(func(ctx context.Context, c *client.Client, args []string) error {
				id, err := parseID("domain id", args[0])
				if err != nil {
					return err
				}
				return runDomainsDelete(ctx, g, c, id)
			}),
		},
	)
	return cmd
}

// runDomainsList prints the caller's domains.
func runDomainsList(ctx context.Context, g *Globals, c *client.Client) error {
	ds, err := fetchList(ctx, g, c.Links.Domains.List, c.Links.Domains.All)
	if err != nil {
		return err
	}
	return g.printer().Print(ds, func(t *table) {
		t.Row("ID", "DOMAIN", "ROOT REDIRECT", "404 REDIRECT")
		for _, d := range ds {
			t.Row(d.ID, d.Domain, d.RedirectRoot, d.Redirect404)
		}
	})
}

// domainsAddOptions are the options of "domains add".
type domainsAddOptions struct {
	*Globals
	Request client.LinkDomainRequest
}

func newDomainsAddCmd(g *Globals) *cobra.Command {
	o := &domainsAddOptions{Globals: g}
	cmd := &cobra.Command{
		Use:     "add DOMAIN",
		Short:   "Register a branded domain, such as https://go.example.com",
		Args:    exactArgs("DOMAIN"),
		Example: "  linkctl domains add https://go.example.com --redirect-root https://example.com/",
		RunE: g.apiRun(func(ctx context.Context, c *client.Client, args []string) error {
			o.Request.Domain = args[0]
			return runDomainsAdd(ctx, o, c)
		}),
	}
	cmd.Flags().StringVar(&o.Request.RedirectRoot, "redirect-root", "", "where the domain's root redirects")
	cmd.Flags().StringVar(&o.Request.Redirect404, "redirect-404", "", "where unknown aliases redirect")
	return cmd
}

// runDomainsAdd registers a domain.
func runDomainsAdd(ctx context.Context, o *domainsAddOptions, c *client.Client) error {
	id, _, err := c.Links.Domains.Add(ctx, &o.Request)
	if err != nil {
		return err
	}
	return o.printer().Done(idResult{ID: id}, "domain %d added", id)
}

// domainsUpdateOptions are the options of "domains update".
type domainsUpdateOptions struct {
	*Globals
	ID     int64
	Update client.LinkDomainUpdate
}

func newDomainsUpdateCmd(g *Globals) *cobra.Command {
	o := &domainsUpdateOptions{Globals: g}
	var root, notFound string
	cmd := &cobra.Command{
		Use:   "update ID [--redirect-root URL] [--redirect-404 URL]",
		Short: "Change a domain's redirects (an empty value clears one)",
		Args:  exactArgs("ID"),
		RunE: g.apiRun(func(ctx context.Context, c *client.Client, args []string) error {
			id, err := parseID("domain id", args[0])
			if err != nil {
				return err
			}
			o.ID = id
			return runDomainsUpdate(ctx, o, c)
		}),
	}
	cmd.Flags().StringVar(&root, "redirect-root", "", "where the domain's root redirects")
	cmd.Flags().StringVar(&notFound, "redirect-404", "", "where unknown aliases redirect")
	cmd.PreRun = func(cmd *cobra.Command, _ []string) {
		if cmd.Flags().Changed("redirect-root") {
			o.Update.RedirectRoot = &root
		}
		if cmd.Flags().Changed("redirect-404") {
			o.Update.Redirect404 = &notFound
		}
	}
	return cmd
}

// runDomainsUpdate changes a domain.
func runDomainsUpdate(ctx context.Context, o *domainsUpdateOptions, c *client.Client) error {
	if o.Update.RedirectRoot == nil && o.Update.Redirect404 == nil {
		return cmdutil.Usagef("nothing to change: give --redirect-root, --redirect-404 or both")
	}
	if _, err := c.Links.Domains.Update(ctx, o.ID, &o.Update); err != nil {
		return err
	}
	return o.printer().Done(okResult{ID: o.ID, Message: "Domain has been updated successfully."}, "domain %d updated", o.ID)
}

// runDomainsDelete deletes a domain.
func runDomainsDelete(ctx context.Context, g *Globals, c *client.Client, id int64) error {
	if _, err := c.Links.Domains.Delete(ctx, id); err != nil {
		return err
	}
	return g.printer().Done(okResult{ID: id, Message: "Domain has been deleted successfully."}, "domain %d deleted", id)
}
