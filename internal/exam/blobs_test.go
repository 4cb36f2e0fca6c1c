package exam_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/store/bolt"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/pkg/client"
	"github.com/seedhq/portal/pkg/labwire"
)

// blobBytes reads the whole blob name from svc.
func blobBytes(t *testing.T, svc *exam.Service, name string) []byte {
	t.Helper()
	b, err := svc.OpenBlob(context.Background(), name)
	if err != nil {
		t.Fatalf("OpenBlob(%s): %v", name[:12], err)
	}
	r, err := b.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) != b.Size {
		t.Fatalf("blob %s: %d bytes, Size %d", name[:12], len(data), b.Size)
	}
	return data
}

// schoolPackage builds the package of format 3 of npsn and decrypts it with
// the school's key.
func schoolPackage(t *testing.T, svc *exam.Service, npsn string) *client.Package {
	t.Helper()
	ctx := context.Background()
	meta, err := svc.Package(ctx, npsn, true)
	if err != nil {
		t.Fatal(err)
	}
	r, err := svc.OpenPackage(ctx, meta)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	key, err := svc.PackageKey(ctx, npsn)
	if err != nil {
		t.Fatal(err)
	}
	p, err := client.DecodePackage(r, key)
	if err != nil {
		t.Fatal(err)
	}
	if p.Format != exam.BlobsPackageFormat || meta.Format != exam.BlobsPackageFormat || meta.NPSN != npsn {
		t.Fatalf("package of %s: format %d (meta %d, npsn %q)", npsn, p.Format, meta.Format, meta.NPSN)
	}
	return p
}

