package httpapi_test

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

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
	forEachStore(t, func(t *testing.T, h *harness) {
		img := testkit.PNG(40, 30, 1)
		var up mediaJSON
		h.op("POST", "/api/v1/admin/media?name=diagram.png", img, "Content-Type", "text/plain").expect(201).decode(&up)
		if up.Data.SHA256 != sha(img) || up.Data.Type != "image/png" || up.Data.Kind != "image" ||
			up.Data.Size != int64(len(img)) || up.Data.Name != "diagram.png" || up.Data.Reference != "media:"+sha(img) {
			t.Fatalf("upload = %+v", up.Data)
		}
		var again mediaJSON
		h.op("POST", "/api/v1/admin/media", img, "Content-Disposition", `attachment; filename="other.png"`).expect(201).decode(&again)
		if again.Data != up.Data {
			t.Fatalf("the same bytes again = %+v, want the stored %+v", again.Data, up.Data)
		}
		var audio mediaJSON
		h.op("POST", "/api/v1/admin/media", testkit.ToneMP3, "Content-Disposition", `attachment; filename="listening.mp3"`).expect(201).decode(&audio)
		if audio.Data.Type != "audio/mpeg" || audio.Data.Kind != "audio" || audio.Data.Name != "listening.mp3" {
			t.Fatalf("audio upload = %+v", audio.Data)
		}

		// Refusals, by the bytes whatever the name or Content-Type.
		h.op("POST", "/api/v1/admin/media?name=x.png", `<svg onload="alert(1)"/>`, "Content-Type", "image/png").expectError(415, "UNSUPPORTED_MEDIA")
		h.op("POST", "/api/v1/admin/media?name=x.mp3", "GIF89a....", "Content-Type", "audio/mpeg").expectError(415, "UNSUPPORTED_MEDIA")
		h.op("POST", "/api/v1/admin/media", "").expectError(400, "EMPTY_MEDIA")
		big := append(append([]byte(nil), img...), make([]byte, 6<<20)...) // a PNG over the image limit
		h.op("POST", "/api/v1/admin/media", big).expectError(413, "MEDIA_TOO_LARGE")
		h.op("POST", "/api/v1/admin/media", bytes.Repeat([]byte{0xff, 0xfb, 0x90, 0x64}, 8<<20)).expectError(413, "MEDIA_TOO_LARGE")
		h.req("POST", "/api/v1/admin/media", img).expectError(401, "UNAUTHORIZED")

		// Operators read the bytes back, typed and never sniffed.
		got := h.op("GET", "/api/v1/admin/media/"+up.Data.SHA256, nil).expect(200)
		if !bytes.Equal(got.body, img) || got.header.Get("Content-Type") != "image/png" ||
			got.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("GET media: %d bytes, headers %v", len(got.body), got.header)
		}
		h.op("GET", "/api/v1/admin/media/"+strings.Repeat("0", 64), nil).expectError(404, "NOT_FOUND")
		h.op("GET", "/api/v1/admin/media/..%2f..%2fetc", nil).expectError(404, "NOT_FOUND")

		// An exam shows them; the package lists them, not their bytes.
		lab := h.newLabServer("LAB-01", npsnA)
		other := h.newLabServer("LAB-09", npsnB)
		fixture := examFixture(npsnA)
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
		h.op("POST", "/api/v1/admin/exams", fixture).expect(201).decode(&created)
		if len(created.Data.Problems) != 0 {
			t.Fatalf("problems = %v", created.Data.Problems)
		}
		// A labagent that reads formats 1 and 2 only gets format 2, whose
		// media it fetches encrypted for its school.
		var res pullJSON
		h.as(lab, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-01", nil, "X-Package-Formats", "1, 2").expect(200).decode(&res)
		pkg, err := client.DecodePackage(bytes.NewReader(res.Package), lab.packageKey)
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
		whole := h.as(lab, "GET", path, nil).expect(200)
		etag := whole.header.Get("ETag")
		plain := decrypt(t, whole.body, lab.packageKey)
		if !bytes.Equal(plain, testkit.ToneMP3) || etag == "" || whole.header.Get("X-Media-SHA256") != audio.Data.SHA256 {
			t.Fatalf("sync media: %d plaintext bytes, ETag %q", len(plain), etag)
		}
		// The same bytes every time, so a cut download resumes.
		cut := len(whole.body) / 3
		rest := h.as(lab, "GET", path, nil, "Range", "bytes="+strconv.Itoa(cut)+"-", "If-Range", etag).expect(http.StatusPartialContent)
		if !bytes.Equal(rest.body, whole.body[cut:]) {
			t.Fatal("a resumed media download differs from the whole one")
		}
		h.as(lab, "GET", path, nil, "If-None-Match", etag).expect(http.StatusNotModified)
		// Nobody else: another school, the wrong server code, an operator.
		h.as(other, "GET", "/api/v1/sync/media/"+audio.Data.SHA256+"?serverCode=LAB-09", nil).expectError(404, "NOT_FOUND")
		h.as(lab, "GET", "/api/v1/sync/media/"+audio.Data.SHA256+"?serverCode=LAB-09", nil).expectError(403, "SERVER_MISMATCH")
		h.op("GET", path, nil).expectError(401, "UNAUTHORIZED")

		// A one-question edit leaves the media's encrypted bytes as they were.
		fixture["questions"].([]map[string]any)[0]["text"] = "Look: ![A right triangle, sides 3 and 4](" + up.Data.Reference + ")"
		h.op("PUT", "/api/v1/admin/exams/"+created.Data.ID, fixture).expect(200)
		h.as(lab, "GET", path, nil, "If-None-Match", etag).expect(http.StatusNotModified)

		// An exam's media are bounded in total.
		var refs []string
		for i := range 41 {
			data := append(testkit.PNG(64, 64, uint8(i)), make([]byte, 5<<20-20000)...)
			var m mediaJSON
			h.op("POST", "/api/v1/admin/media", data).expect(201).decode(&m)
			refs = append(refs, "![figure "+strconv.Itoa(i)+"]("+m.Data.Reference+")")
		}
		heavy := examFixture(npsnA)
		heavy["questions"] = []map[string]any{{"id": "h1", "type": "essay", "format": "markdown", "text": strings.Join(refs, "\n\n")}}
		h.op("POST", "/api/v1/admin/exams", heavy).expectError(413, "MEDIA_TOO_LARGE")
	})
}

