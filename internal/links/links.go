// Package links is the link-management domain: users and their API keys,
// short links, branded domains, CTA overlays, splash pages, campaigns,
// channels, tracking pixels and QR code records. It holds the types, the
// rules (validation, key generation, paging) and the Store interfaces it
// consumes; Service implements every use case on top of a Store.
//
// Every record but a User belongs to one user (its UserID). Store methods take
// the owner's id and answer ErrNotFound for another user's record exactly as
// for a missing one, so that the HTTP layer answers 404 for both.
package links

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/seedhq/portal/internal/apperr"
)

// Errors returned by the Store and the Service. Callers compare with errors.Is;
// the code is the stable one documented in docs/api/links.md.
var (
	ErrNotFound      = apperr.New(apperr.NotFound, "NOT_FOUND", "not found")
	ErrInvalid       = apperr.New(apperr.Invalid, "VALIDATION_FAILED", "invalid input")
	ErrUnauthorized  = apperr.New(apperr.Unauthorized, "UNAUTHORIZED", "a valid API key is required")
	ErrRateLimited   = apperr.New(apperr.RateLimited, "RATE_LIMITED", "too many requests; retry after the window resets")
	ErrAliasTaken    = apperr.New(apperr.Conflict, "ALIAS_TAKEN", "this alias is already used on this domain")
	ErrDomainTaken   = apperr.New(apperr.Conflict, "DOMAIN_TAKEN", "this domain is already registered")
	ErrDomainInUse   = apperr.New(apperr.Conflict, "DOMAIN_IN_USE", "short links still use this domain")
	ErrSlugTaken     = apperr.New(apperr.Conflict, "SLUG_TAKEN", "this rotator slug is already used")
	ErrEmailTaken    = apperr.New(apperr.Conflict, "EMAIL_TAKEN", "this email is already used")
	ErrUsernameTaken = apperr.New(apperr.Conflict, "USERNAME_TAKEN", "this username is already used")
)

// NotFound returns the NOT_FOUND error of a missing (or another user's)
// record: "<what> <id> not found". It matches ErrNotFound with errors.Is.
// Stores use it so that every backend words the error alike.
func NotFound(what string, id int64) error {
	return apperr.Errorf(apperr.NotFound, "NOT_FOUND", "%s %d not found", what, id)
}

// invalid returns a VALIDATION_FAILED error with a formatted message.
func invalid(format string, args ...any) error {
	return apperr.Errorf(apperr.Invalid, "VALIDATION_FAILED", format, args...)
}

// DefaultRateLimit is the number of requests per minute of a user whose
// RateLimit is 0.
const DefaultRateLimit = 30

// User is a link-management account. Users are created by operators.
type User struct {
	ID           int64
	Email        string // unique, compared case-insensitively (stored lower-case)
	Username     string // unique, compared case-insensitively (stored lower-case)
	PasswordHash string // bcrypt
	Avatar       string // URL, may be empty
	Plan         string // shown as "status" on the wire, e.g. "free" or "pro"
	RateLimit    int    // requests per minute; 0 means DefaultRateLimit
	ExpiresAt    *time.Time
	RegisteredAt time.Time
}

// Limit returns the user's requests per minute.
func (u User) Limit() int {
	if u.RateLimit > 0 {
		return u.RateLimit
	}
	return DefaultRateLimit
}

// APIKey is the one API key of a user. Only the SHA-256 of the key is kept.
type APIKey struct {
	UserID    int64
	Hash      string // lowercase hex SHA-256 of the key
	CreatedAt time.Time
	RotatedAt *time.Time // when the current key replaced an earlier one
}

// Domain is a branded domain of a user.
type Domain struct {
	ID           int64
	UserID       int64
	URL          string // scheme and host, e.g. "https://go.example.com"
	Host         string // lower-case host (with port when given), unique across users
	RedirectRoot string // where a visit to the domain root goes; may be empty
	Redirect404  string // where an unknown alias goes; may be empty
	CreatedAt    time.Time
}

// Overlay is a CTA overlay. Operators create them; users list theirs.
type Overlay struct {
	ID        int64
	UserID    int64
	Type      string // e.g. "message", "contact"
	Name      string
	CreatedAt time.Time
}

// Splash is a custom splash page. Operators create them; users list theirs.
type Splash struct {
	ID        int64
	UserID    int64
	Name      string
	CreatedAt time.Time
}

// Campaign groups short links; with a slug and Public it has a public rotator.
type Campaign struct {
	ID        int64
	UserID    int64
	Name      string
	Slug      string // rotator slug, unique across users; empty for none
	Public    bool
	CreatedAt time.Time
}

// Channel groups short links, bio pages and QR codes.
type Channel struct {
	ID          int64
	UserID      int64
	Name        string
	Description string
	Color       string // #RRGGBB or empty
	Starred     bool
	CreatedAt   time.Time
}

// ItemType is the kind of a channel item.
type ItemType string

// The channel item types of POST /api/channel/:channelid/assign/:type/:itemid.
const (
	ItemLink ItemType = "links"
	ItemBio  ItemType = "bio"
	ItemQR   ItemType = "qr"
)

