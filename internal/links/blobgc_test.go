package links_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"image/color"
	"path/filepath"
	"slices"
	"testing"

	"github.com/seedhq/portal/internal/blobgc"
	"github.com/seedhq/portal/internal/blobgc/blobgctest"
	"github.com/seedhq/portal/internal/blobstore/blobstoretest"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/store/bolt"
)

// TestLogosGarbageCollected: a logo some QR code uses is never collected,
// also when another code that used it is deleted; a logo no code uses any
// more survives the retention period and is deleted after it.
func TestLogosGarbageCollected(t *testing.T) {
	ctx := context.Background()
	st, err := bolt.Open(filepath.Join(t.TempDir(), "portal.db"), bolt.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	blobs := st.Blobs()
	svc := links.NewService(st, links.Config{Blobs: blobs})
	red, blue := pngLogo(t, 16, color.RGBA{200, 0, 0, 255}), pngLogo(t, 16, color.RGBA{0, 0, 200, 255})
	uri := func(b []byte) string { return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b) }
	key := func(b []byte) string { h := sha256.Sum256(b); return links.LogoKey(hex.EncodeToString(h[:])) }
	data := json.RawMessage(`"hello"`)
	var codes []int64
	var owners []int64
	for _, name := range []string{"ana", "budi"} {
		u, _, err := svc.CreateUser(ctx, links.NewUser{Email: name + "@example.com", Username: name})
		if err != nil {
			t.Fatal(err)
		}
		q, err := svc.CreateQR(ctx, u.ID, links.QRInput{Type: links.QRText, Data: data, Logo: uri(red)})
		if err != nil {
			t.Fatal(err)
		}
		codes, owners = append(codes, q.ID), append(owners, u.ID)
	}
	q, err := svc.CreateQR(ctx, owners[0], links.QRInput{Type: links.QRText, Data: data, Logo: uri(blue)})
	if err != nil {
		t.Fatal(err)
	}
	keys, err := svc.ReferencedBlobs(ctx)
	slices.Sort(keys)
	want := []string{key(red), key(blue)}
	slices.Sort(want)
	if err != nil || !slices.Equal(keys, want) {
		t.Fatalf("ReferencedBlobs: %q, %v; want %q", keys, err, want)
	}
	// The blue code goes; one of the two red codes goes.
	if err := svc.DeleteQR(ctx, owners[0], q.ID); err != nil {
		t.Fatal(err)
	}
	if err := svc.DeleteQR(ctx, owners[1], codes[1]); err != nil {
		t.Fatal(err)
	}

	blobgctest.CollectsOne(t, blobs, st, blobgc.Source{Name: "logos", Prefix: links.LogoKeyPrefix, Refs: svc}, key(blue), 1)
	if got := blobstoretest.MustList(t, blobs, links.LogoKeyPrefix); len(got) != 1 || got[0].Key != key(red) {
		t.Fatalf("logos left: %+v, want %s alone", got, key(red))
	}
	if got, err := svc.GetQR(ctx, owners[0], codes[0]); err != nil || got.Logo != uri(red) {
		t.Fatalf("the remaining code's logo: %.60q, %v", got.Logo, err)
	}
}
