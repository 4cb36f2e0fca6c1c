package links

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/seedhq/portal/internal/links/qr"
)

// MaxURLLength is the longest long URL (and redirect target) accepted.
const MaxURLLength = 2048

// Length limits of free-text fields, in bytes.
const (
	MaxNameLength        = 255
	MaxDescriptionLength = 1000
)

// ValidateURL checks a long URL or redirect target: absolute http or https,
// a host, no user information, at most MaxURLLength bytes. field names the
// input in the error message.
func ValidateURL(field, raw string) error {
	if raw == "" {
		return invalid("%s is required", field)
	}
	if len(raw) > MaxURLLength {
		return invalid("%s must be at most %d characters", field, MaxURLLength)
	}
	if strings.ContainsAny(raw, " \t\r\n") {
		return invalid("%s must not contain spaces", field)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return invalid("%s is not a valid URL", field)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return invalid("%s must start with http:// or https://", field)
	}
	if u.User != nil {
		return invalid("%s must not contain a user name or password", field)
	}
	if u.Hostname() == "" {
		return invalid("%s must have a host", field)
	}
	return nil
}

// validateOptionalURL is ValidateURL for fields that may be empty.
func validateOptionalURL(field, raw string) error {
	if raw == "" {
		return nil
	}
	return ValidateURL(field, raw)
}

// NormalizeDomain parses a branded domain given as an http or https URL and
// returns its canonical URL (lower-case scheme and host, no path) and host.
// A path of "/" is tolerated; any other path, a query, a fragment or user
// information is refused.
func NormalizeDomain(raw string) (canonical, host string, err error) {
	raw = strings.TrimSpace(raw)
	if err := ValidateURL("domain", raw); err != nil {
		return "", "", err
	}
	u, _ := url.Parse(raw) // ValidateURL parsed it already
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return "", "", invalid("domain must be a scheme and host only, e.g. https://go.example.com")
	}
	host = strings.ToLower(u.Host)
	name := strings.ToLower(u.Hostname())
	if net.ParseIP(name) == nil && !hostnameRE.MatchString(name) {
		return "", "", invalid("domain %q is not a valid host name", name)
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", "", invalid("domain port %q is not valid", p)
		}
	}
	return strings.ToLower(u.Scheme) + "://" + host, host, nil
}

// hostnameRE matches a DNS host name with at least two labels.
var hostnameRE = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$`)

// Alias rules: 3 to 64 characters of [A-Za-z0-9_-], not a reserved word.
const (
	MinAliasLength = 3
	MaxAliasLength = 64
)

var aliasRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// ReservedAliases are the paths of the short host that aliases and rotator
// slugs may not take, compared case-insensitively.
var ReservedAliases = []string{
	"admin", "api", "assets", "c", "console", "dashboard", "healthz", "login", "logout",
	"metrics", "qr", "r", "readyz", "sandbox", "static", "u",
}

// ValidateAlias checks a custom alias (field "custom") or rotator slug.
func ValidateAlias(field, alias string) error {
	if len(alias) < MinAliasLength || len(alias) > MaxAliasLength {
		return invalid("%s must be %d to %d characters", field, MinAliasLength, MaxAliasLength)
	}
	if !aliasRE.MatchString(alias) {
		return invalid("%s may only contain letters, digits, '-' and '_'", field)
	}
	if slices.Contains(ReservedAliases, strings.ToLower(alias)) {
		return invalid("%s %q is reserved", field, alias)
	}
	return nil
}

var colorRE = regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`)

// NormalizeColor checks a channel colour of the form #RRGGBB (empty allowed)
// and returns it upper-cased.
func NormalizeColor(c string) (string, error) {
	if c == "" {
		return "", nil
	}
	if !colorRE.MatchString(c) {
		return "", invalid("color must be of the form #RRGGBB")
	}
	return strings.ToUpper(c), nil
}

var rgbRE = regexp.MustCompile(`^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$`)

// NormalizeRGB checks a QR colour of the form rgb(r,g,b) with components
// 0..255 (empty allowed) and returns it without spaces.
func NormalizeRGB(field, c string) (string, error) {
	if c == "" {
		return "", nil
	}
	m := rgbRE.FindStringSubmatch(strings.TrimSpace(c))
	if m == nil {
		return "", invalid("%s must be of the form rgb(r,g,b)", field)
	}
	for _, v := range m[1:] {
		if n, _ := strconv.Atoi(v); n > 255 {
			return "", invalid("%s components must be between 0 and 255", field)
		}
	}
	return fmt.Sprintf("rgb(%s,%s,%s)", m[1], m[2], m[3]), nil
}

