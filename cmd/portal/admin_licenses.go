package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/pkg/client"
)

func newLicenseCmd(o *adminOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "license", Aliases: []string{"licence", "licenses"}, Short: "Issue, list and revoke lab-server licences"}
	cmd.AddCommand(newLicenseGenerateCmd(o), newLicenseListCmd(o), newLicenseRevokeCmd(o))
	return cmd
}

// licenseGenerateOptions are the flags of "admin license generate".
type licenseGenerateOptions struct {
	*adminOptions
	client.LicenseRequest
}

func newLicenseGenerateCmd(o *adminOptions) *cobra.Command {
	opts := &licenseGenerateOptions{adminOptions: o}
	cmd := &cobra.Command{
		Use:     "generate",
		Short:   "Issue a licence and print its token",
		Example: `  portal admin license generate --npsn 20100001 --school "SMA Negeri 1" --hardware-id HW-1 --max-students 500 --days 365`,
		Args:    cobra.NoArgs,
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, _ []string) error {
			return runLicenseGenerate(ctx, c, opts)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&opts.NPSN, "npsn", "", "school's NPSN, 8 digits (required)")
	f.StringVar(&opts.SchoolName, "school", "", "school name (required)")
	f.StringVar(&opts.Region, "region", "", "where the school is, broadest first (\"Jawa Barat/Kota Bandung\"), for the item analysis by region")
	f.StringVar(&opts.HardwareID, "hardware-id", "", "hardware id of the lab server (required)")
	f.IntVar(&opts.MaxStudents, "max-students", 100, "largest number of students, 1..100000")
	f.IntVar(&opts.DurationDays, "days", 365, "validity in days, 1..3650")
	f.StringVar(&opts.OperatingMode, "mode", client.ModeSemiOffline, "operating mode: SEMI_OFFLINE, OFFLINE or ONLINE")
	for _, name := range []string{"npsn", "school", "hardware-id"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}

// runLicenseGenerate issues a licence.
func runLicenseGenerate(ctx context.Context, c *client.Client, opts *licenseGenerateOptions) error {
	lic, _, err := c.Exam.Licenses.Generate(ctx, &opts.LicenseRequest)
	if err != nil {
		return err
	}
	return opts.printer().Print(lic, func(t *table) {
		t.Row("license_id", lic.Payload.LicenseID)
		t.Row("expires_at", lic.Payload.ExpiresAt)
		t.Row("license_token", lic.LicenseToken)
	})
}

func newLicenseListCmd(o *adminOptions) *cobra.Command {
	var npsn string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List licences, newest first",
		Args:  cobra.NoArgs,
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, _ []string) error {
			list, _, err := c.Exam.Licenses.List(ctx, &client.LicenseListOptions{NPSN: npsn})
			if err != nil {
				return err
			}
			return o.printer().Print(nonNil(list), func(t *table) {
				t.Row("ID", "NPSN", "SCHOOL", "HARDWARE ID", "MAX", "MODE", "STATUS", "EXPIRES")
				for _, l := range list {
					t.Row(l.LicenseID, l.NPSN, l.SchoolName, l.HardwareID, l.MaxStudents, l.OperatingMode, l.Status, l.ExpiresAt)
				}
			})
		}),
	}
	cmd.Flags().StringVar(&npsn, "npsn", "", "only this school's licences")
	return cmd
}

func newLicenseRevokeCmd(o *adminOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke LICENSE_ID",
		Short: "Revoke a licence: its lab server's next handshake is refused",
		Args:  exactArgs("LICENSE_ID"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			l, _, err := c.Exam.Licenses.Revoke(ctx, args[0])
			if err != nil {
				return err
			}
			return o.printer().Print(l, func(t *table) {
				t.Row("license_id", l.LicenseID)
				t.Row("status", l.Status)
				t.Row("revoked_at", l.RevokedAt)
			})
		}),
	}
}

func newServerCmd(o *adminOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "server", Aliases: []string{"servers"}, Short: "List and reset lab-server bindings"}
	var npsn string
	list := &cobra.Command{
		Use:   "list",
		Short: "List which machine each server_code is bound to",
		Args:  cobra.NoArgs,
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, _ []string) error {
			list, _, err := c.Exam.Admin.ListServers(ctx, &client.ServerListOptions{NPSN: npsn})
			if err != nil {
				return err
			}
			return o.printer().Print(nonNil(list), func(t *table) {
				t.Row("SERVER CODE", "NPSN", "HARDWARE ID", "LICENSE ID", "BOUND AT")
				for _, b := range list {
					t.Row(b.ServerCode, b.NPSN, b.HardwareID, b.LicenseID, b.BoundAt)
				}
			})
		}),
	}
	list.Flags().StringVar(&npsn, "npsn", "", "only this school's servers")
	reset := &cobra.Command{
		Use:   "reset SERVER_CODE",
		Short: "Delete a server_code's binding, so a replacement machine can shake hands",
		Args:  exactArgs("SERVER_CODE"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			if _, err := c.Exam.Admin.ResetServer(ctx, args[0]); err != nil {
				return err
			}
			return o.done(map[string]any{"server_code": args[0], "reset": true},
				"binding of %s deleted: the next handshake binds afresh", args[0])
		}),
	}
	cmd.AddCommand(list, reset)
	return cmd
}

// done prints the outcome of a command that returns nothing to show: v as
// JSON, or the message as a line.
func (o *adminOptions) done(v any, format string, args ...any) error {
	p := o.printer()
	if p.JSON() {
		return p.Print(v, nil)
	}
	_, err := fmt.Fprintf(o.out, format+"\n", args...)
	return err
}

// nonNil returns an empty list instead of nil, so JSON shows [] not null.
func nonNil[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}
