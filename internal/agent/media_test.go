package agent_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/agent/mediastore"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/testkit"
)

// mediaExam creates an exam whose questions show img and audio; it returns
// the exam's input, for edits.
func mediaExam(t *testing.T, svc *exam.Service, img, audio exam.Media) (string, exam.ExamInput) {
	t.Helper()
	start := time.Now().UTC().Add(-time.Hour)
	in := exam.ExamInput{
		Title: "Bahasa Inggris", Subject: "Bahasa Inggris", NPSNs: []string{testNPSN},
		StartsAt: start, EndsAt: start.Add(6 * time.Hour), DurationMinutes: 90,
		Questions: []exam.Question{
			{ID: "q1", Type: exam.SingleChoice, Format: "markdown", Text: "![A map of Java](media:" + img.SHA256 + ")\n\nWhich island?",
				Options: []exam.Option{{ID: "a", Text: "Java"}, {ID: "b", Text: "Bali"}}, Answer: []string{"a"}},
			{ID: "l1", Type: exam.ShortAnswer, Format: "markdown", PlayLimit: 2,
				Text: "![Listening 1](media:" + audio.SHA256 + ")\n\nWhat do you hear?", Answer: []string{"a tone"}},
		},
	}
	e, err := svc.CreateExam(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return e.ID, in
}

// TestSyncerFetchesMedia: the media of a package are fetched apart from it,
// a cut media download resumes, an edit of a question's text moves no media
// again, and media no exam shows any more are removed.
func TestSyncerFetchesMedia(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	ctx := context.Background()
	imgBytes := append(testkit.PNG(200, 150, 3), make([]byte, 200<<10)...) // several encryption chunks
	img, err := f.svc.UploadMedia(ctx, "java.png", bytes.NewReader(imgBytes))
	if err != nil {
		t.Fatal(err)
	}
	audio, err := f.svc.UploadMedia(ctx, "tone.mp3", bytes.NewReader(testkit.ToneMP3))
	if err != nil {
		t.Fatal(err)
	}
	examID, in := mediaExam(t, f.svc, img, audio)

	dir := filepath.Join(t.TempDir(), "media")
	store, err := mediastore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	f.tr.cutMediaAt.Store(70 << 10) // the first media download is cut after 70 KiB
	s := f.syncer(func(o *agent.SyncerOptions) { o.Media = store })
	f.run(s)

	p, _ := f.pkgs.wait(t, 1)
	if len(p.Exams) != 2 {
		t.Fatalf("package exams: %d", len(p.Exams))
	}
	for _, m := range []struct {
		sha  string
		want []byte
	}{{img.SHA256, imgBytes}, {audio.SHA256, testkit.ToneMP3}} {
		got, err := os.ReadFile(filepath.Join(dir, m.sha))
		if err != nil || !bytes.Equal(got, m.want) {
			t.Fatalf("media %s held: %d bytes, %v", m.sha[:12], len(got), err)
		}
	}
	resumed := false
	for _, ex := range f.tr.matching(pathMedia + img.SHA256) {
		resumed = resumed || (ex.Status == http.StatusPartialContent && ex.Range == "bytes=71680-")
	}
	if !resumed {
		t.Fatalf("no resumed media download after the cut: %+v", f.tr.matching(pathMedia+img.SHA256))
	}
	fetches := len(f.tr.matching(pathMedia+img.SHA256)) + len(f.tr.matching(pathMedia+audio.SHA256))

	// A text edit: a new package, no media moved again.
	in.Questions[0].Text = "![A map of Java](media:" + img.SHA256 + ")\n\nWhich island is shown?"
	if _, err := f.svc.UpdateExam(ctx, examID, in); err != nil {
		t.Fatal(err)
	}
	f.pkgs.wait(t, 2)
	if n := len(f.tr.matching(pathMedia+img.SHA256)) + len(f.tr.matching(pathMedia+audio.SHA256)); n != fetches {
		t.Fatalf("a text edit fetched media again: %d fetches, %d before", n, fetches)
	}

	// The image no longer shown is removed from the lab server.
	in.Questions = in.Questions[1:]
	if _, err := f.svc.UpdateExam(ctx, examID, in); err != nil {
		t.Fatal(err)
	}
	f.pkgs.wait(t, 3)
	testkit.Eventually(t, 10*time.Second, "the unused image removed", func() bool {
		_, err := os.Stat(filepath.Join(dir, img.SHA256))
		return os.IsNotExist(err)
	})
	if !store.Has(audio.SHA256, int64(len(testkit.ToneMP3))) {
		t.Fatal("the audio still shown was removed")
	}
}
