package visits

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	uaChromeWindows  = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"
	uaSafariIOS      = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
	uaChromeAndroid  = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36"
	uaFirefoxLinux   = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
	uaSafariMac      = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15"
	uaEdgeWindows    = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.67"
	uaSamsung        = "Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36"
	uaCubot          = "Mozilla/5.0 (Linux; Android 10; CUBOT P30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"
	uaGooglebot      = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
	uaGooglebotAgent = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/124.0.6367.155 Safari/537.36"
	uaBingbot        = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"
	uaFacebookHit    = "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"
	uaFacebookApp    = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/460.0.0.36.105;FBBV/588939318;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/17.4;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5]"
	uaInstagramApp   = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 326.0.3.30.91 (iPhone15,2; iOS 17_4; en_US; en; scale=3.00; 1179x2556; 586434571)"
	uaTwitterApp     = "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/UQ1A.240205.004; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0.6367.82 Mobile Safari/537.36 TwitterAndroid"
)

func TestParseUA(t *testing.T) {
	for _, tc := range []struct {
		name, ua string
		want     uaInfo
	}{
		{"chrome windows", uaChromeWindows, uaInfo{device: DeviceDesktop, browser: "Chrome", os: "Windows"}},
		{"safari ios", uaSafariIOS, uaInfo{device: DeviceMobile, browser: "Safari", os: "iOS"}},
		{"chrome android", uaChromeAndroid, uaInfo{device: DeviceMobile, browser: "Chrome", os: "Android"}},
		{"firefox linux", uaFirefoxLinux, uaInfo{device: DeviceDesktop, browser: "Firefox", os: "Linux"}},
		{"safari macos", uaSafariMac, uaInfo{device: DeviceDesktop, browser: "Safari", os: "macOS"}},
		{"edge windows", uaEdgeWindows, uaInfo{device: DeviceDesktop, browser: "Edge", os: "Windows"}},
		{"samsung", uaSamsung, uaInfo{device: DeviceMobile, browser: "Samsung Browser", os: "Android"}},
		{"cubot phone is not a bot", uaCubot, uaInfo{device: DeviceMobile, browser: "Chrome", os: "Android"}},
		{"googlebot", uaGooglebot, uaInfo{browser: "Googlebot", bot: true}},
		{"googlebot chrome", uaGooglebotAgent, uaInfo{browser: "Googlebot", bot: true}},
		{"bingbot", uaBingbot, uaInfo{browser: "Bingbot", bot: true}},
		{"facebook preview fetcher", uaFacebookHit, uaInfo{browser: "facebookexternalhit", bot: true}},
		{"whatsapp preview fetcher", "WhatsApp/2.23.20.0 A", uaInfo{browser: "WhatsApp", bot: true}},
		{"curl", "curl/8.5.0", uaInfo{browser: "curl", bot: true}},
		{"wget", "Wget/1.21.4", uaInfo{browser: "Wget", bot: true}},
		{"python requests", "python-requests/2.31.0", uaInfo{browser: "python-requests", bot: true}},
		{"go client", "Go-http-client/1.1", uaInfo{browser: "Go-http-client", bot: true}},
		{"headless chrome", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/124.0.0.0 Safari/537.36", uaInfo{browser: "Headless Chrome", os: "Linux", bot: true}},
		{"empty", "", uaInfo{bot: true}},
		{"facebook in-app", uaFacebookApp, uaInfo{device: DeviceMobile, browser: "Facebook App", os: "iOS", social: SocialFacebook}},
		{"instagram in-app", uaInstagramApp, uaInfo{device: DeviceMobile, browser: "Instagram App", os: "iOS", social: SocialInstagram}},
		{"twitter in-app", uaTwitterApp, uaInfo{device: DeviceMobile, browser: "Chrome", os: "Android", social: SocialTwitter}},
		{"unknown long", "Mozilla/5.0 " + strings.Repeat("x", 40), uaInfo{browser: labelOther}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseUA(truncateUA(tc.ua)); got != tc.want {
				t.Errorf("parseUA(%q)\n got %+v\nwant %+v", tc.ua, got, tc.want)
			}
		})
	}
}

