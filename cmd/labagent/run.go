package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/config"
)

// loadConfig loads the command's settings (flags > LABAGENT_* > file).
func loadConfig(cmd *cobra.Command) (*config.Reader, error) {
	file, _ := cmd.Flags().GetString(config.FlagConfig)
	v, err := config.Load(cmd, envPrefix, file, nil)
	if err != nil {
		return nil, err
	}
	return config.NewReader(v, envPrefix), nil
}

func newRunCmd(stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Serve the exam on the LAN and sync with the portal (the daemon)",
		Long: `Serve the student page (/) and the proctor page (/proctor) on the LAN and keep
in sync with the portal: handshake, pull the exam package, heartbeat, push
the answers. It keeps working while the portal is unreachable. Stop it with
SIGINT or SIGTERM; it is also safe to kill: every answer a student saw saved
is on disk and reaches the portal after the restart.

The proctor password is written to <data-dir>/proctor-password at the first
run unless --proctor-password (LABAGENT_PROCTOR_PASSWORD) sets one.`,
		Example: `  labagent run --data-dir /var/lib/labagent --listen :8090`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			o := agent.RunOptions{
				DataDir:         r.Required("data-dir"),
				Listen:          r.ListenAddr("listen"),
				ControlAddr:     r.ListenAddr("control-addr"),
				ProctorPassword: r.Viper().GetString("proctor-password"),
				Version:         version,
			}
			o.Sync.PullInterval = r.Duration("pull-interval", 5*time.Second, 24*time.Hour)
			level, format := r.Log()
			if err := r.Err(); err != nil {
				return err
			}
			o.Logger = config.NewLogger(stderr, level, format)
			if o.ProctorPassword == "" {
				o.Logger.Info("proctor password", "file", filepath.Join(o.DataDir, agent.ProctorPasswordFile))
			}
			setGCPercent()
			return agent.Run(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.String("listen", ":8090", "LAN address of the student and proctor pages")
	f.String("control-addr", "127.0.0.1:8091", "loopback address for labagent status and push --now")
	f.String("proctor-password", "", "proctor password (default: generated into <data-dir>/proctor-password)")
	f.Duration("pull-interval", 2*time.Minute, "how often to ask the portal for a new exam package")
	config.AddLogFlags(f)
	return cmd
}

// runGCPercent is the garbage collector's setting of "labagent run" unless
// GOGC is set: the daemon's live heap is a few MB, so Go's default (100)
// collects very often under a classroom's saves, and each cycle adds to
// the save latency; 400 keeps the heap in the tens of MB.
const runGCPercent = 400

// setGCPercent applies runGCPercent unless the operator set GOGC.
func setGCPercent() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(runGCPercent)
	}
}

func newStatusCmd(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the sync state, the exams and the answers waiting to be pushed",
		Long: `Show the handshake state, clock skew, package version and checksum, the exams
and their windows, connected students, answers saved and answers waiting for
the portal, the last push receipt and the last error. It asks the running
daemon, or reads the state file when labagent run is stopped.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			dir := r.Required("data-dir")
			output := r.OneOf("output", "table", "json")
			if err := r.Err(); err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 10*time.Second)
			defer cancel()
			st, err := agent.QueryStatus(ctx, dir)
			if err != nil {
				return err
			}
			if output == "json" {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			printStatus(stdout, st)
			return nil
		},
	}
	cmd.Flags().StringP("output", "o", "table", "output format: table or json")
	return cmd
}

func printStatus(w io.Writer, st agent.Status) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	when := func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return t.Local().Format("2006-01-02 15:04:05")
	}
	running := "stopped (figures from the state file)"
	if st.Running {
		running = "running, students at http://" + st.LANAddr + "/"
	}
	s := st.Sync
	fmt.Fprintf(tw, "server\t%s (%s, npsn %s)\n", st.ServerCode, st.SchoolName, st.NPSN)
	fmt.Fprintf(tw, "daemon\t%s\n", running)
	fmt.Fprintf(tw, "portal\t%s: %s\n", st.PortalURL, s.State)
	contact := when(s.LastContactAt)
	if s.LastContactKind != "" {
		contact += " (" + s.LastContactKind + ")"
	}
	fmt.Fprintf(tw, "last contact\t%s\n", contact)
	fmt.Fprintf(tw, "last handshake\t%s (clock skew %d ms)\n", when(s.LastHandshakeAt), s.ClockSkewMS)
	lic := fmt.Sprintf("%s until %s, %d students", s.LicenseID, when(s.LicenseExpiresAt), s.MaxStudents)
	if s.LicenseExpiresSoon {
		lic += "  EXPIRES SOON: ask the operator for a new licence"
	}
	fmt.Fprintf(tw, "licence\t%s\n", lic)
	if s.PackageVersion == "" {
		fmt.Fprintf(tw, "package\tnone yet\n")
	} else {
		fmt.Fprintf(tw, "package\t%s (sha256 %s, pulled %s)\n", s.PackageVersion, s.PackageChecksum, when(s.PackagePulledAt))
	}
	if s.DownloadSize > 0 {
		fmt.Fprintf(tw, "download\t%d of %d bytes\n", s.DownloadReceived, s.DownloadSize)
	}
	fmt.Fprintf(tw, "students\t%d connected, %d signed in, %d attempts\n", st.ConnectedStudents, st.SignedIn, st.Attempts)
	fmt.Fprintf(tw, "answers\t%d saved, %d waiting to be pushed\n", st.AnswersSaved, st.AnswersPending)
	last := "none"
	if s.LastReceipt != nil {
		last = fmt.Sprintf("sync_id %s, %d answers at %s", s.LastReceipt.SyncID, s.LastReceipt.Records, when(s.LastReceipt.AckedAt))
	}
	fmt.Fprintf(tw, "last push\t%s\n", last)
	if s.LastError != "" {
		fmt.Fprintf(tw, "last error\t%s (%s)\n", s.LastError, when(s.LastErrorAt))
	}
	if st.Disk != nil {
		disk := fmt.Sprintf("%.1f GB free", float64(st.Disk.FreeBytes)/1e9)
		if st.Disk.Low {
			disk += "  LOW: free space, or saves will fail once it is gone"
		}
		fmt.Fprintf(tw, "disk\t%s\n", disk)
	}
	tw.Flush()
	if len(st.Exams) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "EXAM\tTITLE\tOPENS\tCLOSES\tMINUTES\tQUESTIONS")
		for _, e := range st.Exams {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\n", e.ID, strings.ReplaceAll(e.Title, "\t", " "), when(e.StartsAt), when(e.EndsAt), e.DurationMinutes, e.Questions)
		}
		tw.Flush()
	}
}

func newPushCmd(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "push --now",
		Short: "Push every answer waiting for the portal now",
		Long: `Push every answer waiting for the portal now, through the running daemon or,
when labagent run is stopped, directly. Answers are pushed in sealed batches
under fixed Idempotency-Keys: pushing again is always safe.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			dir := r.Required("data-dir")
			if err := r.Err(); err != nil {
				return err
			}
			if now, _ := cmd.Flags().GetBool("now"); !now {
				return fmt.Errorf("labagent run pushes by itself; to push at once say --now")
			}
			res, err := agent.PushNow(cmd.Context(), dir, config.NewLogger(stderr, 0, "text"))
			fmt.Fprintf(stdout, "pushed %d answers in %d batch(es), %d of them already on the portal; %d still waiting\n",
				res.Answers, res.Batches, res.Duplicates, res.Pending)
			if err != nil {
				return fmt.Errorf("push: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().Bool("now", false, "push at once")
	return cmd
}
