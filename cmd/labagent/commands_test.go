package main

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/seedhq/portal/internal/testkit"
)

// TestCommandTree: a mistyped sub-command is a usage error (exit 2) naming
// it, and no flag shadows a global one.
func TestCommandTree(t *testing.T) {
	testkit.CheckCommandTree(t, newRootCmd(io.Discard, io.Discard), func(args []string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), args, &stdout, &stderr)
		return code, stderr.String()
	})
}
