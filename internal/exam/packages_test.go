package exam_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/pkg/labwire"
)

// TestPackageIsLabwireEncoding: the portal writes a package (both forms,
// every question type, a stimulus, an image) as exactly the bytes that
// pkg/labwire's types encode: each student, exam, question and stimulus,
// decoded into labwire's type with no unknown field and encoded again, is
// byte for byte what the portal wrote. One wire format: a field the portal
// adds or drops, or a tag that differs, fails here.
func TestPackageIsLabwireEncoding(t *testing.T) {
	ctx := context.Background()
	svc, _ := newBoltService(t)
	const npsn = "20100001"
	if _, err := svc.ImportMembers(ctx, []exam.MemberInput{
		{NPSN: npsn, Nama: "Ani Lestari", Username: "ani", NISN: "0000000001", Kelas: "XII IPA 1"},
		{NPSN: npsn, Nama: "Budi <b>Santoso</b> & co", Username: "budi", NISN: "0000000002", Kelas: "XII IPA 2"},
	}, npsn); err != nil {
		t.Fatal(err)
	}
	img, err := svc.UploadMedia(ctx, "peta.png", bytes.NewReader(testkit.PNG(120, 80, 4)))
	if err != nil {
		t.Fatal(err)
	}
	opts := func(texts ...string) []exam.Option {
		var os []exam.Option
		for i, s := range texts {
			os = append(os, exam.Option{ID: string(rune('a' + i)), Text: s})
		}
		return os
	}
	start := time.Now().UTC().Add(time.Hour).Truncate(time.Second)
	if _, err := svc.CreateExam(ctx, exam.ExamInput{
		Title: "Ujian <Akhir> & Semester", Subject: "Campuran", NPSNs: []string{npsn},
		StartsAt: start, EndsAt: start.Add(2 * time.Hour), DurationMinutes: 90,
		Stimuli: []exam.Stimulus{{ID: "s1", Title: "Bacaan: Danau Toba", Format: "markdown",
			Text: "Danau **Toba** di Sumatera Utara.\n\n![Peta](media:" + img.SHA256 + ")\n\n| a | b |\n|---|---|\n| 1 | 2 |"}},
		Questions: []exam.Question{
			{ID: "q1", Type: exam.SingleChoice, Text: "Ibu kota Indonesia?", Options: opts("Jakarta", "Bandung"), Answer: []string{"a"}},
			{ID: "q2", Type: exam.MultipleChoice, Format: "markdown", Text: "Pilih bilangan prima: $x^2$", Stimulus: "s1",
				Options: opts("2", "4", "**5**"), Answer: []string{"a", "c"}, Points: 2},
			{ID: "q3", Type: exam.TrueFalse, Text: "Bumi itu bulat.", Answer: []string{"true"}},
			{ID: "q4", Type: exam.ShortAnswer, Text: "Nama danau itu?", Stimulus: "s1", Answer: []string{"Toba"}},
			{ID: "q5", Type: exam.Numeric, Text: "Berapa 5/2?", Answer: []string{"2,5"}, Tolerance: 0.1, ToleranceMode: exam.ToleranceAbsolute},
			{ID: "q6", Type: exam.Essay, Format: "markdown", Text: "Jelaskan <script>alert(1)</script> peta ini.", Points: 10},
			{ID: "q7", Type: exam.StatementGrid, Text: "Benar atau salah:", Statements: opts("2 prima", "9 prima"),
				Answer: []string{"a=true", "b=false"}, Points: 2},
			{ID: "q8", Type: exam.Matching, Text: "Jodohkan.", Premises: opts("Jawa Barat", "Bali"),
				Responses: opts("Bandung", "Denpasar", "Semarang"), Answer: []string{"a=a", "b=b"}, Points: 2},
			{ID: "q9", Type: exam.Cloze, Format: "markdown", Text: "Ibu kota [[kota]], luas [[luas]] di [[arah]].",
				Blanks: []exam.Blank{
					{ID: "kota", Kind: exam.BlankText, Answer: []string{"Jakarta"}},
					{ID: "luas", Kind: exam.BlankNumber, Answer: []string{"128,3"}, Tolerance: 0.5, Points: 2},
					{ID: "arah", Kind: exam.BlankChoice, Options: opts("utara", "selatan"), Answer: []string{"b"}},
				}},
		},
	}); err != nil {
		t.Fatal(err)
	}
	key, err := svc.PackageKey(ctx, npsn)
	if err != nil {
		t.Fatal(err)
	}

	for _, blobs := range []bool{false, true} {
		meta, err := svc.Package(ctx, npsn, blobs)
		if err != nil {
			t.Fatal(err)
		}
		r, err := svc.OpenPackage(ctx, meta)
		if err != nil {
			t.Fatal(err)
		}
		dec, err := labwire.NewPackageDecrypter(r, key)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := io.ReadAll(dec)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			Format     int               `json:"format"`
			NPSN       string            `json:"npsn"`
			SchoolName string            `json:"school_name"`
			Students   []json.RawMessage `json:"students"`
			Exams      []json.RawMessage `json:"exams"`
		}
		strictDecode(t, "the package", plain, &p)
		if len(p.Students) != 2 || len(p.Exams) != 1 || p.NPSN != npsn || p.Format != meta.Format {
			t.Fatalf("package (blobs %v): format %d, %d students, %d exams", blobs, p.Format, len(p.Students), len(p.Exams))
		}
		for _, s := range p.Students {
			sameEncoding[labwire.PackageStudent](t, "a student", s)
		}
		e := sameEncoding[labwire.PackageExam](t, "an exam", p.Exams[0])
		if !blobs {
			if len(e.Questions) != 9 || len(e.Stimuli) != 1 || len(e.Media) != 1 || e.Media[0].Blob != nil {
				t.Fatalf("package of format %d: %d questions, %d stimuli, media %+v", p.Format, len(e.Questions), len(e.Stimuli), e.Media)
			}
			continue
		}
		if len(e.Questions) != 0 || len(e.QuestionBlobs) != 9 || len(e.StimulusBlobs) != 1 || len(e.Media) != 1 || e.Media[0].Blob == nil {
			t.Fatalf("package of format %d: %d questions, %d question blobs, %d stimulus blobs, media %+v",
				p.Format, len(e.Questions), len(e.QuestionBlobs), len(e.StimulusBlobs), e.Media)
		}
		for _, b := range e.QuestionBlobs {
			var raw json.RawMessage
			if err := labwire.OpenContentBlob(b, blobBytes(t, svc, b.Name), &raw); err != nil {
				t.Fatal(err)
			}
			sameEncoding[labwire.PackageQuestion](t, "a question blob", raw)
		}
		var raw json.RawMessage
		if err := labwire.OpenContentBlob(e.StimulusBlobs[0], blobBytes(t, svc, e.StimulusBlobs[0].Name), &raw); err != nil {
			t.Fatal(err)
		}
		sameEncoding[labwire.PackageStimulus](t, "a stimulus blob", raw)
	}
}

// strictDecode decodes the JSON raw into v, failing the test on a field v
// does not have.
func strictDecode(t *testing.T, what string, raw []byte, v any) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		t.Fatalf("%s: %v\n%s", what, err, raw)
	}
}

// sameEncoding decodes raw into a T and checks that encoding it again gives
// raw, byte for byte; it returns the T.
func sameEncoding[T any](t *testing.T, what string, raw []byte) T {
	t.Helper()
	var v T
	strictDecode(t, what, raw, &v)
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, raw) {
		t.Errorf("%s as the portal wrote it is not labwire's encoding:\nportal:  %s\nlabwire: %s", what, raw, out)
	}
	return v
}
