package ordering

import (
	"context"
	"time"
)

// Store keeps the ordering service's records. Every method is one
// transaction: all or nothing. Both stores pass the conformance suite
// (internal/store/storetest); the rules are in this package, passed to the
// read-modify-write methods as functions.
type Store interface {
	LoginStore
	UserStore
	BanStore
	ConsentStore
	SpentStore
	RateLimitStore
	MenuStore
	SettingsStore
	OrderStore
	LedgerStore
	MessageStore
	GateStore
}

// LoginStore keeps the logins in progress (LoginToken).
type LoginStore interface {
	// CreateLoginToken stores a new login token.
	CreateLoginToken(ctx context.Context, t LoginToken) error
	// GetLoginToken returns the token whose hash is hash, or
	// ErrTokenNotFound.
	GetLoginToken(ctx context.Context, hash string) (LoginToken, error)
	// UpdateLogin loads the token whose hash is hash (ErrTokenNotFound when
	// there is none) and the user of its number (the zero User when there
	// is none), calls fn, and, when fn returns nil, saves both: the token,
	// and the user when fn left its ID set (created when it was new). The
	// token and the user are locked from the load to the save. fn's error
	// is returned as it is, and nothing is saved.
	UpdateLogin(ctx context.Context, hash string, fn func(t *LoginToken, u *User) error) (LoginToken, User, error)
	// PruneLogins removes the login tokens that expired before before and
	// the spent keys kept until before, and returns how many records it
	// removed.
	PruneLogins(ctx context.Context, before time.Time) (int64, error)
}

// UserStore keeps the users who signed in with their messenger number.
type UserStore interface {
	// GetOrderingUser returns the user with id, or ErrUserNotFound.
	GetOrderingUser(ctx context.Context, id string) (User, error)
	// ListOrderingUsers returns every user, oldest first.
	ListOrderingUsers(ctx context.Context) ([]User, error)
	// UpdateOrderingUser loads the user with id (ErrUserNotFound), calls fn
	// and saves the user when fn returns nil.
	UpdateOrderingUser(ctx context.Context, id string, fn func(*User) error) (User, error)
}

// BanStore keeps the ban records of messenger numbers and client addresses.
type BanStore interface {
	// UpdateBans loads the ban records of keys, in the order given (a
	// record that does not exist yet is given as a new one: ID set from
	// newID, zero counters, LastAttemptAt and CreatedAt now), calls fn,
	// and saves every record when fn returns nil. The records are locked
	// from the load to the save. Keys are given in a fixed order (number
	// first) so that concurrent calls never deadlock.
	UpdateBans(ctx context.Context, keys []BanKey, now time.Time, newID func() string, fn func(bans []*Ban) error) ([]Ban, error)
	// ListBans returns the ban records with a level above 0 or attempts,
	// most recent attempt first.
	ListBans(ctx context.Context) ([]Ban, error)
}

// ConsentStore keeps which numbers may receive messages.
type ConsentStore interface {
	// RecordConsent records that number may receive messages: an inbound
	// message (source "inbound") or a registration (source "registered").
	// It keeps the first time and updates the last.
	RecordConsent(ctx context.Context, c Consent) error
	// GetConsent returns the consent of number, and false when none is recorded.
	GetConsent(ctx context.Context, number string) (Consent, bool, error)
}

// SpentStore keeps the keys that may be used once (webhook ids, solved
// challenges).
type SpentStore interface {
	// MarkSpent records key as used until until, and reports true when it
	// was not yet (a webhook id, a solved challenge): the first of several
	// concurrent callers gets true, every other false. until only says when
	// the key may be pruned; until then it stays spent.
	MarkSpent(ctx context.Context, key string, until time.Time) (bool, error)
	// UnmarkSpent forgets key, so that it may be used again (a webhook whose
	// handling failed, for the sender's retry).
	UnmarkSpent(ctx context.Context, key string) error
}

// RateLimitStore keeps the request counters of the rate limit, shared by
// every portal instance using the store.
type RateLimitStore interface {
	// HitRateLimit adds one hit to the counter of key in the fixed window
	// starting at window and returns the new count, capped at limit+1.
	HitRateLimit(ctx context.Context, key string, window time.Time, limit int) (int, error)
}

