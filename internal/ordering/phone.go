package ordering

import (
	"strings"
	"unicode"

	"github.com/nyaruka/phonenumbers"
)

// NormalizeNumber returns number as digits with the country code and no
// "+" (628123456789), the form of messengerNumber everywhere in this API.
// A number without a country code is read in region (an ISO 3166-1 code
// such as "ID": 0812... becomes 62812...). Gateways' chat ids
// ("628123456789@c.us") are accepted. A number that is not a valid phone
// number is ErrInvalidNumber, and so is one written with anything but the
// digits 0-9, spaces, "-", ".", "(", ")" and a leading "+": the phone-number
// library would read letters as keypad digits (62812abc345 as 62812222345),
// extensions and other scripts' digits too, so that a number the user did
// not type would be logged in or sent messages.
func NormalizeNumber(number, region string) (string, error) {
	number = strings.TrimSpace(number)
	if at := strings.IndexByte(number, '@'); at >= 0 {
		number = number[:at]
	}
	if number == "" || len(number) > 32 || !plainNumber(number) {
		return "", ErrInvalidNumber
	}
	// Digits that start with a country code but no "+" (as gateways and
	// the spec write them) are international unless they start with the
	// national prefix 0.
	if number[0] != '+' && number[0] != '0' && onlyDigits(number) {
		if n, err := phonenumbers.Parse("+"+number, region); err == nil && phonenumbers.IsValidNumber(n) {
			return format(n), nil
		}
	}
	n, err := phonenumbers.Parse(number, region)
	if err != nil || !phonenumbers.IsValidNumber(n) {
		return "", ErrInvalidNumber
	}
	return format(n), nil
}

// format returns n in E.164 without the "+".
func format(n *phonenumbers.PhoneNumber) string {
	return strings.TrimPrefix(phonenumbers.Format(n, phonenumbers.E164), "+")
}

// plainNumber reports whether s is written with the digits 0-9 and the
// usual separators only: spaces (a no-break space included), "-", ".", "(",
// ")", and "+" as its first character.
func plainNumber(s string) bool {
	for i, r := range s {
		switch {
		case '0' <= r && r <= '9', r == '-', r == '.', r == '(', r == ')', unicode.IsSpace(r):
		case r == '+' && i == 0:
		default:
			return false
		}
	}
	return true
}

func onlyDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
