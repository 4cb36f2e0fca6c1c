package console

// messages are the console's texts, by language and key. A key missing
// in a language falls back to English, then to the key itself.
var messages = map[string]map[string]string{
	"en": {
		"app.title":        "Portal console",
		"nav.fleet":        "Fleet",
		"nav.logout":       "Sign out",
		"lang.switch":      "Bahasa Indonesia",
		"login.title":      "Sign in",
		"login.username":   "Username",
		"login.password":   "Password",
		"login.submit":     "Sign in",
		"login.failed":     "Wrong username or password.",
		"login.throttled":  "Too many failed sign-ins from this address. Try again in a few minutes.",
		"error.internal":   "Something went wrong on the portal. Try again; if it goes on, tell the operator.",
		"fleet.title":      "Fleet of lab servers",
		"fleet.filter":     "Filter",
		"fleet.status":     "Status",
		"fleet.school":     "School or NPSN",
		"fleet.all":        "All",
		"fleet.online":     "Online",
		"fleet.offline":    "Offline",
		"fleet.syncing":    "Syncing",
		"fleet.server":     "Server",
		"fleet.heartbeat":  "Last heartbeat",
		"fleet.version":    "Client version",
		"fleet.students":   "Students connected",
		"fleet.exams":      "Active exams",
		"fleet.none":       "No lab server matches.",
		"fleet.refresh":    "This page refreshes itself every 30 seconds.",
		"fleet.bad_filter": "The status filter must be online, offline or syncing.",
	},
	"id": {
		"app.title":        "Konsol portal",
		"nav.fleet":        "Server lab",
		"nav.logout":       "Keluar",
		"lang.switch":      "English",
		"login.title":      "Masuk",
		"login.username":   "Nama pengguna",
		"login.password":   "Kata sandi",
		"login.submit":     "Masuk",
		"login.failed":     "Nama pengguna atau kata sandi salah.",
		"login.throttled":  "Terlalu banyak percobaan masuk yang gagal dari alamat ini. Coba lagi beberapa menit lagi.",
		"error.internal":   "Terjadi kesalahan pada portal. Coba lagi; jika berlanjut, hubungi operator.",
		"fleet.title":      "Daftar server lab",
		"fleet.filter":     "Saring",
		"fleet.status":     "Status",
		"fleet.school":     "Sekolah atau NPSN",
		"fleet.all":        "Semua",
		"fleet.online":     "Daring",
		"fleet.offline":    "Luring",
		"fleet.syncing":    "Sinkronisasi",
		"fleet.server":     "Server",
		"fleet.heartbeat":  "Heartbeat terakhir",
		"fleet.version":    "Versi klien",
		"fleet.students":   "Siswa terhubung",
		"fleet.exams":      "Ujian aktif",
		"fleet.none":       "Tidak ada server lab yang cocok.",
		"fleet.refresh":    "Halaman ini diperbarui otomatis setiap 30 detik.",
		"fleet.bad_filter": "Saringan status harus daring, luring, atau sinkronisasi.",
	},
}

// translate returns the text of key in lang.
func translate(lang, key string) string {
	if s, ok := messages[lang][key]; ok {
		return s
	}
	if s, ok := messages["en"][key]; ok {
		return s
	}
	return key
}