// MenuStore keeps the menu: its categories and items.
type MenuStore interface {
	// ListCategories returns the menu's categories by position, then name.
	ListCategories(ctx context.Context) ([]Category, error)
	// PutCategory creates or replaces the category with c.ID.
	PutCategory(ctx context.Context, c Category) error
	// DeleteCategory removes the category: ErrCategoryNotFound when there
	// is none, ErrCategoryNotEmpty while items are in it.
	DeleteCategory(ctx context.Context, id string) error
	// ListMenuItems returns every menu item by category position, item
	// position, then name.
	ListMenuItems(ctx context.Context) ([]MenuItem, error)
	// PutMenuItem creates or replaces the item with m.ID; its category must
	// exist (ErrCategoryNotFound).
	PutMenuItem(ctx context.Context, m MenuItem) error
	// DeleteMenuItem removes the item (ErrMenuItemNotFound when there is
	// none). Orders keep their own copy of its name and price.
	DeleteMenuItem(ctx context.Context, id string) error
	// ImportMenu creates the categories and creates or replaces the items
	// (by ID) in one transaction.
	ImportMenu(ctx context.Context, cats []Category, items []MenuItem) error
}

// SettingsStore keeps the shop's settings.
type SettingsStore interface {
	// GetSettings returns the shop's settings, and false when none were set.
	GetSettings(ctx context.Context) (Settings, bool, error)
	// PutSettings replaces the shop's settings.
	PutSettings(ctx context.Context, st Settings) error
}

// OrderStore keeps the orders.
type OrderStore interface {
	// OrderInputs returns, in one read, the shop's settings (and false when
	// none were set) and the menu items with the ids given (missing ones
	// left out): what pricing an order needs.
	OrderInputs(ctx context.Context, itemIDs []string) (Settings, bool, []MenuItem, error)
	// CreateOrder stores o numbered with the next number of the day n.Day
	// of the prefix n.Prefix (n.Number formats it; 1 for the day's first
	// order) and, when message is not nil, queues message, whose text and
	// OrderID are completed with the order's number (OrderNumberMark) and
	// id, all in one transaction: numbers are unique and without gaps under
	// any concurrency, on every instance.
	CreateOrder(ctx context.Context, o Order, n Numbering, message *OutboundMessage) (Order, error)
	// GetOrder returns the order with id, or ErrOrderNotFound.
	GetOrder(ctx context.Context, id string) (Order, error)
	// GetOrderByInvoice returns the order with the provider invoice id, or
	// ErrOrderNotFound.
	GetOrderByInvoice(ctx context.Context, invoiceID string) (Order, error)
	// ListOrders returns the orders q selects, by creation time.
	ListOrders(ctx context.Context, q OrderQuery) ([]Order, error)
	// UpdateOrder loads the order with id (ErrOrderNotFound), locked, calls
	// fn and saves it when fn returns nil.
	UpdateOrder(ctx context.Context, id string, fn func(*Order) error) (Order, error)
}

// LedgerStore keeps the ledger of paid orders.
type LedgerStore interface {
	// LedgerEntries returns the ledger entries (Order.LedgerEntry, Day
	// empty) of the orders paid in [from, to), by paid time, then order
	// id. Stores keep them as orders are written, in the same transaction
	// (CreateOrder, UpdateOrder), so reading them never reads the orders.
	LedgerEntries(ctx context.Context, from, to time.Time) ([]LedgerEntry, error)
}

// MessageStore keeps the outbound message queue.
type MessageStore interface {
	// EnqueueMessage stores a new outbound message.
	EnqueueMessage(ctx context.Context, m OutboundMessage) error
	// ClaimMessage leases the oldest QUEUED message due at now (NotBefore)
	// to owner for lease: it becomes SENDING, and no other caller gets it,
	// on any instance. Messages still SENDING past their lease (their
	// sender was interrupted) become FAILED first: they are never sent
	// again. It reports false when nothing is due.
	ClaimMessage(ctx context.Context, now time.Time, lease time.Duration, owner string) (OutboundMessage, bool, error)
	// FinishMessage loads the message id, which must be SENDING and leased
	// to owner, calls fn and saves it.
	FinishMessage(ctx context.Context, id, owner string, fn func(*OutboundMessage) error) (OutboundMessage, error)
	// ListMessages returns the latest messages, newest first, at most limit.
	ListMessages(ctx context.Context, limit int) ([]OutboundMessage, error)
	// PruneMessages removes the finished messages (SENT, DROPPED, FAILED)
	// created before before, and returns how many it removed.
	PruneMessages(ctx context.Context, before time.Time) (int64, error)
}

// GateStore keeps the state of the outbound gate of each channel.
type GateStore interface {
	// UpdateGate loads the gate record of a channel (a new one when there
	// is none), locked, calls fn and saves it.
	UpdateGate(ctx context.Context, channel string, fn func(*GateState) error) (GateState, error)
}

// Consent is the record that a number may receive messages from the shop.
type Consent struct {
	Number  string    `json:"messengerNumber"`
	Source  string    `json:"source"`
	FirstAt time.Time `json:"firstAt"`
	LastAt  time.Time `json:"lastAt"`
}

// Consent sources.
const (
	ConsentInbound    = "inbound"
	ConsentRegistered = "registered"
)
