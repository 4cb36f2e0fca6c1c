// Command linkctl manages the short links, QR codes, domains, campaigns,
// channels and pixels of a link-API user from the command line; see
// docs/linkctl.md and "linkctl help". The commands live in internal/linkctl.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/seedhq/portal/internal/linkctl"
)

// Set at build time with -ldflags "-X main.version=... -X main.commit=... -X main.date=...".
var (
	version = "dev"
	commit  = "none"
	date    = "unknown"
)

func main() {
	linkctl.Version, linkctl.Commit, linkctl.Date = version, commit, date
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := linkctl.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
