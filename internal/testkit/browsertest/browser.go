// Package browsertest drives headless Chromium for the tests of the pages
// students and operators see, and audits those pages with axe-core. It is
// apart from testkit so that the tests that need no browser (and the
// Windows and arm64 builds of them) do not compile the browser driver.
package browsertest

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/seedhq/portal/internal/testkit"
)

// browserNames are the headless browsers the browser tests try, in order.
// CI installs Debian's chromium (.ci/run).
var browserNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Find returns the path of a Chromium-like browser. With none, the
// test is skipped, except in CI (CI=true), where it fails: what names the
// page says what was not tested.
func Find(t testing.TB, what string) string {
	t.Helper()
	for _, name := range browserNames {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := fmt.Sprintf("NO BROWSER: none of %s is on PATH, so %s was NOT tested in a real browser "+
		"(install Debian's chromium: apt-get install chromium)", strings.Join(browserNames, ", "), what)
	testkit.Missing(t, msg)
	return ""
}

// New starts the headless browser at execPath with a window of
// width×height and returns its context; cancel ends it.
func New(ctx context.Context, execPath string, width, height int) (context.Context, context.CancelFunc) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(execPath),
		chromedp.Headless,
		chromedp.NoSandbox, // CI runs as root
		chromedp.DisableGPU,
		chromedp.Flag("disable-dev-shm-usage", true),
		// Scrolls (keys, scrollIntoView) land at once instead of animating
		// over frames a loaded machine may not draw in time.
		chromedp.Flag("disable-smooth-scrolling", true),
		chromedp.WindowSize(width, height),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	return bctx, func() { cancelBrowser(); cancelAlloc() }
}
