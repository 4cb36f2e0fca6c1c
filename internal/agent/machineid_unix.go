//go:build !windows

package agent

import (
	"os"
	"strings"
)

// rawMachineID returns the machine id that systemd or D-Bus keeps, or ""
// on a machine without one.
func rawMachineID() string {
	for _, p := range []string{"/etc/machine-id", "/var/lib/dbus/machine-id"} {
		if b, err := os.ReadFile(p); err == nil {
			if id := strings.TrimSpace(string(b)); id != "" {
				return id
			}
		}
	}
	return ""
}
