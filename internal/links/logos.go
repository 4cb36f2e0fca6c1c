package links

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strings"

	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/internal/links/qr"
)

// QR code logos are kept in the blob store, once per content, under
// LogoKey(SHA-256); the record's Logo then holds the reference
// "blob:logos/<sha256>" rather than the image. The API and the console
// still send and receive data URIs: GetQR gives the logo back as one, and
// the redirector loads it to draw the image (ResolveLogo). Records written
// before the blob store (or by a Service without one) keep their data URI,
// which every reader still accepts. Logos are not deleted with their
// codes, since several codes may share one: a logo no code uses any more is
// deleted by the garbage collection of blobs (ReferencedBlobs, internal/blobgc).

// logoRefPrefix starts the Logo of a record whose image is in the blob
// store.
const logoRefPrefix = "blob:"

// LogoKey is the blob store key of the logo whose bytes have the SHA-256
// sha (hex): logos/<sha256>.
func LogoKey(sha string) string { return "logos/" + sha }

// IsLogoRef reports whether logo, a record's Logo, refers to the blob
// store rather than holding the image.
func IsLogoRef(logo string) bool { return strings.HasPrefix(logo, logoRefPrefix) }

// storeLogo puts the image of the data URI logo (validated already) into
// blobs and returns the reference to keep in the record. Without a blob
// store, or for an empty logo, it returns logo as it is.
func storeLogo(ctx context.Context, blobs blobstore.Store, logo string) (string, error) {
	if blobs == nil || logo == "" || IsLogoRef(logo) {
		return logo, nil
	}
	b, err := qr.DecodeDataURI(logo)
	if err != nil {
		return "", invalid("%v", err)
	}
	sum := sha256.Sum256(b)
	key := LogoKey(hex.EncodeToString(sum[:]))
	if err := blobs.Put(ctx, key, bytes.NewReader(b), int64(len(b))); err != nil {
		return "", fmt.Errorf("links: store the QR logo: %w", err)
	}
	return logoRefPrefix + key, nil
}

// ResolveLogo returns logo, a record's Logo, as a data URI: a reference is
// read from blobs (its type told by its bytes, PNG or JPEG); anything else
// is returned as it is. Errors wrap the blob store's (blobstore.ErrUnavailable
// when it cannot be reached).
func ResolveLogo(ctx context.Context, blobs blobstore.Store, logo string) (string, error) {
	if !IsLogoRef(logo) {
		return logo, nil
	}
	if blobs == nil {
		return "", fmt.Errorf("links: QR logo %s: no blob store is configured", logo)
	}
	key := strings.TrimPrefix(logo, logoRefPrefix)
	rc, _, err := blobs.Open(ctx, key)
	if err != nil {
		return "", fmt.Errorf("links: QR logo: %w", err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, qr.MaxLogoBytes+1))
	if err != nil {
		return "", fmt.Errorf("links: QR logo %s: %w", key, err)
	}
	typ := "image/png"
	if bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}) {
		typ = "image/jpeg"
	}
	return "data:" + typ + ";base64," + base64.StdEncoding.EncodeToString(b), nil
}
