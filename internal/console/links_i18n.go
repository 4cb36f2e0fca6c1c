package console

// linkMessages are the texts of the marketers' (link management) pages.
var linkMessages = map[string]map[string]string{
	"en": {},
	"id": {},
}
