// Package wine runs the module's Windows binaries on Linux under Wine, for
// the tests that execute labagent's Windows build (make test-windows).
//
// A Prefix is a fresh Wine prefix (a Windows installation: C:\ is
// <dir>/drive_c) with the ProcessPrng shim the Go runtime needs under
// Wine 8 (shim/bcryptprimitives.c, built with mingw-w64). Windows programs
// run in it through Command, or through proc with Wrapper and Env. Every
// prefix has its own wineserver, which Close stops.
package wine

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Loader returns the path of the 64-bit Wine loader: wine64 on PATH, or
// Debian's /usr/lib/wine/wine64 (Debian's wine64 package puts no wine64 on
// PATH, and its "wine" wants the 32-bit loader as well).
func Loader() (string, error) {
	if p, err := exec.LookPath("wine64"); err == nil {
		return p, nil
	}
	const debian = "/usr/lib/wine/wine64"
	if _, err := os.Stat(debian); err == nil {
		return debian, nil
	}
	return "", errors.New("wine64 not found: install Debian's wine64 (apt-get install wine64)")
}

// Prefix is a Wine prefix: a Windows installation in a directory.
type Prefix struct {
	// Dir is the prefix (WINEPREFIX); C:\ is Dir/drive_c.
	Dir    string
	loader string
}

// Open returns the prefix in dir as it is, without preparing it (see New).
func Open(dir string) (*Prefix, error) {
	loader, err := Loader()
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	return &Prefix{Dir: abs, loader: loader}, nil
}

// New creates a Wine prefix in dir (which must not exist or be empty):
// wineboot --init, then the ProcessPrng shim into C:\windows\system32. It
// builds the shim with x86_64-w64-mingw32-gcc (Debian's
// gcc-mingw-w64-x86-64).
func New(ctx context.Context, dir string) (*Prefix, error) {
	p, err := Open(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(p.Dir, 0o755); err != nil {
		return nil, err
	}
	// wineboot starts the prefix's wineserver and services; it returns once
	// the prefix is set up.
	if out, err := p.Command(ctx, "wineboot", "--init").CombinedOutput(); err != nil {
		p.Close()
		return nil, fmt.Errorf("wineboot --init in %s: %w\n%s", p.Dir, err, out)
	}
	dll := p.HostPath(`C:\windows\system32\bcryptprimitives.dll`)
	if err := buildShim(ctx, dll); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// shim is the ProcessPrng shim's source, embedded so that the build does
// not depend on where this file was compiled (make test builds with
// -trimpath).
//
//go:embed shim/bcryptprimitives.c shim/bcryptprimitives.def
var shim embed.FS

// buildShim compiles shim/bcryptprimitives.c into the DLL out.
func buildShim(ctx context.Context, out string) error {
	gcc, err := exec.LookPath("x86_64-w64-mingw32-gcc")
	if err != nil {
		return errors.New("x86_64-w64-mingw32-gcc not found: install Debian's gcc-mingw-w64-x86-64")
	}
	src, err := os.MkdirTemp("", "wine-shim-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(src)
	if err := os.CopyFS(src, shim); err != nil {
		return fmt.Errorf("write the shim's source: %w", err)
	}
	cmd := exec.CommandContext(ctx, gcc, "-shared", "-O2", "-o", out,
		filepath.Join(src, "shim", "bcryptprimitives.c"), filepath.Join(src, "shim", "bcryptprimitives.def"), "-ladvapi32")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build the ProcessPrng shim: %w\n%s", err, b)
	}
	return nil
}

// Env is the environment a program in the prefix runs with, added to the
// caller's: the prefix, Wine's debug output off, and no prompt to install
// Mono or Gecko.
func (p *Prefix) Env() []string {
	return []string{"WINEPREFIX=" + p.Dir, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml="}
}

// Wrapper is the command that runs a Windows executable given as its next
// argument: the Wine loader.
func (p *Prefix) Wrapper() []string { return []string{p.loader} }

// Command returns the command that runs the Windows program name (a path on
// the host, a Windows path, or a program of Wine's such as "sc" or
// "taskkill") with args in the prefix.
func (p *Prefix) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, p.loader, append([]string{name}, args...)...)
	cmd.Env = append(os.Environ(), p.Env()...)
	cmd.WaitDelay = 10 * time.Second
	return cmd
}

// Run runs a Windows program in the prefix to completion and returns its
// standard output; the error carries the standard error.
func (p *Prefix) Run(ctx context.Context, name string, args ...string) (string, error) {
	cmd := p.Command(ctx, name, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s %s: %w\n%s%s", name, strings.Join(args, " "), err, out.String(), errOut.String())
	}
	return out.String(), nil
}

// HostPath maps a Windows path on drive C: (C:\ProgramData\labagent) to
// the host's path of the same file in the prefix.
func (p *Prefix) HostPath(winPath string) string {
	rest, ok := strings.CutPrefix(winPath, `C:\`)
	if !ok {
		rest, _ = strings.CutPrefix(winPath, `c:\`)
	}
	return filepath.Join(p.Dir, "drive_c", filepath.FromSlash(strings.ReplaceAll(rest, `\`, "/")))
}

// Close stops the prefix's wineserver and every Windows process in it
// (services too) and waits until it has gone.
func (p *Prefix) Close() error {
	server := filepath.Join(filepath.Dir(p.loader), "wineserver")
	if _, err := os.Stat(server); err != nil {
		server = "wineserver"
	}
	cmd := exec.Command(server, "-k")
	cmd.Env = append(os.Environ(), p.Env()...)
	cmd.Run() // fails when no wineserver runs: nothing to stop
	wait := exec.Command(server, "-w")
	wait.Env = cmd.Env
	return wait.Run()
}
