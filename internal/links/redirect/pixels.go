package redirect

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/seedhq/portal/internal/links"
)

// pixel is one pixel as the interstitial renders it: the validated tag and,
// for the types whose tag has two ids separated by "/", each of them.
type pixel struct {
	Type string
	ID   string // the validated tag
	Main string // the tag up to "/": Google Ads conversion id, AdRoll advertisable EID
	Sub  string // the tag after "/": Google Ads conversion label (may be empty), AdRoll pixel EID
}

// vendor lists the hosts a pixel type's snippet needs: scripts it loads and
// hosts it sends its beacons to (fetch, XHR or images).
type vendor struct {
	scripts []string
	beacons []string
}

var (
	googleTag = "https://www.googletagmanager.com"
	// Google's CSP guide for Tag Manager and GA4; GA4 also sends hits to
	// www.google.com/g/collect.
	googleBeacons = []string{"https://*.google-analytics.com", "https://*.analytics.google.com", "https://*.googletagmanager.com",
		"https://www.google.com"}
	// Google Ads conversion and remarketing scripts and beacons.
	googleAds = []string{"https://www.googleadservices.com", "https://googleads.g.doubleclick.net", "https://www.google.com"}
)

// vendors holds the hosts of each pixel type's standard snippet, from the
// vendor's tag and CSP guidance (docs/api/links.md lists them).
var vendors = map[links.PixelType]vendor{
	links.PixelGTM:       {[]string{googleTag}, googleBeacons},
	links.PixelGA:        {[]string{googleTag}, googleBeacons},
	links.PixelAdWords:   {append([]string{googleTag}, googleAds...), append([]string{"https://*.googletagmanager.com"}, googleAds...)},
	links.PixelFacebook:  {[]string{"https://connect.facebook.net"}, []string{"https://www.facebook.com"}},
	links.PixelLinkedIn:  {[]string{"https://snap.licdn.com"}, []string{"https://px.ads.linkedin.com", "https://px4.ads.linkedin.com", "https://dc.ads.linkedin.com"}},
	links.PixelTwitter:   {[]string{"https://static.ads-twitter.com"}, []string{"https://analytics.twitter.com", "https://t.co", "https://ads-api.twitter.com"}},
	links.PixelAdRoll:    {[]string{"https://s.adroll.com"}, []string{"https://d.adroll.com"}},
	links.PixelQuora:     {[]string{"https://a.quora.com"}, []string{"https://q.quora.com"}},
	links.PixelPinterest: {[]string{"https://s.pinimg.com"}, []string{"https://ct.pinterest.com"}},
	links.PixelBing:      {[]string{"https://bat.bing.com"}, []string{"https://bat.bing.com"}},
	links.PixelSnapchat:  {[]string{"https://sc-static.net"}, []string{"https://tr.snapchat.com", "https://tr-shadow.snapchat.com"}},
	links.PixelReddit:    {[]string{"https://www.redditstatic.com"}, []string{"https://alb.reddit.com", "https://pixel-config.reddit.com"}},
	links.PixelTikTok:    {[]string{"https://analytics.tiktok.com"}, []string{"https://analytics.tiktok.com"}},
}

// pixels reads the link's pixels and keeps those whose tag still passes
// links.ValidatePixel; read failures are logged and the pixel skipped (a
// visitor is never kept from the destination by a pixel).
func (h *Handler) pixels(ctx context.Context, l links.ShortLink) []pixel {
	out := make([]pixel, 0, len(l.PixelIDs))
	for _, id := range l.PixelIDs {
		p, err := h.store.GetPixel(ctx, l.UserID, id)
		if err != nil {
			if !errors.Is(err, links.ErrNotFound) {
				h.log.ErrorContext(ctx, "redirect: pixel", "link", l.ID, "pixel", id, "err", err)
			}
			continue
		}
		tag, err := links.ValidatePixel(p.Type, p.Tag)
		if err != nil {
			h.log.WarnContext(ctx, "redirect: pixel with an invalid tag skipped", "link", l.ID, "pixel", id, "type", p.Type)
			continue
		}
		px := pixel{Type: string(p.Type), ID: tag}
		px.Main, px.Sub, _ = strings.Cut(tag, "/")
		out = append(out, px)
	}
	return out
}

