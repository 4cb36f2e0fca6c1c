package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
)

// This file holds the link domain's short links.

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
