//go:build !windows

package agent_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/agent/mediastore"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/pkg/client"
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

// mediaSetup is an exam showing an image and an audio file, and the media
// store a syncer under test installs them into.
type mediaSetup struct {
	img, audio exam.Media
	imgBytes   []byte // the image's bytes
	examID     string
	in         exam.ExamInput // the exam as created
	dir        string         // the media store's directory
	store      *mediastore.Store
}

// newMediaSetup uploads an image named name (a PNG of w×h pixels drawn from
// seed, then pad zero bytes, so that it spans several encryption chunks)
// and the test tone, creates an exam showing both (mediaExam) and opens an
// empty media store.
func newMediaSetup(t *testing.T, f *fixture, name string, w, h int, seed uint8, pad int) mediaSetup {
	t.Helper()
	ctx := context.Background()
	m := mediaSetup{imgBytes: append(testkit.PNG(w, h, seed), make([]byte, pad)...)}
	var err error
	if m.img, err = f.svc.UploadMedia(ctx, name, bytes.NewReader(m.imgBytes)); err != nil {
		t.Fatal(err)
	}
	if m.audio, err = f.svc.UploadMedia(ctx, "tone.mp3", bytes.NewReader(testkit.ToneMP3)); err != nil {
		t.Fatal(err)
	}
	m.examID, m.in = mediaExam(t, f.svc, m.img, m.audio)
	m.dir = filepath.Join(t.TempDir(), "media")
	if m.store, err = mediastore.Open(m.dir); err != nil {
		t.Fatal(err)
	}
	return m
}

// blobOf returns the blob the package p names for the media of sha.
func blobOf(t *testing.T, p *client.Package, sha string) *client.PackageBlob {
	t.Helper()
	for _, e := range p.Exams {
		for _, m := range e.Media {
			if m.SHA256 == sha && m.Blob != nil {
				return m.Blob
			}
		}
	}
	t.Fatalf("the package names no blob for media %s", sha[:12])
	return nil
}