// csp returns the interstitial's policy: scripts with the nonce and from the
// vendors' script hosts, beacons to the vendors' hosts only.
func interstitialCSP(nonce string, px []pixel) string {
	var scripts, beacons []string
	for _, p := range px {
		v := vendors[links.PixelType(p.Type)]
		scripts = append(scripts, v.scripts...)
		beacons = append(beacons, v.beacons...)
	}
	slices.Sort(scripts)
	slices.Sort(beacons)
	scripts = slices.Compact(scripts)
	beacons = slices.Compact(beacons)
	src := strings.Join(beacons, " ")
	return "default-src 'none'; script-src 'nonce-" + nonce + "' " + strings.Join(scripts, " ") +
		"; connect-src " + src + "; img-src " + src + "; style-src " + cssHash +
		"; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}

type interstitialData struct {
	URL    string
	Nonce  string
	Pixels []pixel
}

// interstitialTmpl fires each pixel with its vendor's standard snippet (the
// tag id goes in only through html/template's JavaScript and URL escaping)
// and sends the visitor on after one second.
var interstitialTmpl = mustPage(`{{template "head"}}<title>Redirecting…</title>` +
	`<meta http-equiv="refresh" content="1;url={{.URL}}"></head><body>` +
	`<p>Redirecting you to <a href="{{.URL}}" rel="noreferrer">{{.URL}}</a>…</p>` +
	`{{range .Pixels}}` +
	`{{if eq .Type "gtmpixel"}}` +
	`<script nonce="{{$.Nonce}}">window.dataLayer=window.dataLayer||[];window.dataLayer.push({"gtm.start":new Date().getTime(),event:"gtm.js"});</script>` +
	`<script async nonce="{{$.Nonce}}" src="https://www.googletagmanager.com/gtm.js?id={{.ID}}"></script>` +
	`{{else if eq .Type "gapixel"}}` +
	`<script async nonce="{{$.Nonce}}" src="https://www.googletagmanager.com/gtag/js?id={{.ID}}"></script>` +
	`<script nonce="{{$.Nonce}}">window.dataLayer=window.dataLayer||[];window.gtag=window.gtag||function(){window.dataLayer.push(arguments);};gtag("js",new Date());gtag("config",{{.ID}});</script>` +
	`{{else if eq .Type "adwordspixel"}}` +
	`<script async nonce="{{$.Nonce}}" src="https://www.googletagmanager.com/gtag/js?id={{.Main}}"></script>` +
	`<script nonce="{{$.Nonce}}">window.dataLayer=window.dataLayer||[];window.gtag=window.gtag||function(){window.dataLayer.push(arguments);};gtag("js",new Date());gtag("config",{{.Main}});` +
	`{{if .Sub}}gtag("event","conversion",{send_to:{{.ID}}});{{end}}</script>` +
	`{{else if eq .Type "fbpixel"}}` +
	`<script nonce="{{$.Nonce}}">!function(f){if(f.fbq)return;var n=f.fbq=function(){n.callMethod?n.callMethod.apply(n,arguments):n.queue.push(arguments)};if(!f._fbq)f._fbq=n;n.push=n;n.loaded=!0;n.version="2.0";n.queue=[]}(window);fbq("init",{{.ID}});fbq("track","PageView");</script>` +
	`<script async nonce="{{$.Nonce}}" src="https://connect.facebook.net/en_US/fbevents.js"></script>` +
	`<noscript><img height="1" width="1" alt="" src="https://www.facebook.com/tr?id={{.ID}}&amp;ev=PageView&amp;noscript=1"></noscript>` +
	`{{else if eq .Type "linkedinpixel"}}` +
	`<script nonce="{{$.Nonce}}">window._linkedin_partner_id={{.ID}};window._linkedin_data_partner_ids=window._linkedin_data_partner_ids||[];window._linkedin_data_partner_ids.push({{.ID}});</script>` +
	`<script async nonce="{{$.Nonce}}" src="https://snap.licdn.com/li.lms-analytics/insight.min.js"></script>` +
	`<noscript><img height="1" width="1" alt="" src="https://px.ads.linkedin.com/collect/?pid={{.ID}}&amp;fmt=gif"></noscript>` +
	`{{else if eq .Type "twitterpixel"}}` +
	`<script nonce="{{$.Nonce}}">!function(e){if(!e.twq){var s=e.twq=function(){s.exe?s.exe.apply(s,arguments):s.queue.push(arguments)};s.version="1.1";s.queue=[]}}(window);twq("config",{{.ID}});</script>` +
	`<script async nonce="{{$.Nonce}}" src="https://static.ads-twitter.com/uwt.js"></script>` +
	`{{else if eq .Type "adrollpixel"}}` +
	`<script nonce="{{$.Nonce}}">window.adroll_adv_id={{.Main}};window.adroll_pix_id={{.Sub}};window.adroll_version="2.0";window.__adroll_loaded=true;` +
	`!function(w){var a=w.adroll=w.adroll||[];a.f=["setProperties","identify","track"];a.f.forEach(function(n){a[n]=a[n]||function(){a.push([n,arguments])}})}(window);window.adroll.track("pageView");</script>` +
	`<script async nonce="{{$.Nonce}}" src="https://s.adroll.com/j/{{.Main}}/roundtrip.js"></script>` +
	`{{else if eq .Type "quorapixel"}}` +
	`<script nonce="{{$.Nonce}}">!function(q){if(q.qp)return;var n=q.qp=function(){n.qp?n.qp.apply(n,arguments):n.queue.push(arguments)};n.queue=[]}(window);qp("init",{{.ID}});qp("track","ViewContent");</script>` +
	`<script async nonce="{{$.Nonce}}" src="https://a.quora.com/qevents.js"></script>` +
	`{{else if eq .Type "pinterest"}}` +
	`<script nonce="{{$.Nonce}}">!function(w){if(!w.pintrk){w.pintrk=function(){w.pintrk.queue.push(Array.prototype.slice.call(arguments))};w.pintrk.queue=[];w.pintrk.version="3.0"}}(window);pintrk("load",{{.ID}});pintrk("page");</script>` +
	`<script async nonce="{{$.Nonce}}" src="https://s.pinimg.com/ct/core.js"></script>` +
	`<noscript><img height="1" width="1" alt="" src="https://ct.pinterest.com/v3/?event=init&amp;tid={{.ID}}&amp;noscript=1"></noscript>` +
	`{{else if eq .Type "bing"}}` +
	`<script nonce="{{$.Nonce}}">window.uetq=window.uetq||[];</script>` +
	`<script nonce="{{$.Nonce}}" src="https://bat.bing.com/bat.js"></script>` +
	`<script nonce="{{$.Nonce}}">if(window.UET){window.uetq=new UET({ti:{{.ID}},q:window.uetq});window.uetq.push("pageLoad");}</script>` +
	`{{else if eq .Type "snapchat"}}` +
	`<script nonce="{{$.Nonce}}">!function(e){if(e.snaptr)return;var a=e.snaptr=function(){a.handleRequest?a.handleRequest.apply(a,arguments):a.queue.push(arguments)};a.queue=[]}(window);snaptr("init",{{.ID}});snaptr("track","PAGE_VIEW");</script>` +
	`<script async nonce="{{$.Nonce}}" src="https://sc-static.net/scevent.min.js"></script>` +
	`{{else if eq .Type "reddit"}}` +
	`<script nonce="{{$.Nonce}}">!function(w){if(!w.rdt){var p=w.rdt=function(){p.sendEvent?p.sendEvent.apply(p,arguments):p.callQueue.push(arguments)};p.callQueue=[]}}(window);rdt("init",{{.ID}});rdt("track","PageVisit");</script>` +
	`<script async nonce="{{$.Nonce}}" src="https://www.redditstatic.com/ads/pixel.js"></script>` +
	`{{else if eq .Type "tiktok"}}` +
	`<script nonce="{{$.Nonce}}">!function(w,t){w.TiktokAnalyticsObject=t;var q=w[t]=w[t]||[];q.methods=["page","track","identify","instances","debug","on","off","once","ready","alias","group","enableCookie","disableCookie"];` +
	`q.setAndDefer=function(o,m){o[m]=function(){o.push([m].concat(Array.prototype.slice.call(arguments,0)))}};for(var i=0;i<q.methods.length;i++)q.setAndDefer(q,q.methods[i]);` +
	`q._i=q._i||{};q._t=q._t||{};q._o=q._o||{};var id={{.ID}};q._i[id]=[];q._i[id]._u="https://analytics.tiktok.com/i18n/pixel/events.js";q._t[id]=+new Date;q._o[id]={};q.page()}(window,"ttq");</script>` +
	`<script async nonce="{{$.Nonce}}" src="https://analytics.tiktok.com/i18n/pixel/events.js?sdkid={{.ID}}&amp;lib=ttq"></script>` +
	`{{end}}{{end}}</body></html>`)

// interstitial answers the 200 page that fires the pixels and redirects.
func (h *Handler) interstitial(w http.ResponseWriter, target string, px []pixel) {
	var b [18]byte
	_, _ = rand.Read(b[:])
	nonce := base64.RawURLEncoding.EncodeToString(b[:])
	h.pageRef(w, http.StatusOK, interstitialTmpl, interstitialData{URL: target, Nonce: nonce, Pixels: px},
		interstitialCSP(nonce, px), "strict-origin-when-cross-origin")
}
