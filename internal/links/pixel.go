package links

import (
	"regexp"
	"slices"
	"strings"
)

// The 13 pixel types of the spec.
const (
	PixelGTM       PixelType = "gtmpixel"
	PixelGA        PixelType = "gapixel"
	PixelFacebook  PixelType = "fbpixel"
	PixelAdWords   PixelType = "adwordspixel"
	PixelLinkedIn  PixelType = "linkedinpixel"
	PixelTwitter   PixelType = "twitterpixel"
	PixelAdRoll    PixelType = "adrollpixel"
	PixelQuora     PixelType = "quorapixel"
	PixelPinterest PixelType = "pinterest"
	PixelBing      PixelType = "bing"
	PixelSnapchat  PixelType = "snapchat"
	PixelReddit    PixelType = "reddit"
	PixelTikTok    PixelType = "tiktok"
)

// pixelFormat is the tag format of one pixel type.
type pixelFormat struct {
	re      *regexp.Regexp
	example string // shown in the error message
}

// pixelFormats holds the tag format of each pixel type: the identifier the
// vendor's tag snippet is configured with. Formats are documented, with their
// sources, in docs/api/links.md. Tags are trimmed before matching.
var pixelFormats = map[PixelType]pixelFormat{
	// Google Tag Manager container id: "GTM-" and 4 to 10 upper-case letters or digits.
	PixelGTM: {regexp.MustCompile(`^GTM-[A-Z0-9]{4,10}$`), "GTM-ABC1234"},
	// Google Analytics 4 measurement id (G-XXXXXXXXXX) or Universal Analytics property id (UA-12345678-1).
	PixelGA: {regexp.MustCompile(`^(G-[A-Z0-9]{4,12}|UA-[0-9]{4,10}-[0-9]{1,4})$`), "G-ABC123DEF4"},
	// Meta (Facebook) pixel id: 15 or 16 digits.
	PixelFacebook: {regexp.MustCompile(`^[0-9]{15,16}$`), "123456789012345"},
	// Google Ads conversion id (AW- and digits), optionally with "/conversion label".
	PixelAdWords: {regexp.MustCompile(`^AW-[0-9]{6,12}(/[A-Za-z0-9_-]{1,64})?$`), "AW-123456789"},
	// LinkedIn Insight Tag partner id: digits.
	PixelLinkedIn: {regexp.MustCompile(`^[0-9]{4,12}$`), "123456"},
	// X (Twitter) pixel id: 5 to 10 letters or digits.
	PixelTwitter: {regexp.MustCompile(`^[A-Za-z0-9]{5,10}$`), "o1a2b"},
	// AdRoll advertisable id (adroll_adv_id): 22 upper-case letters or digits.
	PixelAdRoll: {regexp.MustCompile(`^[A-Z0-9]{22}$`), "ABCDEFGHIJKLMNOPQRSTUV"},
	// Quora pixel id: 32 lower-case hex digits.
	PixelQuora: {regexp.MustCompile(`^[0-9a-f]{32}$`), "0123456789abcdef0123456789abcdef"},
	// Pinterest tag id: 13 digits.
	PixelPinterest: {regexp.MustCompile(`^[0-9]{13}$`), "2612345678901"},
	// Microsoft Advertising (Bing) UET tag id: digits.
	PixelBing: {regexp.MustCompile(`^[0-9]{4,12}$`), "12345678"},
	// Snap pixel id: a UUID.
	PixelSnapchat: {regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`), "0a1b2c3d-4e5f-6789-abcd-ef0123456789"},
	// Reddit pixel (advertiser) id: "t2_" or "a2_" and 3 to 16 lower-case letters or digits.
	PixelReddit: {regexp.MustCompile(`^(t2|a2)_[a-z0-9]{3,16}$`), "t2_abc123"},
	// TikTok pixel id: 20 upper-case letters or digits.
	PixelTikTok: {regexp.MustCompile(`^[A-Z0-9]{20}$`), "C1A2B3C4D5E6F7G8H9I0"},
}

// PixelTypes lists the pixel types in the spec's order.
var PixelTypes = []PixelType{
	PixelGTM, PixelGA, PixelFacebook, PixelAdWords, PixelLinkedIn, PixelTwitter, PixelAdRoll,
	PixelQuora, PixelPinterest, PixelBing, PixelSnapchat, PixelReddit, PixelTikTok,
}

// ValidatePixel checks the type and tag of a pixel and returns the tag
// trimmed (Snapchat UUIDs lower-cased).
func ValidatePixel(t PixelType, tag string) (string, error) {
	f, ok := pixelFormats[t]
	if !ok || !slices.Contains(PixelTypes, t) {
		return "", invalid("type must be one of gtmpixel, gapixel, fbpixel, adwordspixel, linkedinpixel, twitterpixel, adrollpixel, quorapixel, pinterest, bing, snapchat, reddit, tiktok")
	}
	tag = strings.TrimSpace(tag)
	if t == PixelSnapchat {
		tag = strings.ToLower(tag)
	}
	if tag == "" {
		return "", invalid("tag is required")
	}
	if !f.re.MatchString(tag) {
		return "", invalid("tag %q is not a valid %s tag (expected a tag like %s)", tag, t, f.example)
	}
	return tag, nil
}
