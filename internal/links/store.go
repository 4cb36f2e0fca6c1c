package links

import (
	"context"
	"time"

	"github.com/seedhq/portal/internal/links/visits"
	"github.com/seedhq/portal/internal/throttle"
)

// Store is everything the link domain needs from storage. Every method is one
// transaction: on any error nothing it would have written is kept.
//
// Ids are positive integers the store assigns on create, unique per record
// type. Methods taking an owner and an id answer ErrNotFound (matched with
// errors.Is) when the record does not exist or belongs to another user.
// Update methods read the record, call fn on it and write it back in the same
// transaction; fn must not change ID, UserID or CreatedAt, and an error of fn
// is returned as is with nothing written. Lists are newest first (highest id
// first) unless said otherwise.
type Store interface {
	UserStore
	DomainStore
	OverlayStore
	SplashStore
	CampaignStore
	ChannelStore
	PixelStore
	QRStore
	LinkStore
	RateLimitStore
	VisitStore
	// Failed console sign-ins, counted in the store so that every instance
	// counts the same ones.
	throttle.Store
}

// UserStore keeps link-management users and their API keys.
type UserStore interface {
	// CreateLinkUser stores u (ID assigned) with an API key of hash keyHash created
	// at u.RegisteredAt and returns the stored user. ErrEmailTaken or
	// ErrUsernameTaken when another user has the email or username.
	CreateLinkUser(ctx context.Context, u User, keyHash string) (User, error)
	// GetLinkUser returns the user with the id.
	GetLinkUser(ctx context.Context, id int64) (User, error)
	// ListLinkUsers returns one page of users, newest first.
	ListLinkUsers(ctx context.Context, p Page) (List[User], error)
	// UpdateLinkUser applies fn to the user; ErrEmailTaken when the new email
	// belongs to another user.
	UpdateLinkUser(ctx context.Context, id int64, fn func(*User) error) (User, error)
	// GetLinkUserByLogin returns the user whose username or email is login
	// (lower-case, as stored); ErrNotFound when none is.
	GetLinkUserByLogin(ctx context.Context, login string) (User, error)
	// GetLinkAPIKey returns the user's API key record.
	GetLinkAPIKey(ctx context.Context, userID int64) (APIKey, error)
	// GetLinkUserByKeyHash returns the user whose current API key has the hash;
	// ErrNotFound when none has (rotated keys are forgotten).
	GetLinkUserByKeyHash(ctx context.Context, hash string) (User, error)
	// RotateLinkAPIKey replaces the user's key by one of hash newHash, rotated at
	// the given time, and returns the new record. The old key stops working.
	RotateLinkAPIKey(ctx context.Context, userID int64, newHash string, at time.Time) (APIKey, error)
}

// DomainStore keeps branded domains.
type DomainStore interface {
	// CreateDomain stores d (ID assigned); ErrDomainTaken when any user has
	// a domain with d.Host.
	CreateDomain(ctx context.Context, d Domain) (Domain, error)
	// GetDomain returns the owner's domain.
	GetDomain(ctx context.Context, owner, id int64) (Domain, error)
	// GetDomainByHost returns the domain with the (lower-case) host, whoever owns it.
	GetDomainByHost(ctx context.Context, host string) (Domain, error)
	// ListDomains returns one page of the owner's domains.
	ListDomains(ctx context.Context, owner int64, p Page) (List[Domain], error)
	// UpdateDomain applies fn to the owner's domain; fn must not change Host or URL.
	UpdateDomain(ctx context.Context, owner, id int64, fn func(*Domain) error) (Domain, error)
	// DeleteDomain removes the owner's domain; ErrDomainInUse while short links use it.
	DeleteDomain(ctx context.Context, owner, id int64) error
}

// OverlayStore keeps CTA overlays.
type OverlayStore interface {
	// CreateOverlay stores o (ID assigned) for o.UserID, who must exist.
	CreateOverlay(ctx context.Context, o Overlay) (Overlay, error)
	// ListOverlays returns one page of the owner's overlays.
	ListOverlays(ctx context.Context, owner int64, p Page) (List[Overlay], error)
}

// SplashStore keeps custom splash pages.
type SplashStore interface {
	// CreateSplash stores sp (ID assigned) for sp.UserID, who must exist.
	CreateSplash(ctx context.Context, sp Splash) (Splash, error)
	// ListSplashes returns one page of the owner's splash pages.
	ListSplashes(ctx context.Context, owner int64, p Page) (List[Splash], error)
}

