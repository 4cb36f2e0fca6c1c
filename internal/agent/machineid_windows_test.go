package agent

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestRawMachineIDWindows: the machine id is the MachineGuid Windows keeps
// in the registry (reg.exe, a separate reader, shows the same value), it
// is a GUID, and it stays the same from call to call.
func TestRawMachineIDWindows(t *testing.T) {
	id := rawMachineID()
	guid := regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	if !guid.MatchString(id) {
		t.Fatalf("rawMachineID() = %q, want a GUID", id)
	}
	if again := rawMachineID(); again != id {
		t.Fatalf("rawMachineID() = %q, then %q", id, again)
	}
	out, err := exec.Command("reg", "query", `HKLM\SOFTWARE\Microsoft\Cryptography`, "/v", "MachineGuid").CombinedOutput()
	if err != nil {
		t.Fatalf("reg query MachineGuid: %v\n%s", err, out)
	}
	if !strings.Contains(strings.ToLower(string(out)), strings.ToLower(id)) {
		t.Fatalf("reg query shows\n%s\nrawMachineID() = %q", out, id)
	}
}

// TestMachineHardwareIDWindows: the hardware id derived from the
// MachineGuid has the documented form and is stable, and the raw id does
// not show in it.
func TestMachineHardwareIDWindows(t *testing.T) {
	hw, err := MachineHardwareID()
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^HW-[0-9A-F]{16}$`).MatchString(hw) {
		t.Fatalf("MachineHardwareID() = %q, want HW- and 16 hex digits", hw)
	}
	if again, err := MachineHardwareID(); err != nil || again != hw {
		t.Fatalf("MachineHardwareID() = %q, then %q (%v)", hw, again, err)
	}
	raw := strings.ToUpper(strings.ReplaceAll(rawMachineID(), "-", ""))
	if strings.Contains(raw, strings.TrimPrefix(hw, "HW-")) {
		t.Fatalf("the hardware id %s is part of the raw machine id", hw)
	}
}
