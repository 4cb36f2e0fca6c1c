package testkit_test

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/seedhq/portal/internal/testkit"
)

// TestCachedTool: the first use installs the tool into the user's cache,
// once however many ask at once; later uses find it; a failed install
// leaves nothing behind, and the next use installs it.
func TestCachedTool(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	var installs atomic.Int32
	install := func(tmp string) (string, error) {
		installs.Add(1)
		p := filepath.Join(tmp, "tool")
		return p, os.WriteFile(p, []byte("v1"), 0o755)
	}
	if _, err := testkit.CachedTool("broken-1", func(tmp string) (string, error) {
		os.WriteFile(filepath.Join(tmp, "half"), []byte("x"), 0o644)
		return "", errors.New("the registry is down")
	}); err == nil {
		t.Fatal("a failed install gave a tool")
	}
	paths := make([]string, 8)
	var wg sync.WaitGroup
	for i := range paths {
		wg.Go(func() {
			p, err := testkit.CachedTool("broken-1", install)
			if err != nil {
				t.Error(err)
			}
			paths[i] = p
		})
	}
	wg.Wait()
	if n := installs.Load(); n != 1 {
		t.Fatalf("%d installs, want 1", n)
	}
	for _, p := range paths {
		if b, err := os.ReadFile(p); err != nil || string(b) != "v1" || p != paths[0] {
			t.Fatalf("the tool at %s: %q, %v", p, b, err)
		}
	}
	entries, err := os.ReadDir(filepath.Dir(paths[0]))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "broken-1" && e.Name() != "broken-1.lock" {
			t.Errorf("left in the cache: %s", e.Name())
		}
	}
}