// TestSyncerFetchesMedia: the media of a package are fetched apart from it,
// as blobs encrypted once for every school, without the lab server's
// credential; a cut blob download resumes, an edit of a question's text
// moves no media again, and media no exam shows any more are removed.
func TestSyncerFetchesMedia(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	ctx := context.Background()
	m := newMediaSetup(t, f, "java.png", 200, 150, 3, 200<<10)
	img, audio, imgBytes, examID, in, dir, store := m.img, m.audio, m.imgBytes, m.examID, m.in, m.dir, m.store
	f.tr.cutMediaAt.Store(70 << 10) // the first blob download is cut after 70 KiB
	s := f.syncer(func(o *agent.SyncerOptions) { o.Media = store })
	f.run(s)

	p, _ := f.pkgs.wait(t, 1)
	if len(p.Exams) != 2 || p.Format != 3 {
		t.Fatalf("package: format %d, %d exams", p.Format, len(p.Exams))
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
	imgBlob, audioBlob := pathBlobs+blobOf(t, p, img.SHA256).Name, pathBlobs+blobOf(t, p, audio.SHA256).Name
	resumed := false
	for _, ex := range append(f.tr.matching(imgBlob), f.tr.matching(audioBlob)...) {
		resumed = resumed || (ex.Status == http.StatusPartialContent && ex.Range == "bytes=71680-")
		if ex.IfRange != "" {
			// A blob never changes under its name: any ETag a cache or an
			// object store gives it must not turn a resume into a refetch.
			t.Fatalf("a blob resume sent If-Range %q", ex.IfRange)
		}
		if ex.Authorization != "" {
			t.Fatalf("a blob was fetched with the lab server's credential: %+v", ex)
		}
	}
	if !resumed {
		t.Fatalf("no resumed blob download after the cut: %+v %+v", f.tr.matching(imgBlob), f.tr.matching(audioBlob))
	}
	if n := len(f.tr.matching(pathMedia+img.SHA256)) + len(f.tr.matching(pathMedia+audio.SHA256)); n != 0 {
		t.Fatalf("a labagent reading format 3 used the per-school media route %d times", n)
	}
	fetches := len(f.tr.matching(imgBlob)) + len(f.tr.matching(audioBlob))
	allBlobs := f.tr.prefixed(pathBlobs)

	// A text edit: a new package, no media moved again, one question's
	// blob fetched.
	in.Questions[0].Text = "![A map of Java](media:" + img.SHA256 + ")\n\nWhich island is shown?"
	if _, err := f.svc.UpdateExam(ctx, examID, in); err != nil {
		t.Fatal(err)
	}
	p2, _ := f.pkgs.wait(t, 2)
	if b := blobOf(t, p2, img.SHA256); pathBlobs+b.Name != imgBlob {
		t.Fatalf("a text edit changed the image's blob: %s, was %s", b.Name, imgBlob)
	}
	if n := len(f.tr.matching(imgBlob)) + len(f.tr.matching(audioBlob)); n != fetches {
		t.Fatalf("a text edit fetched media again: %d fetches, %d before", n, fetches)
	}
	if n := f.tr.prefixed(pathBlobs); n != allBlobs+1 {
		t.Fatalf("a one-question edit fetched %d blobs, want 1", n-allBlobs)
	}
	if q := p2.Exams[1].Questions; len(q) != 2 || !strings.Contains(q[0].Text, "Which island is shown?") {
		for _, e := range p2.Exams {
			t.Logf("exam %s: %d questions", e.ID, len(e.Questions))
		}
		t.Fatalf("the edited question is not in the assembled exam")
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

// TestSyncerRefusesAlteredBlob: a blob whose bytes arrive altered (one byte
// flipped on the way, twice) does not match its name: it is discarded and
// fetched again, and only the true bytes are installed. A blob altered at
// every fetch is never installed and the package is not swapped in.
func TestSyncerRefusesAlteredBlob(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	m := newMediaSetup(t, f, "pulau.png", 64, 64, 5, 150<<10)
	img, audio, imgBytes, dir, store := m.img, m.audio, m.imgBytes, m.dir, m.store
	f.tr.corruptBlobs.Store(2)
	s := f.syncer(func(o *agent.SyncerOptions) { o.Media = store })
	f.run(s)
	p, _ := f.pkgs.wait(t, 1)
	for _, m := range []struct {
		sha  string
		want []byte
	}{{img.SHA256, imgBytes}, {audio.SHA256, testkit.ToneMP3}} {
		got, err := os.ReadFile(filepath.Join(dir, m.sha))
		if err != nil || !bytes.Equal(got, m.want) {
			t.Fatalf("media %s held: %d bytes, %v", m.sha[:12], len(got), err)
		}
	}
	fetches := 0
	for _, sha := range []string{img.SHA256, audio.SHA256} {
		for _, ex := range f.tr.matching(pathBlobs + blobOf(t, p, sha).Name) {
			if ex.Status == http.StatusOK {
				fetches++
			}
		}
	}
	if fetches != 4 {
		t.Fatalf("%d whole blob fetches, want 4 (two altered, fetched again)", fetches)
	}
	if !strings.Contains(f.logs.String(), "a media blob arrived altered") {
		t.Fatal("the altered blob was not logged")
	}
}

// TestSyncerNeverKeepsAlteredBlob: a blob altered at every fetch is never
// installed, and the package that shows it is not swapped in.
func TestSyncerNeverKeepsAlteredBlob(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	m := newMediaSetup(t, f, "pulau.png", 64, 64, 6, 100<<10)
	f.tr.corruptBlobs.Store(1 << 30)
	s := f.syncer(func(o *agent.SyncerOptions) { o.Media = m.store })
	f.run(s)
	testkit.Eventually(t, 20*time.Second, "the pull failing on the altered blob", func() bool {
		return strings.Contains(f.logs.String(), "do not match the blob's name")
	})
	if n := f.pkgs.count(); n != 0 {
		t.Fatalf("%d packages swapped in with an altered blob", n)
	}
	// Only partial downloads, never an installed file.
	entries, _ := os.ReadDir(m.dir)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".part") {
			t.Fatalf("the media directory holds %s", e.Name())
		}
	}
}
