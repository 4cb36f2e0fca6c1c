package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"
)

func newMigrateCmd(s streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply the embedded database migrations to PostgreSQL",
		Long: `Apply the SQL migrations embedded in this binary to the PostgreSQL database of
--database-url (or PORTAL_DATABASE_URL). Applying them again is harmless.
"portal serve" applies them at start too; run this to prepare a database
ahead of a deployment. The bbolt store needs no migrations.`,
		Example: `  portal migrate --database-url 'postgres://portal:secret@db:5432/portal?sslmode=require'`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := loadConfig(cmd, nil)
			if err != nil {
				return err
			}
			dbURL := databaseURL(r, "database-url")
			if err := r.Err(); err != nil {
				return err
			}
			if dbURL == "" {
				return errNoDatabaseURL
			}
			start := time.Now()
			st, err := openPostgres(cmd.Context(), dbURL)
			if err != nil {
				return err
			}
			defer st.Close()
			if err := st.Migrate(cmd.Context()); err != nil {
				return fmt.Errorf("apply migrations to %s: %w", redactDatabaseURL(dbURL), err)
			}
			_, err = fmt.Fprintf(s.out, "migrations applied to %s in %s: the schema is up to date\n",
				redactDatabaseURL(dbURL), time.Since(start).Round(time.Millisecond))
			return err
		},
	}
	cmd.Flags().String("database-url", "", "PostgreSQL URL, e.g. postgres://user:pass@host:5432/portal (env PORTAL_DATABASE_URL)")
	return cmd
}
