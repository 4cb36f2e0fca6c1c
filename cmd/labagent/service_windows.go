//go:build windows

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/svc"
	"golang.org/x/sys/windows/svc/eventlog"
	"golang.org/x/sys/windows/svc/mgr"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/config"
)

// serviceName is the Windows service's name, and its event log source.
const serviceName = "labagent"

// runAsService runs labagent as the Windows service when the service
// control manager started the process, and returns the exit code; ok is
// false when the process was started another way.
func runAsService(args []string) (code int, ok bool) {
	if is, err := startedAsService(); err != nil || !is {
		return 0, false
	}
	var out io.Writer = io.Discard
	if el, err := eventlog.Open(serviceName); err == nil {
		defer el.Close()
		out = eventLogWriter{el}
	}
	h := &serviceHandler{args: args, out: out}
	if err := svc.Run(serviceName, h); err != nil {
		fmt.Fprintf(out, "level=ERROR msg=\"run as a Windows service\" err=%q\n", err)
		return 1, true
	}
	return h.code, true
}

// serviceHandler runs "labagent <args>" (the service's command line, "run
// --data-dir ...") under the service control manager.
type serviceHandler struct {
	args []string
	out  io.Writer
	code int
}

// Execute is the service's main function (svc.Handler).
func (h *serviceHandler) Execute(_ []string, changes <-chan svc.ChangeRequest, status chan<- svc.Status) (bool, uint32) {
	requests := make(chan svcRequest)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			var req svcRequest
			select {
			case c := <-changes:
				switch c.Cmd {
				case svc.Interrogate:
					req = svcInterrogate
				case svc.Stop, svc.Shutdown:
					req = svcStop
				default:
					continue
				}
			case <-done:
				return
			}
			select {
			case requests <- req:
			case <-done:
				return
			}
		}
	}()
	h.code = serveService(func(ctx context.Context) int { return Main(ctx, h.args, h.out, h.out) }, requests,
		func(s svcState) {
			switch s {
			case svcStarting:
				status <- svc.Status{State: svc.StartPending}
			case svcRunning:
				status <- svc.Status{State: svc.Running, Accepts: svc.AcceptStop | svc.AcceptShutdown}
			case svcStopping:
				status <- svc.Status{State: svc.StopPending, WaitHint: 30_000}
			}
		})
	if h.code != 0 {
		// A service-specific exit code: the failure the recovery actions
		// set at install restart the service on.
		return true, uint32(h.code)
	}
	return false, 0
}

// eventLogWriter writes each log record (one Write call) to the Windows
// event log, as an error, a warning or information after its level.
type eventLogWriter struct{ log *eventlog.Log }

func (w eventLogWriter) Write(p []byte) (int, error) {
	msg := strings.TrimSpace(string(p))
	const eventID = 1
	var err error
	switch {
	case strings.Contains(msg, "level=ERROR") || strings.Contains(msg, `"level":"ERROR"`) || strings.HasPrefix(msg, "error:"):
		err = w.log.Error(eventID, msg)
	case strings.Contains(msg, "level=WARN") || strings.Contains(msg, `"level":"WARN"`):
		err = w.log.Warning(eventID, msg)
	default:
		err = w.log.Info(eventID, msg)
	}
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// newServiceCmd is "labagent service": install and remove the Windows
// service.
func newServiceCmd(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "service",
		Short: "Install or remove labagent as a Windows service (starts at boot, restarts after a failure)",
		Args:  cobra.NoArgs,
	}
	install := &cobra.Command{
		Use:   "install",
		Short: "Install labagent run as a Windows service, started now and at every boot",
		Long: `Install "labagent run" as the Windows service "labagent": it starts at boot
(after a power cut too) and is restarted 5, 10 and 30 seconds after a
failure. It runs this executable, so copy labagent.exe where it will stay
(C:\Program Files\labagent, say) first, and enrol before (labagent enroll).
Its log goes to the Windows event log (source "labagent"). Run it from an
administrator's command prompt.`,
		Example: `  labagent service install --data-dir C:\ProgramData\labagent --listen :8090`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := loadConfig(cmd)
			if err != nil {
				return err
			}
			dataDir := r.Required("data-dir")
			listen := r.ListenAddr("listen")
			if err := r.Err(); err != nil {
				return err
			}
			configFile, _ := cmd.Flags().GetString(config.FlagConfig)
			return installService(dataDir, configFile, listen, stdout)
		},
	}
	install.Flags().String("listen", ":8090", "LAN address of the student and proctor pages")
	uninstall := &cobra.Command{
		Use:   "uninstall",
		Short: "Stop and remove the Windows service (the data directory stays)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return uninstallService(cmd.Context(), stdout)
		},
	}
	cmd.AddCommand(install, uninstall)
	return cmd
}

