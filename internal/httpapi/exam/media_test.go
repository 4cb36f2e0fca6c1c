package exam_test

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/pkg/client"
)

// mediaJSON is the answer to an upload.
type mediaJSON struct {
	Data struct {
		SHA256    string `json:"sha256"`
		Type      string `json:"type"`
		Kind      string `json:"kind"`
		Size      int64  `json:"size"`
		Name      string `json:"name"`
		Reference string `json:"reference"`
	} `json:"data"`
}

// TestExamMedia uploads media, refuses what is not an accepted image or
// audio, shows them in an exam, and serves them to the school's lab server
// encrypted with its key, resumably, and to nobody else.
func TestExamMedia(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		img := testkit.PNG(40, 30, 1)
		var up mediaJSON
		h.Op("POST", "/api/v1/admin/media?name=diagram.png", img, "Content-Type", "text/plain").Expect(201).Decode(&up)
		if up.Data.SHA256 != httpapitest.SHA(img) || up.Data.Type != "image/png" || up.Data.Kind != "image" ||
			up.Data.Size != int64(len(img)) || up.Data.Name != "diagram.png" || up.Data.Reference != "media:"+httpapitest.SHA(img) {
			t.Fatalf("upload = %+v", up.Data)
		}
		var again mediaJSON
		h.Op("POST", "/api/v1/admin/media", img, "Content-Disposition", `attachment; filename="other.png"`).Expect(201).Decode(&again)
		if again.Data != up.Data {
			t.Fatalf("the same bytes again = %+v, want the stored %+v", again.Data, up.Data)
		}
		var audio mediaJSON
		h.Op("POST", "/api/v1/admin/media", testkit.ToneMP3, "Content-Disposition", `attachment; filename="listening.mp3"`).Expect(201).Decode(&audio)
		if audio.Data.Type != "audio/mpeg" || audio.Data.Kind != "audio" || audio.Data.Name != "listening.mp3" {
			t.Fatalf("audio upload = %+v", audio.Data)
		}

		// Refusals, by the bytes whatever the name or Content-Type.
		h.Op("POST", "/api/v1/admin/media?name=x.png", `<svg onload="alert(1)"/>`, "Content-Type", "image/png").ExpectError(415, "UNSUPPORTED_MEDIA")
		h.Op("POST", "/api/v1/admin/media?name=x.mp3", "GIF89a....", "Content-Type", "audio/mpeg").ExpectError(415, "UNSUPPORTED_MEDIA")
		h.Op("POST", "/api/v1/admin/media", "").ExpectError(400, "EMPTY_MEDIA")
		big := append(append([]byte(nil), img...), make([]byte, 6<<20)...) // a PNG over the image limit
		h.Op("POST", "/api/v1/admin/media", big).ExpectError(413, "MEDIA_TOO_LARGE")
		h.Op("POST", "/api/v1/admin/media", bytes.Repeat([]byte{0xff, 0xfb, 0x90, 0x64}, 8<<20)).ExpectError(413, "MEDIA_TOO_LARGE")
		h.Req("POST", "/api/v1/admin/media", img).ExpectError(401, "UNAUTHORIZED")

		// Operators read the bytes back, typed and never sniffed.
		got := h.Op("GET", "/api/v1/admin/media/"+up.Data.SHA256, nil).Expect(200)
		if !bytes.Equal(got.Body, img) || got.Header.Get("Content-Type") != "image/png" ||
			got.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("GET media: %d bytes, headers %v", len(got.Body), got.Header)
		}
		h.Op("GET", "/api/v1/admin/media/"+strings.Repeat("0", 64), nil).ExpectError(404, "NOT_FOUND")
		h.Op("GET", "/api/v1/admin/media/..%2f..%2fetc", nil).ExpectError(404, "NOT_FOUND")

		// An exam shows them; the package lists them, not their bytes.
		lab := h.NewLabServer("LAB-01", httpapitest.NPSNA)
		other := h.NewLabServer("LAB-09", httpapitest.NPSNB)
		fixture := httpapitest.ExamFixture(httpapitest.NPSNA)
		fixture["questions"] = []map[string]any{
			{"id": "q1", "type": "single_choice", "format": "markdown", "text": "![A right triangle, sides 3 and 4](" + up.Data.Reference + ")",
				"options": []map[string]any{{"id": "a", "text": "5"}, {"id": "b", "text": "7"}}, "answer": []string{"a"}},
			{"id": "l1", "type": "short_answer", "format": "markdown", "play_limit": 2,
				"text": "Listen. ![Listening 1: a tone](" + audio.Data.Reference + ")\n\nWhat is the frequency?", "answer": []string{"440"}},
		}
		var created struct {
			Data struct {
				ID       string           `json:"id"`
				Problems []map[string]any `json:"problems"`
			} `json:"data"`
		}
		h.Op("POST", "/api/v1/admin/exams", fixture).Expect(201).Decode(&created)
		if len(created.Data.Problems) != 0 {
			t.Fatalf("problems = %v", created.Data.Problems)
		}
		// A labagent that reads formats 1 and 2 only gets format 2, whose
		// media it fetches encrypted for its school.
		var res httpapitest.PullJSON
		h.As(lab, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-01", nil, "X-Package-Formats", "1, 2").Expect(200).Decode(&res)
		pkg, err := client.DecodePackage(bytes.NewReader(res.Package), lab.PackageKey)
		if err != nil {
			t.Fatal(err)
		}
		e := pkg.Exams[0]
		if pkg.Format != 2 || len(e.Media) != 2 || e.Media[0].SHA256 != up.Data.SHA256 || e.Media[1].Kind != "audio" ||
			e.Media[1].Size != int64(len(testkit.ToneMP3)) || e.Media[0].Blob != nil || e.Media[1].Blob != nil {
			t.Fatalf("package format %d, media = %+v", pkg.Format, e.Media)
		}
		if q := e.Questions[0]; !strings.Contains(q.HTML, `src="media/`+up.Data.SHA256+`"`) || !strings.Contains(q.HTML, `alt="A right triangle, sides 3 and 4"`) {
			t.Fatalf("question HTML = %s", q.HTML)
		}
		if q := e.Questions[1]; q.PlayLimit != 2 || !strings.Contains(q.HTML, "<audio") {
			t.Fatalf("listening question = %+v", q)
		}
		if len(res.Package) > 8<<10 {
			t.Fatalf("the package is %d bytes: it carries media", len(res.Package))
		}

		// The lab server fetches each file encrypted with its key.
		path := "/api/v1/sync/media/" + audio.Data.SHA256 + "?serverCode=LAB-01"
		whole := h.As(lab, "GET", path, nil).Expect(200)
		etag := whole.Header.Get("ETag")
		plain := httpapitest.Decrypt(t, whole.Body, lab.PackageKey)
		if !bytes.Equal(plain, testkit.ToneMP3) || etag == "" || whole.Header.Get("X-Media-SHA256") != audio.Data.SHA256 {
			t.Fatalf("sync media: %d plaintext bytes, ETag %q", len(plain), etag)
		}
		// The same bytes every time, so a cut download resumes.
		cut := len(whole.Body) / 3
		rest := h.As(lab, "GET", path, nil, "Range", "bytes="+strconv.Itoa(cut)+"-", "If-Range", etag).Expect(http.StatusPartialContent)
		if !bytes.Equal(rest.Body, whole.Body[cut:]) {
			t.Fatal("a resumed media download differs from the whole one")
		}
		h.As(lab, "GET", path, nil, "If-None-Match", etag).Expect(http.StatusNotModified)
		// Nobody else: another school, the wrong server code, an operator.
		h.As(other, "GET", "/api/v1/sync/media/"+audio.Data.SHA256+"?serverCode=LAB-09", nil).ExpectError(404, "NOT_FOUND")
		h.As(lab, "GET", "/api/v1/sync/media/"+audio.Data.SHA256+"?serverCode=LAB-09", nil).ExpectError(403, "SERVER_MISMATCH")
		h.Op("GET", path, nil).ExpectError(401, "UNAUTHORIZED")

		// A one-question edit leaves the media's encrypted bytes as they were.
		fixture["questions"].([]map[string]any)[0]["text"] = "Look: ![A right triangle, sides 3 and 4](" + up.Data.Reference + ")"
		h.Op("PUT", "/api/v1/admin/exams/"+created.Data.ID, fixture).Expect(200)
		h.As(lab, "GET", path, nil, "If-None-Match", etag).Expect(http.StatusNotModified)

		// An exam's media are bounded in total.
		var refs []string
		for i := range 41 {
			data := append(testkit.PNG(64, 64, uint8(i)), make([]byte, 5<<20-20000)...)
			var m mediaJSON
			h.Op("POST", "/api/v1/admin/media", data).Expect(201).Decode(&m)
			refs = append(refs, "![figure "+strconv.Itoa(i)+"]("+m.Data.Reference+")")
		}
		heavy := httpapitest.ExamFixture(httpapitest.NPSNA)
		heavy["questions"] = []map[string]any{{"id": "h1", "type": "essay", "format": "markdown", "text": strings.Join(refs, "\n\n")}}
		h.Op("POST", "/api/v1/admin/exams", heavy).ExpectError(413, "MEDIA_TOO_LARGE")
	})
}

