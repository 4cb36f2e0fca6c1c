// Package cmdutil holds what the command lines of portal, labagent and
// linkctl share about their cobra command trees: usage errors (exit status
// 2), strict parent commands that refuse an unknown sub-command, and the
// check that no local flag shadows an inherited global one.
package cmdutil

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// ExitUsage is the exit status of a mistake on the command line, as gh and
// kubectl use it.
const ExitUsage = 2

// UsageError marks a mistake on the command line or in the settings.
type UsageError struct{ Err error }

// Error returns the message of the mistake.
func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the mistake.
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// IsUsageError reports whether err is a mistake on the command line: a
// UsageError, or one of cobra's own errors, which it does not type
// (required flags, unknown commands and flags, argument counts).
func IsUsageError(err error) bool {
	var ue *UsageError
	if errors.As(err, &ue) {
		return true
	}
	msg := err.Error()
	for _, prefix := range []string{"required flag(s) ", "unknown command ", "accepts ", "invalid argument ", "unknown flag", "unknown shorthand", "flag needs"} {
		if strings.HasPrefix(msg, prefix) {
			return true
		}
	}
	return false
}

// Strict makes every parent command under root (a command with
// sub-commands and no action of its own) refuse an unknown sub-command with
// a usage error naming it, with suggestions as gh answers:
//
//	unknown command "lsit" for "linkctl links"
//
//	Did you mean this?
//		list
//
// Cobra does this only for the root; for other parents it prints the help
// and succeeds, so a typo in a script passes silently. A parent given no
// sub-command still prints its help and succeeds. Call Strict once the tree
// is complete; flag errors become usage errors too.
func Strict(root *cobra.Command) {
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &UsageError{err} })
	Walk(root, func(c *cobra.Command) {
		if !c.HasSubCommands() || c.Runnable() {
			return
		}
		c.Args = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			return unknownCommand(cmd, args[0])
		}
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	})
}

// unknownCommand is the usage error of an unknown sub-command name of cmd.
func unknownCommand(cmd *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := cmd.SuggestionsFor(name); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
	}
	return &UsageError{errors.New(msg)}
}

// ShadowedFlags lists the flags under root that shadow a global flag: a
// flag defined on a command under the same name or shorthand as a
// persistent flag of one of its ancestors. Cobra lets the local one win
// silently, so "--password" would mean one thing on one command and
// another on its siblings.
func ShadowedFlags(root *cobra.Command) []string {
	var found []string
	Walk(root, func(c *cobra.Command) {
		for p := c.Parent(); p != nil; p = p.Parent() {
			p.PersistentFlags().VisitAll(func(inherited *pflag.Flag) {
				for _, own := range []*pflag.Flag{
					c.Flags().Lookup(inherited.Name),
					c.PersistentFlags().Lookup(inherited.Name),
					shorthand(c.Flags(), inherited.Shorthand),
					shorthand(c.PersistentFlags(), inherited.Shorthand),
				} {
					if own != nil && own != inherited {
						found = append(found, fmt.Sprintf("%s: --%s shadows --%s of %q", c.CommandPath(), own.Name, inherited.Name, p.CommandPath()))
						return
					}
				}
			})
		}
	})
	return found
}

// shorthand looks up a flag of fs by its one-letter name, if it has one.
func shorthand(fs *pflag.FlagSet, name string) *pflag.Flag {
	if name == "" {
		return nil
	}
	return fs.ShorthandLookup(name)
}

// Walk calls fn for root and every command under it, parents first.
func Walk(root *cobra.Command, fn func(*cobra.Command)) {
	fn(root)
	for _, sub := range root.Commands() {
		Walk(sub, fn)
	}
}
