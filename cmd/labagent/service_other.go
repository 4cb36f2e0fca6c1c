//go:build !windows

package main

import (
	"io"

	"github.com/spf13/cobra"
)

// runAsService reports false: outside Windows a service manager (systemd)
// runs "labagent run" as it is (docs/labagent.md).
func runAsService([]string) (code int, ok bool) { return 0, false }

// newServiceCmd is nil outside Windows: systemd's unit (docs/labagent.md)
// does what "labagent service install" does on Windows.
func newServiceCmd(io.Writer) *cobra.Command { return nil }
