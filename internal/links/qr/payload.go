package qr

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/mail"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds on the parts of a payload. The QR capacity check (Fits) applies on
// top of these; the bounds keep each field to a size its readers accept.
const (
	// MaxLinkLength is the longest link accepted, in bytes.
	MaxLinkLength = 2048
	// MaxTextLength is the longest free text accepted, in bytes: the byte
	// capacity of the largest QR code (version 40, level L). The capacity
	// at the level actually used (M, or H with a logo) is lower and is
	// checked separately.
	MaxTextLength = 2953

	maxEmailLength   = 254 // RFC 5321 path limit
	maxSubjectLength = 255 // characters
	maxBodyLength    = 2000
	maxSMSLength     = 1000
	maxPhoneLength   = 32 // as typed, separators included
	maxSSIDLength    = 32 // bytes, IEEE 802.11
	maxFieldLength   = 200
	maxAddressLength = 300
	maxNoteLength    = 1000
)

// Payload validates the API's data for a QR code of type t and returns the
// string the code encodes. The accepted shapes of data are:
//
//   - text: a JSON string, 1 to MaxTextLength bytes, encoded as is.
//   - link: a JSON string, an absolute http or https URL (see ValidateLink),
//     returned as given; the caller encodes a tracking address instead.
//   - phone: a JSON string, an object {"phone"} or an array ["phone"]; digits
//     with an optional leading +, spaces, dashes, dots and parentheses
//     (dropped); 3 to 15 digits. Encoded as tel:+15551234567.
//   - email: a JSON string (the address), an object {"email", "subject",
//     "body"} or an array in that order. Encoded as
//     mailto:addr?subject=...&body=... with RFC 6068 percent-encoding.
//   - sms: an object {"phone", "message"} or an array in that order (a bare
//     string is the phone number). Encoded as SMSTO:phone:message.
//   - wifi: an object {"ssid", "password", "encryption", "hidden"} or an
//     array in that order. encryption is WPA (WPA2 is an alias), WEP or
//     nopass (none is an alias), defaulting to WPA when a password is given
//     and nopass otherwise; hidden is a boolean (or "true"/"false").
//     Encoded as WIFI:T:WPA;S:ssid;P:password;H:true;; with \ ; , : "
//     escaped by a backslash.
//   - vcard: an object {"first_name", "last_name", "org", "title", "phone",
//     "mobile", "email", "url", "address", "city", "region", "postal_code",
//     "country", "note"}, all strings, at least one of first_name, last_name
//     and org. Encoded as vCard 3.0 with CRLF line ends and text values
//     escaped (\\ \; \, \n).
//
// Objects with unknown fields are refused. Every error a user can cause is a
// *ValidationError; the payload is also checked to fit a QR code at level M
// (a code with a logo uses level H: see Fits).
func Payload(t Type, data json.RawMessage) (string, error) {
	if !t.Valid() {
		return "", invalid("type", "type must be one of text, vcard, link, email, phone, sms, wifi")
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		return "", invalid("data", "data is required")
	}
	var (
		p   string
		err error
	)
	switch t {
	case TypeText:
		p, err = textPayload(data)
	case TypeLink:
		p, err = linkPayload(data)
	case TypePhone:
		p, err = phonePayload(data)
	case TypeEmail:
		p, err = emailPayload(data)
	case TypeSMS:
		p, err = smsPayload(data)
	case TypeWiFi:
		p, err = wifiPayload(data)
	case TypeVCard:
		p, err = vcardPayload(data)
	}
	if err != nil {
		return "", err
	}
	if err := Fits(p, false); err != nil {
		return "", err
	}
	return p, nil
}

// ValidateLink reports whether s is acceptable as the destination of a link
// QR code: an absolute http or https URL of at most MaxLinkLength bytes, with
// a valid host name or IP address, no spaces or control characters, and no
// user name or password (a common disguise in phishing links). Errors are
// *ValidationError on the field "data".
func ValidateLink(s string) error {
	return validateLink("data", s)
}

