package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/faultproxy"
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
	const (
		npsn2, hw2, code2 = "20100002", "HW-TEST-0002", "LAB-02"
		blobPrefix        = "/api/v1/blobs/"
	)
	p := startPortal(t, portalConfig{DataDir: filepath.Join(t.TempDir(), "pdata")})
	op := p.operator()
	ctx := t.Context()
	sch := setupSchool(t, p, []string{"ani"})

	chart := testkit.ChartPNG(360, 200, 35, 90, 60, 20)
	media := map[string][]byte{}
	upload := func(name string, data []byte) string {
		m, _, err := op.Exam.Admin.UploadMedia(ctx, name, bytes.NewReader(data))
		if err != nil {
			t.Fatalf("upload %s: %v", name, err)
		}
		media[m.SHA256] = data
		return m.Reference
	}
	img, tone := upload("rainfall.png", chart), upload("listening-1.mp3", testkit.ToneMP3)
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
	lic2, _, err := op.Exam.Licenses.Generate(ctx, &client.LicenseRequest{
		NPSN: npsn2, SchoolName: "SMA 2", HardwareID: hw2,
		MaxStudents: 100, DurationDays: 30, OperatingMode: client.ModeSemiOffline,
	})
	if err != nil {
		t.Fatalf("generate licence: %v", err)
	}

	proxyA, proxyB := faultproxy.New(t, p.URL), faultproxy.New(t, p.URL)
	labA := enrollLabAs(t, hostTarget, proxyA.URL, sch.licence, e2eServerCode, e2eNPSN, e2eHardwareID)
	labB := enrollLabAs(t, hostTarget, proxyB.URL, lic2.LicenseToken, code2, npsn2, hw2)
	for _, lab := range []*labAgent{labA, labB} {
		lab.start()
		lab.waitPackage() // swapped in only with every media file installed
		for sha, want := range media {
			got, err := os.ReadFile(filepath.Join(lab.dir, "media", sha))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("lab server %s holds media %s: %d bytes, %v", lab.dir, sha[:12], len(got), err)
			}
		}
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
