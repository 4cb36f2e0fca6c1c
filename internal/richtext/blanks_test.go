package richtext

import (
	"slices"
	"testing"

	"github.com/seedhq/portal/pkg/labwire/sanitize"
)

func TestBlanksRenderAsPlaceholders(t *testing.T) {
	src := "Ibu kota Indonesia adalah [[b1]], luasnya [[b_2]] km², dan $x=[[notablank]]$ `[[code]]` \\[[escaped]] [[b3]]."
	res := mustRender(t, Markdown, src)
	want := `<p dir="auto">Ibu kota Indonesia adalah <span class="blank" data-blank="b1"></span>, luasnya <span class="blank" data-blank="b_2"></span> km², dan `
	if len(res.HTML) < len(want) || res.HTML[:len(want)] != want {
		t.Fatalf("HTML = %s\nwant prefix %s", res.HTML, want)
	}
	if !slices.Equal(res.Blanks, []string{"b1", "b_2", "b3"}) {
		t.Errorf("Result.Blanks = %q", res.Blanks)
	}
	if got := Blanks(src); !slices.Equal(got, res.Blanks) {
		t.Errorf("Blanks = %q, want %q as Render", got, res.Blanks)
	}
	// A blank is text where markdown is not parsed, and a lab server's
	// sanitiser keeps the placeholder.
	if plain := mustRender(t, Plain, "[[b1]]"); plain.HTML != `<p dir="auto">[[b1]]</p>` || len(plain.Blanks) != 0 {
		t.Errorf("plain: %s %q", plain.HTML, plain.Blanks)
	}
	if got := sanitize.HTML(res.HTML); got != res.HTML {
		t.Errorf("sanitising again changed the HTML:\n%s\n%s", got, res.HTML)
	}
	// What is not a blank id stays text; a forged placeholder loses what
	// the allow-list does not name.
	for _, src := range []string{"[[a b]]", "[[]]", "[[" + string(make([]byte, 65)) + "]]", "[[x\"onclick=y]]"} {
		if ids := Blanks(src); len(ids) != 0 {
			t.Errorf("Blanks(%q) = %q", src, ids)
		}
	}
	if got := sanitize.HTML(`<span class="blank evil" data-blank="x y" onclick="z">t</span>`); got != "<span>t</span>" && got != "t" {
		t.Errorf("forged placeholder sanitised to %s", got)
	}
}
