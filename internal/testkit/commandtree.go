package testkit

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/internal/cmdutil"
)

// CheckCommandTree walks the command tree of a binary: every parent command
// given an unknown sub-command must fail with exit status 2 and name the
// typo and the command, and no flag may shadow a global one. run executes
// the binary's Main with args and returns its exit status and stderr.
func CheckCommandTree(t *testing.T, root *cobra.Command, run func(args []string) (code int, stderr string)) {
	t.Helper()
	parents := 0
	cmdutil.Walk(root, func(c *cobra.Command) {
		if !c.HasSubCommands() {
			return
		}
		parents++
		path := strings.Fields(c.CommandPath())[1:]
		args := append(path, "nosuchcommand")
		code, stderr := run(args)
		want := `unknown command "nosuchcommand" for "` + c.CommandPath() + `"`
		if code != cmdutil.ExitUsage || !strings.Contains(stderr, want) {
			t.Errorf("%s nosuchcommand: exit %d, stderr %q; want exit %d and %s", c.CommandPath(), code, stderr, cmdutil.ExitUsage, want)
		}
		if code, stderr := run(path); code != 0 {
			t.Errorf("%s (no sub-command): exit %d, stderr %q; want its help and 0", c.CommandPath(), code, stderr)
		}
	})
	if parents == 0 {
		t.Fatalf("only %d parent commands in the tree of %s", parents, root.Name())
	}
	if s := cmdutil.ShadowedFlags(root); len(s) > 0 {
		t.Errorf("flags shadowing a global flag:\n%s", strings.Join(s, "\n"))
	}
}
