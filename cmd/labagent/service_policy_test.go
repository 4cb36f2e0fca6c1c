package main

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
)

func TestRecoveryStepError(t *testing.T) {
	denied := syscall.Errno(5) // ERROR_ACCESS_DENIED
	mismatch := errors.New("the service manager holds no recovery actions")
	for _, c := range []struct {
		name        string
		err         error
		wine        bool
		wantWarning bool
		wantErr     bool
	}{
		{"success on Windows", nil, false, false, false},
		{"success under Wine", nil, true, false, false},
		{"invalid level on Windows is fatal", errInvalidLevel, false, false, true},
		{"invalid level under Wine is tolerated", errInvalidLevel, true, true, false},
		{"wrapped invalid level under Wine is tolerated", fmt.Errorf("query: %w", errInvalidLevel), true, true, false},
		{"access denied on Windows is fatal", denied, false, false, true},
		{"access denied under Wine is fatal", denied, true, false, true},
		{"a read-back mismatch on Windows is fatal", mismatch, false, false, true},
		{"a read-back mismatch under Wine is fatal", mismatch, true, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			warning, err := recoveryStepError("set the restart on failure", c.err, c.wine)
			if want := map[bool]string{true: noRestartUnderWine}[c.wantWarning]; warning != want {
				t.Errorf("warning %q, want %q", warning, want)
			}
			if (err != nil) != c.wantErr {
				t.Fatalf("error %v, want an error: %v", err, c.wantErr)
			}
			if err != nil {
				if !strings.HasPrefix(err.Error(), "set the restart on failure: ") || !errors.Is(err, c.err) {
					t.Errorf("error %q does not name the step and wrap %v", err, c.err)
				}
			}
		})
	}
}

func TestStartedByServiceManager(t *testing.T) {
	for _, c := range []struct {
		isWindowsService, wine bool
		parent                 string
		want                   bool
	}{
		{true, false, "services.exe", true},     // Windows: services.exe in session 0
		{false, false, "services.exe", false},   // Windows: services.exe in another session is not the manager
		{false, false, "cmd.exe", false},        // Windows: a console
		{false, true, "services.exe", true},     // Wine: its services.exe runs in session 1
		{false, true, "SERVICES.EXE", true},     // names compare without case
		{false, true, "cmd.exe", false},         // Wine: a console
		{false, true, "start.exe", false},       // Wine: wine64 program.exe
		{false, true, "", false},                // Wine: the parent has gone
		{true, true, "services.exe", true},      // Wine, should it ever report session 0
		{false, true, "notservices.exe", false}, // only the name itself
	} {
		if got := startedByServiceManager(c.isWindowsService, c.wine, c.parent); got != c.want {
			t.Errorf("startedByServiceManager(%v, wine %v, %q) = %v, want %v", c.isWindowsService, c.wine, c.parent, got, c.want)
		}
	}
}
