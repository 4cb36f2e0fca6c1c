package qbank_test

import (
	"encoding/base64"
	"log/slog"
	"path/filepath"
	"slices"
	"testing"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/internal/testkit"
)

func mustService(t *testing.T) *exam.Service {
	t.Helper()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"), bolt.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	svc, err := exam.NewService(t.Context(), st, exam.Config{TempDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func TestStoreDataURI(t *testing.T) {
	svc := mustService(t)
	png := testkit.PNG(5, 4, 1)
	b64 := base64.StdEncoding.EncodeToString(png)
	m, err := qbank.StoreDataURI(t.Context(), svc, "data:image/png;base64,"+b64[:8]+"\n "+b64[8:])
	if err != nil || m.Type != "image/png" || m.Size != int64(len(png)) {
		t.Fatalf("StoreDataURI = %+v, %v", m, err)
	}
	for _, tt := range []struct{ uri, code string }{
		{"data:image/png;base64", "INVALID_DATA_URI"},
		{"data:image/png;base64,%%%", "INVALID_DATA_URI"},
		{"data:image/png;base64,", "INVALID_DATA_URI"},
		{"data:text/html,<script>alert(1)</script>", "INVALID_DATA_URI"},
		{"data:,hello", "INVALID_DATA_URI"},
		{"data:image/gif;base64,R0lGODlhAQABAAAAACw=", "UNSUPPORTED_MEDIA"},
		{"data:image/svg+xml,%3Csvg%3E%3C/svg%3E", "UNSUPPORTED_MEDIA"},
	} {
		if _, err := qbank.StoreDataURI(t.Context(), svc, tt.uri); apperr.CodeOf(err) != tt.code || apperr.KindOf(err) == apperr.Internal {
			t.Errorf("StoreDataURI(%q) = %v, want %s", tt.uri, err, tt.code)
		}
	}
}

// TestRefuseLostMedia: an item that lost a figure is refused with its
// question; a refused passage refuses its questions and a passage only
// refused questions used goes.
func TestRefuseLostMedia(t *testing.T) {
	b := &qbank.Bank{
		Stimuli: []exam.Stimulus{{ID: "s1"}, {ID: "s2"}, {ID: "s3"}},
		Questions: []exam.Question{{ID: "q1", Stimulus: "s1"}, {ID: "q2", Stimulus: "s2"}, {ID: "q3", Stimulus: "s3"},
			{ID: "q4"}},
		Items: []qbank.ItemReport{
			{Position: 1, QuestionID: "s1", Status: qbank.Changed, Changes: []string{"x"}, Lost: []string{"the image a.gif"}},
			{Position: 2, QuestionID: "q1", Status: qbank.Imported},
			{Position: 3, QuestionID: "q2", Status: qbank.Changed, Lost: []string{"one", "two"}},
			{Position: 4, QuestionID: "q3", Status: qbank.Changed, Changes: []string{"kept"}},
			{Position: 5, QuestionID: "q4", Status: qbank.Imported},
		},
	}
	b.RefuseLostMedia()
	var ids, sids []string
	for _, q := range b.Questions {
		ids = append(ids, q.ID)
	}
	for _, s := range b.Stimuli {
		sids = append(sids, s.ID)
	}
	if !slices.Equal(ids, []string{"q3", "q4"}) || !slices.Equal(sids, []string{"s3"}) {
		t.Errorf("questions %v, stimuli %v", ids, sids)
	}
	for i, status := range []qbank.Status{qbank.Refused, qbank.Refused, qbank.Refused, qbank.Changed, qbank.Imported} {
		it := b.Items[i]
		if it.Status != status || status == qbank.Refused && (it.Code != "MEDIA_NOT_FOUND" || it.Message == "" || it.Changes != nil) {
			t.Errorf("item %d = %+v, want %s", i+1, it, status)
		}
	}
	if want := "the item would lose a figure: one (and 1 more); import with allow-missing-media to keep it without"; b.Items[2].Message != want {
		t.Errorf("message %q, want %q", b.Items[2].Message, want)
	}
}