// ChannelItem is one item assigned to a channel, as ListChannelItems returns it.
type ChannelItem struct {
	Type       ItemType
	ItemID     int64
	Title      string    // link title (or its alias when untitled), QR name
	Alias      string    // short links only
	DomainID   int64     // short links only
	CreatedAt  time.Time // when the item was created
	AssignedAt time.Time // when it was assigned to the channel
}

// PixelType is one of the 13 tracking-pixel types.
type PixelType string

// Pixel is a tracking pixel of a user.
type Pixel struct {
	ID        int64
	UserID    int64
	Type      PixelType
	Name      string
	Tag       string
	CreatedAt time.Time
}

// QRType is the content type of a QR code.
type QRType string

// The QR code types of POST /api/qr/add.
const (
	QRText  QRType = "text"
	QRVCard QRType = "vcard"
	QRLink  QRType = "link"
	QREmail QRType = "email"
	QRPhone QRType = "phone"
	QRSMS   QRType = "sms"
	QRWiFi  QRType = "wifi"
)

// QRCode is the record of a QR code. Rendering is not this package's concern.
type QRCode struct {
	ID         int64
	UserID     int64
	Name       string
	Type       QRType
	Data       json.RawMessage // the request's data: a JSON string, array or object
	Background string          // rgb(r,g,b), empty for the default
	Foreground string          // rgb(r,g,b), empty for the default
	Logo       string          // a png or jpg as a data URI, empty for none
	LinkID     int64           // short link the QR code points through, 0 for none
	Scans      int64
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// ShortLink is a short link of a user.
type ShortLink struct {
	ID           int64
	UserID       int64
	DomainID     int64  // 0: the portal's own short host
	Alias        string // unique per domain, case-sensitive
	LongURL      string
	Title        string
	Description  string
	PasswordHash string // bcrypt, empty when the link has no password
	ExpiresAt    *time.Time
	PixelIDs     []int64 // ascending
	CampaignID   int64   // 0 for none
	ChannelIDs   []int64 // ascending; kept as channel items of type links
	Clicks       int64
	UniqueClicks int64
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Page asks for one page of a list. Zero fields take the defaults.
type Page struct {
	Number int // from 1; 0 means 1
	Limit  int // 1..MaxLimit; 0 means DefaultLimit
}

// Paging limits of every list.
const (
	DefaultLimit = 10
	MaxLimit     = 1000
)

// Normalize returns p with defaults applied, or VALIDATION_FAILED when a
// field is out of range.
func (p Page) Normalize() (Page, error) {
	switch {
	case p.Number < 0:
		return p, invalid("page must be at least 1")
	case p.Limit < 0 || p.Limit > MaxLimit:
		return p, invalid("limit must be between 1 and %d", MaxLimit)
	}
	if p.Number == 0 {
		p.Number = 1
	}
	if p.Limit == 0 {
		p.Limit = DefaultLimit
	}
	return p, nil
}

// Offset returns the number of records before the page (Normalize first).
func (p Page) Offset() int { return (p.Number - 1) * p.Limit }

// List is one page of records and the total number of records.
type List[T any] struct {
	Items []T
	Total int
	Page  Page // the normalized page that was asked for
}

// Paging is the spec's paged-list envelope: result, perpage, currentpage,
// nextpage, maxpage.
type Paging struct {
	Result      int // total number of records
	PerPage     int
	CurrentPage int
	NextPage    int // 0 when CurrentPage is the last page
	MaxPage     int // at least 1
}

// Paging returns the envelope numbers of the list.
func (l List[T]) Paging() Paging {
	maxPage := (l.Total + l.Page.Limit - 1) / max(l.Page.Limit, 1)
	maxPage = max(maxPage, 1)
	next := 0
	if l.Page.Number < maxPage {
		next = l.Page.Number + 1
	}
	return Paging{Result: l.Total, PerPage: l.Page.Limit, CurrentPage: l.Page.Number, NextPage: next, MaxPage: maxPage}
}

// LinkOrder is the order of ListLinks.
type LinkOrder string

// Orders of GET /api/urls.
const (
	OrderDate   LinkOrder = "date"   // newest first (the default)
	OrderClicks LinkOrder = "clicks" // most clicks first, then newest
)

// LinkFilter narrows ListLinks; zero fields match everything.
type LinkFilter struct {
	CampaignID int64
	// DomainID, when positive, keeps the links of that branded domain.
	DomainID int64
	// Search, when not empty, keeps the links whose alias, long URL or
	// title contains it, compared case-insensitively (ListLinks lowers it).
	Search string
	Order  LinkOrder // empty means OrderDate
}

// Matches reports whether l passes the filter's domain and search (a store
// without indexes for them applies it to each record; the campaign is
// matched by the stores' index).
func (f LinkFilter) Matches(l ShortLink) bool {
	if f.DomainID > 0 && l.DomainID != f.DomainID {
		return false
	}
	if f.Search == "" {
		return true
	}
	for _, s := range []string{l.Alias, l.LongURL, l.Title} {
		if strings.Contains(strings.ToLower(s), f.Search) {
			return true
		}
	}
	return false
}
