// Package openapi holds the OpenAPI 3.1 descriptions of the portal's three
// JSON APIs (the exam synchronisation API, the link-management API and the
// ordering API), embedded in the binary, and the handler that serves them at
// /api/openapi/{name}.json and /api/openapi/{name}.yaml.
//
// The documents are written by hand from the handlers and docs/api/*.md.
// The tests of internal/httpapi keep them true: every request and response
// of the handler test suites is validated against them, and every route of
// the router must be described in one document (and every described
// operation must be a route).
package openapi

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

//go:embed exam.yaml links.yaml ordering.yaml
var files embed.FS

// The names of the three documents.
const (
	Exam     = "exam"
	Links    = "links"
	Ordering = "ordering"
)

// Names lists the documents: exam, links, ordering.
func Names() []string { return []string{Exam, Links, Ordering} }

// BasePath is the path the documents are served under.
const BasePath = "/api/openapi/"

// YAML returns the document name as written (YAML).
func YAML(name string) ([]byte, error) {
	data, err := files.ReadFile(name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("openapi: no document %q: %w", name, err)
	}
	return data, nil
}

var (
	jsonOnce  sync.Once
	jsonDocs  map[string][]byte
	jsonError error
)

// JSON returns the document name converted to JSON (the same content).
func JSON(name string) ([]byte, error) {
	jsonOnce.Do(func() {
		jsonDocs = make(map[string][]byte)
		for _, n := range Names() {
			y, err := YAML(n)
			if err != nil {
				jsonError = err
				return
			}
			j, err := yamlToJSON(y)
			if err != nil {
				jsonError = fmt.Errorf("openapi: %s.yaml: %w", n, err)
				return
			}
			jsonDocs[n] = j
		}
	})
	if jsonError != nil {
		return nil, jsonError
	}
	j, ok := jsonDocs[name]
	if !ok {
		return nil, fmt.Errorf("openapi: no document %q", name)
	}
	return j, nil
}

// yamlToJSON converts a YAML document to indented JSON.
func yamlToJSON(y []byte) ([]byte, error) {
	var v any
	if err := yaml.Unmarshal(y, &v); err != nil {
		return nil, fmt.Errorf("decode YAML: %w", err)
	}
	v, err := jsonable(v)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode JSON: %w", err)
	}
	return buf.Bytes(), nil
}

// jsonable turns the maps YAML decodes into maps with string keys.
func jsonable(v any) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			c, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			t[k] = c
		}
		return t, nil
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			c, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			m[fmt.Sprint(k)] = c
		}
		return m, nil
	case []any:
		for i, e := range t {
			c, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			t[i] = c
		}
		return t, nil
	case time.Time:
		return nil, fmt.Errorf("unquoted timestamp %v: quote it", t)
	default:
		return v, nil
	}
}

// Paths returns the paths the handler of name serves: its JSON and its
// YAML form.
func Paths(name string) []string {
	return []string{BasePath + name + ".json", BasePath + name + ".yaml"}
}

// Handler serves the documents: GET /api/openapi/{name}.json and
// /api/openapi/{name}.yaml for each name given (Names when none), public and
// cacheable (Cache-Control public for an hour, a strong ETag of the content,
// If-None-Match answered 304).
func Handler(names ...string) (http.Handler, error) {
	if len(names) == 0 {
		names = Names()
	}
	type doc struct {
		body        []byte
		contentType string
		etag        string
	}
	docs := make(map[string]doc)
	for _, n := range names {
		y, err := YAML(n)
		if err != nil {
			return nil, err
		}
		j, err := JSON(n)
		if err != nil {
			return nil, err
		}
		for _, d := range []struct {
			ext, ct string
			body    []byte
		}{{".json", "application/json", j}, {".yaml", "application/yaml", y}} {
			sum := sha256.Sum256(d.body)
			docs[BasePath+n+d.ext] = doc{body: d.body, contentType: d.ct, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", d.contentType)
		h.Set("Cache-Control", "public, max-age=3600")
		h.Set("ETag", d.etag)
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("X-Content-Type-Options", "nosniff")
		// ServeContent answers If-None-Match with 304 and HEAD and Range
		// requests as the standard library does.
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(d.body))
	}), nil
}
