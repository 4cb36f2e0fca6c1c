//go:build windows

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unsafe"

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
	is, err := svc.IsWindowsService()
	if err != nil {
		return 0, false
	}
	if wine := !is && underWine(); !startedByServiceManager(is, wine, parentImage(wine)) {
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
			return installService(dataDir, configFile, listen, stdout, cmd.ErrOrStderr())
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
// fails the service is removed again. Warnings go to stderr.
func installService(dataDir, configFile, listen string, stdout, stderr io.Writer) (err error) {
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
	if errors.Is(err, windows.ERROR_SERVICE_EXISTS) || errors.Is(err, windows.ERROR_SERVICE_MARKED_FOR_DELETE) {
		return fmt.Errorf("the service %q is already installed, or still being removed: labagent service uninstall first: %w", serviceName, err)
	}
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
	warning, err := setRecovery(s, underWine())
	if err != nil {
		return err
	}
	if warning != "" {
		fmt.Fprintln(stderr, warning)
	}
	// A source left by an earlier install that did not get to remove it is
	// reused.
	if err := eventlog.InstallAsEventCreate(serviceName, eventlog.Error|eventlog.Warning|eventlog.Info); err != nil && !strings.Contains(err.Error(), "exists") {
		return fmt.Errorf("register the event log source: %w", err)
	}
	if err := s.Start(); err != nil {
		return fmt.Errorf("start the service: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "service %q installed and started: %s %s\nits log is in the Windows event log (source %q)\n",
		serviceName, exe, strings.Join(args, " "), serviceName)
	return err
}

// Compile-time check that errInvalidLevel (service_recovery.go) is
// windows.ERROR_INVALID_LEVEL: the array's length is 0 only when they are
// equal.
var _ [0]struct{} = [windows.ERROR_INVALID_LEVEL - errInvalidLevel]struct{}{}

// underWine reports whether labagent runs under Wine rather than Windows:
// Wine's ntdll.dll exports wine_get_version.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// parentImage returns the program name of this process's parent
// (services.exe), or "" when it cannot be found or when look is false.
func parentImage(look bool) string {
	if !look {
		return ""
	}
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return ""
	}
	defer windows.CloseHandle(snap)
	self, parent := uint32(os.Getpid()), uint32(0)
	names := map[uint32]string{}
	e := windows.ProcessEntry32{Size: uint32(unsafe.Sizeof(windows.ProcessEntry32{}))}
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		names[e.ProcessID] = windows.UTF16ToString(e.ExeFile[:])
		if e.ProcessID == self {
			parent = e.ParentProcessID
		}
	}
	return names[parent]
}

// Recovery actions of the service: restart 5, 10 and 30 seconds after a
// failure, the count of failures starting over after a day without one.
var (
	restartActions = []mgr.RecoveryAction{
		{Type: mgr.ServiceRestart, Delay: 5 * time.Second},
		{Type: mgr.ServiceRestart, Delay: 10 * time.Second},
		{Type: mgr.ServiceRestart, Delay: 30 * time.Second},
	}
	restartResetPeriod = uint32((24 * time.Hour).Seconds())
)

// setRecovery sets the service's recovery actions (restartActions, also
// after the daemon stops with an error rather than crashes) and reads each
// setting back: ChangeServiceConfig2's success means stored, which a
// different read-back disproves. Every failure is an error, but for the
// ERROR_INVALID_LEVEL of Wine's service manager, which implements neither
// setting: then it returns the warning to print, once
// (recoveryStepError).
func setRecovery(s *mgr.Service, wine bool) (warning string, err error) {
	steps := []struct {
		name string
		do   func() error
	}{
		{"set the restart on failure", func() error {
			return s.SetRecoveryActions(restartActions, restartResetPeriod)
		}},
		{"read back the restart on failure", func() error {
			got, err := s.RecoveryActions()
			if err != nil {
				return err
			}
			if !slices.Equal(got, restartActions) {
				return fmt.Errorf("the service manager holds the actions %v, not the %v set", got, restartActions)
			}
			reset, err := s.ResetPeriod()
			if err != nil {
				return err
			}
			if reset != restartResetPeriod {
				return fmt.Errorf("the service manager holds a reset period of %d s, not the %d s set", reset, restartResetPeriod)
			}
			return nil
		}},
		// Also when labagent stops by itself with an error, not only when
		// the process crashes.
		{"set the restart after an exit with an error (non-crash failures)", func() error {
			return s.SetRecoveryActionsOnNonCrashFailures(true)
		}},
		{"read back the restart after an exit with an error (non-crash failures)", func() error {
			on, err := s.RecoveryActionsOnNonCrashFailures()
			if err != nil {
				return err
			}
			if !on {
				return errors.New("the service manager holds it off after it was set on")
			}
			return nil
		}},
	}
	for _, st := range steps {
		w, err := recoveryStepError(st.name, st.do(), wine)
		if err != nil {
			return "", err
		}
		if w != "" {
			warning = w
		}
	}
	return warning, nil
}

// uninstallService stops the service, waits for it to stop and removes it.
func uninstallService(ctx context.Context, stdout io.Writer) error {
	m, err := mgr.Connect()
	if err != nil {
		return fmt.Errorf("connect to the service manager (run as administrator): %w", err)
	}
	defer m.Disconnect()
	s, err := m.OpenService(serviceName)
	if errors.Is(err, windows.ERROR_SERVICE_DOES_NOT_EXIST) {
		return fmt.Errorf("the service %q is not installed: nothing to uninstall", serviceName)
	}
	if err != nil {
		return fmt.Errorf("open the service %q: %w", serviceName, err)
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
