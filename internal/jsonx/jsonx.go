// Package jsonx decodes JSON where its cost matters (the records of the
// embedded stores, pushed answer batches) with the encoding/json/v2 engine
// set to encoding/json's (v1) semantics: the same results as
// json.Unmarshal, with a third fewer CPU cycles and allocations, which is
// most of the cost of reading a long list of records.
package jsonx

import (
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

// strict are v1 with unknown object members refused.
var strict = jsonv2.JoinOptions(v1, jsonv2.RejectUnknownMembers(true))

// UnmarshalStrict decodes data into v as a json.Decoder with
// DisallowUnknownFields does, and refuses anything but white space after
// the value.
func UnmarshalStrict(data []byte, v any) error {
	return jsonv2.Unmarshal(data, v, strict)
}
