package exam_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/httpapitest"
	"github.com/seedhq/portal/pkg/labwire"
)

func TestPullQuestions(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		students := h.ImportStudents(httpapitest.NPSNA, "Ani Lestari", "Budi Santoso")
		h.ImportStudents(httpapitest.NPSNB, "Citra Dewi")
		examID := h.CreateExam(httpapitest.NPSNA)
		otherExam := h.CreateExam(httpapitest.NPSNB)
		lab := h.NewLabServer("LAB-01", httpapitest.NPSNA)
		const pull = "/api/v1/sync/pull-questions?serverCode=LAB-01"

		// JSON form.
		res := h.As(lab, "GET", pull, nil).Expect(200)
		var p httpapitest.PullJSON
		res.Decode(&p)
		if !p.Success || p.ServerCode != "LAB-01" || p.NPSN != httpapitest.NPSNA || p.Encryption != "AES-256-GCM-STREAM" || p.GeneratedAt.IsZero() {
			t.Fatalf("pull = %+v", p)
		}
		if int64(len(p.Package)) != p.Size || httpapitest.SHA(p.Package) != p.Checksum {
			t.Fatalf("package: %d bytes with sha %s, meta says %d bytes %s", len(p.Package), httpapitest.SHA(p.Package), p.Size, p.Checksum)
		}
		etag := `"` + p.Checksum + `"`
		if res.Header.Get("ETag") != etag || res.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("headers = %v", res.Header)
		}
		if res.Header.Get("Content-Length") != strconv.Itoa(len(res.Body)) {
			t.Fatalf("Content-Length %s for %d bytes", res.Header.Get("Content-Length"), len(res.Body))
		}

		// Conditional JSON pull.
		nm := h.As(lab, "GET", pull, nil, "If-None-Match", etag).Expect(304)
		if len(nm.Body) != 0 || nm.Header.Get("ETag") != etag {
			t.Fatalf("304: body %q, ETag %q", nm.Body, nm.Header.Get("ETag"))
		}
		h.As(lab, "GET", pull, nil, "If-None-Match", `"stale"`).Expect(200)

		// Binary form, both ways of asking.
		bin := h.As(lab, "GET", pull+"&format=binary", nil).Expect(200)
		if !bytes.Equal(bin.Body, p.Package) {
			t.Fatal("binary bytes differ from the JSON package")
		}
		for k, want := range map[string]string{
			"Content-Type": "application/octet-stream", "X-Checksum-SHA256": p.Checksum,
			"X-Package-Version": p.Version, "ETag": etag, "Accept-Ranges": "bytes", "Cache-Control": "no-cache",
		} {
			if got := bin.Header.Get(k); got != want {
				t.Errorf("%s = %q, want %q", k, got, want)
			}
		}
		accept := h.As(lab, "GET", pull, nil, "Accept", "application/octet-stream").Expect(200)
		if !bytes.Equal(accept.Body, p.Package) {
			t.Fatal("Accept: application/octet-stream did not answer the bytes")
		}
		h.As(lab, "GET", pull+"&format=binary", nil, "If-None-Match", etag).Expect(304)
		h.As(lab, "GET", pull+"&format=xml", nil).ExpectError(400, "INVALID_QUERY")

		// A resumed download: the first part, then the rest from an offset
		// under If-Range, produce the same bytes.
		cut := len(p.Package) / 3
		part1 := h.As(lab, "GET", pull+"&format=binary", nil, "Range", "bytes=0-"+strconv.Itoa(cut-1)).Expect(206)
		part2 := h.As(lab, "GET", pull+"&format=binary", nil, "Range", "bytes="+strconv.Itoa(cut)+"-", "If-Range", etag).Expect(206)
		if want := "bytes " + strconv.Itoa(cut) + "-" + strconv.Itoa(len(p.Package)-1) + "/" + strconv.Itoa(len(p.Package)); part2.Header.Get("Content-Range") != want {
			t.Fatalf("Content-Range = %q, want %q", part2.Header.Get("Content-Range"), want)
		}
		if joined := append(append([]byte{}, part1.Body...), part2.Body...); !bytes.Equal(joined, p.Package) {
			t.Fatal("resumed download differs from the package")
		}
		// If-Range with another ETag: the whole package again.
		h.As(lab, "GET", pull+"&format=binary", nil, "Range", "bytes=10-", "If-Range", `"old"`).Expect(200)

		// The package decrypts with the handshake's key into students and
		// exams of this school, and no answer keys.
		dec, err := labwire.NewPackageDecrypter(bytes.NewReader(p.Package), lab.PackageKey)
		if err != nil {
			t.Fatalf("decrypter: %v", err)
		}
		plain, err := io.ReadAll(dec)
		if err != nil {
			t.Fatalf("decrypt: %v", err)
		}
		if httpapitest.SHA(plain) != p.Version {
			t.Fatalf("version %s is not the SHA-256 of the plaintext %s", p.Version, httpapitest.SHA(plain))
		}
		var pkg struct {
			Format   int    `json:"format"`
			NPSN     string `json:"npsn"`
			Students []struct {
				ID           string `json:"id"`
				Username     string `json:"username"`
				PasswordHash string `json:"password_hash"`
			} `json:"students"`
			Exams []struct {
				ID        string           `json:"id"`
				Questions []map[string]any `json:"questions"`
			} `json:"exams"`
		}
		if err := json.Unmarshal(plain, &pkg); err != nil {
			t.Fatalf("plaintext is not JSON: %v", err)
		}
		if pkg.Format != 1 || pkg.NPSN != httpapitest.NPSNA || len(pkg.Students) != 2 || len(pkg.Exams) != 1 || pkg.Exams[0].ID != examID {
			t.Fatalf("package = %s", plain)
		}
		for _, s := range pkg.Students {
			if students[s.Username] != s.ID || !strings.HasPrefix(s.PasswordHash, "pbkdf2-sha256$") {
				t.Fatalf("student %+v", s)
			}
		}
		if len(pkg.Exams[0].Questions) != 5 {
			t.Fatalf("questions = %v", pkg.Exams[0].Questions)
		}
		for _, q := range pkg.Exams[0].Questions {
			if _, ok := q["answer"]; ok {
				t.Fatalf("question %v carries its answer key", q)
			}
		}
		if bytes.Contains(plain, []byte(`"answer"`)) || bytes.Contains(plain, []byte("Jakarta")) || bytes.Contains(plain, []byte(otherExam)) {
			t.Fatal("plaintext contains an answer key or another school's exam")
		}

		// A change of content makes a new package and ETag.
		h.ImportStudents(httpapitest.NPSNA, "Dedi Kurniawan")
		var p2 httpapitest.PullJSON
		h.As(lab, "GET", pull, nil, "If-None-Match", etag).Expect(200).Decode(&p2)
		if p2.Checksum == p.Checksum || p2.Version == p.Version {
			t.Fatal("package did not change with the roster")
		}

		// Only the token's own server code.
		h.As(lab, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-99", nil).ExpectError(403, "SERVER_MISMATCH")
		h.Req("GET", pull, nil).ExpectError(401, "UNAUTHORIZED")

		// Pulls answered 200 or 206 are logged; 304s are not.
		var logs struct {
			Success bool          `json:"success"`
			Data    []syncLogJSON `json:"data"`
		}
		h.Op("GET", "/api/v1/admin/sync-logs?server_code=LAB-01&limit=1000", nil).Decode(&logs)
		pulls := 0
		for _, l := range logs.Data {
			if l.Action == "pull_data" {
				pulls++
			}
		}
		if pulls != 8 {
			t.Fatalf("pull_data records = %d, want 8", pulls)
		}
	})
}

