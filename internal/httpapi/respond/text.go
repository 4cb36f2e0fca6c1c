package respond

import "errors"

// CodeInvalidText is the code of a request with text the store cannot keep:
// a NUL character or bytes that are not UTF-8, in a JSON string, a query
// parameter or a path segment.
const CodeInvalidText = "INVALID_TEXT"

// invalidTextMessage is the message of an INVALID_TEXT answer.
const invalidTextMessage = "the request holds text with a NUL character or bytes that are not UTF-8; remove them and try again"

// StoreRefusedText reports whether err is the store refusing a text value
// it cannot hold, which is the client's doing, not the portal's: PostgreSQL's
// SQLSTATE 22021 (character_not_in_repertoire: a NUL byte or a byte
// sequence that is not UTF-8 in a text parameter) and 22P05
// (untranslatable_character: \u0000 in a jsonb value). The statement failed
// and its transaction is rolled back: nothing was written.
func StoreRefusedText(err error) bool {
	var state interface{ SQLState() string }
	if err == nil || !errors.As(err, &state) {
		return false
	}
	c := state.SQLState()
	return c == "22021" || c == "22P05"
}

// InvalidTextAnswer returns the status, code and message of an INVALID_TEXT
// answer, for the envelope of each API.
func InvalidTextAnswer() (status int, code, message string) {
	return 400, CodeInvalidText, invalidTextMessage
}
