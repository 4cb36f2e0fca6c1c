package storetest

import (
	"testing"

	"github.com/seedhq/portal/internal/links"
)

func testLinkPixels(t *testing.T, s links.Store) {
	ctx := t.Context()
	ana, budi := mustLinkUser(t, s, "ana"), mustLinkUser(t, s, "budi")
	px, err := s.CreatePixel(ctx, links.Pixel{UserID: ana.ID, Type: links.PixelFacebook, Name: "fb", Tag: "123456789012345", CreatedAt: at(0)})
	mustOK(t, "CreatePixel", err)
	up, err := s.UpdatePixel(ctx, ana.ID, px.ID, func(p *links.Pixel) error { p.Tag, p.Type = "1234567890123456", links.PixelBing; return nil })
	mustOK(t, "UpdatePixel", err)
	check(t, "updated pixel", up, links.Pixel{ID: px.ID, UserID: ana.ID, Type: links.PixelFacebook, Name: "fb", Tag: "1234567890123456", CreatedAt: at(0).UTC()})
	_, err = s.GetPixel(ctx, budi.ID, px.ID)
	wantErr(t, "GetPixel of another user's", err, links.ErrNotFound)
	wantErr(t, "DeletePixel of another user's", s.DeletePixel(ctx, budi.ID, px.ID), links.ErrNotFound)
	mustOK(t, "DeletePixel", s.DeletePixel(ctx, ana.ID, px.ID))
	_, err = s.GetPixel(ctx, ana.ID, px.ID)
	wantErr(t, "GetPixel after delete", err, links.ErrNotFound)
}
