package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/testkit"
)

// TestCommandTree: a mistyped sub-command of any parent command is a usage
// error (exit 2) naming it, never its parent's help with success; and no
// flag shadows a global one (--password is the operator's everywhere).
func TestCommandTree(t *testing.T) {
	root := newRootCmd(streams{in: strings.NewReader(""), out: &bytes.Buffer{}, errOut: &bytes.Buffer{}})
	testkit.CheckCommandTree(t, root, func(args []string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
		return code, stderr.String()
	})
}
