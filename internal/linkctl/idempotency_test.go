package linkctl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seedhq/portal/pkg/client"
)

// TestIdempotencyKeyFlag: a creating command run twice with the same
// --idempotency-key creates once and prints the same record; an import run
// again with its key creates each row once; a bad key is a usage error.
func TestIdempotencyKeyFlag(t *testing.T) {
	isolate(t)
	p := mustStartPortal(t)
	u := p.mustLinkUser(t, "marketer")
	t.Setenv("LINKCTL_API_URL", p.URL)
	t.Setenv("LINKCTL_API_KEY", u.Key)

	var a, b client.LinkURL
	mustJSON(t, &a, "links", "add", "https://example.org/once", "--idempotency-key", "spring-1")
	mustJSON(t, &b, "links", "add", "https://example.org/once", "--idempotency-key", "spring-1")
	if a.ID == 0 || b.ID != a.ID || b.ShortURL != a.ShortURL {
		t.Fatalf("the same command twice with one key: %+v then %+v, want the same link", a, b)
	}
	r := runCLI(t, "", "links", "add", "https://example.org/other", "--idempotency-key", "spring-1")
	if r.code == 0 || !strings.Contains(r.errOut, "Idempotency-Key") {
		t.Fatalf("another link under the key: exit %d, stderr %q", r.code, r.errOut)
	}

	csv := filepath.Join(t.TempDir(), "links.csv")
	if err := os.WriteFile(csv, []byte("url,custom\nhttps://example.org/x,row-x\nhttps://example.org/y,row-y\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var first, again []importResult
	mustJSON(t, &first, "links", "import", csv, "--idempotency-key", "import-7")
	mustJSON(t, &again, "links", "import", csv, "--idempotency-key", "import-7")
	if len(first) != 2 || len(again) != 2 || first[0].ID != again[0].ID || first[1].ID != again[1].ID || again[1].Error != "" {
		t.Fatalf("an import run twice with its key: %+v then %+v, want the same links", first, again)
	}
	var all []client.LinkURL
	mustJSON(t, &all, "links", "list", "--all")
	if len(all) != 3 {
		t.Fatalf("%d links, want 3", len(all))
	}

	for _, bad := range []string{" ", "caf\u00e9", strings.Repeat("k", 181)} {
		if r := runCLI(t, "", "links", "add", "https://example.org/z", "--idempotency-key", bad); r.code != 2 {
			t.Errorf("--idempotency-key %q: exit %d, want 2 (usage); stderr %q", bad, r.code, r.errOut)
		}
	}
}
