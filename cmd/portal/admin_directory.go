package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/pkg/client"
)

func newAcademicYearCmd(o *adminOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "academic-year", Aliases: []string{"academic-years"}, Short: "Create, list and activate academic years"}
	var active bool
	create := &cobra.Command{
		Use:     "create NAME",
		Short:   "Create an academic year such as 2025/2026",
		Example: `  portal admin academic-year create 2025/2026 --active`,
		Args:    exactArgs("NAME"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			ay, _, err := c.Exam.Admin.CreateAcademicYear(ctx, args[0], active)
			if err != nil {
				return err
			}
			return o.printer().Print(ay, func(t *table) { yearRows(t, []*client.AcademicYear{ay}) })
		}),
	}
	create.Flags().BoolVar(&active, "active", false, "make it the active year (deactivates the others)")
	list := &cobra.Command{
		Use:   "list",
		Short: "List academic years, newest first",
		Args:  cobra.NoArgs,
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, _ []string) error {
			list, _, err := c.Exam.Admin.ListAcademicYears(ctx)
			if err != nil {
				return err
			}
			return o.printer().Print(nonNil(list), func(t *table) { yearRows(t, list) })
		}),
	}
	activate := &cobra.Command{
		Use:   "activate ID",
		Short: "Make an academic year the only active one",
		Args:  exactArgs("ID"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			ay, _, err := c.Exam.Admin.ActivateAcademicYear(ctx, args[0])
			if err != nil {
				return err
			}
			return o.printer().Print(ay, func(t *table) { yearRows(t, []*client.AcademicYear{ay}) })
		}),
	}
	cmd.AddCommand(create, list, activate)
	return cmd
}

func yearRows(t *table, list []*client.AcademicYear) {
	t.Row("ID", "NAME", "ACTIVE", "CREATED")
	for _, y := range list {
		t.Row(y.ID, y.Name, y.IsActive, y.CreatedAt)
	}
}

func newAPIKeyCmd(o *adminOptions) *cobra.Command {
	cmd := &cobra.Command{Use: "api-key", Aliases: []string{"api-keys"}, Short: "Create, list and revoke API keys of the member directory API"}
	create := &cobra.Command{
		Use:   "create NAME",
		Short: "Create an API key; the key is shown this once only",
		Args:  exactArgs("NAME"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			k, _, err := c.Exam.Admin.CreateAPIKey(ctx, args[0])
			if err != nil {
				return err
			}
			out := struct {
				*client.APIKey
				Key string `json:"key"`
			}{k, k.Key}
			return o.printer().Print(out, func(t *table) {
				t.Row("id", k.ID)
				t.Row("name", k.Name)
				t.Row("prefix", k.Prefix)
				t.Row("key", k.Key)
				fmt.Fprintln(o.errOut, "Keep the key now: the portal stores only its hash and cannot show it again.")
			})
		}),
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List API keys (without the keys)",
		Args:  cobra.NoArgs,
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, _ []string) error {
			list, _, err := c.Exam.Admin.ListAPIKeys(ctx)
			if err != nil {
				return err
			}
			return o.printer().Print(nonNil(list), func(t *table) {
				t.Row("ID", "NAME", "PREFIX", "CREATED", "LAST USED", "REVOKED")
				for _, k := range list {
					t.Row(k.ID, k.Name, k.Prefix, k.CreatedAt, k.LastUsedAt, k.RevokedAt)
				}
			})
		}),
	}
	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke an API key at once",
		Args:  exactArgs("ID"),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			k, _, err := c.Exam.Admin.RevokeAPIKey(ctx, args[0])
			if err != nil {
				return err
			}
			if k == nil {
				k = &client.APIKey{ID: args[0]}
			}
			return o.printer().Print(k, func(t *table) {
				t.Row("id", k.ID)
				t.Row("name", k.Name)
				t.Row("revoked_at", k.RevokedAt)
			})
		}),
	}
	cmd.AddCommand(create, list, revoke)
	return cmd
}

func newMonitorsCmd(o *adminOptions) *cobra.Command {
	var opts client.MonitorListOptions
	cmd := &cobra.Command{
		Use:   "monitors",
		Short: "Show the state of every lab server (from its heartbeats)",
		Args:  cobra.NoArgs,
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, _ []string) error {
			list, _, err := c.Exam.Admin.ListMonitors(ctx, &opts)
			if err != nil {
				return err
			}
			return o.printer().Print(nonNil(list), func(t *table) {
				t.Row("SERVER CODE", "NPSN", "SCHOOL", "STATUS", "STUDENTS", "EXAMS", "UNPUSHED", "VERSION", "CLIENT IP", "LAST PING")
				for _, m := range list {
					t.Row(m.ServerCode, m.NPSN, m.SchoolName, m.Status, m.ConnectedStudents, m.ActiveExamsCount, m.PendingAnswers,
						m.ClientVersion, m.ClientIP, m.LastPingAt)
				}
			})
		}),
	}
	cmd.Flags().StringVar(&opts.NPSN, "npsn", "", "only this school's servers")
	cmd.Flags().StringVar(&opts.Status, "status", "", "only servers in this state: online, syncing or offline")
	return cmd
}

func newSyncLogsCmd(o *adminOptions) *cobra.Command {
	var opts client.SyncLogListOptions
	cmd := &cobra.Command{
		Use:   "sync-logs",
		Short: "Show the sync log: handshakes, pulls and pushes, newest first",
		Args:  cobra.NoArgs,
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, _ []string) error {
			list, _, err := c.Exam.Admin.ListSyncLogs(ctx, &opts)
			if err != nil {
				return err
			}
			return o.printer().Print(nonNil(list), func(t *table) {
				t.Row("RECEIVED", "ACTION", "SERVER CODE", "NPSN", "RECORDS", "OUTCOME", "ERROR", "SYNC ID")
				for _, l := range list {
					t.Row(l.ReceivedAt, l.Action, l.ServerCode, l.NPSN, l.RecordCount, l.Outcome, l.ErrorCode, l.SyncID)
				}
			})
		}),
	}
	f := cmd.Flags()
	f.StringVar(&opts.NPSN, "npsn", "", "only this school")
	f.StringVar(&opts.ServerCode, "server-code", "", "only this lab server")
	f.StringVar(&opts.Status, "status", "", "only this outcome: accepted, duplicate or rejected")
	f.IntVar(&opts.Limit, "limit", 0, "at most this many records (1..1000; default: the portal's)")
	return cmd
}