func validateLink(field, s string) error {
	if s == "" {
		return invalid(field, "link is required")
	}
	if len(s) > MaxLinkLength {
		return invalidf(field, "link must be at most %d characters", MaxLinkLength)
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError {
			return invalid(field, "link must not contain spaces or control characters")
		}
	}
	u, err := url.Parse(s)
	if err != nil {
		return invalid(field, "link is not a valid URL")
	}
	if scheme := strings.ToLower(u.Scheme); scheme != "http" && scheme != "https" {
		return invalid(field, "link must be an http or https URL, such as https://example.com/page")
	}
	if u.Opaque != "" || u.Host == "" {
		return invalid(field, "link must be an absolute URL with a host name, such as https://example.com/page")
	}
	if u.User != nil {
		return invalid(field, "link must not contain a user name or password")
	}
	host := u.Hostname()
	if net.ParseIP(host) == nil && !validHostname(host) {
		return invalid(field, "link has an invalid host name")
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return invalid(field, "link has an invalid port")
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return invalid(field, "link has an invalid port")
	}
	return nil
}

// validHostname reports whether h is a DNS host name: dot-separated labels of
// 1 to 63 letters, digits and hyphens (internationalised letters allowed), not
// starting or ending with a hyphen.
func validHostname(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for label := range strings.SplitSeq(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			switch {
			case r < utf8.RuneSelf:
				if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
					return false
				}
			case !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.M, r):
				return false
			}
		}
	}
	return true
}

func textPayload(data []byte) (string, error) {
	s, err := jsonString(TypeText, data)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(s) == "" {
		return "", invalid("data", "text is required")
	}
	if len(s) > MaxTextLength {
		return "", &ValidationError{Field: "data", Message: ErrDataTooLong.Error(), cause: ErrDataTooLong}
	}
	if err := checkText("data", "text", s, MaxTextLength, true); err != nil {
		return "", err
	}
	return s, nil
}

func linkPayload(data []byte) (string, error) {
	s, err := jsonString(TypeLink, data)
	if err != nil {
		return "", err
	}
	s = strings.TrimSpace(s)
	if err := ValidateLink(s); err != nil {
		return "", err
	}
	return s, nil
}

func phonePayload(data []byte) (string, error) {
	var d struct {
		Phone string `json:"phone"`
	}
	if data[0] == '"' {
		s, err := jsonString(TypePhone, data)
		if err != nil {
			return "", err
		}
		d.Phone = s
	} else if err := decodeFields(TypePhone, data, []string{"phone"}, &d); err != nil {
		return "", err
	}
	field := "data"
	if data[0] != '"' {
		field = "data.phone"
	}
	n, err := normalizePhone(field, d.Phone)
	if err != nil {
		return "", err
	}
	return "tel:" + n, nil
}

// normalizePhone keeps the digits and a leading + of s, dropping the usual
// separators, and checks the E.164 digit count bounds (3 for short codes).
func normalizePhone(field, s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", invalid(field, "phone number is required")
	}
	if len(s) > maxPhoneLength {
		return "", invalidf(field, "phone number must be at most %d characters", maxPhoneLength)
	}
	var b strings.Builder
	digits := 0
	for i, r := range s {
		switch {
		case r == '+' && i == 0:
			b.WriteByte('+')
		case r >= '0' && r <= '9':
			b.WriteRune(r)
			digits++
		case r == ' ' || r == '-' || r == '.' || r == '(' || r == ')':
		default:
			return "", invalid(field, "phone number may contain only digits, a leading +, spaces, dashes, dots and parentheses")
		}
	}
	if digits < 3 || digits > 15 {
		return "", invalid(field, "phone number must have 3 to 15 digits")
	}
	return b.String(), nil
}

func emailPayload(data []byte) (string, error) {
	var d struct {
		Email   string `json:"email"`
		Subject string `json:"subject"`
		Body    string `json:"body"`
	}
	field := "data.email"
	if data[0] == '"' {
		s, err := jsonString(TypeEmail, data)
		if err != nil {
			return "", err
		}
		d.Email, field = s, "data"
	} else if err := decodeFields(TypeEmail, data, []string{"email", "subject", "body"}, &d); err != nil {
		return "", err
	}
	d.Email = strings.TrimSpace(d.Email)
	if err := checkEmail(field, d.Email); err != nil {
		return "", err
	}
	if err := checkText("data.subject", "subject", d.Subject, maxSubjectLength, false); err != nil {
		return "", err
	}
	if err := checkText("data.body", "body", d.Body, maxBodyLength, true); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("mailto:")
	b.WriteString(percentEncode(d.Email, "!$'*+@"))
	sep := "?"
	if d.Subject != "" {
		b.WriteString(sep + "subject=" + percentEncode(d.Subject, ""))
		sep = "&"
	}
	if d.Body != "" {
		// RFC 6068: line breaks in a body are CRLF, percent-encoded.
		body := strings.ReplaceAll(strings.ReplaceAll(d.Body, "\r\n", "\n"), "\n", "\r\n")
		b.WriteString(sep + "body=" + percentEncode(body, ""))
	}
	return b.String(), nil
}

