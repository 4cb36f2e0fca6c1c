package console_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserShopName opens the storefront in headless Chromium, on a
// desktop and at a phone's width, on both stores: the header and the tab's
// title name the shop, the tagline and the opening hours (on two lines)
// are under the title, and a long name fits a phone. Each OWASP vector
// typed as the shop's texts stays text in the page: the same text in the
// header, the title and the intro, no element or event handler of its
// own, no javascript: address. With UPDATE_SCREENSHOTS=1 it saves
// docs/console/shop-store-desktop.png and shop-store-phone.png.
func TestBrowserShopName(t *testing.T) {
	forEachStore(t, browseShopName)
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func browseShopName(t *testing.T, kind string) {
	chrome := newHeadless(t, "the shop's name on its pages", 90*time.Second)
	p := newPortal(t, onStore(kind), storefrontMenu)
	store := p.srv.URL + "/console/shop/?lang=en"
	desk, phone := chrome.tab(1280, 800), chrome.tab(390, 844)

	p.setShopTexts(t, shopName, shopTagline, shopHours)
	for _, tab := range []*tab{desk, phone} {
		tab.do("the storefront", chromedp.Navigate(store), chromedp.WaitVisible(chromedp.CSS(".shop-intro")))
		tab.check("the header names the shop", `document.querySelector('.brand').textContent === `+jsString(shopName))
		tab.check("the title names the shop", `document.title === 'Our menu · ' + `+jsString(shopName))
		tab.check("no product name", `!document.body.textContent.includes('Portal console')`)
		tab.check("the tagline", `document.querySelector('.tagline').textContent === `+jsString(shopTagline))
		tab.check("the hours on two lines", `document.querySelector('.hours-text').innerText === `+jsString(shopHours)+
			` && document.querySelector('.hours-text').getClientRects()[0].height > 1.5 * parseFloat(getComputedStyle(document.querySelector('.hours-text')).lineHeight)`)
	}
	phone.check("the storefront on a phone", fitsWidth)
	desk.shot("shop-store-desktop")
	phone.shot("shop-store-phone")

	// The longest names fit a phone: words, and one word of 60 letters.
	for _, name := range []string{"Warung Makan Sederhana Bu Tini Cabang Jalan Merdeka Nomor 12", strings.Repeat("W", 60)} {
		p.setShopTexts(t, name, shopTagline, shopHours)
		phone.do("the storefront", chromedp.Navigate(store), chromedp.WaitVisible(chromedp.CSS(".brand")))
		phone.check("a long name: "+name, `document.querySelector('.brand').textContent === `+jsString(name))
		phone.check("a long name on a phone: "+name, fitsWidth)
	}

	// Nothing of a vector becomes markup: the page holds only its own
	// script, no image, SVG or frame, no event-handler attribute and no
	// javascript: address.
	const noMarkup = `document.querySelectorAll('img, svg, iframe, object, embed').length === 0 &&
		document.scripts.length === 1 && document.scripts[0].src.endsWith('/console/static/shop.js') &&
		![...document.querySelectorAll('*')].some(e => [...e.attributes].some(a => /^on/i.test(a.name) || /^\s*javascript:/i.test(a.value)))`
	for _, v := range xssVectors {
		p.setShopTexts(t, v, v, v)
		desk.do("the storefront", chromedp.Navigate(store), chromedp.WaitVisible(chromedp.CSS(".shop-intro")))
		desk.check(v+": the header", `document.querySelector('.brand').textContent === `+jsString(v))
		desk.check(v+": the title", `document.title === 'Our menu · ' + `+jsString(v))
		desk.check(v+": the tagline and the hours", `document.querySelector('.tagline').textContent === `+jsString(v)+
			` && document.querySelector('.hours-text').textContent === `+jsString(v))
		desk.check(v+": no markup", noMarkup)
	}
}