// CampaignStore keeps campaigns.
type CampaignStore interface {
	// CreateCampaign stores c (ID assigned); ErrSlugTaken when c.Slug is not
	// empty and any campaign has it.
	CreateCampaign(ctx context.Context, c Campaign) (Campaign, error)
	// GetCampaign returns the owner's campaign.
	GetCampaign(ctx context.Context, owner, id int64) (Campaign, error)
	// GetCampaignBySlug returns the campaign with the rotator slug, whoever owns it.
	GetCampaignBySlug(ctx context.Context, slug string) (Campaign, error)
	// GetCampaignByID returns the campaign with the id, whoever owns it
	// (ErrNotFound when there is none).
	GetCampaignByID(ctx context.Context, id int64) (Campaign, error)
	// ListCampaigns returns one page of the owner's campaigns.
	ListCampaigns(ctx context.Context, owner int64, p Page) (List[Campaign], error)
	// UpdateCampaign applies fn to the owner's campaign; ErrSlugTaken when
	// the new slug is another campaign's.
	UpdateCampaign(ctx context.Context, owner, id int64, fn func(*Campaign) error) (Campaign, error)
	// DeleteCampaign removes the owner's campaign and its recorded visits
	// (see VisitStore); its links keep existing with CampaignID 0, and their
	// own visits.
	DeleteCampaign(ctx context.Context, owner, id int64) error
	// AssignCampaignLink sets the CampaignID of the owner's link to the
	// owner's campaign; ErrNotFound when either is missing or another user's.
	AssignCampaignLink(ctx context.Context, owner, campaignID, linkID int64) error
}

// ChannelStore keeps channels and their items.
type ChannelStore interface {
	// CreateChannel stores c (ID assigned).
	CreateChannel(ctx context.Context, c Channel) (Channel, error)
	// GetChannel returns the owner's channel.
	GetChannel(ctx context.Context, owner, id int64) (Channel, error)
	// ListChannels returns one page of the owner's channels.
	ListChannels(ctx context.Context, owner int64, p Page) (List[Channel], error)
	// UpdateChannel applies fn to the owner's channel.
	UpdateChannel(ctx context.Context, owner, id int64, fn func(*Channel) error) (Channel, error)
	// DeleteChannel removes the owner's channel and unassigns all its items.
	DeleteChannel(ctx context.Context, owner, id int64) error
	// AssignChannelItem adds the owner's item (a short link or QR code) to the
	// owner's channel at the given time; ErrNotFound when either is missing or
	// another user's. Assigning an item twice keeps the first assignment.
	AssignChannelItem(ctx context.Context, owner, channelID int64, t ItemType, itemID int64, at time.Time) error
	// ListChannelItems returns one page of the items of the owner's channel,
	// newest assignment first.
	ListChannelItems(ctx context.Context, owner, channelID int64, p Page) (List[ChannelItem], error)
}

// PixelStore keeps tracking pixels.
type PixelStore interface {
	// CreatePixel stores px (ID assigned).
	CreatePixel(ctx context.Context, px Pixel) (Pixel, error)
	// GetPixel returns the owner's pixel.
	GetPixel(ctx context.Context, owner, id int64) (Pixel, error)
	// ListPixels returns one page of the owner's pixels.
	ListPixels(ctx context.Context, owner int64, p Page) (List[Pixel], error)
	// UpdatePixel applies fn to the owner's pixel; fn must not change Type.
	UpdatePixel(ctx context.Context, owner, id int64, fn func(*Pixel) error) (Pixel, error)
	// DeletePixel removes the owner's pixel and its id from the owner's links.
	DeletePixel(ctx context.Context, owner, id int64) error
}

// QRStore keeps QR code records.
type QRStore interface {
	// CreateQR stores q (ID assigned); ErrNotFound when q.LinkID is set and
	// is not one of the owner's links.
	CreateQR(ctx context.Context, q QRCode) (QRCode, error)
	// GetQR returns the owner's QR code.
	GetQR(ctx context.Context, owner, id int64) (QRCode, error)
	// GetQRByID returns the QR code with the id, whoever owns it
	// (ErrNotFound when there is none).
	GetQRByID(ctx context.Context, id int64) (QRCode, error)
	// ListQRs returns one page of the owner's QR codes.
	ListQRs(ctx context.Context, owner int64, p Page) (List[QRCode], error)
	// UpdateQR applies fn to the owner's QR code (LinkID is checked as on create).
	UpdateQR(ctx context.Context, owner, id int64, fn func(*QRCode) error) (QRCode, error)
	// DeleteQR removes the owner's QR code and its recorded visits (see
	// VisitStore) and unassigns it from channels.
	DeleteQR(ctx context.Context, owner, id int64) error
}

