package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
)

// This file holds the link domain's pixels, QR codes and short links.

var tPixels = ownedTable[links.Pixel]{
	name: "links_pixels", what: "pixel",
	cols: `id, user_id, type, name, tag, created_at`,
	scan: func(row pgx.Row) (links.Pixel, error) {
		var px links.Pixel
		err := row.Scan(&px.ID, &px.UserID, &px.Type, &px.Name, &px.Tag, &px.CreatedAt)
		return px, err
	},
}

// CreatePixel stores px.
func (s *Store) CreatePixel(ctx context.Context, px links.Pixel) (links.Pixel, error) {
	out, err := tPixels.scan(s.pool.QueryRow(ctx, `INSERT INTO links_pixels (user_id, type, name, tag, created_at)
		VALUES ($1, $2, $3, $4, $5) RETURNING `+tPixels.cols, px.UserID, px.Type, px.Name, px.Tag, px.CreatedAt))
	if err != nil {
		return links.Pixel{}, linkErr("create pixel", ownerErr(err, px.UserID))
	}
	return out, nil
}

// GetPixel returns the owner's pixel.
func (s *Store) GetPixel(ctx context.Context, owner, id int64) (links.Pixel, error) {
	px, err := tPixels.get(ctx, s.pool, owner, id, false)
	if err != nil {
		return links.Pixel{}, linkErr("get pixel", err)
	}
	return px, nil
}

// ListPixels returns one page of the owner's pixels, newest first.
func (s *Store) ListPixels(ctx context.Context, owner int64, p links.Page) (links.List[links.Pixel], error) {
	return tPixels.list(ctx, s, owner, p)
}

// UpdatePixel applies fn to the owner's pixel, keeping its type.
func (s *Store) UpdatePixel(ctx context.Context, owner, id int64, fn func(*links.Pixel) error) (links.Pixel, error) {
	var px links.Pixel
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		old, err := tPixels.get(ctx, tx, owner, id, true)
		if err != nil {
			return err
		}
		px = old
		if err := fn(&px); err != nil {
			return err
		}
		px, err = tPixels.scan(tx.QueryRow(ctx, `UPDATE links_pixels SET name = $2, tag = $3
			WHERE id = $1 RETURNING `+tPixels.cols, id, px.Name, px.Tag))
		return err
	})
	if err != nil {
		return links.Pixel{}, linkErr("update pixel", err)
	}
	return px, nil
}

// DeletePixel removes the owner's pixel; the foreign key removes it from the
// links that had it.
func (s *Store) DeletePixel(ctx context.Context, owner, id int64) error {
	if err := tPixels.remove(ctx, s.pool, owner, id); err != nil {
		return linkErr("delete pixel", err)
	}
	return nil
}

// QR codes.

var tQRs = ownedTable[links.QRCode]{
	name: "links_qrcodes", what: "QR code",
	cols: `id, user_id, name, type, data, background, foreground, logo, COALESCE(link_id, 0), scans, created_at, updated_at`,
	scan: func(row pgx.Row) (links.QRCode, error) {
		var q links.QRCode
		var data []byte
		err := row.Scan(&q.ID, &q.UserID, &q.Name, &q.Type, &data, &q.Background, &q.Foreground, &q.Logo,
			&q.LinkID, &q.Scans, &q.CreatedAt, &q.UpdatedAt)
		if len(data) > 0 {
			q.Data = json.RawMessage(data)
		}
		return q, err
	},
}

// qrData returns the bytes stored for data (never NULL).
func qrData(data json.RawMessage) []byte {
	if data == nil {
		return []byte{}
	}
	return data
}

// CreateQR stores q; links.ErrNotFound when q.LinkID is set and is not one of
// the owner's links.
func (s *Store) CreateQR(ctx context.Context, q links.QRCode) (links.QRCode, error) {
	var out links.QRCode
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if q.LinkID != 0 {
			if err := mustOwn(ctx, tx, "links_links", "link", q.UserID, q.LinkID); err != nil {
				return err
			}
		}
		var err error
		out, err = tQRs.scan(tx.QueryRow(ctx, `INSERT INTO links_qrcodes
			(user_id, name, type, data, background, foreground, logo, link_id, scans, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING `+tQRs.cols,
			q.UserID, q.Name, q.Type, qrData(q.Data), q.Background, q.Foreground, q.Logo, nullID(q.LinkID),
			q.Scans, q.CreatedAt, q.UpdatedAt))
		return ownerErr(err, q.UserID)
	})
	if err != nil {
		return links.QRCode{}, linkErr("create QR code", err)
	}
	return out, nil
}

