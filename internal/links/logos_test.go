package links_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"path/filepath"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/blobstore/blobstoretest"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/store/bolt"
)

// pngLogo returns a w×w PNG of one colour.
func pngLogo(t *testing.T, w int, c color.RGBA) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, w))
	for y := range w {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestQRLogoInBlobStore: a QR code's logo goes to the blob store once per
// content (logos/<sha256>), the record keeps a reference, and GetQR gives
// the data URI back; an update replaces or removes it; a record written
// before the blob store keeps its data URI.
func TestQRLogoInBlobStore(t *testing.T) {
	ctx := context.Background()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"), bolt.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	blobs := st.Blobs()
	svc := links.NewService(st, links.Config{Blobs: blobs})
	u, _, err := svc.CreateUser(ctx, links.NewUser{Email: "ana@example.com", Username: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	red, blue := pngLogo(t, 16, color.RGBA{200, 0, 0, 255}), pngLogo(t, 16, color.RGBA{0, 0, 200, 255})
	uri := func(b []byte) string { return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b) }
	key := func(b []byte) string { h := sha256.Sum256(b); return links.LogoKey(hex.EncodeToString(h[:])) }
	data := json.RawMessage(`"hello"`)

	var ids []int64
	for range 2 { // two codes, one logo
		q, err := svc.CreateQR(ctx, u.ID, links.QRInput{Type: links.QRText, Data: data, Logo: uri(red)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, q.ID)
	}
	if got := blobstoretest.MustList(t, blobs, "logos/"); len(got) != 1 || got[0].Key != key(red) {
		t.Fatalf("logo blobs: %+v; want %s alone", got, key(red))
	}
	stored, err := st.GetQRByID(ctx, ids[0])
	if err != nil || stored.Logo != "blob:"+key(red) || !links.IsLogoRef(stored.Logo) {
		t.Fatalf("stored record's logo %.80q, %v", stored.Logo, err)
	}
	if q, err := svc.GetQR(ctx, u.ID, ids[0]); err != nil || q.Logo != uri(red) {
		t.Fatalf("GetQR's logo %.80q, %v", q.Logo, err)
	}

	blueURI := uri(blue)
	if _, err := svc.UpdateQR(ctx, u.ID, ids[0], links.QRPatch{Data: data, Logo: &blueURI}); err != nil {
		t.Fatal(err)
	}
	if q, err := svc.GetQR(ctx, u.ID, ids[0]); err != nil || q.Logo != blueURI {
		t.Fatalf("GetQR after a new logo: %.80q, %v", q.Logo, err)
	}
	// The other code keeps its logo.
	if q, err := svc.GetQR(ctx, u.ID, ids[1]); err != nil || q.Logo != uri(red) {
		t.Fatalf("the other code's logo: %.80q, %v", q.Logo, err)
	}
	none := ""
	if _, err := svc.UpdateQR(ctx, u.ID, ids[0], links.QRPatch{Data: data, Logo: &none}); err != nil {
		t.Fatal(err)
	}
	if q, err := svc.GetQR(ctx, u.ID, ids[0]); err != nil || q.Logo != "" {
		t.Fatalf("GetQR after removing the logo: %.80q, %v", q.Logo, err)
	}
	// A bad logo is refused and stores nothing.
	bad := "data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte("not a png"))
	if _, err := svc.CreateQR(ctx, u.ID, links.QRInput{Type: links.QRText, Data: data, Logo: bad}); err == nil {
		t.Fatal("a bad logo was accepted")
	}
	if got := blobstoretest.MustList(t, blobs, "logos/"); len(got) != 2 {
		t.Fatalf("logo blobs: %+v; want the red and the blue", got)
	}

	// A record of an earlier release, its logo inline.
	old, err := st.CreateQR(ctx, links.QRCode{UserID: u.ID, Name: "old", Type: links.QRText, Data: data,
		Background: "rgb(255,255,255)", Foreground: "rgb(0,0,0)", Logo: uri(red), CreatedAt: time.Now(), UpdatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if q, err := svc.GetQR(ctx, u.ID, old.ID); err != nil || q.Logo != uri(red) {
		t.Fatalf("an inline logo: %.80q, %v", q.Logo, err)
	}
}