// installService creates, sets up and starts the service; when a step
// fails the service is removed again.
func installService(dataDir, configFile, listen string, stdout io.Writer) (err error) {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find labagent.exe: %w", err)
	}
	// The service starts in C:\Windows\System32: every path absolute.
	if dataDir, err = filepath.Abs(dataDir); err != nil {
		return err
	}
	if _, err := agent.ReadConfig(dataDir); err != nil {
		return fmt.Errorf("%w: enrol this server first (labagent enroll --data-dir %s)", err, dataDir)
	}
	args := []string{"run", "--data-dir", dataDir, "--listen", listen}
	if configFile != "" {
		if configFile, err = filepath.Abs(configFile); err != nil {
			return err
		}
		args = append(args, "--config", configFile)
	}
	m, err := mgr.Connect()
	if err != nil {
		return fmt.Errorf("connect to the service manager (run as administrator): %w", err)
	}
	defer m.Disconnect()
	if s, err := m.OpenService(serviceName); err == nil {
		s.Close()
		return fmt.Errorf("the service %q is already installed: labagent service uninstall first", serviceName)
	}
	s, err := m.CreateService(serviceName, exe, mgr.Config{
		DisplayName: "labagent (exam lab server)",
		Description: "Serves the exam to the students on the LAN and syncs answers with the portal.",
		StartType:   mgr.StartAutomatic,
	}, args...)
	if err != nil {
		return fmt.Errorf("create the service: %w", err)
	}
	defer s.Close()
	defer func() {
		if err != nil {
			s.Delete()
			eventlog.Remove(serviceName)
		}
	}()
	restart := []mgr.RecoveryAction{
		{Type: mgr.ServiceRestart, Delay: 5 * time.Second},
		{Type: mgr.ServiceRestart, Delay: 10 * time.Second},
		{Type: mgr.ServiceRestart, Delay: 30 * time.Second},
	}
	if err := s.SetRecoveryActions(restart, uint32((24 * time.Hour).Seconds())); err != nil {
		return fmt.Errorf("set the restart on failure: %w", err)
	}
	// Also when labagent stops by itself with an error, not only when the
	// process crashes.
	if err := s.SetRecoveryActionsOnNonCrashFailures(true); err != nil {
		return fmt.Errorf("set the restart on failure: %w", err)
	}
	err = eventlog.InstallAsEventCreate(serviceName, eventlog.Error|eventlog.Warning|eventlog.Info)
	if err != nil && !strings.Contains(err.Error(), "exists") {
		return fmt.Errorf("register the event log source: %w", err)
	}
	if err = s.Start(); err != nil {
		return fmt.Errorf("start the service: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "service %q installed and started: %s %s\nits log is in the Windows event log (source %q)\n",
		serviceName, exe, strings.Join(args, " "), serviceName)
	return err
}

// uninstallService stops the service, waits for it to stop and removes it.
func uninstallService(ctx context.Context, stdout io.Writer) error {
	m, err := mgr.Connect()
	if err != nil {
		return fmt.Errorf("connect to the service manager (run as administrator): %w", err)
	}
	defer m.Disconnect()
	s, err := m.OpenService(serviceName)
	if err != nil {
		return fmt.Errorf("the service %q is not installed: %w", serviceName, err)
	}
	defer s.Close()
	st, err := s.Control(svc.Stop)
	if err != nil && !errors.Is(err, windows.ERROR_SERVICE_NOT_ACTIVE) {
		return fmt.Errorf("stop the service: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for err == nil && st.State != svc.Stopped {
		select {
		case <-ctx.Done():
			return fmt.Errorf("the service did not stop within a minute: %w", ctx.Err())
		case <-time.After(300 * time.Millisecond):
		}
		if st, err = s.Query(); err != nil {
			return fmt.Errorf("query the service: %w", err)
		}
	}
	if err := s.Delete(); err != nil {
		return fmt.Errorf("remove the service: %w", err)
	}
	eventlog.Remove(serviceName)
	_, err = fmt.Fprintf(stdout, "service %q stopped and removed; the data directory stays\n", serviceName)
	return err
}