func TestUACache(t *testing.T) {
	var c uaCache
	for i := range uaCacheSize + 10 {
		ua := fmt.Sprintf("%s %d", uaChromeWindows, i)
		if got := c.get(ua); got.browser != "Chrome" {
			t.Fatalf("get(%q).browser = %q", ua, got.browser)
		}
		if len(c.m) > uaCacheSize {
			t.Fatalf("cache grew to %d entries", len(c.m))
		}
	}
	if got := c.get(uaGooglebot); !got.bot {
		t.Error("cached parse lost the bot flag")
	}
	if got := c.get(uaGooglebot); !got.bot {
		t.Error("cache hit lost the bot flag")
	}
}

func TestNormalizeReferrer(t *testing.T) {
	for raw, want := range map[string]string{
		"":                                             "",
		"   ":                                          "",
		"https://www.Google.com/search?q=x":            "google.com",
		"http://WWW.EXAMPLE.ORG./path":                 "example.org",
		"https://news.ycombinator.com/item?id=1":       "news.ycombinator.com",
		"https://m.facebook.com/":                      "m.facebook.com",
		"https://t.co/abc":                             "t.co",
		"https://user:pw@www.example.com:8443/":        "example.com",
		"example.com/path":                             "example.com",
		"https://www.":                                 "www",
		"android-app://com.google.android.gm/":         "com.google.android.gm",
		"http://192.0.2.1:8080/x":                      "192.0.2.1",
		"http://[2001:db8::1]/x":                       "2001:db8::1",
		"ftp://example.com/file":                       "",
		"javascript:alert(1)":                          "",
		"about:blank":                                  "",
		"https://exa mple.com/":                        "",
		"https://bücher.example/":                      "",
		"https://xn--bcher-kva.example/":               "xn--bcher-kva.example",
		"https://a..b/":                                "",
		"https:///path-only":                           "",
		"http://%zz":                                   "",
		"https://" + strings.Repeat("a", 64) + ".com/": "",
		"https://www.x.com/" + strings.Repeat("a", maxRefLen): "",
	} {
		if got := normalizeReferrer(raw); got != want {
			t.Errorf("normalizeReferrer(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestSocialFromHost(t *testing.T) {
	for host, want := range map[string]string{
		"facebook.com":          SocialFacebook,
		"l.facebook.com":        SocialFacebook,
		"lm.facebook.com":       SocialFacebook,
		"fb.me":                 SocialFacebook,
		"com.facebook.katana":   SocialFacebook,
		"t.co":                  SocialTwitter,
		"x.com":                 SocialTwitter,
		"mobile.twitter.com":    SocialTwitter,
		"l.instagram.com":       SocialInstagram,
		"com.instagram.android": SocialInstagram,
		"box.com":               "",
		"notfacebook.com":       "",
		"facebook.com.evil.net": "",
		"":                      "",
	} {
		if got := socialFromHost(host); got != want {
			t.Errorf("socialFromHost(%q) = %q, want %q", host, got, want)
		}
	}
}

func TestNormalizeCountry(t *testing.T) {
	for in, want := range map[string]string{
		"US": "US", "gb": "GB", "Fr": "FR", "XX": "", "ZZ": "", "T1": "", "": "",
		"USA": "", "1A": "", "é": "",
	} {
		if got := normalizeCountry(in); got != want {
			t.Errorf("normalizeCountry(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCountryHeaderAndGeoIP(t *testing.T) {
	geo := MustWriteMMDB(t, "GeoLite2-Country", testGeoNetworks)
	gb := netip.MustParseAddr("81.2.69.142")
	unknown := netip.MustParseAddr("203.0.113.9")
	for _, tc := range []struct {
		name   string
		o      Options
		ip     netip.Addr
		header string
		want   string
	}{
		{"trusted header wins over GeoIP", Options{CountryHeader: "cf-ipcountry", GeoIPPath: geo}, gb, "fr", "FR"},
		{"placeholder header falls back to GeoIP", Options{CountryHeader: "CF-IPCountry", GeoIPPath: geo}, gb, "XX", "GB"},
		{"missing header falls back to GeoIP", Options{CountryHeader: "CF-IPCountry", GeoIPPath: geo}, gb, "", "GB"},
		{"untrusted header is ignored", Options{GeoIPPath: geo}, gb, "FR", "GB"},
		{"untrusted header without GeoIP", Options{}, gb, "FR", ""},
		{"header only", Options{CountryHeader: "CF-IPCountry"}, unknown, "de", "DE"},
		{"GeoIP IPv6", Options{GeoIPPath: geo}, netip.MustParseAddr("2001:db8:1::7"), "", "JP"},
		{"GeoIP IPv4-mapped", Options{GeoIPPath: geo}, netip.MustParseAddr("::ffff:81.2.69.1"), "", "GB"},
		{"GeoIP registered country", Options{GeoIPPath: geo}, netip.MustParseAddr("198.51.100.1"), "", "US"},
		{"GeoIP miss", Options{GeoIPPath: geo}, unknown, "", ""},
		{"no address", Options{GeoIPPath: geo}, netip.Addr{}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := MustRecorder(t, nopSink{}, tc.o)
			v := r.enrich(Hit{Kind: KindQR, ID: 1, IP: tc.ip, UserAgent: uaChromeWindows, Country: tc.header})
			if v.Country != tc.want {
				t.Errorf("Country = %q, want %q", v.Country, tc.want)
			}
		})
	}
}

func TestNewRecorderGeoIPErrors(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.mmdb")
	if err := os.WriteFile(garbage, []byte("not a maxmind database"), 0o600); err != nil {
		t.Fatal(err)
	}
	asn := MustWriteMMDB(t, "GeoLite2-ASN", map[string]map[string]any{
		"81.2.69.0/24": {"autonomous_system_number": mmdbUint32(64500)},
	})
	for name, tc := range map[string]struct{ path, want string }{
		"missing": {filepath.Join(dir, "nope.mmdb"), "no such file"},
		"garbage": {garbage, "GeoIPPath"},
		"asn":     {asn, `database type "GeoLite2-ASN" has no country data`},
	} {
		t.Run(name, func(t *testing.T) {
			r, err := NewRecorder(nopSink{}, Options{Secret: testSecret, GeoIPPath: tc.path})
			if err == nil {
				r.Close()
				t.Fatal("NewRecorder succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.path) {
				t.Errorf("error %q does not name the path and %q", err, tc.want)
			}
		})
	}
	city := MustWriteMMDB(t, "GeoIP2-City", testGeoNetworks)
	MustRecorder(t, nopSink{}, Options{GeoIPPath: city})
}

func TestNewRecorderOptionErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		sink Sink
		o    Options
		want string
	}{
		"nil sink":         {nil, Options{Secret: testSecret}, "nil Sink"},
		"no secret":        {nopSink{}, Options{}, "Secret"},
		"short secret":     {nopSink{}, Options{Secret: []byte("short")}, "Secret"},
		"negative batch":   {nopSink{}, Options{Secret: testSecret, BatchSize: -1}, "BatchSize"},
		"negative queue":   {nopSink{}, Options{Secret: testSecret, QueueSize: -1}, "QueueSize"},
		"negative flush":   {nopSink{}, Options{Secret: testSecret, FlushInterval: -time.Second}, "FlushInterval"},
		"negative timeout": {nopSink{}, Options{Secret: testSecret, ShutdownTimeout: -1}, "ShutdownTimeout"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := NewRecorder(tc.sink, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one naming %q", err, tc.want)
			}
		})
	}
}

func TestVisitorHash(t *testing.T) {
	r := MustRecorder(t, nopSink{}, Options{})
	ip := netip.MustParseAddr("203.0.113.77")
	day1 := time.Date(2026, 3, 14, 0, 0, 1, 0, time.UTC)
	later := time.Date(2026, 3, 14, 23, 59, 59, 0, time.FixedZone("x", 3600)).UTC().Add(-time.Hour)
	day2 := time.Date(2026, 3, 15, 0, 0, 0, 0, time.UTC)
	visitor := func(r *Recorder, at time.Time, ip netip.Addr, ua string) string {
		return r.enrich(Hit{Kind: KindLink, ID: 7, At: at, IP: ip, UserAgent: ua}).Visitor
	}
	v1 := visitor(r, day1, ip, uaChromeWindows)
	if len(v1) != 32 {
		t.Fatalf("Visitor %q: want 32 hex digits", v1)
	}
	if v := visitor(r, later, ip, uaChromeWindows); v != v1 {
		t.Errorf("same IP, UA and day: %q != %q", v, v1)
	}
	if v := visitor(r, day1, netip.MustParseAddr("::ffff:203.0.113.77"), uaChromeWindows); v != v1 {
		t.Errorf("IPv4-mapped address hashes differently: %q != %q", v, v1)
	}
	for name, v := range map[string]string{
		"next day":     visitor(r, day2, ip, uaChromeWindows),
		"other IP":     visitor(r, day1, netip.MustParseAddr("203.0.113.78"), uaChromeWindows),
		"other UA":     visitor(r, day1, ip, uaFirefoxLinux),
		"other secret": visitor(MustRecorder(t, nopSink{}, Options{Secret: []byte("another secret, 16+ bytes")}), day1, ip, uaChromeWindows),
	} {
		if v == v1 {
			t.Errorf("%s: same Visitor %q", name, v)
		}
	}
	// The user agent counts up to maxUALen bytes.
	long := uaChromeWindows + strings.Repeat(" x", maxUALen)
	if a, b := visitor(r, day1, ip, long), visitor(r, day1, ip, long+" extra"); a != b || a == v1 {
		t.Errorf("long user agents: %q, %q (short one %q)", a, b, v1)
	}
	// Alternating days around midnight keep giving stable values.
	if a, b := visitor(r, day2, ip, uaChromeWindows), visitor(r, day1, ip, uaChromeWindows); a == b || b != v1 {
		t.Errorf("alternating days: %q, %q, want %q second", a, b, v1)
	}
}

func TestRawIPNeverStored(t *testing.T) {
	r := MustRecorder(t, nopSink{}, Options{})
	for _, s := range []string{"203.0.113.77", "2001:db8:abcd:12::77", "::ffff:198.51.100.23"} {
		ip := netip.MustParseAddr(s)
		v := r.enrich(Hit{Kind: KindLink, ID: 1, IP: ip, UserAgent: uaChromeWindows, Referer: "https://example.com/"})
		js, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, dump := range []string{fmt.Sprintf("%+v", v), fmt.Sprintf("%#v", v), string(js)} {
			for _, form := range []string{s, ip.Unmap().String(), ip.StringExpanded()} {
				if strings.Contains(dump, form) {
					t.Errorf("visit contains the address %s: %s", form, dump)
				}
			}
		}
	}
}

func TestEnrich(t *testing.T) {
	r := MustRecorder(t, nopSink{}, Options{CountryHeader: "CF-IPCountry"})
	at := time.Date(2026, 3, 14, 15, 9, 26, 0, time.FixedZone("CET", 3600))
	for _, tc := range []struct {
		name string
		hit  Hit
		want Visit
	}{
		{
			"instagram in-app with facebook referrer: referrer wins",
			Hit{Kind: KindQR, ID: 42, OwnerID: 9, At: at, IP: netip.MustParseAddr("192.0.2.1"),
				UserAgent: uaInstagramApp, Referer: "https://l.facebook.com/l.php?u=x", Country: "us"},
			Visit{Kind: KindQR, ID: 42, OwnerID: 9, At: at.UTC(), Referrer: "l.facebook.com",
				Browser: "Instagram App", OS: "iOS", Device: DeviceMobile, Country: "US", Social: SocialFacebook},
		},
		{
			"instagram in-app, no referrer",
			Hit{Kind: KindLink, ID: 1, At: at, UserAgent: uaInstagramApp},
			Visit{Kind: KindLink, ID: 1, At: at.UTC(), Browser: "Instagram App", OS: "iOS", Device: DeviceMobile, Social: SocialInstagram},
		},
		{
			"bot from twitter gets no social",
			Hit{Kind: KindLink, ID: 1, At: at, UserAgent: "Twitterbot/1.0", Referer: "https://t.co/x"},
			Visit{Kind: KindLink, ID: 1, At: at.UTC(), Referrer: "t.co", Browser: "Twitterbot", Bot: true},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := r.enrich(tc.hit)
			if got.Visitor == "" {
				t.Error("empty Visitor")
			}
			got.Visitor = ""
			if got != tc.want {
				t.Errorf("enrich\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestDayOf(t *testing.T) {
	for at, want := range map[time.Time]int64{
		time.Unix(0, 0):      0,
		time.Unix(86399, 0):  0,
		time.Unix(86400, 0):  1,
		time.Unix(-1, 0):     -1,
		time.Unix(-86400, 0): -1,
		time.Unix(-86401, 0): -2,
		time.Date(2026, 3, 14, 23, 30, 0, 0, time.FixedZone("", -2*3600)): dayOf(time.Date(2026, 3, 15, 1, 30, 0, 0, time.UTC)),
	} {
		if got := dayOf(at); got != want {
			t.Errorf("dayOf(%v) = %d, want %d", at, got, want)
		}
	}
}