// GetQR returns the owner's QR code.
func (s *Store) GetQR(ctx context.Context, owner, id int64) (links.QRCode, error) {
	q, err := tQRs.get(ctx, s.pool, owner, id, false)
	if err != nil {
		return links.QRCode{}, linkErr("get QR code", err)
	}
	return q, nil
}

// GetQRByID returns the QR code with the id, whoever owns it.
func (s *Store) GetQRByID(ctx context.Context, id int64) (links.QRCode, error) {
	q, err := tQRs.getAny(ctx, s.pool, id)
	if err != nil {
		return links.QRCode{}, linkErr("get QR code", err)
	}
	return q, nil
}

// ListQRs returns one page of the owner's QR codes, newest first.
func (s *Store) ListQRs(ctx context.Context, owner int64, p links.Page) (links.List[links.QRCode], error) {
	return tQRs.list(ctx, s, owner, p)
}

// UpdateQR applies fn to the owner's QR code; a new LinkID must be one of the
// owner's links.
func (s *Store) UpdateQR(ctx context.Context, owner, id int64, fn func(*links.QRCode) error) (links.QRCode, error) {
	var q links.QRCode
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		old, err := tQRs.get(ctx, tx, owner, id, true)
		if err != nil {
			return err
		}
		q = old
		if err := fn(&q); err != nil {
			return err
		}
		if q.LinkID != old.LinkID && q.LinkID != 0 {
			if err := mustOwn(ctx, tx, "links_links", "link", owner, q.LinkID); err != nil {
				return err
			}
		}
		q, err = tQRs.scan(tx.QueryRow(ctx, `UPDATE links_qrcodes SET name = $2, type = $3, data = $4,
			background = $5, foreground = $6, logo = $7, link_id = $8, scans = $9, updated_at = $10
			WHERE id = $1 RETURNING `+tQRs.cols,
			id, q.Name, q.Type, qrData(q.Data), q.Background, q.Foreground, q.Logo, nullID(q.LinkID), q.Scans, q.UpdatedAt))
		return err
	})
	if err != nil {
		return links.QRCode{}, linkErr("update QR code", err)
	}
	return q, nil
}

// DeleteQR removes the owner's QR code and its visits; its channel
// assignments go with it (ON DELETE CASCADE).
func (s *Store) DeleteQR(ctx context.Context, owner, id int64) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := tQRs.remove(ctx, tx, owner, id); err != nil {
			return err
		}
		return deleteVisits(ctx, tx, visits.KindQR, id)
	})
	if err != nil {
		return linkErr("delete QR code", err)
	}
	return nil
}

// Short links.

// linkHead and linkTail are the columns of a link of links_links l around
// its pixel and channel ids.
const (
	linkHead = `l.id, l.user_id, COALESCE(l.domain_id, 0), l.alias, l.long_url, l.title, l.description,
	l.password_hash, l.expires_at, COALESCE(l.campaign_id, 0)`
	linkTail = `l.clicks, l.unique_clicks, l.created_at, l.updated_at`
)

// linkColumns reads a link of links_links l with its pixel and channel ids.
const linkColumns = linkHead + `,
	ARRAY(SELECT p.pixel_id FROM links_link_pixels p WHERE p.link_id = l.id ORDER BY p.pixel_id),
	ARRAY(SELECT c.channel_id FROM links_channel_items c WHERE c.link_id = l.id ORDER BY c.channel_id),
	` + linkTail

