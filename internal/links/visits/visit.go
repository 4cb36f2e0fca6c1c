package visits

import (
	"context"
	"net/netip"
	"time"
)

// Target kinds a visit can belong to.
const (
	KindLink     = "link"     // a short link
	KindQR       = "qr"       // a QR code scan
	KindCampaign = "campaign" // a campaign (rotator) link
)

// Social networks reported in [Visit.Social] and counted in [SocialCount].
const (
	SocialFacebook  = "facebook"
	SocialTwitter   = "twitter"
	SocialInstagram = "instagram"
)

// Visit is one recorded visit or scan, as the store keeps it. It holds no raw
// IP address and no raw user agent.
type Visit struct {
	// Kind is the kind of target: KindLink, KindQR or KindCampaign.
	Kind string `json:"kind"`
	// ID is the target's id.
	ID int64 `json:"id"`
	// OwnerID is the id of the user who owns the target.
	OwnerID int64 `json:"ownerId"`
	// At is when the visit happened, in UTC.
	At time.Time `json:"at"`
	// Referrer is the referring host, lower case, without "www."; "" means a
	// direct visit (no referrer, or one that is not a valid http(s) URL).
	Referrer string `json:"referrer"`
	// Browser is the browser name ("Chrome", "Safari", "Instagram App", ...),
	// "Other" for an unrecognisable one, "" when unknown.
	Browser string `json:"browser"`
	// OS is the operating system name ("Windows", "iOS", "Android", ...) or "".
	OS string `json:"os"`
	// Device is the kind of device: DeviceDesktop, DeviceMobile,
	// DeviceTablet, or "" when unknown.
	Device string `json:"device,omitempty"`
	// Country is the ISO 3166-1 alpha-2 code, upper case, or "" when unknown.
	Country string `json:"country"`
	// Bot reports a crawler, a link-preview fetcher, an HTTP tool or an empty
	// user agent. Bots are stored but left out of the statistics.
	Bot bool `json:"bot"`
	// Visitor is a keyed hash of (IP, user agent) whose key rotates every UTC
	// day; equal values on the same target and day mean the same visitor.
	Visitor string `json:"visitor"`
	// Social is SocialFacebook, SocialTwitter, SocialInstagram or "".
	Social string `json:"social"`
}

// Hit is what the redirect handler captures on the request path: raw values
// only, copied by value into the recorder's queue. See [Recorder.Capture].
type Hit struct {
	// Kind, ID and OwnerID identify the target (see Visit).
	Kind    string
	ID      int64
	OwnerID int64
	// At is when the request arrived; zero means "now" at Record time.
	At time.Time
	// IP is the client address (after any trusted-proxy rewriting).
	IP netip.Addr
	// UserAgent is the raw User-Agent header.
	UserAgent string
	// Referer is the raw Referer header.
	Referer string
	// Country is the raw value of the configured trusted country header;
	// ignored unless Options.CountryHeader is set.
	Country string
}

// Sink stores visits; the store implements it. SaveVisits must store the
// whole batch or nothing, and must not keep vs after it returns (the recorder
// reuses the slice).
type Sink interface {
	SaveVisits(ctx context.Context, vs []Visit) error
}
