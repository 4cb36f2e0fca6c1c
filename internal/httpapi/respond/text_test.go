package respond

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestStoreRefusedText: PostgreSQL's refusals of text (22021, 22P05), even
// wrapped, are 400 INVALID_TEXT in the envelope, not logged; other
// SQLSTATEs and plain errors stay 500 INTERNAL.
func TestStoreRefusedText(t *testing.T) {
	for _, c := range []struct {
		err    error
		status int
		code   string
	}{
		{sqlStateError("22021"), 400, CodeInvalidText},
		{fmt.Errorf("create category: %w", sqlStateError("22P05")), 400, CodeInvalidText},
		{sqlStateError("23505"), 500, CodeInternal},
		{errors.New("boom"), 500, CodeInternal},
	} {
		var logs strings.Builder
		w := httptest.NewRecorder()
		Error(w, httptest.NewRequest("GET", "/x", nil), slog.New(slog.NewTextHandler(&logs, nil)), c.err)
		if w.Code != c.status || !strings.Contains(w.Body.String(), `"code":"`+c.code+`"`) {
			t.Errorf("%v: %d %s, want %d %s", c.err, w.Code, w.Body, c.status, c.code)
		}
		if logged := strings.Contains(logs.String(), "internal error"); logged != (c.status == 500) {
			t.Errorf("%v: logged %v: %s", c.err, logged, logs.String())
		}
	}
	if StoreRefusedText(nil) {
		t.Error("nil is a refused text")
	}
}
