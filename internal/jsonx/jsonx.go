// Package jsonx decodes JSON where its cost matters (the records of the
// embedded stores, pushed answer batches) with the encoding/json/v2 engine
// set to encoding/json's (v1) semantics: the same results as
// json.Unmarshal, with a third fewer CPU cycles and allocations, which is
// most of the cost of reading a long list of records.
package jsonx

import (
	"errors"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// v1 are the options that give encoding/json's behaviour (case-insensitive
// names, time.Duration as nanoseconds, and so on).
var v1 = jsonv1.DefaultOptionsV1()

// Unmarshal decodes data into v as encoding/json.Unmarshal does.
func Unmarshal(data []byte, v any) error {
	return jsonv2.Unmarshal(data, v, v1)
}

// strict are v1 with unknown object members refused, and names matched
// in their exact case: a body the OpenAPI descriptions refuse
// ({"Name": ...} where they say "name") is refused here too.
var strict = jsonv2.JoinOptions(v1, jsonv2.RejectUnknownMembers(true), jsonv2.MatchCaseInsensitiveNames(false),
	jsonv1.ReportErrorsWithLegacySemantics(false)) // errors as *jsonv2.SemanticError, for UnknownName

// UnmarshalStrict decodes data into v as a json.Decoder with
// DisallowUnknownFields does, except that an object member's name must be
// its field's name in the same case, and refuses anything but white space
// after the value.
func UnmarshalStrict(data []byte, v any) error {
	return jsonv2.Unmarshal(data, v, strict)
}

// UnknownName returns the name of the object member an UnmarshalStrict
// error refused as unknown (one encoding/json would take in another case),
// and whether err is such an error.
func UnknownName(err error) (string, bool) {
	var se *jsonv2.SemanticError
	if !errors.As(err, &se) || !errors.Is(se.Err, jsonv2.ErrUnknownName) {
		return "", false
	}
	return se.JSONPointer.LastToken(), true
}
