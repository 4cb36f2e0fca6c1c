package jsonx

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// record has the field kinds whose decoding differs between encoding/json
// and the v2 defaults.
type record struct {
	Name     string        `json:"name"`
	Timeout  time.Duration `json:"timeout"`
	At       time.Time     `json:"at"`
	Tags     []string      `json:"tags"`
	Raw      []byte        `json:"raw"`
	Untagged int
	Any      any `json:"any"`
}

func TestUnmarshalMatchesEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{"name":"a","timeout":1500000000,"at":"2026-11-23T10:00:00.123456Z","tags":["x"],"raw":"AQI=","Untagged":3,"any":{"n":1}}`,
		`{"NAME":"case-insensitive","untagged":4,"tags":null,"raw":null}`,
		`{"name":"dup","name":"last wins"}`,
		`{"unknown":true}`,
	} {
		var want, got record
		werr := json.Unmarshal([]byte(in), &want)
		gerr := Unmarshal([]byte(in), &got)
		if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("Unmarshal(%s) = %+v, %v; encoding/json gives %+v, %v", in, got, gerr, want, werr)
		}
	}
	var r record
	if err := Unmarshal([]byte(`{"timeout":"1s"}`), &r); err == nil {
		t.Error("a duration as a string decoded, as encoding/json refuses")
	}
}

func TestUnmarshalStrictMatchesDisallowUnknownFields(t *testing.T) {
	for _, in := range []string{
		`{"name":"a","tags":["x"]}`,
		`{"name":"a","unknown":1}`,
		`[1]`,
		`{"name":"a"} {"name":"b"}`,
		`{"name":"a"}  ` + "\n",
		`{"name":"\xff"}`,
	} {
		var want, got record
		dec := json.NewDecoder(strings.NewReader(in))
		dec.DisallowUnknownFields()
		werr := dec.Decode(&want)
		if werr == nil && dec.More() {
			werr = errors.New("data after the value")
		}
		gerr := UnmarshalStrict([]byte(in), &got)
		if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) && werr == nil {
			t.Errorf("UnmarshalStrict(%q) = %+v, %v; a strict json.Decoder gives %+v, %v", in, got, gerr, want, werr)
		}
	}
}

func TestUnmarshalStrictMatchesNamesInCase(t *testing.T) {
	for in, name := range map[string]string{`{"NAME":"x"}`: "NAME", `{"name":"a","Tags":["x"]}`: "Tags", `{"untagged":1}`: "untagged"} {
		var r record
		err := UnmarshalStrict([]byte(in), &r)
		if got, ok := UnknownName(err); !ok || got != name {
			t.Errorf("UnmarshalStrict(%s) = %v: unknown name %q, %v; want %q", in, err, got, ok, name)
		}
	}
	if _, ok := UnknownName(UnmarshalStrict([]byte(`{"name":1}`), &record{})); ok {
		t.Error("a type error is reported as an unknown name")
	}
}
