package testkit

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// Elements and attributes a rendered exam text (internal/richtext) may
// hold, MathML apart.
var (
	safeElements = map[string]bool{"p": true, "br": true, "strong": true, "em": true, "u": true, "sub": true, "sup": true,
		"ul": true, "ol": true, "li": true, "code": true, "table": true, "thead": true, "tbody": true, "tr": true, "th": true,
		"td": true, "img": true, "audio": true, "span": true}
	safeAttrs = map[string]bool{"dir": true, "start": true, "align": true, "class": true, "src": true, "alt": true,
		"loading": true, "aria-label": true, "data-description": true, "controls": true, "preload": true, "data-media": true,
		"data-blank": true, "style": true}
)

// CheckRenderedHTML fails t when out, the HTML rendered from src, holds an
// element, attribute or URL that a rendered exam text must not: anything
// but the allow-list, an event handler, a link, a script URL or a CSS
// url() or expression(), a load of anything but the exam's media. The
// values of alt, aria-label and data-description are text, whatever they say.
func CheckRenderedHTML(t testing.TB, src, out string) {
	t.Helper()
	z := html.NewTokenizer(strings.NewReader(out))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		if !safeElements[tok.Data] && !isMathElement(tok.Data) {
			t.Fatalf("%q rendered a <%s> element:\n%s", src, tok.Data, out)
		}
		for _, a := range tok.Attr {
			v := strings.ToLower(a.Val)
			if a.Key == "alt" || a.Key == "aria-label" || a.Key == "data-description" {
				continue
			}
			if !safeAttrs[a.Key] && !isMathElement(tok.Data) || strings.HasPrefix(a.Key, "on") ||
				strings.Contains(v, "javascript:") || strings.Contains(v, "url(") || strings.Contains(v, "expression(") {
				t.Fatalf("%q rendered <%s %s=%q>:\n%s", src, tok.Data, a.Key, a.Val, out)
			}
			if a.Key == "src" && !strings.HasPrefix(a.Val, "media/") {
				t.Fatalf("%q rendered a load of %q:\n%s", src, a.Val, out)
			}
		}
	}
}

// isMathElement reports whether name is a MathML element (Temml's output).
func isMathElement(name string) bool {
	return name == "math" || name == "none" || name == "semantics" || name == "annotation" ||
		(strings.HasPrefix(name, "m") && len(name) > 1 && name != "meta" && name != "marquee" && name != "menu" && name != "mark")
}
