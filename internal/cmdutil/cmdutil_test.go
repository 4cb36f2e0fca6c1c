package cmdutil_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/internal/cmdutil"
)

// tree is "app links list|add" with a global --password.
func tree() (root, links *cobra.Command) {
	root = &cobra.Command{Use: "app", SilenceErrors: true, SilenceUsage: true}
	root.PersistentFlags().StringP("password", "p", "", "")
	links = &cobra.Command{Use: "links"}
	for _, name := range []string{"list", "add"} {
		links.AddCommand(&cobra.Command{Use: name, RunE: func(*cobra.Command, []string) error { return nil }})
	}
	root.AddCommand(links)
	return root, links
}

func run(root *cobra.Command, args ...string) (string, error) {
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func TestStrictRefusesUnknownSubcommand(t *testing.T) {
	root, _ := tree()
	cmdutil.Strict(root)
	_, err := run(root, "links", "lsit")
	if err == nil || !cmdutil.IsUsageError(err) {
		t.Fatalf("links lsit: %v; want a usage error", err)
	}
	want := "unknown command \"lsit\" for \"app links\"\n\nDid you mean this?\n\tlist"
	if err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	if _, err := run(root, "links", "zzz"); err == nil || strings.Contains(err.Error(), "Did you mean") {
		t.Errorf("links zzz: %v; want an error without suggestions", err)
	}
	out, err := run(root, "links")
	if err != nil || !strings.Contains(out, "Available Commands") {
		t.Errorf("links alone: %v, %q; want its help", err, out)
	}
	if _, err := run(root, "links", "list"); err != nil {
		t.Errorf("links list: %v", err)
	}
	if _, err := run(root, "links", "list", "--nope"); !cmdutil.IsUsageError(err) {
		t.Errorf("an unknown flag: %v; want a usage error", err)
	}
}

func TestShadowedFlags(t *testing.T) {
	root, links := tree()
	if s := cmdutil.ShadowedFlags(root); len(s) != 0 {
		t.Fatalf("clean tree: %v", s)
	}
	add, _, _ := links.Find([]string{"add"})
	list, _, _ := links.Find([]string{"list"})
	add.Flags().String("password", "", "the new account's")
	list.Flags().BoolP("plain", "p", false, "")
	s := cmdutil.ShadowedFlags(root)
	if len(s) != 2 || !strings.Contains(s[0], "app links add: --password") || !strings.Contains(s[1], "app links list: --plain") {
		t.Errorf("ShadowedFlags = %q", s)
	}
}
