// Package qr holds the rules of the link API's QR codes: turning the API's
// typed data into the standard payload strings QR readers understand,
// validating colours and logos, and rendering the symbol as PNG and SVG.
//
// The package is pure: it performs no I/O, never fetches a URL, and knows
// nothing of HTTP or storage. Every error a user can cause is a
// *ValidationError naming the offending field; any other error is internal.
//
// Encoding uses github.com/skip2/go-qrcode only for the module matrix; the
// quiet zone, colours, logo composition and both image formats are drawn here.
// Codes without a logo use error correction level M (15% recovery); codes with
// a logo use level H (30%), and the logo covers well under that.
package qr

import (
	"errors"
	"fmt"
	"strings"
)

// Type is the kind of content a QR code carries, as named by the API's type
// field.
type Type string

// The seven QR code types of the API.
const (
	TypeText  Type = "text"  // free text, encoded as is
	TypeVCard Type = "vcard" // a contact card, encoded as vCard 3.0
	TypeLink  Type = "link"  // an http or https address (replaced by a tracking address)
	TypeEmail Type = "email" // a mailto: address with optional subject and body
	TypePhone Type = "phone" // a tel: number
	TypeSMS   Type = "sms"   // an SMSTO: number and message
	TypeWiFi  Type = "wifi"  // WIFI: network credentials
)

// Types lists every QR code type, in the order the API documents them.
func Types() []Type {
	return []Type{TypeText, TypeVCard, TypeLink, TypeEmail, TypePhone, TypeSMS, TypeWiFi}
}

// Valid reports whether t is one of the seven QR code types.
func (t Type) Valid() bool {
	switch t {
	case TypeText, TypeVCard, TypeLink, TypeEmail, TypePhone, TypeSMS, TypeWiFi:
		return true
	}
	return false
}

// ParseType returns the Type named s (case-insensitive, surrounding spaces
// ignored), or a *ValidationError on the field "type".
func ParseType(s string) (Type, error) {
	t := Type(strings.ToLower(strings.TrimSpace(s)))
	if t == "" {
		return "", invalid("type", "type is required (one of text, vcard, link, email, phone, sms, wifi)")
	}
	if !t.Valid() {
		return "", invalid("type", "type must be one of text, vcard, link, email, phone, sms, wifi")
	}
	return t, nil
}

// Sentinel causes carried by some validation errors, for callers that map
// errors to statuses: errors.Is(err, qr.ErrTooLarge).
var (
	// ErrTooLarge is the cause of a *ValidationError for an uploaded logo
	// over MaxLogoBytes (HTTP 413 at the edge).
	ErrTooLarge = errors.New("too large")
	// ErrDataTooLong is the cause of a *ValidationError for data that does
	// not fit in a QR code at the error correction level it would use.
	ErrDataTooLong = errors.New("data too long for a QR code")
)

// ValidationError reports input a user got wrong. Field names the API field
// (with a dotted suffix for a member of data, such as "data.ssid"); Message is
// a sentence safe to show to users.
type ValidationError struct {
	Field   string
	Message string

	cause error // optional sentinel, see ErrTooLarge and ErrDataTooLong
}

// Error returns the field and the message.
func (e *ValidationError) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

// Unwrap returns the sentinel cause of e, if any.
func (e *ValidationError) Unwrap() error { return e.cause }

func invalid(field, msg string) *ValidationError {
	return &ValidationError{Field: field, Message: msg}
}

func invalidf(field, format string, args ...any) *ValidationError {
	return &ValidationError{Field: field, Message: fmt.Sprintf(format, args...)}
}