// newBoltService returns an exam service over a new bbolt store, closed
// when the test ends, and the store.
func newBoltService(t *testing.T) (*exam.Service, *bolt.Store) {
	t.Helper()
	store, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	svc, err := exam.NewService(context.Background(), store, exam.Config{}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return svc, store
}

// TestBlobsSealedOnce: a media file is sealed once, deterministically: two
// schools' packages name the same blob with the same key and URL, two
// service instances on one store serve the same bytes, the name is the
// SHA-256 of those bytes, the content key opens them and no other key
// does, and only issued names are served.
func TestBlobsSealedOnce(t *testing.T) {
	ctx := context.Background()
	svc, store := newBoltService(t)
	other, err := exam.NewService(ctx, store, exam.Config{}, slog.New(slog.DiscardHandler)) // a second instance
	if err != nil {
		t.Fatal(err)
	}
	imgBytes := append(testkit.PNG(120, 80, 4), make([]byte, 150<<10)...) // three chunks
	img, err := svc.UploadMedia(ctx, "peta.png", bytes.NewReader(imgBytes))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now().UTC().Add(time.Hour)
	if _, err := svc.CreateExam(ctx, exam.ExamInput{
		Title: "Geografi", Subject: "Geografi", NPSNs: []string{"20100001", "20100002"},
		StartsAt: start, EndsAt: start.Add(2 * time.Hour), DurationMinutes: 60,
		Questions: []exam.Question{{ID: "q1", Type: exam.Essay, Format: "markdown",
			Text: "![Peta Jawa](media:" + img.SHA256 + ")\n\nJelaskan."}},
	}); err != nil {
		t.Fatal(err)
	}

	if _, err := svc.OpenBlob(ctx, img.SHA256); !errors.Is(err, exam.ErrNotFound) {
		t.Fatalf("OpenBlob of the plaintext's hash: %v, want ErrNotFound", err)
	}
	a := schoolPackage(t, svc, "20100001").Exams[0].Media
	b := schoolPackage(t, other, "20100002").Exams[0].Media
	if len(a) != 1 || a[0].Blob == nil || len(b) != 1 || b[0].Blob == nil {
		t.Fatalf("package media: %+v, %+v", a, b)
	}
	ra, rb := *a[0].Blob, *b[0].Blob
	if ra.Name != rb.Name || ra.Size != rb.Size || !bytes.Equal(ra.Key, rb.Key) || ra.URL != rb.URL {
		t.Fatalf("two schools got different blobs: %+v, %+v", ra, rb)
	}
	if ra.URL != "api/v1/blobs/"+ra.Name || ra.Size != labwire.SealedSize(img.Size) || len(ra.Key) != 32 {
		t.Fatalf("blob reference = %+v", ra)
	}
	if ra.Name == img.SHA256 {
		t.Fatal("the blob is named by the plaintext's hash")
	}
	if !bytes.Equal(svc.ContentKey(img.SHA256), ra.Key) || !bytes.Equal(other.ContentKey(img.SHA256), ra.Key) {
		t.Fatal("the instances derive another content key than the package carries")
	}

	sealed := blobBytes(t, svc, ra.Name)
	if again := blobBytes(t, svc, ra.Name); !bytes.Equal(again, sealed) {
		t.Fatal("sealing twice gives other bytes")
	}
	if elsewhere := blobBytes(t, other, ra.Name); !bytes.Equal(elsewhere, sealed) {
		t.Fatal("another instance serves other bytes")
	}
	if sum := sha256.Sum256(sealed); hex.EncodeToString(sum[:]) != ra.Name {
		t.Fatalf("blob name %s is not the SHA-256 of its bytes (%x)", ra.Name, sum)
	}
	dec, err := client.NewPackageDecrypter(ra.Key, bytes.NewReader(sealed))
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := io.ReadAll(dec); err != nil || !bytes.Equal(plain, imgBytes) {
		t.Fatalf("the content key opens %d bytes (%v), want the image", len(plain), err)
	}
	schoolKey, _ := svc.PackageKey(ctx, "20100001")
	for _, key := range [][]byte{schoolKey, svc.ContentKey(sha256Hex([]byte("other")))} {
		dec, err := client.NewPackageDecrypter(key, bytes.NewReader(sealed))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadAll(dec); !errors.Is(err, client.ErrPackageCorrupt) {
			t.Fatalf("another key opens the blob: %v", err)
		}
	}
	for _, name := range []string{"", "zz", img.SHA256, sha256Hex(sealed[:100]), "../" + ra.Name[3:]} {
		if _, err := svc.OpenBlob(ctx, name); !errors.Is(err, exam.ErrNotFound) {
			t.Fatalf("OpenBlob(%q): %v, want ErrNotFound", name, err)
		}
	}
	// A format-2 package of the same school names no blob.
	meta, err := svc.Package(ctx, "20100001", false)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Format != exam.PackageFormat {
		t.Fatalf("package without blobs: format %d", meta.Format)
	}
}

// TestContentBlobs: in a package of format 3 every question and stimulus
// is a content blob, the same for two schools, served like media blobs and
// opened with the key the package carries; a one-question edit changes
// that question's blob only.
func TestContentBlobs(t *testing.T) {
	ctx := context.Background()
	svc, _ := newBoltService(t)
	start := time.Now().UTC().Add(time.Hour)
	in := exam.ExamInput{
		Title: "Sejarah", Subject: "Sejarah", NPSNs: []string{"20100001", "20100002"},
		StartsAt: start, EndsAt: start.Add(2 * time.Hour), DurationMinutes: 60,
		Stimuli: []exam.Stimulus{{ID: "s1", Title: "Bacaan", Format: "markdown", Text: "Proklamasi **1945**."}},
		Questions: []exam.Question{
			{ID: "q1", Type: exam.SingleChoice, Text: "Tahun proklamasi?", Stimulus: "s1", Points: 1,
				Options: []exam.Option{{ID: "a", Text: "1945"}, {ID: "b", Text: "1949"}}, Answer: []string{"a"}},
			{ID: "q2", Type: exam.ShortAnswer, Text: "Kota proklamasi?", Answer: []string{"Jakarta"}, Points: 1},
			{ID: "q3", Type: exam.Essay, Format: "markdown", Text: "Jelaskan *makna* proklamasi."},
		},
	}
	e, err := svc.CreateExam(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	a := schoolPackage(t, svc, "20100001").Exams[0]
	b := schoolPackage(t, svc, "20100002").Exams[0]
	if len(a.Questions) != 0 || len(a.Stimuli) != 0 || len(a.QuestionBlobs) != 3 || len(a.StimulusBlobs) != 1 {
		t.Fatalf("format-3 exam: %d questions, %d stimuli inline; %d question and %d stimulus blobs",
			len(a.Questions), len(a.Stimuli), len(a.QuestionBlobs), len(a.StimulusBlobs))
	}
	for i, ref := range append(a.QuestionBlobs, a.StimulusBlobs...) {
		other := append(b.QuestionBlobs, b.StimulusBlobs...)[i]
		if ref.Name != other.Name || !bytes.Equal(ref.Key, other.Key) || ref.URL != "api/v1/blobs/"+ref.Name {
			t.Fatalf("blob %d differs between schools: %+v, %+v", i, ref, other)
		}
	}
	var q1 client.PackageQuestion
	if err := client.OpenContentBlob(a.QuestionBlobs[0], blobBytes(t, svc, a.QuestionBlobs[0].Name), &q1); err != nil {
		t.Fatal(err)
	}
	if q1.ID != "q1" || q1.Text != "Tahun proklamasi?" || q1.Stimulus != "s1" || len(q1.Options) != 2 {
		t.Fatalf("question blob opens to %+v", q1)
	}
	var st client.Stimulus
	if err := client.OpenContentBlob(a.StimulusBlobs[0], blobBytes(t, svc, a.StimulusBlobs[0].Name), &st); err != nil {
		t.Fatal(err)
	}
	if st.ID != "s1" || !strings.Contains(st.HTML, "<strong>1945</strong>") {
		t.Fatalf("stimulus blob opens to %+v", st)
	}
	// Another blob's key does not open it.
	wrong := a.QuestionBlobs[0]
	wrong.Key = a.QuestionBlobs[1].Key
	if err := client.OpenContentBlob(wrong, blobBytes(t, svc, wrong.Name), &q1); !errors.Is(err, client.ErrPackageCorrupt) {
		t.Fatalf("another key opens a question blob: %v", err)
	}

	// A one-question edit changes that question's blob only.
	in.Questions[1].Text = "Di kota mana proklamasi dibacakan?"
	if _, err := svc.UpdateExam(ctx, e.ID, in); err != nil {
		t.Fatal(err)
	}
	c := schoolPackage(t, svc, "20100001").Exams[0]
	for i, ref := range append(c.QuestionBlobs, c.StimulusBlobs...) {
		before := append(a.QuestionBlobs, a.StimulusBlobs...)[i]
		if changed := ref.Name != before.Name; changed != (i == 1) {
			t.Fatalf("after editing question 2, blob %d changed: %v", i, changed)
		}
	}
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
