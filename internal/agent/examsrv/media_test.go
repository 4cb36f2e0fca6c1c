package examsrv_test

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/seedhq/portal/internal/agent/examsrv"
	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/internal/agent/mediastore"
	"github.com/seedhq/portal/internal/richtext"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/pkg/client"
)

func sum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// mediaFiles are the files of mediaPackage.
var mediaFiles = map[string][]byte{"image": testkit.ChartPNG(320, 200, 40, 85, 60, 25), "audio": testkit.ToneMP3}

// mediaPackage is testPackage with exam e1's first question showing an
// image and its second a listening item (an audio played at most twice),
// rendered as the portal renders them, and the files in a media store.
func mediaPackage(t testing.TB) (*client.Package, *mediastore.Store) {
	t.Helper()
	store, err := mediastore.Open(filepath.Join(t.TempDir(), "media"))
	if err != nil {
		t.Fatal(err)
	}
	img, audio := sum(mediaFiles["image"]), sum(mediaFiles["audio"])
	for sha, data := range map[string][]byte{img: mediaFiles["image"], audio: mediaFiles["audio"]} {
		if err := os.WriteFile(filepath.Join(filepath.Dir(store.PartPath(sha)), sha), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	media := func(sha string) (richtext.Media, bool) {
		return richtext.Media{URL: "media/" + sha, Audio: sha == audio}, sha == img || sha == audio
	}
	render := func(src string) string {
		res, err := richtext.Render(richtext.Markdown, src, richtext.Options{Media: media})
		if err != nil || len(res.Problems) > 0 {
			t.Fatalf("render %q: %v %v", src, err, res.Problems)
		}
		return res.HTML
	}
	p := testPackage(t, 3)
	e := &p.Exams[0]
	e.Media = []client.PackageMedia{
		{SHA256: img, Type: "image/png", Kind: "image", Size: int64(len(mediaFiles["image"]))},
		{SHA256: audio, Type: "audio/mpeg", Kind: "audio", Size: int64(len(mediaFiles["audio"]))},
	}
	q1, q2 := &e.Questions[0], &e.Questions[1]
	q1.Format, q1.Text = "markdown", "![A bar chart of rainfall, <b>March</b> highest](media:"+img+")\n\nWhich month was wettest?"
	q1.HTML = render(q1.Text)
	q2.Format, q2.PlayLimit, q2.Text = "markdown", 2, "![Listening 1: a short tone](media:"+audio+")\n\nWhat did you hear?"
	q2.HTML = render(q2.Text)
	p.Format = 2
	return p, store
}

// get fetches path with the browser's cookies and returns the status, the
// headers and the body.
func (b *browser) get(path string, hdr ...string) (int, http.Header, []byte) {
	b.t.Helper()
	req, _ := http.NewRequest("GET", b.url+path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := b.hc.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, body
}

// TestMediaServing: media go only to students with an open attempt at an
// exam showing them, with their types, nosniff and Range; a listening
// item's audio goes only during a counted play, its plays are bounded,
// survive a restart and a move to another computer, and the proctor can
// grant one more.
func TestMediaServing(t *testing.T) {
	p, store := mediaPackage(t)
	dbPath := filepath.Join(t.TempDir(), localdb.FileName)
	clk := testkit.NewClock(t0.Add(10 * 60e9))
	withMedia := func(o *examsrv.Options) { o.Media = store }
	l := newLabWith(t, dbPath, 0, clk, 3, localdb.Options{NoSync: true}, withMedia)
	l.srv.SetPackage(p)
	img, audio := "/media/"+sum(mediaFiles["image"]), "/media/"+sum(mediaFiles["audio"])

	if st, _, _ := l.browser().get(img); st != http.StatusUnauthorized {
		t.Fatalf("image without a session: %d", st)
	}
	b := l.signIn(1)
	if st, _, _ := b.get(img); st != http.StatusNotFound {
		t.Fatalf("image before the exam is started: %d", st)
	}
	b.mustOK("POST", "/api/student/exams/e1/start", nil, nil)
	st, h, body := b.get(img)
	if st != 200 || string(body) != string(mediaFiles["image"]) || h.Get("Content-Type") != "image/png" ||
		h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Cache-Control") != "private, max-age=31536000, immutable" {
		t.Fatalf("image: %d, %d bytes, headers %v", st, len(body), h)
	}
	if st, _, body := b.get(img, "Range", "bytes=100-199"); st != http.StatusPartialContent || string(body) != string(mediaFiles["image"][100:200]) {
		t.Fatalf("image range: %d, %d bytes", st, len(body))
	}
	if st, _, _ := b.get("/media/" + sum([]byte("other"))); st != http.StatusNotFound {
		t.Fatalf("a file of no exam: %d", st)
	}

	// The listening item: no bytes outside a play.
	if st, _, _ := b.get(audio); st != http.StatusForbidden {
		t.Fatalf("limited audio without a play: %d", st)
	}
	var pv struct{ Limit, Used, Left int }
	b.mustOK("POST", "/api/student/exams/e1/plays/q2", nil, &pv)
	if pv.Limit != 2 || pv.Used != 1 || pv.Left != 1 {
		t.Fatalf("first play: %+v", pv)
	}
	st, h, body = b.get(audio)
	if st != 200 || string(body) != string(mediaFiles["audio"]) || h.Get("Content-Type") != "audio/mpeg" || h.Get("Cache-Control") != "no-store" {
		t.Fatalf("audio during a play: %d, %d bytes, %v", st, len(body), h)
	}
	if st, code := b.do("POST", "/api/student/exams/e1/plays/q1", nil, nil); st != 400 || code != "NO_PLAY_LIMIT" {
		t.Fatalf("play of a question without a limit: %d %s", st, code)
	}
	b.mustOK("POST", "/api/student/exams/e1/plays/q2", nil, &pv)
	if st, code := b.do("POST", "/api/student/exams/e1/plays/q2", nil, nil); st != 409 || code != "NO_PLAYS_LEFT" {
		t.Fatalf("third play: %d %s", st, code)
	}

	// A restart of labagent, then the student on another computer: the
	// count stays; the grant window of the plays does not (a new play is
	// needed for the bytes).
	l.db.Close()
	l2 := newLabWith(t, dbPath, 0, clk, 3, localdb.Options{NoSync: true}, withMedia)
	l2.srv.SetPackage(p)
	pr := l2.proctor()
	pr.mustOK("POST", "/api/proctor/students/m1/reset", nil, nil) // the proctor lets the student move
	b2 := l2.browserAt("127.0.0.2")
	b2.mustOK("POST", "/api/student/login", map[string]string{"username": "s1", "password": "PASS-1", "token": l2.token()}, nil)
	var a struct {
		Questions []struct {
			ID    string
			Plays *struct{ Limit, Used, Left int }
		}
	}
	b2.mustOK("GET", "/api/student/exams/e1", nil, &a)
	found := false
	for _, q := range a.Questions {
		if q.ID == "q2" {
			found = q.Plays != nil && q.Plays.Used == 2 && q.Plays.Left == 0
		} else if q.Plays != nil {
			t.Fatalf("question %s without a limit shows plays %+v", q.ID, q.Plays)
		}
	}
	if !found {
		t.Fatalf("plays after a restart and a move: %+v", a.Questions)
	}
	if st, code := b2.do("POST", "/api/student/exams/e1/plays/q2", nil, nil); st != 409 || code != "NO_PLAYS_LEFT" {
		t.Fatalf("play after the restart: %d %s", st, code)
	}
	if st, _, _ := b2.get(audio); st != http.StatusForbidden {
		t.Fatalf("limited audio after the restart, without a new play: %d", st)
	}

	// The proctor grants one more; another student has none of it.
	if st, code := pr.do("POST", "/api/proctor/students/m1/plays", map[string]string{"exam_id": "e1", "question_id": "q1"}, nil); st != 400 || code != "NO_PLAY_LIMIT" {
		t.Fatalf("grant on a question without a limit: %d %s", st, code)
	}
	if st, code := pr.do("POST", "/api/proctor/students/m2/plays", map[string]string{"exam_id": "e1", "question_id": "q2"}, nil); st != 404 || code != "NOT_FOUND" {
		t.Fatalf("grant to a student who has not started: %d %s", st, code)
	}
	pr.mustOK("POST", "/api/proctor/students/m1/plays", map[string]string{"exam_id": "e1", "question_id": "q2"}, &pv)
	if pv.Left != 1 {
		t.Fatalf("after a grant: %+v", pv)
	}
	b2.mustOK("POST", "/api/student/exams/e1/plays/q2", nil, &pv)
	if st, _, _ := b2.get(audio); st != 200 || pv.Left != 0 {
		t.Fatalf("granted play: audio %d, plays %+v", st, pv)
	}
	other := l2.browser()
	other.mustOK("POST", "/api/student/login", map[string]string{"username": "s2", "password": "PASS-2", "token": l2.token()}, nil)
	if st, _, _ := other.get(audio); st != http.StatusNotFound {
		t.Fatalf("another student without an attempt: %d", st)
	}
	other.mustOK("POST", "/api/student/exams/e1/start", nil, nil)
	if st, _, _ := other.get(audio); st != http.StatusForbidden {
		t.Fatalf("another student, during the first one's play: %d", st)
	}
}