// checkEmail accepts a bare address (no display name, comment or brackets)
// whose domain is a host name with at least two labels.
func checkEmail(field, s string) error {
	if s == "" {
		return invalid(field, "email address is required")
	}
	if len(s) > maxEmailLength {
		return invalidf(field, "email address must be at most %d characters", maxEmailLength)
	}
	a, err := mail.ParseAddress(s)
	at := strings.LastIndexByte(s, '@')
	if err != nil || a.Name != "" || a.Address != s || at < 1 ||
		!strings.Contains(s[at+1:], ".") || !validHostname(s[at+1:]) {
		return invalid(field, "email address is not valid (expected name@example.com)")
	}
	return nil
}

// percentEncode encodes every byte of s except RFC 3986 unreserved
// characters and those in keep.
func percentEncode(s, keep string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || strings.IndexByte(keep, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

func smsPayload(data []byte) (string, error) {
	var d struct {
		Phone   string `json:"phone"`
		Message string `json:"message"`
	}
	field := "data.phone"
	if data[0] == '"' {
		s, err := jsonString(TypeSMS, data)
		if err != nil {
			return "", err
		}
		d.Phone, field = s, "data"
	} else if err := decodeFields(TypeSMS, data, []string{"phone", "message"}, &d); err != nil {
		return "", err
	}
	n, err := normalizePhone(field, d.Phone)
	if err != nil {
		return "", err
	}
	if err := checkText("data.message", "message", d.Message, maxSMSLength, true); err != nil {
		return "", err
	}
	// SMSTO has no escaping: readers split at the first colon after the
	// number, which cannot itself contain one.
	return "SMSTO:" + n + ":" + d.Message, nil
}

func wifiPayload(data []byte) (string, error) {
	var d struct {
		SSID       string   `json:"ssid"`
		Password   string   `json:"password"`
		Encryption string   `json:"encryption"`
		Hidden     flexBool `json:"hidden"`
	}
	if err := decodeFields(TypeWiFi, data, []string{"ssid", "password", "encryption", "hidden"}, &d); err != nil {
		return "", err
	}
	// The SSID and password are kept exactly as given: leading or trailing
	// spaces can be part of them.
	if d.SSID == "" {
		return "", invalid("data.ssid", "network name (ssid) is required")
	}
	if len(d.SSID) > maxSSIDLength {
		return "", invalidf("data.ssid", "network name (ssid) must be at most %d bytes", maxSSIDLength)
	}
	if err := checkText("data.ssid", "network name (ssid)", d.SSID, maxSSIDLength, false); err != nil {
		return "", err
	}
	enc, err := wifiEncryption(d.Encryption, d.Password)
	if err != nil {
		return "", err
	}
	switch enc {
	case "nopass":
		if d.Password != "" {
			return "", invalid("data.password", "password must be empty when encryption is nopass")
		}
	case "WPA":
		if !(isHex(d.Password) && len(d.Password) == 64) &&
			(len(d.Password) < 8 || len(d.Password) > 63 || !isPrintableASCII(d.Password)) {
			return "", invalid("data.password", "WPA password must be 8 to 63 printable ASCII characters (or 64 hex digits)")
		}
	case "WEP":
		n := len(d.Password)
		if !(isPrintableASCII(d.Password) && (n == 5 || n == 13)) && !(isHex(d.Password) && (n == 10 || n == 26)) {
			return "", invalid("data.password", "WEP key must be 5 or 13 ASCII characters, or 10 or 26 hex digits")
		}
	}
	var b strings.Builder
	b.WriteString("WIFI:T:" + enc + ";S:" + wifiEscape(d.SSID) + ";")
	if enc != "nopass" {
		b.WriteString("P:" + wifiEscape(d.Password) + ";")
	}
	if d.Hidden {
		b.WriteString("H:true;")
	}
	b.WriteString(";")
	return b.String(), nil
}

func wifiEncryption(enc, password string) (string, error) {
	switch strings.ToUpper(strings.TrimSpace(enc)) {
	case "":
		if password == "" {
			return "nopass", nil
		}
		return "WPA", nil
	case "WPA", "WPA2":
		return "WPA", nil
	case "WEP":
		return "WEP", nil
	case "NOPASS", "NONE":
		return "nopass", nil
	}
	return "", invalid("data.encryption", "encryption must be WPA, WEP or nopass")
}

var wifiEscaper = strings.NewReplacer(`\`, `\\`, `;`, `\;`, `,`, `\,`, `:`, `\:`, `"`, `\"`)

// wifiEscape escapes the characters special in the WIFI: format.
func wifiEscape(s string) string { return wifiEscaper.Replace(s) }

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return s != ""
}

func isPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

type vcardData struct {
	FirstName  string `json:"first_name"`
	LastName   string `json:"last_name"`
	Org        string `json:"org"`
	Title      string `json:"title"`
	Phone      string `json:"phone"`
	Mobile     string `json:"mobile"`
	Email      string `json:"email"`
	URL        string `json:"url"`
	Address    string `json:"address"`
	City       string `json:"city"`
	Region     string `json:"region"`
	PostalCode string `json:"postal_code"`
	Country    string `json:"country"`
	Note       string `json:"note"`
}

func vcardPayload(data []byte) (string, error) {
	if data[0] != '{' {
		return "", invalid("data", "data for vcard must be an object such as {\"first_name\": \"Ada\", \"last_name\": \"Lovelace\", \"phone\": \"+441234567890\"}")
	}
	var d vcardData
	if err := decodeFields(TypeVCard, data, nil, &d); err != nil {
		return "", err
	}
	v := reflect.ValueOf(&d).Elem()
	for i := range v.NumField() {
		v.Field(i).SetString(strings.TrimSpace(v.Field(i).String()))
	}
	if d.FirstName == "" && d.LastName == "" && d.Org == "" {
		return "", invalid("data", "a vcard needs at least one of first_name, last_name and org")
	}
	for _, f := range []struct {
		field, name, value string
		max                int
		multiline          bool
	}{
		{"first_name", "first name", d.FirstName, maxFieldLength, false},
		{"last_name", "last name", d.LastName, maxFieldLength, false},
		{"org", "organisation", d.Org, maxFieldLength, false},
		{"title", "title", d.Title, maxFieldLength, false},
		{"address", "address", d.Address, maxAddressLength, true},
		{"city", "city", d.City, maxFieldLength, false},
		{"region", "region", d.Region, maxFieldLength, false},
		{"postal_code", "postal code", d.PostalCode, maxFieldLength, false},
		{"country", "country", d.Country, maxFieldLength, false},
		{"note", "note", d.Note, maxNoteLength, true},
	} {
		if err := checkText("data."+f.field, f.name, f.value, f.max, f.multiline); err != nil {
			return "", err
		}
	}
	var phone, mobile string
	var err error
	if d.Phone != "" {
		if phone, err = normalizePhone("data.phone", d.Phone); err != nil {
			return "", err
		}
	}
	if d.Mobile != "" {
		if mobile, err = normalizePhone("data.mobile", d.Mobile); err != nil {
			return "", err
		}
	}
	if d.Email != "" {
		if err := checkEmail("data.email", d.Email); err != nil {
			return "", err
		}
	}
	if d.URL != "" {
		if err := validateLink("data.url", d.URL); err != nil {
			return "", err
		}
	}

	var b strings.Builder
	line := func(name, value string) {
		if value != "" {
			b.WriteString(name + ":" + value + "\r\n")
		}
	}
	b.WriteString("BEGIN:VCARD\r\nVERSION:3.0\r\n")
	b.WriteString("N:" + vcardEscape(d.LastName) + ";" + vcardEscape(d.FirstName) + ";;;\r\n")
	fn := strings.TrimSpace(d.FirstName + " " + d.LastName)
	if fn == "" {
		fn = d.Org
	}
	line("FN", vcardEscape(fn))
	line("ORG", vcardEscape(d.Org))
	line("TITLE", vcardEscape(d.Title))
	line("TEL;TYPE=VOICE", phone)
	line("TEL;TYPE=CELL", mobile)
	line("EMAIL;TYPE=INTERNET", d.Email)
	line("URL", d.URL) // a URI value, not text: no escaping (validated, no spaces)
	if d.Address+d.City+d.Region+d.PostalCode+d.Country != "" {
		line("ADR", ";;"+strings.Join([]string{
			vcardEscape(d.Address), vcardEscape(d.City), vcardEscape(d.Region),
			vcardEscape(d.PostalCode), vcardEscape(d.Country),
		}, ";"))
	}
	line("NOTE", vcardEscape(d.Note))
	b.WriteString("END:VCARD")
	return b.String(), nil
}

var vcardEscaper = strings.NewReplacer(`\`, `\\`, `;`, `\;`, `,`, `\,`, "\r\n", `\n`, "\n", `\n`, "\r", `\n`)

// vcardEscape escapes a vCard 3.0 text value (RFC 2426 section 4).
func vcardEscape(s string) string { return vcardEscaper.Replace(s) }

// checkText bounds s to max characters of valid UTF-8 without control
// characters (tab and line breaks are allowed when multiline).
func checkText(field, name, s string, max int, multiline bool) error {
	if !utf8.ValidString(s) {
		return invalidf(field, "%s is not valid UTF-8", name)
	}
	if n := utf8.RuneCountInString(s); n > max {
		return invalidf(field, "%s must be at most %d characters", name, max)
	}
	for _, r := range s {
		if unicode.IsControl(r) && !(multiline && (r == '\n' || r == '\r' || r == '\t')) {
			return invalidf(field, "%s must not contain control characters", name)
		}
	}
	return nil
}

// jsonString decodes data, which must be a JSON string.
func jsonString(t Type, data []byte) (string, error) {
	var s string
	if data[0] != '"' || json.Unmarshal(data, &s) != nil {
		return "", invalidf("data", "data for %s must be a string", t)
	}
	return s, nil
}

// decodeFields decodes data, a JSON object or (when fields is not nil) an
// array whose items are the named fields in order, into dst, refusing
// unknown fields.
func decodeFields(t Type, data []byte, fields []string, dst any) error {
	shape := "an object"
	if fields != nil {
		shape = "an object or an array"
	}
	switch {
	case data[0] == '[' && fields != nil:
		var items []json.RawMessage
		if err := json.Unmarshal(data, &items); err != nil {
			return invalidf("data", "data for %s is not valid JSON", t)
		}
		if len(items) == 0 {
			return invalid("data", "data is required")
		}
		if len(items) > len(fields) {
			return invalidf("data", "data for %s takes at most %d items (%s)", t, len(fields), strings.Join(fields, ", "))
		}
		m := make(map[string]json.RawMessage, len(items))
		for i, it := range items {
			m[fields[i]] = it
		}
		var err error
		if data, err = json.Marshal(m); err != nil {
			return invalidf("data", "data for %s is not valid JSON", t)
		}
	case data[0] == '{':
	default:
		return invalidf("data", "data for %s must be %s", t, shape)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return jsonError(t, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return invalidf("data", "data for %s is not valid JSON", t)
	}
	return nil
}

// jsonError turns a decoding error into a *ValidationError naming the field.
func jsonError(t Type, err error) error {
	var ve *ValidationError
	if errors.As(err, &ve) {
		return ve
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		what := "a string"
		if te.Type != nil && te.Type.Kind() == reflect.Bool {
			what = "true or false"
		}
		return invalidf("data."+te.Field, "%s must be %s", te.Field, what)
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return invalidf("data", "unknown field %s in data for %s", name, t)
	}
	return invalidf("data", "data for %s is not valid JSON", t)
}

// flexBool is a JSON boolean that also accepts "true" and "false" strings
// and null (false), as form-minded clients send.
type flexBool bool

// UnmarshalJSON implements json.Unmarshaler.
func (b *flexBool) UnmarshalJSON(p []byte) error {
	switch string(p) {
	case "true", `"true"`, `"1"`, "1":
		*b = true
	case "false", `"false"`, `"0"`, "0", `""`, "null":
		*b = false
	default:
		return invalid("data.hidden", "hidden must be true or false")
	}
	return nil
}
