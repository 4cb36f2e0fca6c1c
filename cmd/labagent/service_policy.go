package main

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// Decisions of the Windows service (service_windows.go) that differ under
// Wine, kept apart from the Windows API so that they are tested on every
// platform (service_policy_test.go).

// startedByServiceManager reports whether labagent.exe was started by the
// service control manager, given what svc.IsWindowsService says (its
// parent is services.exe in session 0), whether it runs under Wine, and
// the program name of its parent process. Wine runs every process, its
// services.exe too, in session 1, where IsWindowsService sees no service:
// under Wine a parent named services.exe is enough.
func startedByServiceManager(isWindowsService, wine bool, parentImage string) bool {
	return isWindowsService || wine && strings.EqualFold(parentImage, "services.exe")
}

// errInvalidLevel is Windows' ERROR_INVALID_LEVEL (124), the error of
// ChangeServiceConfig2 and QueryServiceConfig2 for an information level the
// service manager does not implement. service_windows.go checks at compile
// time that it equals windows.ERROR_INVALID_LEVEL.
const errInvalidLevel = syscall.Errno(124)

// noRestartUnderWine is the warning "labagent service install" prints when
// Wine's service manager lacks the recovery actions.
const noRestartUnderWine = "warning: running under Wine, whose service manager has no recovery actions: " +
	"the automatic restart after a failure is not available; after a crash start the service again with net start labagent"

// recoveryStepError says what the error err of one step of setting up the
// service's recovery actions (setting them, or reading them back), named
// by step, means for "service install": nothing when the step succeeded;
// the warning noRestartUnderWine (go on) when it failed with
// ERROR_INVALID_LEVEL under Wine, whose service manager implements few
// ChangeServiceConfig2 levels; otherwise the error, which fails the
// install.
func recoveryStepError(step string, err error, wine bool) (warning string, _ error) {
	switch {
	case err == nil:
		return "", nil
	case wine && errors.Is(err, errInvalidLevel):
		return noRestartUnderWine, nil
	default:
		return "", fmt.Errorf("%s: %w", step, err)
	}
}
