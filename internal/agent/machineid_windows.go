package agent

import (
	"strings"

	"golang.org/x/sys/windows/registry"
)

// rawMachineID returns the MachineGuid Windows sets at installation, or ""
// when it cannot be read.
func rawMachineID() string {
	k, err := registry.OpenKey(registry.LOCAL_MACHINE, `SOFTWARE\Microsoft\Cryptography`, registry.QUERY_VALUE|registry.WOW64_64KEY)
	if err != nil {
		return ""
	}
	defer k.Close()
	id, _, err := k.GetStringValue("MachineGuid")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(id)
}
