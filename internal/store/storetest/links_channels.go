package storetest

import (
	"testing"
	"time"

	"github.com/seedhq/portal/internal/links"
)

func testLinkChannels(t *testing.T, s links.Store) {
	ctx := t.Context()
	ana, budi := mustLinkUser(t, s, "ana"), mustLinkUser(t, s, "budi")
	ch, err := s.CreateChannel(ctx, links.Channel{UserID: ana.ID, Name: "News", Color: "#FF0000", Starred: true, CreatedAt: at(0)})
	mustOK(t, "CreateChannel", err)
	l := mustLink(t, s, links.ShortLink{UserID: ana.ID, Alias: "one", Title: "One"})
	q, err := s.CreateQR(ctx, links.QRCode{UserID: ana.ID, Name: "qr", Type: links.QRText, Data: []byte(`"hi"`), CreatedAt: at(time.Hour), UpdatedAt: at(time.Hour)})
	mustOK(t, "CreateQR", err)
	bl := mustLink(t, s, links.ShortLink{UserID: budi.ID, Alias: "two"})
	wantErr(t, "assign another user's link", s.AssignChannelItem(ctx, ana.ID, ch.ID, links.ItemLink, bl.ID, at(0)), links.ErrNotFound)
	wantErr(t, "assign to another user's channel", s.AssignChannelItem(ctx, budi.ID, ch.ID, links.ItemLink, bl.ID, at(0)), links.ErrNotFound)
	mustOK(t, "assign link", s.AssignChannelItem(ctx, ana.ID, ch.ID, links.ItemLink, l.ID, at(time.Minute)))
	mustOK(t, "assign QR", s.AssignChannelItem(ctx, ana.ID, ch.ID, links.ItemQR, q.ID, at(2*time.Minute)))
	mustOK(t, "assign link again", s.AssignChannelItem(ctx, ana.ID, ch.ID, links.ItemLink, l.ID, at(3*time.Minute)))
	items, err := s.ListChannelItems(ctx, ana.ID, ch.ID, p1)
	mustOK(t, "ListChannelItems", err)
	check(t, "channel items", items.Items, []links.ChannelItem{
		{Type: links.ItemQR, ItemID: q.ID, Title: "qr", CreatedAt: at(time.Hour).UTC(), AssignedAt: at(2 * time.Minute).UTC()},
		{Type: links.ItemLink, ItemID: l.ID, Title: "One", Alias: "one", CreatedAt: at(0).UTC(), AssignedAt: at(time.Minute).UTC()},
	})
	got, err := s.GetLink(ctx, ana.ID, l.ID)
	mustOK(t, "GetLink", err)
	check(t, "channels of the link", got.ChannelIDs, []int64{ch.ID})
	checkListedLinks(t, s, ana.ID)
	_, err = s.ListChannelItems(ctx, budi.ID, ch.ID, p1)
	wantErr(t, "ListChannelItems of another user's channel", err, links.ErrNotFound)

	mustOK(t, "DeleteChannel", s.DeleteChannel(ctx, ana.ID, ch.ID))
	got, err = s.GetLink(ctx, ana.ID, l.ID)
	mustOK(t, "GetLink", err)
	check(t, "channels of the link after DeleteChannel", len(got.ChannelIDs), 0)
	_, err = s.GetChannel(ctx, ana.ID, ch.ID)
	wantErr(t, "GetChannel after delete", err, links.ErrNotFound)

	ch2, err := s.CreateChannel(ctx, links.Channel{UserID: ana.ID, Name: "Two", CreatedAt: at(0)})
	mustOK(t, "CreateChannel", err)
	l2 := mustLink(t, s, links.ShortLink{UserID: ana.ID, Alias: "three", ChannelIDs: []int64{ch2.ID}})
	check(t, "channels given at create", l2.ChannelIDs, []int64{ch2.ID})
	_, err = s.UpdateLink(ctx, ana.ID, l2.ID, func(l *links.ShortLink) error { l.ChannelIDs = nil; return nil })
	mustOK(t, "UpdateLink without channels", err)
	items, err = s.ListChannelItems(ctx, ana.ID, ch2.ID, p1)
	mustOK(t, "ListChannelItems", err)
	check(t, "items after unassigning by update", items.Total, 0)
	mustOK(t, "assign QR", s.AssignChannelItem(ctx, ana.ID, ch2.ID, links.ItemQR, q.ID, at(0)))
	mustOK(t, "DeleteQR", s.DeleteQR(ctx, ana.ID, q.ID))
	items, err = s.ListChannelItems(ctx, ana.ID, ch2.ID, p1)
	mustOK(t, "ListChannelItems", err)
	check(t, "items after DeleteQR", items.Total, 0)
	up, err := s.UpdateChannel(ctx, ana.ID, ch2.ID, func(c *links.Channel) error { c.Starred = true; return nil })
	mustOK(t, "UpdateChannel", err)
	check(t, "starred", up.Starred, true)
}
