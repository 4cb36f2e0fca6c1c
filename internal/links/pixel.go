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
	shape   string // the expected shape, shown in the error message
	example string // shown in the error message
}

// pixelFormats holds the tag format of each pixel type: the identifiers the
// vendor's tag snippet is configured with. Formats are documented, with their
// sources, in docs/api/links.md. Tags are trimmed before matching.
var pixelFormats = map[PixelType]pixelFormat{
	// Google Tag Manager container id.
	PixelGTM: {regexp.MustCompile(`^GTM-[A-Z0-9]{4,10}$`),
		"GTM- and 4 to 10 upper-case letters or digits", "GTM-ABC1234"},
	// Google Analytics 4 measurement id (G-XXXXXXXXXX) or Universal Analytics property id (UA-12345678-1).
	PixelGA: {regexp.MustCompile(`^(G-[A-Z0-9]{4,12}|UA-[0-9]{4,10}-[0-9]{1,4})$`),
		"G- and 4 to 12 upper-case letters or digits, or UA-digits-digits", "G-ABC123DEF4"},
	// Meta (Facebook) pixel id.
	PixelFacebook: {regexp.MustCompile(`^[0-9]{15,16}$`), "15 or 16 digits", "123456789012345"},
	// Google Ads conversion id, optionally with "/conversion label".
	PixelAdWords: {regexp.MustCompile(`^AW-[0-9]{6,12}(/[A-Za-z0-9_-]{1,64})?$`),
		"AW- and 6 to 12 digits, optionally /LABEL", "AW-123456789/AbC-D_efG"},
	// LinkedIn Insight Tag partner id.
	PixelLinkedIn: {regexp.MustCompile(`^[0-9]{4,12}$`), "4 to 12 digits", "123456"},
	// X (Twitter) pixel id.
	PixelTwitter: {regexp.MustCompile(`^[A-Za-z0-9]{5,10}$`), "5 to 10 letters or digits", "o1a2b"},
	// AdRoll: the advertisable EID (adroll_adv_id) and the pixel EID
	// (adroll_pix_id), both of which AdRoll's tag needs.
	PixelAdRoll: {regexp.MustCompile(`^[A-Z0-9]{22}/[A-Z0-9]{22}$`),
		"ADV_EID/PIX_EID (the advertisable and pixel EIDs, 22 upper-case letters or digits each)",
		"Q4BTWXMRKZF7HNJ2C5D8EA/LM3P6VSG9YU1TE0RAWBKXN"},
	// Quora pixel id.
	PixelQuora: {regexp.MustCompile(`^[0-9a-f]{32}$`), "32 lower-case hex digits", "0123456789abcdef0123456789abcdef"},
	// Pinterest tag id.
	PixelPinterest: {regexp.MustCompile(`^[0-9]{13}$`), "13 digits", "2612345678901"},
	// Microsoft Advertising (Bing) UET tag id.
	PixelBing: {regexp.MustCompile(`^[0-9]{4,12}$`), "4 to 12 digits", "12345678"},
	// Snap pixel id.
	PixelSnapchat: {regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`),
		"a UUID", "0a1b2c3d-4e5f-6789-abcd-ef0123456789"},
	// Reddit pixel (advertiser) id.
	PixelReddit: {regexp.MustCompile(`^(t2|a2)_[a-z0-9]{3,16}$`),
		"t2_ or a2_ and 3 to 16 lower-case letters or digits", "a2_abc123"},
	// TikTok pixel id.
	PixelTikTok: {regexp.MustCompile(`^[A-Z0-9]{20}$`), "20 upper-case letters or digits", "C1A2B3C4D5E6F7G8H9I0"},
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
		return "", invalid("tag %q is not a valid %s tag: expected %s, like %s", tag, t, f.shape, f.example)
	}
	return tag, nil
}
