package visits

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/mileusna/useragent"
)

const (
	// maxUALen bounds the user agent that is parsed and hashed, so that a
	// hostile header cannot make the worker slow.
	maxUALen = 512
	// maxRefLen bounds the referrer that is parsed.
	maxRefLen = 2048
	// uaCacheSize bounds the cache of parsed user agents; real traffic has
	// few distinct user agents, so most hits skip the parser.
	uaCacheSize = 4096
	// labelOther replaces a browser or OS name that is not a short plain label
	// (the parser returns the raw string for user agents it does not know).
	labelOther = "Other"
)

// uaInfo is what a user agent contributes to a Visit.
type uaInfo struct {
	browser, os string
	device      string
	bot         bool
	social      string
}

// uaCache caches parseUA results. It is used by the worker goroutine only.
type uaCache struct {
	m map[string]uaInfo
}

func (c *uaCache) get(ua string) uaInfo {
	if info, ok := c.m[ua]; ok {
		return info
	}
	info := parseUA(ua)
	if c.m == nil || len(c.m) >= uaCacheSize {
		c.m = make(map[string]uaInfo, 256)
	}
	c.m[strings.Clone(ua)] = info
	return info
}

// truncateUA trims ua and bounds its length.
func truncateUA(ua string) string {
	ua = strings.TrimSpace(ua)
	if len(ua) > maxUALen {
		ua = ua[:maxUALen]
	}
	return ua
}

// The kinds of device of Visit.Device.
const (
	DeviceDesktop = "Desktop"
	DeviceMobile  = "Mobile"
	DeviceTablet  = "Tablet"
)

// parseUA parses a (trimmed, truncated) user agent.
func parseUA(ua string) uaInfo {
	if ua == "" {
		return uaInfo{bot: true}
	}
	p := useragent.Parse(ua)
	info := uaInfo{
		browser: cleanLabel(p.Name),
		os:      cleanLabel(p.OS),
		bot:     p.Bot || hasBotMarker(strings.ToLower(ua)),
	}
	if !info.bot {
		info.device = deviceOf(p)
		info.social = socialFromUA(ua)
	}
	return info
}

// deviceOf returns the kind of device of a parsed user agent, "" when
// unknown.
func deviceOf(p useragent.UserAgent) string {
	switch {
	case p.Tablet:
		return DeviceTablet
	case p.Mobile:
		return DeviceMobile
	case p.Desktop:
		return DeviceDesktop
	}
	return ""
}

// botMarkers are lower-case substrings of user agents of crawlers, link
// preview fetchers, monitors and HTTP tools and libraries.
var botMarkers = []string{
	"bot", "crawl", "spider", "slurp", "archiver", "ia_archiver",
	"curl/", "wget/", "httpie/", "python-requests", "python-urllib", "python-httpx",
	"aiohttp", "go-http-client", "java/", "apache-httpclient", "okhttp/",
	"libwww-perl", "node-fetch", "axios/", "undici", "guzzlehttp", "ruby", "php/",
	"headlesschrome", "phantomjs", "puppeteer", "playwright", "selenium",
	"facebookexternalhit", "facebookcatalog", "whatsapp/", "preview",
	"embedly", "vkshare", "pingdom", "uptimerobot", "statuscake", "lighthouse",
	"pagespeed", "validator", "linkcheck", "zgrab", "masscan", "nmap",
}

// hasBotMarker reports whether the lower-case user agent carries a bot marker.
func hasBotMarker(lower string) bool {
	if strings.Contains(lower, "cubot") { // a phone brand, not a bot
		lower = strings.ReplaceAll(lower, "cubot", "")
	}
	for _, m := range botMarkers {
		if strings.Contains(lower, m) {
			return true
		}
	}
	return false
}

// socialFromUA recognises the in-app browsers of the social networks.
func socialFromUA(ua string) string {
	switch {
	case strings.Contains(ua, "Instagram"):
		return SocialInstagram
	case strings.Contains(ua, "FBAN/"), strings.Contains(ua, "FBAV/"),
		strings.Contains(ua, "FB_IAB"), strings.Contains(ua, "FBIOS"):
		return SocialFacebook
	case strings.Contains(ua, "Twitter"):
		return SocialTwitter
	}
	return ""
}

// cleanLabel keeps short plain names and turns anything else into labelOther.
func cleanLabel(s string) string {
	if s == "" {
		return ""
	}
	if len(s) > 32 {
		return labelOther
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == ' ', c == '.', c == '-', c == '_':
		default:
			return labelOther
		}
	}
	return s
}

