//go:build loadtest

package loadtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/png"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/pkg/client"
)

// Sizes of the media run (docs/benchmarks.md, "Exam media").
const (
	mediaQuestions = 100
	mediaImages    = 20               // about 1 MiB each
	mediaAudios    = 4                // about 10 MiB each: 60 MiB of media in all
	mediaRun       = 60 * time.Second // the open loop of students opening images
	mediaPace      = 5 * time.Second  // each student opens a question with an image every 5 s
	npsnMedia      = "20100004"
	mediaHardware  = "HW-LOADTEST-MEDIA"
)

// noisePNG is a 512×512 PNG of random pixels: about 1 MiB that does not
// compress, like a photograph.
func noisePNG(seed uint64) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 512, 512))
	r := rand.New(rand.NewPCG(seed, 7))
	for i := range img.Pix {
		img.Pix[i] = byte(r.Uint32())
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

// countingProxy forwards to target and counts the response bytes by path
// prefix: what crosses the school's line.
type countingProxy struct {
	mu    sync.Mutex
	bytes map[string]int64
}

func (c *countingProxy) add(path string, n int64) {
	key := "other"
	switch {
	case strings.HasPrefix(path, "/api/v1/sync/pull-questions"):
		key = "package"
	case strings.HasPrefix(path, "/api/v1/sync/media/"), strings.HasPrefix(path, "/api/v1/blobs/"):
		key = "media"
	}
	c.mu.Lock()
	c.bytes[key] += n
	c.mu.Unlock()
}

func (c *countingProxy) get(key string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes[key]
}

type countingBody struct {
	io.ReadCloser
	n    *atomic.Int64
	done func(int64)
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

func (b *countingBody) Close() error {
	b.done(b.n.Load())
	return b.ReadCloser.Close()
}

// TestMediaLoad measures an exam of 100 questions with 60 MiB of images and
// audio through the real binaries: its first sync to a lab server (the
// package built and every file encrypted for the school, fetched,
// decrypted and checked), the bytes a one-question edit moves, 400
// students opening questions with images on the lab server (an open loop
// for a minute, latency to the image's last byte), and labagent's memory.
func TestMediaLoad(t *testing.T) {
	if os.Getenv("PORTAL_LOADTEST") == "0" {
		t.Skip("PORTAL_LOADTEST=0")
	}
	defer printSummary()
	ctx := t.Context()
	portalBin := buildPortal(t)
	agentBin := buildBinary(t, "labagent")
	_, portalURL := startPortal(t, portalBin, "", t.TempDir())
	target, _ := url.Parse(portalURL)
	counts := &countingProxy{bytes: map[string]int64{}}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = func(resp *http.Response) error {
		path := resp.Request.URL.Path
		resp.Body = &countingBody{ReadCloser: resp.Body, n: new(atomic.Int64), done: func(n int64) { counts.add(path, n) }}
		return nil
	}
	proxy := httptest.NewServer(rp)
	defer proxy.Close()

	c, cards := schoolOfStudents(t, portalURL, npsnMedia, "media")

	// 60 MiB of media: 20 images of 1 MiB, 4 audio files of 10 MiB.
	var refs, images []string
	var total int64
	upload := func(name string, data []byte) string {
		m, _, err := c.Exam.Admin.UploadMedia(ctx, name, bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		total += m.Size
		return m.Reference
	}
	for i := range mediaImages {
		ref := upload(fmt.Sprintf("photo-%02d.png", i), noisePNG(uint64(i)))
		refs, images = append(refs, "![Photo "+fmt.Sprint(i)+"]("+ref+")"), append(images, strings.TrimPrefix(ref, "media:"))
	}
	tone := bytes.Repeat(testkit.ToneMP3, 1270)
	for i := range mediaAudios {
		refs = append(refs, "![Listening "+fmt.Sprint(i)+"]("+upload(fmt.Sprintf("listening-%d.mp3", i), append(tone, byte(i)))+")")
	}
	opts := []client.QuestionOption{{ID: "a", Text: "$x^2$"}, {ID: "b", Text: "$\\frac{1}{2}$"}, {ID: "c", Text: "C"}, {ID: "d", Text: "D"}}
	req := &client.ExamRequest{Title: "Media", Subject: "LOAD", NPSN: []string{npsnMedia},
		StartsAt: time.Now().Add(-time.Hour), EndsAt: time.Now().Add(24 * time.Hour), DurationMinutes: 600}
	for i := range mediaQuestions {
		text := fmt.Sprintf("Soal %d: hitung $\\int_0^%d x^2\\,dx$.", i, i+1)
		if i < len(refs) {
			text = refs[i] + "\n\n" + text
		}
		req.Questions = append(req.Questions, client.Question{ID: fmt.Sprintf("q%03d", i), Type: "single_choice", Format: "markdown",
			Text: text, Options: opts, Answer: []string{"a"}, Points: 1})
	}
	ex, _, err := c.Exam.Admin.CreateExam(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	lic, _, err := c.Exam.Licenses.Generate(ctx, &client.LicenseRequest{NPSN: npsnMedia, SchoolName: "SMA Media", HardwareID: mediaHardware,
		MaxStudents: labStudents, DurationDays: 30, OperatingMode: "SEMI_OFFLINE"})
	if err != nil {
		t.Fatal(err)
	}
	dataDir := t.TempDir()
	if out, err := exec.Command(agentBin, "enroll", "--portal-url", proxy.URL, "--server-code", "LAB-MEDIA", "--npsn", npsnMedia,
		"--license-token", lic.LicenseToken, "--hardware-id", mediaHardware, "--data-dir", dataDir).CombinedOutput(); err != nil {
		t.Fatalf("labagent enroll: %v\n%s", err, out)
	}

	// The first sync: the package built, then every file fetched.
	start := time.Now()
	lab := startLabagent(t, agentBin, dataDir)
	lab.waitStatus(t, "the exam package", func(s agent.Status) bool { return len(s.Exams) == 1 })
	took := time.Since(start)
	moved := counts.get("package") + counts.get("media")
	report(fmt.Sprintf("first sync of a %d-question exam with %d MiB of media to a lab server", mediaQuestions, total>>20), "bbolt",
		fmt.Sprintf("%.1f s (package %d KiB, media %.1f MiB)", took.Seconds(), counts.get("package")>>10, float64(counts.get("media"))/(1<<20)),
		"< 10 s", ptr(took < 10*time.Second))
	for _, sha := range images {
		data, err := os.ReadFile(filepath.Join(dataDir, "media", sha))
		if sum := sha256.Sum256(data); err != nil || hex.EncodeToString(sum[:]) != sha {
			t.Fatalf("media %s on the lab server: %v", sha[:12], err)
		}
	}
	report("first sync: labagent memory", "bbolt", lab.memory(), "bounded (media streamed)", nil)

	// A one-question edit: the next pull moves the package only.
	req.Questions[50].Text = "Soal 50, diperbaiki: $\\sqrt{2}$"
	before := lab.status(t).Sync.PackageChecksum
	if _, _, err := c.Exam.Admin.UpdateExam(ctx, ex.ID, req); err != nil {
		t.Fatal(err)
	}
	lab.waitStatus(t, "the edited package", func(s agent.Status) bool { return s.Sync.PackageChecksum != before })
	edit := counts.get("package") + counts.get("media") - moved
	report("a one-question edit: bytes the next pull moves", "bbolt", fmt.Sprintf("%.1f KiB", float64(edit)/1024), "< 1 MiB", ptr(edit < 1<<20))

	// 400 students, each opening a question with an image every 5 s for a
	// minute: latency to the image's last byte, from the scheduled time.
	token := lab.proctorToken(t)
	conns := make([]loadConn, len(cards))
	for i, card := range cards {
		s := lab.signIn(t, card.Username, card.ExamPassword, token, ex.ID)
		reqs := make([][]byte, len(images))
		for j := range reqs {
			reqs[j] = fmt.Appendf(nil, "GET /media/%s HTTP/1.1\r\nHost: lab\r\nAuthorization: Bearer %s\r\n\r\n", images[(i+j)%len(images)], s.session)
		}
		conns[i] = loadConn{addr: strings.TrimPrefix(s.base, "http://"), reqs: reqs}
	}
	open := driveHTTP(t, conns, http.StatusOK, mediaPace, mediaRun)
	report("400 students opening 1 MiB images on the lab server, one every 5 s each (open loop)", "bbolt", open.String(),
		"p99 < 1 s", ptr(open.P99 < 1000))
	report("400 students opening images: labagent memory", "bbolt", lab.memory(), "bounded (media streamed)", nil)
	burst := driveHTTP(t, conns, http.StatusOK, 0, 10*time.Second)
	report("400 students opening images back to back (closed loop)", "bbolt", burst.String()+fmt.Sprintf(", %.0f MiB/s", burst.PerSec), "- (throughput)", nil)
	report("400 students back to back: labagent memory", "bbolt", lab.memory(), "bounded (media streamed)", nil)
	lab.stop(t)
}
