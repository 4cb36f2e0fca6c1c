package console

// shopMessages are the texts of the shop's (ordering) pages.
var shopMessages = map[string]map[string]string{
	"en": {
		"shop.nav.store":    "Menu",
		"shop.nav.orders":   "My orders",
		"shop.nav.kitchen":  "Kitchen",
		"shop.nav.pos":      "Point of sale",
		"shop.nav.payments": "Payments",
		"shop.nav.menu":     "Menu items",
		"shop.nav.settings": "Settings",
		"shop.nav.ledger":   "Ledger",
		"shop.nav.users":    "Users",
		"shop.nav.bans":     "Bans",
	},
	"id": {
		"shop.nav.store":    "Menu",
		"shop.nav.orders":   "Pesanan saya",
		"shop.nav.kitchen":  "Dapur",
		"shop.nav.pos":      "Kasir",
		"shop.nav.payments": "Pembayaran",
		"shop.nav.menu":     "Daftar menu",
		"shop.nav.settings": "Pengaturan",
		"shop.nav.ledger":   "Buku kas",
		"shop.nav.users":    "Pengguna",
		"shop.nav.bans":     "Blokir",
	},
}
