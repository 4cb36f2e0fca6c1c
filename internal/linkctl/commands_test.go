package linkctl

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seedhq/portal/pkg/client"
)

func TestCommands(t *testing.T) {
	isolate(t)
	p := mustStartPortal(t)
	alice := p.mustLinkUser(t, "alice")
	ctx := context.Background()
	if _, _, err := p.op.Exam.Admin.CreateLinkOverlay(ctx, alice.ID, "message", "Sale"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.op.Exam.Admin.CreateLinkSplash(ctx, alice.ID, "Welcome"); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LINKCTL_API_URL", p.URL)
	t.Setenv("LINKCTL_API_KEY", alice.Key)
	id := func(n int64) string { return fmt.Sprint(n) }

	// account
	var acc client.LinkAccount
	mustJSON(t, &acc, "account", "get")
	if acc.Username != "alice" {
		t.Errorf("account = %+v", acc)
	}
	mustTable(t, []string{"account", "get"}, "USERNAME", "alice@example.com")
	mustTable(t, []string{"account", "update", "--email", "alice2@example.com"}, "account updated")
	mustJSON(t, &acc, "account", "get")
	if acc.Email != "alice2@example.com" {
		t.Errorf("email after update = %q", acc.Email)
	}

	// domains
	var did idResult
	mustJSON(t, &did, "domains", "add", "https://go.example.com", "--redirect-root", "https://example.com/")
	mustTable(t, []string{"domains", "update", id(did.ID), "--redirect-404", "https://example.com/404"}, "updated")
	var ds []client.LinkDomain
	mustJSON(t, &ds, "domains", "list")
	if len(ds) != 1 || ds[0].Redirect404 != "https://example.com/404" {
		t.Errorf("domains = %+v", ds)
	}
	mustTable(t, []string{"domains", "list"}, "ROOT REDIRECT", "https://go.example.com")
	var did2 idResult
	mustJSON(t, &did2, "domains", "add", "https://b.example.com")
	mustTable(t, []string{"domains", "delete", id(did2.ID)}, "deleted")

	// pixels
	var pid idResult
	mustJSON(t, &pid, "pixels", "add", "--type", "gtmpixel", "--name", "GTM", "--tag", "GTM-ABC1234")
	mustTable(t, []string{"pixels", "update", id(pid.ID), "--tag", "GTM-XYZ9876", "--name", "Tag"}, "updated")
	var ps []client.LinkPixel
	mustJSON(t, &ps, "pixels", "list")
	if len(ps) != 1 || ps[0].Tag != "GTM-XYZ9876" || ps[0].Name != "Tag" {
		t.Errorf("pixels = %+v", ps)
	}
	mustTable(t, []string{"pixels", "list"}, "gtmpixel", "GTM-XYZ9876")

	// campaigns
	var camp client.LinkCampaign
	mustJSON(t, &camp, "campaigns", "add", "--name", "Spring", "--slug", "spring", "--public")
	if camp.ID == 0 || camp.Slug != "spring" || !camp.Public {
		t.Errorf("campaign = %+v", camp)
	}
	mustTable(t, []string{"campaigns", "update", id(camp.ID), "--name", "Summer"}, "updated")
	mustTable(t, []string{"campaigns", "list"}, "Summer", "/r/spring")
	var camps []client.LinkCampaign
	mustJSON(t, &camps, "campaigns", "list")
	if len(camps) != 1 || camps[0].Name != "Summer" {
		t.Errorf("campaigns = %+v", camps)
	}

	// channels
	var ch client.LinkChannel
	mustJSON(t, &ch, "channels", "add", "--name", "News", "--color", "#aabbcc")
	mustTable(t, []string{"channels", "update", id(ch.ID), "--starred"}, "updated")
	var chs []client.LinkChannel
	mustJSON(t, &chs, "channels", "list")
	if len(chs) != 1 || !chs[0].Starred || chs[0].Color != "#AABBCC" {
		t.Errorf("channels = %+v", chs)
	}
	mustTable(t, []string{"channels", "list"}, "News", "#AABBCC")

	// links
	var l client.LinkURL
	mustJSON(t, &l, "links", "add", "https://example.org/page", "--custom", "promo", "--title", "Promo", "--pixel", id(pid.ID))
	if l.ID == 0 || l.ShortURL != p.URL+"/promo" {
		t.Errorf("link = %+v", l)
	}
	mustTable(t, []string{"links", "add", "https://example.org/second"}, "link ", p.URL+"/")
	mustTable(t, []string{"links", "update", id(l.ID), "--description", "Spring sale"}, "updated")
	mustTable(t, []string{"campaigns", "assign", id(camp.ID), id(l.ID)}, "assigned")
	mustTable(t, []string{"channels", "assign", id(ch.ID), "links", id(l.ID)}, "assigned")
	var got struct {
		*client.LinkURL
		Stats map[string]any `json:"stats"`
	}
	mustJSON(t, &got, "links", "get", id(l.ID))
	if got.Description != "Spring sale" || got.Campaign != camp.ID || len(got.Channels) != 1 || got.Stats == nil {
		t.Errorf("link = %+v", got.LinkURL)
	}
	mustTable(t, []string{"links", "get", id(l.ID)}, "LONG URL", "https://example.org/page", "Spring sale")
	var ls []client.LinkURL
	mustJSON(t, &ls, "links", "list", "--order", "clicks")
	if len(ls) != 2 {
		t.Errorf("links = %+v", ls)
	}
	// Paging: one per page, then --all.
	mustJSON(t, &ls, "links", "list", "--limit", "1", "--page", "2")
	if len(ls) != 1 || ls[0].ID != l.ID {
		t.Errorf("page 2 of 1 = %+v", ls)
	}
	mustJSON(t, &ls, "links", "list", "--limit", "1", "--all")
	if len(ls) != 2 {
		t.Errorf("--all = %d links", len(ls))
	}
	mustTable(t, []string{"links", "list"}, "SHORT URL", p.URL+"/promo")

	// qr
	var q client.LinkQR
	mustJSON(t, &q, "qr", "add", "--type", "link", "--data", "https://example.org/qr", "--name", "poster")
	if q.ID == 0 || q.Link == "" {
		t.Errorf("qr = %+v", q)
	}
	var wifi client.LinkQR
	mustJSON(t, &wifi, "qr", "add", "--type", "wifi", "--data", `{"ssid":"Lab","password":"secret-pass","encryption":"WPA"}`)
	mustTable(t, []string{"qr", "update", id(q.ID), "--data", "https://example.org/qr2"}, "updated")
	var qc struct {
		*client.LinkQRCode
		Stats map[string]any `json:"stats"`
	}
	mustJSON(t, &qc, "qr", "get", id(q.ID))
	if qc.Type != "link" || !strings.Contains(string(qc.Data), "qr2") {
		t.Errorf("qr = %+v", qc.LinkQRCode)
	}
	mustTable(t, []string{"qr", "get", id(q.ID)}, "TYPE", "poster")
	var qs []client.LinkQR
	mustJSON(t, &qs, "qr", "list")
	if len(qs) != 2 {
		t.Errorf("qrs = %+v", qs)
	}
	mustTable(t, []string{"qr", "list"}, "SCANS", "poster")
	mustTable(t, []string{"channels", "assign", id(ch.ID), "qr", id(q.ID)}, "assigned")
	var items []client.LinkChannelItem
	mustJSON(t, &items, "channels", "items", id(ch.ID))
	if len(items) != 2 {
		t.Errorf("channel items = %+v", items)
	}
	mustTable(t, []string{"channels", "items", id(ch.ID)}, "links", "qr")
	// download, as PNG and as SVG.
	file := filepath.Join(t.TempDir(), "qr.png")
	mustTable(t, []string{"qr", "download", id(q.ID), "-f", file}, "saved")
	if b, err := os.ReadFile(file); err != nil || !strings.HasPrefix(string(b), "\x89PNG") {
		t.Errorf("qr.png: %v, %.8q", err, b)
	}
	svg := filepath.Join(t.TempDir(), "qr.svg")
	mustTable(t, []string{"qr", "download", id(q.ID), "--format", "svg", "-f", svg}, "saved")
	if b, err := os.ReadFile(svg); err != nil || !strings.Contains(string(b), "<svg") {
		t.Errorf("qr.svg: %v, %.40q", err, b)
	}
	if r := runCLI(t, "", "qr", "download", "999999", "-f", filepath.Join(t.TempDir(), "x.png")); r.code != 4 {
		t.Errorf("qr download of an unknown code exited %d, want 4", r.code)
	}

	// overlays, splash
	var ovs []client.LinkOverlay
	mustJSON(t, &ovs, "overlays", "list")
	if len(ovs) != 1 || ovs[0].Name != "Sale" {
		t.Errorf("overlays = %+v", ovs)
	}
	mustTable(t, []string{"overlays", "list"}, "Sale", "message")
	var sps []client.LinkSplash
	mustJSON(t, &sps, "splash", "list", "--all")
	if len(sps) != 1 || sps[0].Name != "Welcome" {
		t.Errorf("splash = %+v", sps)
	}
	mustTable(t, []string{"splash", "list"}, "Welcome")

	// deletions
	var ok okResult
	mustJSON(t, &ok, "qr", "delete", id(wifi.ID))
	mustJSON(t, &ok, "links", "delete", id(l.ID))
	mustJSON(t, &ok, "channels", "delete", id(ch.ID))
	mustJSON(t, &ok, "campaigns", "delete", id(camp.ID))
	mustJSON(t, &ok, "pixels", "delete", id(pid.ID))
	if ok.ID != pid.ID {
		t.Errorf("delete result = %+v", ok)
	}
	if r := runCLI(t, "", "links", "get", id(l.ID)); r.code != ExitNotFound {
		t.Errorf("deleted link: exit %d, %s", r.code, r.errOut)
	}
}

func TestImportExport(t *testing.T) {
	isolate(t)
	p := mustStartPortal(t)
	alice := p.mustLinkUser(t, "alice")
	bob := p.mustLinkUser(t, "bob")
	t.Setenv("LINKCTL_API_URL", p.URL)
	t.Setenv("LINKCTL_API_KEY", alice.Key)

	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	csvText := "url,custom,domain,description,expiry,title\n" +
		"https://example.org/1,one,,First,2030-01-01,T1\n" +
		"not a url,bad,,,,\n" +
		"https://example.org/3,three,,Third,,T3\n"
	if err := os.WriteFile(in, []byte(csvText), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "", "links", "import", in, "--output", "json")
	if r.code != ExitError || !strings.Contains(r.errOut, "1 of 3 rows failed") {
		t.Fatalf("import: exit %d, stderr %q", r.code, r.errOut)
	}
	var results []importResult
	if err := jsonUnmarshal(r.out, &results); err != nil {
		t.Fatal(err)
	}
	if len(results) != 3 || results[0].ID == 0 || results[0].ShortURL != p.URL+"/one" ||
		results[1].Error == "" || results[1].Row != 3 || results[2].ID == 0 {
		t.Fatalf("results = %+v", results)
	}
	// stdin and a table.
	r = runCLI(t, "url\nhttps://example.org/4\n", "links", "import", "-", "--output", "table")
	if r.code != 0 || !strings.Contains(r.out, "SHORT URL") {
		t.Fatalf("import from stdin: exit %d\n%s%s", r.code, r.out, r.errOut)
	}
	if r := runCLI(t, "", "links", "import", filepath.Join(dir, "in.csv"), "--output", "json", "--timeout", "1m"); r.code != ExitError {
		t.Errorf("second import (aliases taken): exit %d", r.code)
	}
	if r := runCLI(t, "urll\nx\n", "links", "import", "-"); r.code != ExitUsage {
		t.Errorf("bad header: exit %d, %s", r.code, r.errOut)
	}

	// Export every page (3 links, 1 per page), then import it as bob.
	out := filepath.Join(dir, "out.csv")
	mustTable(t, []string{"links", "export", out, "--limit", "1"}, "3 links exported")
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(recs) != 4 || strings.Join(recs[0], ",") != strings.Join(exportColumns, ",") {
		t.Fatalf("export: %v, %q", err, recs)
	}
	stdout := mustRun(t, "links", "export")
	if strings.Count(stdout, "\n") != 4 {
		t.Errorf("export to stdout: %q", stdout)
	}
	t.Setenv("LINKCTL_API_KEY", bob.Key)
	// Aliases are unique per domain: delete alice's before bob imports them.
	t.Setenv("LINKCTL_API_KEY", alice.Key)
	for _, rec := range recs[1:] {
		mustRun(t, "links", "delete", rec[0])
	}
	t.Setenv("LINKCTL_API_KEY", bob.Key)
	mustRun(t, "links", "import", out)
	out2 := filepath.Join(dir, "out2.csv")
	mustRun(t, "links", "export", out2)
	f, err = os.Open(out2)
	if err != nil {
		t.Fatal(err)
	}
	recs2, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(recs2) != len(recs) {
		t.Fatalf("round trip: %v, %q", err, recs2)
	}
	// Same links, same writable columns (url .. channels), newest first.
	for i := range recs {
		if i == 0 {
			continue
		}
		a, b := recs[len(recs)-i], recs2[i] // the import ran oldest last: order reversed
		_ = a
		found := false
		for _, x := range recs[1:] {
			if strings.Join(x[1:10], "|") == strings.Join(b[1:10], "|") {
				found = true
			}
		}
		if !found {
			t.Errorf("round trip: row %q not in the first export %q", b, recs)
		}
	}
}

// TestRateLimitExit: with --no-wait a 429 ends the command at once with
// ExitRateLimited and says so.
func TestRateLimitExit(t *testing.T) {
	isolate(t)
	p := mustStartPortal(t)
	u, _, err := p.op.Exam.Admin.CreateLinkUser(context.Background(), &client.LinkUserRequest{
		Email: "slow@example.com", Username: "slow", RateLimit: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("LINKCTL_API_URL", p.URL)
	t.Setenv("LINKCTL_API_KEY", u.Key)
	for range 2 {
		mustRun(t, "domains", "list", "--no-wait")
	}
	r := runCLI(t, "", "domains", "list", "--no-wait")
	if r.code != ExitRateLimited || !strings.Contains(r.errOut, "RATE_LIMITED") {
		t.Fatalf("third call within the minute: exit %d, stderr %q; want %d", r.code, r.errOut, ExitRateLimited)
	}
}
