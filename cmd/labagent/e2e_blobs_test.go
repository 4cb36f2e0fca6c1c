//go:build !windows

package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/agent"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/faultproxy"
	"github.com/seedhq/portal/internal/testkit/s3server"
	"github.com/seedhq/portal/pkg/client"
)

// TestBlobsSharedBySchools: one exam with an image and an audio is
// assigned to two schools; their real lab servers, each reaching the real
// portal through a proxy of its own that records what it passes, pull
// packages of format 3 and fetch the questions and the media as blobs:
// from the same URLs,
// byte-identical bodies whose SHA-256 is the blob's name, with no
// credential, and never through the per-school media route. Each installs
// the media it decrypted.
func TestBlobsSharedBySchools(t *testing.T) {
	t.Parallel()
	const blobPrefix = "/api/v1/blobs/"
	p := startPortal(t, portalConfig{DataDir: filepath.Join(t.TempDir(), "pdata")})
	sch, lic2, media := setupBlobExam(t, p, npsn2, hw2)

	proxyA, proxyB := faultproxy.New(t, p.URL), faultproxy.New(t, p.URL)
	labA := enrollLabAs(t, hostTarget, proxyA.URL, sch.licence, e2eServerCode, e2eNPSN, e2eHardwareID)
	labB := enrollLabAs(t, hostTarget, proxyB.URL, lic2, code2, npsn2, hw2)
	for _, lab := range []*labAgent{labA, labB} {
		lab.start()
		lab.waitPackage() // swapped in only with every media file installed
		mustHoldMedia(t, lab, media)
	}

	// What each lab server fetched: blob path -> SHA-256 of the body.
	fetched := func(px *faultproxy.Proxy) map[string]string {
		t.Helper()
		out := map[string]string{}
		for _, a := range px.Attempts() {
			if strings.HasPrefix(a.Path, "/api/v1/sync/media/") {
				t.Fatalf("a labagent reading format 3 fetched %s", a.Path)
			}
			if !strings.HasPrefix(a.Path, blobPrefix) {
				continue
			}
			if a.Authorization != "" {
				t.Fatalf("a blob was fetched with a credential: %s", a.Path)
			}
			if a.Status != 200 || a.Range != "" {
				t.Fatalf("blob fetch %s: status %d, Range %q; want whole fetches", a.Path, a.Status, a.Range)
			}
			if name := strings.TrimPrefix(a.Path, blobPrefix); a.BodySHA256 != name {
				t.Fatalf("blob %s served bytes whose SHA-256 is %s", name, a.BodySHA256)
			}
			out[a.Path] = a.BodySHA256
		}
		return out
	}
	a, b := fetched(proxyA), fetched(proxyB)
	const questions = 2 // a blob each, besides the media's
	if len(a) != len(media)+questions || len(b) != len(a) {
		t.Fatalf("blobs fetched: %d by one school, %d by the other; want %d each", len(a), len(b), len(media)+questions)
	}
	for path, sum := range a {
		if b[path] != sum {
			t.Fatalf("the schools fetched different blobs: %v and %v", a, b)
		}
	}
}

// The second school of the blob tests.
const npsn2, hw2, code2 = "20100002", "HW-TEST-0002", "LAB-02"

// setupBlobExam makes, on p, the test school (its licence in sch) and a
// second school npsn2 (its licence token returned), and one exam for both
// showing an image and an audio file, whose bytes media holds by SHA-256.
func setupBlobExam(t *testing.T, p *portalProc, npsn2, hw2 string) (sch *school, lic2 string, media map[string][]byte) {
	t.Helper()
	op := p.operator()
	ctx := t.Context()
	sch = setupSchool(t, p, []string{"ani"})
	media = map[string][]byte{}
	upload := func(name string, data []byte) string {
		m, _, err := op.Exam.Admin.UploadMedia(ctx, name, bytes.NewReader(data))
		if err != nil {
			t.Fatalf("upload %s: %v", name, err)
		}
		media[m.SHA256] = data
		return m.Reference
	}
	img := upload("rainfall.png", testkit.ChartPNG(360, 200, 35, 90, 60, 20))
	tone := upload("listening-1.mp3", testkit.ToneMP3)
	starts, ends := openWindow()
	if _, _, err := op.Exam.Admin.CreateExam(ctx, &client.ExamRequest{
		Title: "Bahasa Inggris", Subject: "BIG", StartsAt: starts, EndsAt: ends, DurationMinutes: 60,
		NPSN: []string{e2eNPSN, npsn2},
		Questions: []client.Question{
			{ID: "chart", Type: client.Essay, Format: "markdown", Points: 1, Text: "![Curah hujan](" + img + ")\n\nJelaskan."},
			{ID: "listen", Type: client.ShortAnswer, Format: "markdown", Points: 1, PlayLimit: 2, Answer: []string{"nada"},
				Text: "![Listening 1](" + tone + ")\n\nApa yang kamu dengar?"},
		},
	}); err != nil {
		t.Fatalf("create exam: %v", err)
	}
	lic, _, err := op.Exam.Licenses.Generate(ctx, &client.LicenseRequest{
		NPSN: npsn2, SchoolName: "SMA 2", HardwareID: hw2,
		MaxStudents: 100, DurationDays: 30, OperatingMode: client.ModeSemiOffline,
	})
	if err != nil {
		t.Fatalf("generate licence: %v", err)
	}
	return sch, lic.LicenseToken, media
}

