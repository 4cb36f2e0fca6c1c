package linkctl

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/testkit"
)

// TestCommandTree: "linkctl links lsit" and every other mistyped
// sub-command is a usage error (exit 2) naming it, never the parent's help
// with success; and no flag shadows a global one.
func TestCommandTree(t *testing.T) {
	isolate(t)
	root := NewRootCmd(IO{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard})
	testkit.CheckCommandTree(t, root, func(args []string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
		return code, stderr.String()
	})
	res := runCLI(t, "", "links", "lsit")
	if res.code != ExitUsage || !strings.Contains(res.errOut, "unknown command \"lsit\" for \"linkctl links\"\n\nDid you mean this?\n\tlist") {
		t.Errorf("linkctl links lsit: %+v", res)
	}
}