func TestPullBase64Streams(t *testing.T) {
	// The JSON form's package field is plain standard base64 of the bytes.
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		h.CreateExam(httpapitest.NPSNA)
		lab := h.NewLabServer("LAB-01", httpapitest.NPSNA)
		res := h.As(lab, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-01", nil).Expect(200)
		var raw map[string]json.RawMessage
		res.Decode(&raw)
		var b64 string
		json.Unmarshal(raw["package"], &b64)
		bin := h.As(lab, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-01&format=binary", nil).Expect(200)
		if b64 != base64.StdEncoding.EncodeToString(bin.Body) {
			t.Fatal("package field is not the std base64 of the binary form")
		}
	})
}

// brokenPackages is a store whose package reader fails after a few bytes.
type brokenPackages struct{ exam.Store }

func (s brokenPackages) OpenPackage(ctx context.Context, meta exam.PackageMeta) (exam.PackageReader, error) {
	r, err := s.Store.OpenPackage(ctx, meta)
	if err != nil {
		return nil, err
	}
	return &failingReader{PackageReader: r, left: 100}, nil
}

type failingReader struct {
	exam.PackageReader
	left int
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, errors.New("disk read error")
	}
	if len(p) > r.left {
		p = p[:r.left]
	}
	n, err := r.PackageReader.Read(p)
	r.left -= n
	return n, err
}

func TestPullStreamFailureCutsResponse(t *testing.T) {
	h := httpapitest.New(t, httpapitest.OpenBolt, httpapitest.WithStoreWrapper(func(st exam.Store) exam.Store { return brokenPackages{st} }))
	h.CreateExam(httpapitest.NPSNA)
	lab := h.NewLabServer("LAB-01", httpapitest.NPSNA)
	req, _ := http.NewRequest("GET", h.Server.URL+"/api/v1/sync/pull-questions?serverCode=LAB-01", nil)
	req.Header.Set("Authorization", "Bearer "+lab.Token)
	// Whether the headers made it out before the connection was cut
	// depends on buffering: either the request or the body read fails.
	if resp, err := h.Client.Do(req); err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err == nil {
			t.Fatal("a failed package stream read as a complete body")
		}
	}
	if !strings.Contains(h.Logs.String(), "disk read error") {
		t.Fatal("the stream failure was not logged")
	}
	var logs struct {
		Success bool          `json:"success"`
		Data    []syncLogJSON `json:"data"`
	}
	h.Op("GET", "/api/v1/admin/sync-logs?server_code=LAB-01", nil).Decode(&logs)
	for _, l := range logs.Data {
		if l.Action == "pull_data" {
			t.Fatalf("a failed pull was logged: %+v", l)
		}
	}
}