// listLinksSQL reads a page of links: the page's rows are picked first (at
// pagePlaceholder), then their pixel and channel ids are gathered for the
// whole page at once, not by one subquery per row.
func listLinksSQL(where, order string) string {
	return `WITH l AS (SELECT *, ` + pageTotal + ` FROM links_links l WHERE ` + where + ` ORDER BY ` + order + ` ` + pagePlaceholder + `)
	SELECT ` + linkHead + `, COALESCE(px.ids, '{}'), COALESCE(ch.ids, '{}'), ` + linkTail + `, l.page_total FROM l
	LEFT JOIN (SELECT link_id, array_agg(pixel_id ORDER BY pixel_id) AS ids FROM links_link_pixels
		WHERE link_id IN (SELECT id FROM l) GROUP BY link_id) px ON px.link_id = l.id
	LEFT JOIN (SELECT link_id, array_agg(channel_id ORDER BY channel_id) AS ids FROM links_channel_items
		WHERE link_id IN (SELECT id FROM l) GROUP BY link_id) ch ON ch.link_id = l.id
	ORDER BY ` + order
}

func scanLink(row pgx.Row) (links.ShortLink, error) {
	var l links.ShortLink
	err := row.Scan(&l.ID, &l.UserID, &l.DomainID, &l.Alias, &l.LongURL, &l.Title, &l.Description,
		&l.PasswordHash, &l.ExpiresAt, &l.CampaignID, &l.PixelIDs, &l.ChannelIDs,
		&l.Clicks, &l.UniqueClicks, &l.CreatedAt, &l.UpdatedAt)
	if len(l.PixelIDs) == 0 {
		l.PixelIDs = nil
	}
	if len(l.ChannelIDs) == 0 {
		l.ChannelIDs = nil
	}
	return l, err
}

// readLink reads the owner's link; links.NotFound when it is missing or
// another user's.
func readLink(ctx context.Context, q querier, owner, id int64) (links.ShortLink, error) {
	l, err := scanLink(q.QueryRow(ctx, `SELECT `+linkColumns+` FROM links_links l WHERE l.id = $1 AND l.user_id = $2`, id, owner))
	if errors.Is(err, pgx.ErrNoRows) {
		return l, links.NotFound("link", id)
	}
	return l, err
}

// aliasErr maps the unique violation of a link's alias to links.ErrAliasTaken
// and a foreign-key violation of its references (a record deleted meanwhile)
// to links.ErrNotFound.
func aliasErr(err error, owner int64) error {
	if c, ok := uniqueViolation(err); ok && c == "links_links_alias_key" {
		return links.ErrAliasTaken
	}
	if c, ok := foreignKeyViolation(err); ok {
		if c == "links_links_user_id_fkey" {
			return links.NotFound("user", owner)
		}
		return fmt.Errorf("a record the link refers to was removed (%s): %w", c, links.ErrNotFound)
	}
	return err
}

// sortedIDs returns ids sorted without duplicates (nil when empty).
func sortedIDs(ids []int64) []int64 {
	if len(ids) == 0 {
		return nil
	}
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

// mustOwnAll returns links.NotFound naming the first of ids (ascending) that
// is not a record of the owner in the table named name.
func mustOwnAll(ctx context.Context, q querier, name, what string, owner int64, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	rows, err := q.Query(ctx, `SELECT id FROM `+name+` WHERE user_id = $1 AND id = ANY($2)`, owner, ids)
	if err != nil {
		return fmt.Errorf("check %ss: %w", what, err)
	}
	owned, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return fmt.Errorf("check %ss: %w", what, err)
	}
	for _, id := range ids {
		if !slices.Contains(owned, id) {
			return links.NotFound(what, id)
		}
	}
	return nil
}

// checkLinkRefs checks that the link's domain, campaign, pixels and channels
// are its owner's, in that order, and normalises its id lists.
func checkLinkRefs(ctx context.Context, q querier, l *links.ShortLink) error {
	if l.DomainID != 0 {
		if err := mustOwn(ctx, q, "links_domains", "domain", l.UserID, l.DomainID); err != nil {
			return err
		}
	}
	if l.CampaignID != 0 {
		if err := mustOwn(ctx, q, "links_campaigns", "campaign", l.UserID, l.CampaignID); err != nil {
			return err
		}
	}
	l.PixelIDs = sortedIDs(l.PixelIDs)
	l.ChannelIDs = sortedIDs(l.ChannelIDs)
	if err := mustOwnAll(ctx, q, "links_pixels", "pixel", l.UserID, l.PixelIDs); err != nil {
		return err
	}
	return mustOwnAll(ctx, q, "links_channels", "channel", l.UserID, l.ChannelIDs)
}

