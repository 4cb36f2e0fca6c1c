package respond

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/apperr"
)

// fuzzBody has the shapes the APIs' request bodies use: strings, numbers,
// booleans, times, pointers, nested objects and arrays, maps and raw JSON.
type fuzzBody struct {
	Name    string            `json:"name"`
	Count   int               `json:"count"`
	Small   int8              `json:"small"`
	Price   int64             `json:"price"`
	Lat     float64           `json:"lat"`
	On      bool              `json:"on"`
	At      time.Time         `json:"at"`
	Maybe   *string           `json:"maybe"`
	Items   []fuzzItem        `json:"items"`
	Tags    map[string]string `json:"tags"`
	Data    json.RawMessage   `json:"data"`
	Nums    []int             `json:"nums"`
	Default string            `json:"-"`
}

type fuzzItem struct {
	ID  string  `json:"id"`
	Qty int     `json:"qty"`
	Pts float64 `json:"pts,omitempty"`
}

// strictReference decodes body as encoding/json alone does what Decode
// documents: one value, not null, no unknown field, nothing but white space
// after it.
func strictReference(body []byte, dst any) error {
	if string(bytes.TrimSpace(body)) == "null" {
		return errors.New("null body")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return err
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return errors.New("data after the value")
	}
	// Names must be their field's in the same case, which encoding/json
	// does not check: read the body again as maps and compare.
	var tree map[string]any
	if err := json.Unmarshal(body, &tree); err != nil {
		return err
	}
	return exactNames(tree, reflect.TypeFor[fuzzBody]())
}

// exactNames fails when obj, decoded into a struct of type typ, has a name
// that is not one of its fields' JSON names in the same case, here or in a
// nested struct.
func exactNames(obj map[string]any, typ reflect.Type) error {
	fields := map[string]reflect.Type{}
	for f := range typ.Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			fields[name] = f.Type
		}
	}
	for name, v := range obj {
		ft, ok := fields[name]
		if !ok {
			return fmt.Errorf("unknown name %q", name)
		}
		for ft.Kind() == reflect.Slice || ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() != reflect.Struct || ft == reflect.TypeFor[time.Time]() {
			continue
		}
		elems, ok := v.([]any)
		if !ok {
			elems = []any{v}
		}
		for _, e := range elems {
			if m, ok := e.(map[string]any); ok {
				if err := exactNames(m, ft); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// FuzzDecodeBytes: DecodeBytes (the json v2 engine, then encoding/json)
// accepts exactly what encoding/json accepts strictly, with the same value;
// an accepted value re-encodes and decodes to itself; a refusal is always
// 400 INVALID_JSON with a message, never another kind.
func FuzzDecodeBytes(f *testing.F) {
	for _, s := range []string{
		`{"name":"a","count":1,"small":2,"price":15000,"lat":-6.2,"on":true,"at":"2026-12-01T08:00:00Z","maybe":"x",` +
			`"items":[{"id":"q1","qty":2,"pts":1.5}],"tags":{"k":"v"},"data":{"x":[1,2]},"nums":[1,2,3]}`,
		`{}`, `null`, `[]`, `""`, `1`, ``, ` `, `{"name":"a"} `, `{"name":"a"}{}`, `{"name":"a"} x`,
		`{"NAME":"case"}`, `{"items":[{"ID":"x"}]}`, `{"name":"a","Name":"b"}`, `{"name":"dup","name":"dup2"}`, `{"unknown":1}`, `{"items":[{"id":"x","extra":1}]}`,
		`{"small":128}`, `{"count":1.5}`, `{"count":1e3}`, `{"price":9223372036854775808}`, `{"lat":1e400}`,
		`{"at":"2026-13-01T00:00:00Z"}`, `{"at":"2026-12-01T08:00:00+07:00"}`, `{"at":null}`, `{"maybe":null}`,
		`{"name":"\ud800"}`, "{\"name\":\"\xff\"}", `{"name":"\u0000"}`, `{"data":}`, `{"data":[1,}`,
		`{"tags":{"a":1}}`, `{"nums":"1,2"}`, `{"items":{}}`, `{"-":"x"}`, `{"Default":"x"}`,
		`{"name":"a",}`, `{"name" "a"}`, `{"on":"true"}`, `{"on":tru}`, "\ufeff{}", `{"name":"a"}` + "\x00",
		`{"data":` + strings.Repeat(`[`, 100) + strings.Repeat(`]`, 100) + `}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var got, want fuzzBody
		err := DecodeBytes(body, &got)
		refErr := strictReference(body, &want)
		if err != nil {
			var e *apperr.Error
			if !errors.As(err, &e) || e.Kind != apperr.Invalid || e.Code != CodeInvalidJSON || e.Message == "" {
				t.Fatalf("refusal %T %v, want INVALID_JSON", err, err)
			}
			if e.Kind.Status() != http.StatusBadRequest {
				t.Fatalf("refusal status %d", e.Kind.Status())
			}
			if refErr == nil {
				t.Fatalf("refused %q, which encoding/json accepts: %v", body, err)
			}
			return
		}
		if refErr != nil {
			t.Fatalf("accepted %q, which encoding/json refuses: %v", body, refErr)
		}
		a, errA := json.Marshal(got)
		b, errB := json.Marshal(want)
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Fatalf("decoded %s, encoding/json decodes %s (%v, %v)", a, b, errA, errB)
		}
		var again fuzzBody
		if err := DecodeBytes(a, &again); err != nil {
			t.Fatalf("re-encoded value %s refused: %v", a, err)
		}
		if c, _ := json.Marshal(again); !bytes.Equal(a, c) {
			t.Fatalf("round trip: %s became %s", a, c)
		}
	})
}

// FuzzDecodeLimit: a body over the route's limit is *http.MaxBytesError
// (answered 413), never INVALID_JSON or a success, whatever its content.
func FuzzDecodeLimit(f *testing.F) {
	f.Add([]byte(`{"name":"a"}`), uint8(5))
	f.Add([]byte(`{"name":"a"}`), uint8(200))
	f.Add([]byte(`{"nums":[1,2,3,4,5,6,7,8,9]}`), uint8(0))
	f.Add([]byte(``), uint8(0))
	f.Fuzz(func(t *testing.T, body []byte, limit uint8) {
		r, _ := http.NewRequest("POST", "/", bytes.NewReader(body))
		r.Body = http.MaxBytesReader(nil, r.Body, int64(limit))
		var got fuzzBody
		err := Decode(r, &got)
		var tooLarge *http.MaxBytesError
		switch {
		case len(body) > int(limit):
			if !errors.As(err, &tooLarge) {
				t.Fatalf("body of %d bytes over a limit of %d: %v", len(body), limit, err)
			}
		case errors.As(err, &tooLarge):
			t.Fatalf("body of %d bytes within a limit of %d refused as too large", len(body), limit)
		case err != nil && apperr.CodeOf(err) != CodeInvalidJSON:
			t.Fatalf("refusal %v, want INVALID_JSON", err)
		}
	})
}
