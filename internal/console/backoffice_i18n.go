package console

// officeMessages are the texts of the shop's back-office pages.
var officeMessages = map[string]map[string]string{
	"en": {},
	"id": {},
}