// setLinkRefs makes the link's pixels and channel assignments those of l;
// channels it newly joins are assigned at the given time, in ascending order.
func setLinkRefs(ctx context.Context, tx pgx.Tx, l links.ShortLink, assignedAt any) error {
	pixels, channels := l.PixelIDs, l.ChannelIDs
	if pixels == nil {
		pixels = []int64{}
	}
	if channels == nil {
		channels = []int64{}
	}
	if _, err := tx.Exec(ctx, `DELETE FROM links_link_pixels WHERE link_id = $1 AND pixel_id <> ALL ($2)`,
		l.ID, pixels); err != nil {
		return fmt.Errorf("unset pixels: %w", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO links_link_pixels (link_id, pixel_id)
		SELECT $1, p FROM unnest($2::bigint[]) AS p ON CONFLICT DO NOTHING`, l.ID, pixels); err != nil {
		return fmt.Errorf("set pixels: %w", aliasErr(err, l.UserID))
	}
	if _, err := tx.Exec(ctx, `DELETE FROM links_channel_items WHERE link_id = $1 AND channel_id <> ALL ($2)`,
		l.ID, channels); err != nil {
		return fmt.Errorf("unassign channels: %w", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO links_channel_items (channel_id, link_id, assigned_at)
		SELECT c, $1, $3 FROM unnest($2::bigint[]) WITH ORDINALITY AS u (c, n) ORDER BY n
		ON CONFLICT DO NOTHING`, l.ID, channels, assignedAt); err != nil {
		return fmt.Errorf("assign channels: %w", aliasErr(err, l.UserID))
	}
	return nil
}

// CreateLink stores l, checking its references, and returns it with its
// pixel and channel ids sorted and deduplicated; links.ErrAliasTaken when
// the alias is used on the domain.
func (s *Store) CreateLink(ctx context.Context, l links.ShortLink) (links.ShortLink, error) {
	var out links.ShortLink
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := checkLinkRefs(ctx, tx, &l); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `INSERT INTO links_links (user_id, domain_id, alias, long_url, title, description,
			password_hash, expires_at, campaign_id, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
			l.UserID, nullID(l.DomainID), l.Alias, l.LongURL, l.Title, l.Description, l.PasswordHash,
			l.ExpiresAt, nullID(l.CampaignID), l.CreatedAt, l.UpdatedAt).Scan(&l.ID); err != nil {
			return aliasErr(err, l.UserID)
		}
		if err := setLinkRefs(ctx, tx, l, l.CreatedAt); err != nil {
			return err
		}
		var err error
		out, err = readLink(ctx, tx, l.UserID, l.ID)
		return err
	})
	if err != nil {
		return links.ShortLink{}, linkErr("create link", err)
	}
	return out, nil
}

// GetLink returns the owner's link.
func (s *Store) GetLink(ctx context.Context, owner, id int64) (links.ShortLink, error) {
	l, err := readLink(ctx, s.pool, owner, id)
	if err != nil {
		return links.ShortLink{}, linkErr("get link", err)
	}
	return l, nil
}

// GetLinkByAlias returns the link of the domain (0: the short host) with the
// alias, whoever owns it.
func (s *Store) GetLinkByAlias(ctx context.Context, domainID int64, alias string) (links.ShortLink, error) {
	var row pgx.Row
	if domainID == 0 {
		row = s.pool.QueryRow(ctx, `SELECT `+linkColumns+` FROM links_links l
			WHERE l.domain_id IS NULL AND l.alias = $1`, alias)
	} else {
		row = s.pool.QueryRow(ctx, `SELECT `+linkColumns+` FROM links_links l
			WHERE l.domain_id = $1 AND l.alias = $2`, domainID, alias)
	}
	l, err := scanLink(row)
	if errors.Is(err, pgx.ErrNoRows) {
		err = fmt.Errorf("alias %q of domain %d: %w", alias, domainID, links.ErrNotFound)
	}
	if err != nil {
		return links.ShortLink{}, linkErr("get link by alias", err)
	}
	return l, nil
}

// ListLinks returns one page of the owner's links matching f, newest first,
// or with the most clicks first (then newest) for links.OrderClicks.
func (s *Store) ListLinks(ctx context.Context, owner int64, f links.LinkFilter, p links.Page) (links.List[links.ShortLink], error) {
	where, args := `l.user_id = $1`, []any{owner}
	if f.CampaignID != 0 {
		args = append(args, f.CampaignID)
		where += ` AND l.campaign_id = $` + strconv.Itoa(len(args))
	}
	if f.DomainID > 0 {
		args = append(args, f.DomainID)
		where += ` AND l.domain_id = $` + strconv.Itoa(len(args))
	}
	if f.Search != "" {
		args = append(args, f.Search)
		n := `$` + strconv.Itoa(len(args))
		where += ` AND (strpos(lower(l.alias), ` + n + `) > 0 OR strpos(lower(l.long_url), ` + n + `) > 0 OR strpos(lower(l.title), ` + n + `) > 0)`
	}
	order := `l.id DESC`
	if f.Order == links.OrderClicks {
		order = `l.clicks DESC, l.id DESC`
	}
	l, err := readPage(ctx, s.pool, p, `SELECT count(*) FROM links_links l WHERE `+where,
		listLinksSQL(where, order), args, scanLink)
	if err != nil {
		return l, linkErr("list links", err)
	}
	return l, nil
}

// UpdateLink applies fn to the owner's link, checking its references as
// CreateLink does; changes of fn to Clicks and UniqueClicks are ignored.
// Channels the link newly joins are assigned at its UpdatedAt.
func (s *Store) UpdateLink(ctx context.Context, owner, id int64, fn func(*links.ShortLink) error) (links.ShortLink, error) {
	var out links.ShortLink
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT 1 FROM links_links WHERE id = $1 AND user_id = $2 FOR UPDATE`, id, owner); err != nil {
			return err
		}
		old, err := readLink(ctx, tx, owner, id)
		if err != nil {
			return err
		}
		l := old
		l.PixelIDs, l.ChannelIDs = slices.Clone(old.PixelIDs), slices.Clone(old.ChannelIDs)
		if err := fn(&l); err != nil {
			return err
		}
		l.ID, l.UserID, l.CreatedAt, l.Clicks, l.UniqueClicks = old.ID, old.UserID, old.CreatedAt, old.Clicks, old.UniqueClicks
		if err := checkLinkRefs(ctx, tx, &l); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE links_links SET domain_id = $2, alias = $3, long_url = $4, title = $5,
			description = $6, password_hash = $7, expires_at = $8, campaign_id = $9, updated_at = $10
			WHERE id = $1`,
			id, nullID(l.DomainID), l.Alias, l.LongURL, l.Title, l.Description, l.PasswordHash, l.ExpiresAt,
			nullID(l.CampaignID), l.UpdatedAt); err != nil {
			return aliasErr(err, owner)
		}
		if err := setLinkRefs(ctx, tx, l, l.UpdatedAt); err != nil {
			return err
		}
		out, err = readLink(ctx, tx, owner, id)
		return err
	})
	if err != nil {
		return links.ShortLink{}, linkErr("update link", err)
	}
	return out, nil
}

// DeleteLink removes the owner's link and its visits. Its pixel and channel
// assignments go with it and QR codes pointing through it lose their LinkID
// (foreign keys).
func (s *Store) DeleteLink(ctx context.Context, owner, id int64) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := (ownedTable[links.ShortLink]{name: "links_links", what: "link"}).remove(ctx, tx, owner, id); err != nil {
			return err
		}
		return deleteVisits(ctx, tx, visits.KindLink, id)
	})
	if err != nil {
		return linkErr("delete link", err)
	}
	return nil
}
