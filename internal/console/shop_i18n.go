package console

// shopMessages are the texts of the shop's (ordering) pages.
var shopMessages = map[string]map[string]string{
	"en": {},
	"id": {},
}
