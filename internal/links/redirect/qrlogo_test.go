package redirect

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/blobstore/s3"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/testkit/s3server"
)

// TestQRImageLogoInBlobStore: a code whose logo is in the blob store (object
// storage, versitygw) is drawn with it; while the store is down an image
// not drawn yet is answered 503 with Retry-After (one drawn already comes
// from memory), and once it is back the image is drawn again.
func TestQRImageLogoInBlobStore(t *testing.T) {
	srv := s3server.Start(t)
	srv.CreateBucket(t, "logos")
	t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretKey)
	blobs, err := s3.Open(srv.URL("logos", "portal") + "&max_retries=1")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(logoURI(t), "data:image/png;base64,"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	key := links.LogoKey(hex.EncodeToString(sum[:]))
	if err := blobs.Put(context.Background(), key, bytes.NewReader(raw), int64(len(raw))); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, func(o *Options) { o.CacheTTL = 0; o.Blobs = blobs })
	data, _ := json.Marshal(map[string]any{"ssid": "Lab", "password": "secret123"})
	f.store.qrs[5] = links.QRCode{ID: 5, UserID: owner, Type: links.QRWiFi, Data: data, Logo: "blob:" + key}

	w := f.do(http.MethodGet, short, "/qr/5.svg", nil)
	mustStatus(t, w, http.StatusOK)
	if !strings.Contains(w.Body.String(), `xlink:href="data:image/png;base64,`) {
		t.Fatal("SVG without its logo")
	}
	w = f.do(http.MethodGet, short, "/qr/5?size=300", nil)
	mustStatus(t, w, http.StatusOK)
	if text, _ := decodePNG(t, w.Body.Bytes()); text != "WIFI:T:WPA;S:Lab;P:secret123;;" {
		t.Fatalf("decodes to %q", text)
	}

	srv.Kill()
	w = f.do(http.MethodGet, short, "/qr/5?size=400", nil)
	mustStatus(t, w, http.StatusServiceUnavailable)
	if got := w.Header().Get("Retry-After"); got != "10" {
		t.Fatalf("Retry-After %q", got)
	}
	if got := w.Header().Get("Cache-Control"); strings.Contains(got, "public") {
		t.Fatalf("a 503 is cacheable: %q", got)
	}
	// Drawn before the outage: from memory.
	mustStatus(t, f.do(http.MethodGet, short, "/qr/5?size=300", nil), http.StatusOK)

	srv.Restart()
	mustStatus(t, f.do(http.MethodGet, short, "/qr/5?size=400", nil), http.StatusOK)
}
