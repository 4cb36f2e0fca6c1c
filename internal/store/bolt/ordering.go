package bolt

import "github.com/seedhq/portal/internal/ordering"

var _ ordering.Store = (*Store)(nil)

// Buckets of the ordering service.
var (
	// bucketOrdLogins: SHA-256 hex of a login token -> ordering.LoginToken.
	bucketOrdLogins = []byte("ordering_logins")
	// bucketOrdUsers: user id -> ordering.User.
	bucketOrdUsers = []byte("ordering_users")
	// bucketOrdUsersByNumber: messenger number -> user id.
	bucketOrdUsersByNumber = []byte("ordering_users_by_number")
	// bucketOrdBans: kind NUL value -> ordering.Ban.
	bucketOrdBans = []byte("ordering_bans")
	// bucketOrdConsents: messenger number -> ordering.Consent.
	bucketOrdConsents = []byte("ordering_consents")
	// bucketOrdSpent: key -> 8-byte Unix seconds until which it is kept.
	bucketOrdSpent = []byte("ordering_spent")
	// bucketOrdCategories: id -> ordering.Category.
	bucketOrdCategories = []byte("ordering_categories")
	// bucketOrdMenuItems: id -> ordering.MenuItem.
	bucketOrdMenuItems = []byte("ordering_menu_items")
	// bucketOrdSettings: "settings" -> ordering.Settings.
	bucketOrdSettings = []byte("ordering_settings")
	// bucketOrdOrders: id -> ordering.Order. Ids are UUIDv7: key order is
	// creation order.
	bucketOrdOrders = []byte("ordering_orders")
	// bucketOrdOrdersByUser: user id NUL order id -> nil.
	bucketOrdOrdersByUser = []byte("ordering_orders_by_user")
	// bucketOrdOrdersByStatus: status NUL order id -> nil.
	bucketOrdOrdersByStatus = []byte("ordering_orders_by_status")
	// bucketOrdOrdersByInvoice: invoice id -> order id.
	bucketOrdOrdersByInvoice = []byte("ordering_orders_by_invoice")
	// bucketOrdCounters: counter -> 8-byte big-endian last number.
	bucketOrdCounters = []byte("ordering_order_counters")
	// bucketOrdMessages: id -> ordering.OutboundMessage (UUIDv7 ids: key
	// order is creation order).
	bucketOrdMessages = []byte("ordering_messages")
	// bucketOrdMsgQueue: NotBefore (8-byte Unix nanoseconds) + id -> nil,
	// for the QUEUED messages.
	bucketOrdMsgQueue = []byte("ordering_messages_queue")
	// bucketOrdMsgSending: id -> nil, for the SENDING messages.
	bucketOrdMsgSending = []byte("ordering_messages_sending")
	// bucketOrdGates: channel -> ordering.GateState.
	bucketOrdGates = []byte("ordering_gates")
)

// The ledger's bucket, bucketOrdLedger, is in ordering_ledger.go.

func init() {
	allBuckets = append(allBuckets, bucketOrdLogins, bucketOrdUsers, bucketOrdUsersByNumber, bucketOrdBans,
		bucketOrdConsents, bucketOrdSpent,
		bucketOrdCategories, bucketOrdMenuItems, bucketOrdSettings, bucketOrdOrders,
		bucketOrdOrdersByUser, bucketOrdOrdersByStatus, bucketOrdOrdersByInvoice, bucketOrdCounters,
		bucketOrdMessages, bucketOrdMsgQueue, bucketOrdMsgSending, bucketOrdGates)
}