// socialDomains maps referrer hosts (and their subdomains) to networks.
var socialDomains = []struct{ domain, network string }{
	{"facebook.com", SocialFacebook},
	{"fb.com", SocialFacebook},
	{"fb.me", SocialFacebook},
	{"messenger.com", SocialFacebook},
	{"com.facebook.katana", SocialFacebook}, // android-app://
	{"com.facebook.orca", SocialFacebook},
	{"twitter.com", SocialTwitter},
	{"x.com", SocialTwitter},
	{"t.co", SocialTwitter},
	{"com.twitter.android", SocialTwitter},
	{"instagram.com", SocialInstagram},
	{"com.instagram.android", SocialInstagram},
}

// socialFromHost maps a normalised referrer host to a network, or "".
func socialFromHost(host string) string {
	if host == "" {
		return ""
	}
	for _, d := range socialDomains {
		if host == d.domain || (strings.HasSuffix(host, d.domain) &&
			host[len(host)-len(d.domain)-1] == '.') {
			return d.network
		}
	}
	return ""
}

// normalizeReferrer returns the referrer's host: lower case, without a
// trailing dot or a leading "www.", or "" when raw is empty or not a valid
// http, https or android-app URL. A value without a scheme is read as http.
func normalizeReferrer(raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" || len(raw) > maxRefLen {
		return ""
	}
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	switch u.Scheme {
	case "http", "https", "android-app":
	default:
		return ""
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return ""
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return a.WithZone("").Unmap().String()
	}
	if !validHostname(host) {
		return ""
	}
	if h, ok := strings.CutPrefix(host, "www."); ok && h != "" {
		host = h
	}
	return host
}

// validHostname reports whether host is a plausible lower-case ASCII DNS
// name (browsers send internationalised names as punycode).
func validHostname(host string) bool {
	if len(host) > 253 {
		return false
	}
	label := 0
	for i := 0; i < len(host); i++ {
		c := host[i]
		switch {
		case c == '.':
			if label == 0 {
				return false
			}
			label = 0
			continue
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_':
		default:
			return false
		}
		label++
		if label > 63 {
			return false
		}
	}
	return label > 0
}

// normalizeCountry returns s as an upper-case ISO 3166-1 alpha-2 code, or ""
// when it is not two ASCII letters or is a placeholder for "unknown" (XX, ZZ).
func normalizeCountry(s string) string {
	if len(s) != 2 {
		return ""
	}
	a, b := upper(s[0]), upper(s[1])
	if a < 'A' || a > 'Z' || b < 'A' || b > 'Z' {
		return ""
	}
	if (a == 'X' && b == 'X') || (a == 'Z' && b == 'Z') {
		return ""
	}
	if a == s[0] && b == s[1] {
		return s
	}
	return string([]byte{a, b})
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// visitorHasher computes Visit.Visitor. It is used by the worker goroutine
// only; it keeps the keyed hashes of the two most recent days.
type visitorHasher struct {
	secret []byte
	slots  [2]struct {
		day int64
		mac hash.Hash
	}
	next int
	sum  [sha256.Size]byte
}

// saltLabel separates the daily key derivation from any other use of the secret.
const saltLabel = "seedhq/portal visits: daily visitor salt v1\x00"

// dayOf returns the number of UTC days since the Unix epoch.
func dayOf(t time.Time) int64 {
	s := t.Unix()
	d := s / 86400
	if s%86400 < 0 {
		d--
	}
	return d
}

// macFor returns the HMAC keyed for the given day: the key is
// HMAC-SHA256(secret, saltLabel || "YYYY-MM-DD").
func (v *visitorHasher) macFor(day int64) hash.Hash {
	for i := range v.slots {
		if v.slots[i].mac != nil && v.slots[i].day == day {
			return v.slots[i].mac
		}
	}
	k := hmac.New(sha256.New, v.secret)
	io.WriteString(k, saltLabel)
	io.WriteString(k, time.Unix(day*86400, 0).UTC().Format(time.DateOnly))
	mac := hmac.New(sha256.New, k.Sum(nil))
	s := &v.slots[v.next]
	s.day, s.mac = day, mac
	v.next = (v.next + 1) % len(v.slots)
	return mac
}

// visitor returns hex(HMAC-SHA256(dayKey(at), ip || ua)) truncated to 128
// bits. The IP is normalised (IPv4-mapped IPv6 is IPv4; zones are ignored).
func (v *visitorHasher) visitor(at time.Time, ip netip.Addr, ua string) string {
	mac := v.macFor(dayOf(at))
	mac.Reset()
	var b [17]byte
	if ip.IsValid() {
		ip = ip.Unmap()
		b[0] = byte(ip.BitLen() / 8) // 4 or 16: keeps IPv4 apart from IPv6
		a16 := ip.As16()
		copy(b[1:], a16[:])
	}
	mac.Write(b[:])
	io.WriteString(mac, ua)
	sum := mac.Sum(v.sum[:0])
	return hex.EncodeToString(sum[:16])
}
