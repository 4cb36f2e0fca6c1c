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
		var res pullJSON
		h.as(lab, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-01", nil, "X-Package-Formats", client.PackageFormats).expect(200).decode(&res)
		pkg, err := client.DecodePackage(bytes.NewReader(res.Package), lab.packageKey)
		if err != nil {
			t.Fatal(err)
		}
		e := pkg.Exams[0]
		if len(e.Media) != 2 || e.Media[0].SHA256 != up.Data.SHA256 || e.Media[1].Kind != "audio" || e.Media[1].Size != int64(len(testkit.ToneMP3)) {
			t.Fatalf("package media = %+v", e.Media)
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