// mustHoldMedia checks that lab holds exactly the media files of media,
// whole.
func mustHoldMedia(t *testing.T, lab *labAgent, media map[string][]byte) {
	t.Helper()
	for sha, want := range media {
		got, err := os.ReadFile(filepath.Join(lab.dir, "media", sha))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("lab server %s holds media %s: %d bytes, %v", lab.dir, sha[:12], len(got), err)
		}
	}
}

// TestBlobsFromObjectStorage: a portal whose blob store is object storage
// (versitygw) and whose blobs are served through a cache (a proxy in front
// of the portal's blob route, named by --blob-public-url). A lab server
// fetches every blob through the cache, never from the portal's address it
// syncs with, and each blob is an object of the bucket under exam/. Then
// the object storage goes down while a second school fetches: the portal
// answers the blob route 503 BLOB_STORE_UNAVAILABLE with Retry-After, the
// lab server keeps its old state (no package, no media) and retries; the
// cache goes down too (its connections refused); once both are back, the
// lab server completes with every media file whole, and the bucket holds
// no unfinished upload.
func TestBlobsFromObjectStorage(t *testing.T) {
	t.Parallel()
	srv := s3server.Start(t)
	const bucket = "exam-blobs"
	srv.CreateBucket(t, bucket)
	addr := testkit.FreeAddr(t)
	cdn := faultproxy.New(t, "http://"+addr)
	p := startPortal(t, portalConfig{DataDir: filepath.Join(t.TempDir(), "pdata"), Listen: addr, Env: srv.Env(),
		Args: []string{"--blob-store", srv.URL(bucket, "portal"), "--blob-public-url", cdn.URL + "/api/v1/blobs"}})
	sch, lic2, media := setupBlobExam(t, p, npsn2, hw2)

	direct := faultproxy.New(t, p.URL)
	labA := enrollLabOn(t, hostTarget, direct.URL, sch)
	labA.start()
	labA.waitPackage()
	mustHoldMedia(t, labA, media)
	for _, a := range direct.Attempts() {
		if strings.Contains(a.Path, "/blobs/") || strings.HasPrefix(a.Path, "/api/v1/sync/media/") {
			t.Fatalf("the lab server fetched %s from the portal, not through the cache", a.Path)
		}
	}
	objects := srv.Files(t, bucket)
	var fetched int
	for _, a := range cdn.Attempts() {
		name := strings.TrimPrefix(a.Path, "/api/v1/blobs/")
		if a.Status != http.StatusOK || a.BodySHA256 != name || a.Authorization != "" {
			t.Fatalf("blob fetch through the cache: %+v", a)
		}
		if !slices.Contains(objects, "portal/exam/"+name) {
			t.Fatalf("blob %s is not an object of the bucket (%q)", name[:12], objects)
		}
		fetched++
	}
	if want := len(media) + 2; fetched != want { // and the two questions
		t.Fatalf("%d blobs fetched through the cache, want %d", fetched, want)
	}

	// The object storage goes down while school 2 fetches.
	srv.Kill()
	mark := cdn.Mark()
	labB := enrollLabAs(t, hostTarget, direct.URL, lic2, code2, npsn2, hw2)
	labB.start()
	eventually(t, 60*time.Second, "the portal answers the lab server's blob fetch 503", func() (bool, string) {
		for _, a := range cdn.Since(mark) {
			if a.Status == http.StatusServiceUnavailable {
				return true, ""
			}
		}
		return false, fmt.Sprint(cdn.Since(mark))
	})
	res, err := http.Get(cdn.URL + cdn.Since(mark)[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "10" ||
		!strings.Contains(string(body), "BLOB_STORE_UNAVAILABLE") {
		t.Fatalf("a blob with the store down: %d, Retry-After %q, %s", res.StatusCode, res.Header.Get("Retry-After"), body)
	}
	if st := labB.status(); st.Sync.PackageVersion != "" {
		t.Fatalf("the lab server swapped in a package without its blobs: %+v", st.Sync)
	}
	// The cache goes down too: its connections are refused.
	cdn.Set(faultproxy.Fault{Kind: faultproxy.CutResponse, Paths: []string{"/api/v1/blobs/"}})
	time.Sleep(2 * time.Second)
	srv.Restart()
	cdn.Heal()
	labB.waitStatus(90*time.Second, "the lab server has its package once the store and the cache are back",
		func(st agent.Status) bool { return st.Sync.PackageVersion != "" })
	mustHoldMedia(t, labB, media)
	if up := srv.IncompleteUploads(t, bucket); len(up) > 0 {
		t.Fatalf("unfinished uploads in the bucket: %q", up)
	}
}