// TestBlobs: a labagent that reads format 3 gets a package whose media are
// blobs, the same for two schools; the blob route serves them to anyone,
// byte for byte what the name says, resumable, cacheable for a year, and
// answers 404 to every name the portal did not issue.
func TestBlobs(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		img := append(testkit.PNG(90, 60, 2), make([]byte, 140<<10)...) // three chunks
		var up, audio mediaJSON
		h.op("POST", "/api/v1/admin/media?name=peta.png", img).expect(201).decode(&up)
		h.op("POST", "/api/v1/admin/media?name=tone.mp3", testkit.ToneMP3).expect(201).decode(&audio)
		fixture := examFixture(npsnA, npsnB)
		fixture["questions"] = []map[string]any{
			{"id": "q1", "type": "essay", "format": "markdown", "text": "![Peta](" + up.Data.Reference + ")\n\nJelaskan."},
			{"id": "l1", "type": "essay", "format": "markdown", "text": "![Listening](" + audio.Data.Reference + ")"},
		}
		h.op("POST", "/api/v1/admin/exams", fixture).expect(201)

		labA, labB := h.newLabServer("LAB-01", npsnA), h.newLabServer("LAB-02", npsnB)
		refs := map[string][]client.PackageMedia{}
		for _, lab := range []struct {
			s    labServer
			code string
		}{{labA, "LAB-01"}, {labB, "LAB-02"}} {
			var res pullJSON
			h.as(lab.s, "GET", "/api/v1/sync/pull-questions?serverCode="+lab.code, nil, "X-Package-Formats", "1, 2, 3").expect(200).decode(&res)
			pkg, err := client.DecodePackage(bytes.NewReader(res.Package), lab.s.packageKey)
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
		whole := h.req("GET", path, nil).expect(200)
		if sha(whole.body) != ref.Name || int64(len(whole.body)) != ref.Size {
			t.Fatalf("blob: %d bytes, SHA-256 %s; want %d, %s", len(whole.body), sha(whole.body), ref.Size, ref.Name)
		}
		hd := whole.header
		if hd.Get("ETag") != `"`+ref.Name+`"` || hd.Get("Cache-Control") != "public, max-age=31536000, immutable" ||
			hd.Get("Content-Type") != "application/octet-stream" || hd.Get("Accept-Ranges") != "bytes" {
			t.Fatalf("blob headers = %v", hd)
		}
		if !bytes.Equal(decrypt(t, whole.body, ref.Key), img) {
			t.Fatal("the content key does not open the blob to the image")
		}
		if dec, err := client.NewPackageDecrypter(labA.packageKey, bytes.NewReader(whole.body)); err != nil {
			t.Fatal(err)
		} else if _, err := io.ReadAll(dec); err == nil {
			t.Fatal("the school's package key opens the blob")
		}
		// Range, If-Range, If-None-Match, HEAD.
		cut := len(whole.body) / 3
		rest := h.req("GET", path, nil, "Range", "bytes="+strconv.Itoa(cut)+"-", "If-Range", `"`+ref.Name+`"`).expect(http.StatusPartialContent)
		if !bytes.Equal(rest.body, whole.body[cut:]) {
			t.Fatal("a ranged blob differs from the whole one")
		}
		mid := h.req("GET", path, nil, "Range", "bytes=70000-70099").expect(http.StatusPartialContent)
		if !bytes.Equal(mid.body, whole.body[70000:70100]) {
			t.Fatal("a range across a chunk boundary differs")
		}
		h.req("GET", path, nil, "Range", "bytes="+strconv.Itoa(len(whole.body))+"-").expect(http.StatusRequestedRangeNotSatisfiable)
		h.req("GET", path, nil, "If-None-Match", `"`+ref.Name+`"`).expect(http.StatusNotModified)
		head := h.req("HEAD", path, nil).expect(200)
		if len(head.body) != 0 || head.header.Get("Content-Length") != strconv.Itoa(len(whole.body)) || head.header.Get("ETag") != `"`+ref.Name+`"` {
			t.Fatalf("HEAD: %d bytes, headers %v", len(head.body), head.header)
		}
		// The audio's blob too, a credential being no matter.
		audioRef := refs["LAB-01"][1].Blob
		got := h.as(labB, "GET", "/"+audioRef.URL, nil).expect(200)
		if !bytes.Equal(decrypt(t, got.body, audioRef.Key), testkit.ToneMP3) {
			t.Fatal("the audio's blob does not open to the audio")
		}

		// The questions are blobs too, served the same way.
		var pkgA pullJSON
		h.as(labA, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-01", nil, "X-Package-Formats", "1, 2, 3").expect(200).decode(&pkgA)
		decoded, err := client.DecodePackage(bytes.NewReader(pkgA.Package), labA.packageKey)
		if err != nil {
			t.Fatal(err)
		}
		if e := decoded.Exams[0]; len(e.Questions) != 0 || len(e.QuestionBlobs) != 2 {
			t.Fatalf("format 3: %d questions inline, %d question blobs", len(e.Questions), len(e.QuestionBlobs))
		}
		qref := decoded.Exams[0].QuestionBlobs[1]
		qres := h.req("GET", "/"+qref.URL, nil).expect(200)
		if qres.header.Get("ETag") != `"`+qref.Name+`"` || qres.header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Fatalf("question blob headers = %v", qres.header)
		}
		var q client.PackageQuestion
		if err := client.OpenContentBlob(qref, qres.body, &q); err != nil || q.ID != "l1" || !strings.Contains(q.HTML, "<audio") {
			t.Fatalf("question blob opens to %+v, %v", q, err)
		}
		h.req("GET", "/"+qref.URL, nil, "Range", "bytes=10-").expect(http.StatusPartialContent)

		// Not an oracle: only issued names.
		for _, name := range []string{strings.Repeat("0", 64), up.Data.SHA256, audio.Data.SHA256, strings.ToUpper(ref.Name), "abc", ref.Name + "0"} {
			h.req("GET", "/api/v1/blobs/"+name, nil).expectError(404, "NOT_FOUND")
		}
		if r := h.req("HEAD", "/api/v1/blobs/"+up.Data.SHA256, nil); r.status != 404 || len(r.body) != 0 {
			t.Fatalf("HEAD of an unknown blob: %d, %q", r.status, r.body)
		}
	})
}

// decrypt opens an AES-256-GCM-STREAM body with key.
func decrypt(t *testing.T, body, key []byte) []byte {
	t.Helper()
	dec, err := client.NewPackageDecrypter(key, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(dec)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