// TestBlobs: a labagent that reads format 3 gets a package whose media are
// blobs, the same for two schools; the blob route serves them to anyone,
// byte for byte what the name says, resumable, cacheable for a year, and
// answers 404 to every name the portal did not issue.
func TestBlobs(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		img := append(testkit.PNG(90, 60, 2), make([]byte, 140<<10)...) // three chunks
		var up, audio mediaJSON
		h.Op("POST", "/api/v1/admin/media?name=peta.png", img).Expect(201).Decode(&up)
		h.Op("POST", "/api/v1/admin/media?name=tone.mp3", testkit.ToneMP3).Expect(201).Decode(&audio)
		fixture := httpapitest.ExamFixture(httpapitest.NPSNA, httpapitest.NPSNB)
		fixture["questions"] = []map[string]any{
			{"id": "q1", "type": "essay", "format": "markdown", "text": "![Peta](" + up.Data.Reference + ")\n\nJelaskan."},
			{"id": "l1", "type": "essay", "format": "markdown", "text": "![Listening](" + audio.Data.Reference + ")"},
		}
		h.Op("POST", "/api/v1/admin/exams", fixture).Expect(201)

		labA, labB := h.NewLabServer("LAB-01", httpapitest.NPSNA), h.NewLabServer("LAB-02", httpapitest.NPSNB)
		refs := map[string][]client.PackageMedia{}
		for _, lab := range []struct {
			s    httpapitest.LabServer
			code string
		}{{labA, "LAB-01"}, {labB, "LAB-02"}} {
			var res httpapitest.PullJSON
			h.As(lab.s, "GET", "/api/v1/sync/pull-questions?serverCode="+lab.code, nil, "X-Package-Formats", "1, 2, 3").Expect(200).Decode(&res)
			pkg, err := client.DecodePackage(bytes.NewReader(res.Package), lab.s.PackageKey)
			if err != nil {
				t.Fatal(err)
			}
			if pkg.Format != 3 || len(pkg.Exams) != 1 || len(pkg.Exams[0].Media) != 2 {
				t.Fatalf("%s: package format %d, %+v", lab.code, pkg.Format, pkg.Exams)
			}
			refs[lab.code] = pkg.Exams[0].Media
		}
		for i, m := range refs["LAB-01"] {
			o := refs["LAB-02"][i]
			if m.Blob == nil || o.Blob == nil || m.Blob.Name != o.Blob.Name || m.Blob.URL != o.Blob.URL ||
				m.Blob.Size != o.Blob.Size || !bytes.Equal(m.Blob.Key, o.Blob.Key) {
				t.Fatalf("the schools' blobs differ: %+v, %+v", m.Blob, o.Blob)
			}
		}
		ref := refs["LAB-01"][0].Blob
		path := "/" + ref.URL

		// No credential needed; the bytes are what the name says.
		whole := h.Req("GET", path, nil).Expect(200)
		if httpapitest.SHA(whole.Body) != ref.Name || int64(len(whole.Body)) != ref.Size {
			t.Fatalf("blob: %d bytes, SHA-256 %s; want %d, %s", len(whole.Body), httpapitest.SHA(whole.Body), ref.Size, ref.Name)
		}
		hd := whole.Header
		if hd.Get("ETag") != `"`+ref.Name+`"` || hd.Get("Cache-Control") != "public, max-age=31536000, immutable" ||
			hd.Get("Content-Type") != "application/octet-stream" || hd.Get("Accept-Ranges") != "bytes" {
			t.Fatalf("blob headers = %v", hd)
		}
		if !bytes.Equal(httpapitest.Decrypt(t, whole.Body, ref.Key), img) {
			t.Fatal("the content key does not open the blob to the image")
		}
		if dec, err := client.NewPackageDecrypter(labA.PackageKey, bytes.NewReader(whole.Body)); err != nil {
			t.Fatal(err)
		} else if _, err := io.ReadAll(dec); err == nil {
			t.Fatal("the school's package key opens the blob")
		}
		// Range, If-Range, If-None-Match, HEAD.
		cut := len(whole.Body) / 3
		rest := h.Req("GET", path, nil, "Range", "bytes="+strconv.Itoa(cut)+"-", "If-Range", `"`+ref.Name+`"`).Expect(http.StatusPartialContent)
		if !bytes.Equal(rest.Body, whole.Body[cut:]) {
			t.Fatal("a ranged blob differs from the whole one")
		}
		mid := h.Req("GET", path, nil, "Range", "bytes=70000-70099").Expect(http.StatusPartialContent)
		if !bytes.Equal(mid.Body, whole.Body[70000:70100]) {
			t.Fatal("a range across a chunk boundary differs")
		}
		h.Req("GET", path, nil, "Range", "bytes="+strconv.Itoa(len(whole.Body))+"-").Expect(http.StatusRequestedRangeNotSatisfiable)
		h.Req("GET", path, nil, "If-None-Match", `"`+ref.Name+`"`).Expect(http.StatusNotModified)
		head := h.Req("HEAD", path, nil).Expect(200)
		if len(head.Body) != 0 || head.Header.Get("Content-Length") != strconv.Itoa(len(whole.Body)) || head.Header.Get("ETag") != `"`+ref.Name+`"` {
			t.Fatalf("HEAD: %d bytes, headers %v", len(head.Body), head.Header)
		}
		// The audio's blob too, a credential being no matter.
		audioRef := refs["LAB-01"][1].Blob
		got := h.As(labB, "GET", "/"+audioRef.URL, nil).Expect(200)
		if !bytes.Equal(httpapitest.Decrypt(t, got.Body, audioRef.Key), testkit.ToneMP3) {
			t.Fatal("the audio's blob does not open to the audio")
		}

		// The questions are blobs too, served the same way.
		var pkgA httpapitest.PullJSON
		h.As(labA, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-01", nil, "X-Package-Formats", "1, 2, 3").Expect(200).Decode(&pkgA)
		decoded, err := client.DecodePackage(bytes.NewReader(pkgA.Package), labA.PackageKey)
		if err != nil {
			t.Fatal(err)
		}
		if e := decoded.Exams[0]; len(e.Questions) != 0 || len(e.QuestionBlobs) != 2 {
			t.Fatalf("format 3: %d questions inline, %d question blobs", len(e.Questions), len(e.QuestionBlobs))
		}
		qref := decoded.Exams[0].QuestionBlobs[1]
		qres := h.Req("GET", "/"+qref.URL, nil).Expect(200)
		if qres.Header.Get("ETag") != `"`+qref.Name+`"` || qres.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Fatalf("question blob headers = %v", qres.Header)
		}
		var q client.PackageQuestion
		if err := client.OpenContentBlob(qref, qres.Body, &q); err != nil || q.ID != "l1" || !strings.Contains(q.HTML, "<audio") {
			t.Fatalf("question blob opens to %+v, %v", q, err)
		}
		h.Req("GET", "/"+qref.URL, nil, "Range", "bytes=10-").Expect(http.StatusPartialContent)

		// Not an oracle: only issued names.
		for _, name := range []string{strings.Repeat("0", 64), up.Data.SHA256, audio.Data.SHA256, strings.ToUpper(ref.Name), "abc", ref.Name + "0"} {
			h.Req("GET", "/api/v1/blobs/"+name, nil).ExpectError(404, "NOT_FOUND")
		}
		if r := h.Req("HEAD", "/api/v1/blobs/"+up.Data.SHA256, nil); r.Status != 404 || len(r.Body) != 0 {
			t.Fatalf("HEAD of an unknown blob: %d, %q", r.Status, r.Body)
		}
	})
}