// ValidateLogo checks a QR code's logo: a PNG or JPEG image given as a
// data URI (data:image/png;base64,... — linkctl and pkg/client turn an
// uploaded file into one), bounded in bytes and pixels. A URL is refused:
// the portal never fetches logos from addresses users give (no SSRF).
func ValidateLogo(logo string) error {
	if logo == "" {
		return nil
	}
	b, err := qr.DecodeDataURI(logo)
	if err != nil {
		return invalid("%v", err)
	}
	if _, err := qr.DecodeLogo(b); err != nil {
		return invalid("%v", err)
	}
	return nil
}

// CheckQRLook checks what the renderer will need beyond the rules of
// CreateQR and UpdateQR: the payload of the type (qr.Payload) and a
// readable colour pair (qr.ParseColors). Its errors are *qr.ValidationError.
func CheckQRLook(t QRType, data json.RawMessage, fg, bg string) error {
	if _, err := qr.Payload(qr.Type(t), data); err != nil {
		return err
	}
	_, _, err := qr.ParseColors(fg, bg)
	return err
}

// QRTypes lists the QR code types in the spec's order.
var QRTypes = []QRType{QRText, QRVCard, QRLink, QREmail, QRPhone, QRSMS, QRWiFi}

// MaxQRDataBytes bounds the data of a QR code (a QR code holds under 3 KB).
const MaxQRDataBytes = 4096

// ValidateQRData checks the data of a QR code of type t: a JSON string for
// text, link, email and phone (a link being a valid URL); a JSON string,
// array or object for vcard, sms and wifi. It returns the data compacted.
func ValidateQRData(t QRType, data json.RawMessage) (json.RawMessage, error) {
	if !slices.Contains(QRTypes, t) {
		return nil, invalid("type must be one of text, vcard, link, email, phone, sms, wifi")
	}
	if len(data) == 0 {
		return nil, invalid("data is required")
	}
	if len(data) > MaxQRDataBytes {
		return nil, invalid("data must be at most %d bytes", MaxQRDataBytes)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, invalid("data is not valid JSON")
	}
	switch x := v.(type) {
	case string:
		if strings.TrimSpace(x) == "" {
			return nil, invalid("data is required")
		}
		switch t {
		case QRLink:
			if err := ValidateURL("data", x); err != nil {
				return nil, err
			}
		case QREmail:
			if _, err := mail.ParseAddress(x); err != nil {
				return nil, invalid("data must be an email address for type email")
			}
		}
	case []any, map[string]any:
		if t == QRText || t == QRLink || t == QREmail || t == QRPhone {
			return nil, invalid("data must be a string for type %s", t)
		}
	default:
		return nil, invalid("data must be a string, an array or an object")
	}
	// Compacted without HTML escapes (which would turn one byte of < > &
	// into six); what the compaction still grows (invalid UTF-8 becomes
	// U+FFFD) is held to the same limit, so stored data always validates
	// again.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("links: compact QR data: %w", err)
	}
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(out) > MaxQRDataBytes {
		return nil, invalid("data must be at most %d bytes", MaxQRDataBytes)
	}
	return out, nil
}

// NormalizeEmail checks an email address and returns it lower-cased.
func NormalizeEmail(email string) (string, error) {
	email = strings.TrimSpace(email)
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || len(email) > 254 {
		return "", invalid("email %q is not a valid address", email)
	}
	return strings.ToLower(email), nil
}

var usernameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{2,31}$`)

// NormalizeUsername checks a username (3 to 32 of [a-z0-9._-], starting with
// a letter or digit, case-insensitive) and returns it lower-cased.
func NormalizeUsername(username string) (string, error) {
	u := strings.ToLower(strings.TrimSpace(username))
	if !usernameRE.MatchString(u) {
		return "", invalid("username must be 3 to 32 letters, digits, '.', '_' or '-'")
	}
	return u, nil
}

// validateText checks the length of a free-text field.
func validateText(field, v string, maxLen int) error {
	if len(v) > maxLen {
		return invalid("%s must be at most %d characters", field, maxLen)
	}
	return nil
}