// LinkStore keeps short links.
//
// Create and update check, in the same transaction, that DomainID (when not
// 0), CampaignID (when not 0), every PixelIDs and every ChannelIDs entry is
// the owner's, answering ErrNotFound naming the first that is not; and that
// no other link of the same domain has the alias (ErrAliasTaken). ChannelIDs
// are kept as channel items of type links: setting them assigns and
// unassigns the link accordingly.
type LinkStore interface {
	// CreateLink stores l (ID assigned) and returns it with PixelIDs and
	// ChannelIDs sorted and deduplicated.
	CreateLink(ctx context.Context, l ShortLink) (ShortLink, error)
	// GetLink returns the owner's link.
	GetLink(ctx context.Context, owner, id int64) (ShortLink, error)
	// GetLinkByAlias returns the link of the domain (0: the short host) with
	// the alias, whoever owns it.
	GetLinkByAlias(ctx context.Context, domainID int64, alias string) (ShortLink, error)
	// ListLinks returns one page of the owner's matching links in the
	// filter's order.
	ListLinks(ctx context.Context, owner int64, f LinkFilter, p Page) (List[ShortLink], error)
	// UpdateLink applies fn to the owner's link; Clicks and UniqueClicks
	// changes by fn are ignored.
	UpdateLink(ctx context.Context, owner, id int64, fn func(*ShortLink) error) (ShortLink, error)
	// DeleteLink removes the owner's link and its recorded visits (see
	// VisitStore) and unassigns it from channels; QR codes pointing through
	// it keep existing with LinkID 0, and their own visits.
	DeleteLink(ctx context.Context, owner, id int64) error
}

// RateLimitStore keeps the request counters of the rate limit, shared by
// every portal instance using the store.
type RateLimitStore interface {
	// HitRateLimit counts one request of key in the fixed window starting at
	// window (truncated to the second) and returns the window's count,
	// including this request, capped at limit+1: a result over limit means
	// the request is refused. Counters of the key's earlier windows may be
	// removed. In SQL this is one
	//   INSERT ... ON CONFLICT (key, window) DO UPDATE
	//   SET count = LEAST(rate_limits.count + 1, $limit + 1) RETURNING count.
	HitRateLimit(ctx context.Context, key string, window time.Time, limit int) (int, error)
}

// VisitStatsTop is the length of the top lists of VisitStore.VisitStats.
const VisitStatsTop = 10

// VisitStore keeps the visits of short links, QR codes and campaigns
// recorded by visits.Recorder (it is a visits.Sink) and the statistics
// drawn from them.
//
// Visits go with their target: DeleteLink, DeleteQR and DeleteCampaign
// remove the target's stored visits, roll-ups and the visitors seen for it, in the
// transaction removing the target, and visits saved after that are dropped
// as visits of a missing target. Nothing of a deleted target's visits stays
// stored.
type VisitStore interface {
	// SaveVisits stores vs in one transaction (all or nothing) and does not
	// keep vs. For each non-bot visit it adds 1 to the target's counter
	// (a link's Clicks, a QR code's Scans) and, for a link, 1 to UniqueClicks
	// when the visit has no Visitor or its Visitor was not yet seen for
	// that link on the visit's UTC day. Each visit is stored with the owner
	// of its target; visits of targets that do not exist are dropped
	// silently. A visit of an unknown kind fails the batch.
	SaveVisits(ctx context.Context, vs []visits.Visit) error
	// VisitStats returns the statistics of the owner's target of the kind
	// (visits.KindLink, KindQR or KindCampaign) as visits.Aggregate computes
	// them over every visit ever saved for it (pruned ones included), top
	// lists cut to VisitStatsTop entries. It reads the target's roll-ups
	// (visits.Rollup), kept by SaveVisits, never the raw visits: its cost
	// does not grow with the number of visits.
	VisitStats(ctx context.Context, owner int64, kind string, id int64) (visits.Stats, error)
	// PruneVisits removes the raw visits that happened before visitsBefore
	// (none when it is zero) and the seen visitors of the UTC days before
	// that of visitorsBefore (none when it is zero), and returns how many
	// visits it removed. Statistics and counters are kept exactly: they
	// come from roll-ups kept as visits are saved. It works in short
	// transactions, so that recording goes on meanwhile.
	PruneVisits(ctx context.Context, visitsBefore, visitorsBefore time.Time) (int64, error)
}
