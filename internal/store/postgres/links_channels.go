package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/links"
)

var tChannels = ownedTable[links.Channel]{
	name: "links_channels", what: "channel",
	cols: `id, user_id, name, description, color, starred, created_at`,
	scan: func(row pgx.Row) (links.Channel, error) {
		var c links.Channel
		err := row.Scan(&c.ID, &c.UserID, &c.Name, &c.Description, &c.Color, &c.Starred, &c.CreatedAt)
		return c, err
	},
}

// CreateChannel stores c.
func (s *Store) CreateChannel(ctx context.Context, c links.Channel) (links.Channel, error) {
	out, err := tChannels.scan(s.pool.QueryRow(ctx, `INSERT INTO links_channels
		(user_id, name, description, color, starred, created_at)
		VALUES ($1, $2, $3, $4, $5, $6) RETURNING `+tChannels.cols,
		c.UserID, c.Name, c.Description, c.Color, c.Starred, c.CreatedAt))
	if err != nil {
		return links.Channel{}, linkErr("create channel", ownerErr(err, c.UserID))
	}
	return out, nil
}

// GetChannel returns the owner's channel.
func (s *Store) GetChannel(ctx context.Context, owner, id int64) (links.Channel, error) {
	c, err := tChannels.get(ctx, s.pool, owner, id, false)
	if err != nil {
		return links.Channel{}, linkErr("get channel", err)
	}
	return c, nil
}

// ListChannels returns one page of the owner's channels, newest first.
func (s *Store) ListChannels(ctx context.Context, owner int64, p links.Page) (links.List[links.Channel], error) {
	return tChannels.list(ctx, s, owner, p)
}

// UpdateChannel applies fn to the owner's channel.
func (s *Store) UpdateChannel(ctx context.Context, owner, id int64, fn func(*links.Channel) error) (links.Channel, error) {
	var c links.Channel
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		old, err := tChannels.get(ctx, tx, owner, id, true)
		if err != nil {
			return err
		}
		c = old
		if err := fn(&c); err != nil {
			return err
		}
		c, err = tChannels.scan(tx.QueryRow(ctx, `UPDATE links_channels SET name = $2, description = $3, color = $4,
			starred = $5 WHERE id = $1 RETURNING `+tChannels.cols, id, c.Name, c.Description, c.Color, c.Starred))
		return err
	})
	if err != nil {
		return links.Channel{}, linkErr("update channel", err)
	}
	return c, nil
}

// DeleteChannel removes the owner's channel; its item assignments go with it
// (ON DELETE CASCADE).
func (s *Store) DeleteChannel(ctx context.Context, owner, id int64) error {
	if err := tChannels.remove(ctx, s.pool, owner, id); err != nil {
		return linkErr("delete channel", err)
	}
	return nil
}

// itemColumn returns the column of links_channel_items holding items of type
// t, with the table and word of the item.
func itemColumn(t links.ItemType) (column, table, what string, err error) {
	switch t {
	case links.ItemLink:
		return "link_id", "links_links", "link", nil
	case links.ItemQR:
		return "qr_id", "links_qrcodes", "QR code", nil
	}
	return "", "", "", fmt.Errorf("items of type %q cannot be assigned: %w", t, links.ErrInvalid)
}

// AssignChannelItem adds the owner's item to the owner's channel at the given
// time; assigning an item twice keeps the first assignment.
func (s *Store) AssignChannelItem(ctx context.Context, owner, channelID int64, t links.ItemType, itemID int64, at time.Time) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := mustOwn(ctx, tx, "links_channels", "channel", owner, channelID); err != nil {
			return err
		}
		col, table, what, err := itemColumn(t)
		if err != nil {
			return err
		}
		if err := mustOwn(ctx, tx, table, what, owner, itemID); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO links_channel_items (channel_id, `+col+`, assigned_at)
			VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, channelID, itemID, at)
		return err
	})
	if err != nil {
		return linkErr("assign channel item", err)
	}
	return nil
}

// channelItemsSQL reads the items of channel $1 with what they show of the
// link or QR code, newest assignment first.
const channelItemsSQL = `SELECT ci.link_id IS NOT NULL, COALESCE(ci.link_id, ci.qr_id),
		CASE WHEN ci.link_id IS NOT NULL THEN CASE WHEN l.title = '' THEN l.alias ELSE l.title END ELSE q.name END,
		COALESCE(l.alias, ''), COALESCE(l.domain_id, 0), COALESCE(l.created_at, q.created_at), ci.assigned_at,
		` + pageTotal + `
	FROM links_channel_items ci
	LEFT JOIN links_links l ON l.id = ci.link_id
	LEFT JOIN links_qrcodes q ON q.id = ci.qr_id
	WHERE ci.channel_id = $1
	ORDER BY ci.id DESC`

func scanChannelItem(row pgx.Row) (links.ChannelItem, error) {
	var it links.ChannelItem
	var isLink bool
	err := row.Scan(&isLink, &it.ItemID, &it.Title, &it.Alias, &it.DomainID, &it.CreatedAt, &it.AssignedAt)
	it.Type = links.ItemQR
	if isLink {
		it.Type = links.ItemLink
	}
	return it, err
}

// ListChannelItems returns one page of the items of the owner's channel,
// newest assignment first.
func (s *Store) ListChannelItems(ctx context.Context, owner, channelID int64, p links.Page) (links.List[links.ChannelItem], error) {
	var l links.List[links.ChannelItem]
	err := s.readTx(ctx, func(tx pgx.Tx) error {
		if err := mustOwn(ctx, tx, "links_channels", "channel", owner, channelID); err != nil {
			return err
		}
		var err error
		l, err = readPage(ctx, tx, p, `SELECT count(*) FROM links_channel_items WHERE channel_id = $1`,
			channelItemsSQL, []any{channelID}, scanChannelItem)
		return err
	})
	if err != nil {
		return l, linkErr("list channel items", err)
	}
	return l, nil
}
