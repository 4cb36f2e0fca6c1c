package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/seedhq/portal/internal/openapi/openapitest"
)

// The handler tests validate every exchange against the OpenAPI
// descriptions (internal/openapi): newHarness serves its router through
// validateAPI, so each request a test makes and each answer it gets is
// checked against the document that describes its route
// (internal/openapi/openapitest says how).

func init() {
	// It measures the heap while streaming 80 MB of CSV.
	openapitest.Unvalidated = append(openapitest.Unvalidated, "TestAnswersCSVMemory")
}

// validateAPI wraps h so that every request and response is validated
// against the OpenAPI documents; a mismatch fails t (or the test given to
// harness.use since).
func validateAPI(t testing.TB, h http.Handler) *openapitest.Handler {
	t.Helper()
	return openapitest.Wrap(t, h)
}
