// Command wineexec runs Windows test binaries under Wine, as go test's
// -exec program, in the Wine prefix WINEPREFIX names:
//
//	wineexec -init DIR      create a fresh prefix in DIR (with the ProcessPrng shim)
//	wineexec -close DIR     stop the prefix's wineserver
//	wineexec PROGRAM ARGS   run PROGRAM in $WINEPREFIX; exit with its status
//
// make test-windows creates a prefix, runs
//
//	WINEPREFIX=DIR GOOS=windows go test -exec "bin/tools/wineexec" ./...
//
// and closes it.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/seedhq/portal/internal/testkit/wine"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			os.Exit(ee.ExitCode())
		}
		fmt.Fprintln(os.Stderr, "wineexec:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	if len(args) == 2 && args[0] == "-init" {
		_, err := wine.New(context.Background(), args[1])
		return err
	}
	if len(args) == 2 && args[0] == "-close" {
		p, err := wine.Open(args[1])
		if err != nil {
			return err
		}
		return p.Close()
	}
	if len(args) == 0 {
		return errors.New("usage: wineexec -init DIR | -close DIR | PROGRAM [ARGS...]")
	}
	dir := os.Getenv("WINEPREFIX")
	if dir == "" {
		return errors.New("WINEPREFIX is not set: create a prefix with wineexec -init DIR first")
	}
	p, err := wine.Open(dir)
	if err != nil {
		return err
	}
	cmd := p.Command(context.Background(), args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	return cmd.Run()
}
