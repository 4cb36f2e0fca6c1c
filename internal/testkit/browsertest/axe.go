package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/seedhq/portal/internal/testkit"
)

// AxeVersion is the pinned axe-core (Deque's accessibility rules, MPL-2.0)
// that Axe runs.
const AxeVersion = "4.10.3"

// AxeTags are the rule sets Axe runs: WCAG 2.0 and 2.1, levels A and AA.
var AxeTags = []string{"wcag2a", "wcag2aa", "wcag21a", "wcag21aa"}

var (
	axeOnce   sync.Once
	axeScript string
	axeErr    error
)

// AxeViolation is one rule axe-core found broken, with the elements that
// break it.
type AxeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target         []any  `json:"target"`
		HTML           string `json:"html"`
		FailureSummary string `json:"failureSummary"`
	} `json:"nodes"`
}

// String is the violation as a test failure shows it.
func (v AxeViolation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s", v.ID, v.Impact, v.Help)
	for _, n := range v.Nodes {
		fmt.Fprintf(&b, "\n    %v %s\n      %s", n.Target, n.HTML, strings.ReplaceAll(n.FailureSummary, "\n", "\n      "))
	}
	return b.String()
}

// AxeScript returns axe.min.js of axe-core AxeVersion: $AXE_CORE_JS when
// set, else the copy in the user's cache directory, which it installs there
// with npm from the npm registry on first use (one install at a time on
// the machine). Without npm (or the registry) the test is skipped with a
// loud message, or fails when CI=true (.ci/run installs Debian's npm).
func AxeScript(t testing.TB) string {
	t.Helper()
	axeOnce.Do(func() { axeScript, axeErr = findOrInstallAxe() })
	if axeErr != nil {
		msg := fmt.Sprintf("NO AXE-CORE: %v; the accessibility audit (axe-core %s) was NOT run "+
			"(install Debian's npm: apt-get install npm; the tests install axe-core into the user's cache)", axeErr, AxeVersion)
		testkit.Missing(t, msg)
	}
	return axeScript
}

func findOrInstallAxe() (string, error) {
	if p := os.Getenv("AXE_CORE_JS"); p != "" {
		b, err := os.ReadFile(p)
		if err != nil {
			return "", fmt.Errorf("AXE_CORE_JS: %w", err)
		}
		return string(b), nil
	}
	prefix, err := testkit.CachedTool("axe-core-"+AxeVersion, installAxe)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(prefix, "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		return "", fmt.Errorf("install axe-core: %w", err)
	}
	return string(b), nil
}

// installAxe installs axe-core AxeVersion with npm into the prefix tmp and
// returns it.
func installAxe(tmp string) (string, error) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("no npm on PATH: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", tmp, "--no-save", "--no-audit", "--no-fund",
		"--ignore-scripts", "axe-core@"+AxeVersion)
	cmd.Dir = tmp
	fmt.Fprintf(os.Stderr, "browsertest: npm install axe-core@%s into the user's cache (once per machine)\n", AxeVersion)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install axe-core@%s: %w\n%s", AxeVersion, err, out)
	}
	return tmp, nil
}

// Axe audits the page open in ctx (a chromedp browser tab) with axe-core's
// WCAG 2.0 and 2.1 A and AA rules (AxeTags) and returns what it finds: none
// when the page passes. It injects axe.min.js into the page first when the
// page has none.
func Axe(ctx context.Context, t testing.TB) []AxeViolation {
	t.Helper()
	script := AxeScript(t)
	has, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof window.axe === 'object'`))
	if err != nil {
		t.Fatalf("axe: %v", err)
	}
	if !has {
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](script+"\n;null")); err != nil {
			t.Fatalf("axe: inject axe.min.js: %v", err)
		}
	}
	tags := `['` + strings.Join(AxeTags, `','`) + `']`
	out, err := chromedp.Run(ctx, chromedp.Evaluate[[]AxeViolation](
		`axe.run(document, {runOnly: {type: 'tag', values: `+tags+`}, resultTypes: ['violations']}).then(function (r) { return r.violations; })`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe: run: %v", err)
	}
	return out
}
