package bolt

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
)

// aliasKey is the key of bucketLinkLinksByAlias.
func aliasKey(domainID int64, alias string) []byte { return append(id8(domainID), alias...) }

// checkLinkRefs checks that the link's references are the owner's and
// normalises its id lists (sorted, without duplicates).
func checkLinkRefs(tx *bbolt.Tx, l *links.ShortLink) error {
	if l.DomainID != 0 {
		if err := tDomains.mustOwn(tx, l.UserID, l.DomainID); err != nil {
			return err
		}
	}
	if l.CampaignID != 0 {
		if err := tCampaigns.mustOwn(tx, l.UserID, l.CampaignID); err != nil {
			return err
		}
	}
	l.PixelIDs = sortedIDs(l.PixelIDs)
	l.ChannelIDs = sortedIDs(l.ChannelIDs)
	for _, id := range l.PixelIDs {
		if err := tPixels.mustOwn(tx, l.UserID, id); err != nil {
			return err
		}
	}
	for _, id := range l.ChannelIDs {
		if err := tChannels.mustOwn(tx, l.UserID, id); err != nil {
			return err
		}
	}
	return nil
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

// putLink writes l; ChannelIDs are kept only as channel items.
func putLink(tx *bbolt.Tx, l links.ShortLink) error {
	l.ChannelIDs = nil
	return putOwned(tx, tLinks, l.ID, l)
}

// readLink reads the owner's link with its channel ids.
func readLink(tx *bbolt.Tx, owner, id int64) (links.ShortLink, error) {
	if err := tLinks.mustOwn(tx, owner, id); err != nil {
		return links.ShortLink{}, err
	}
	return newLinkReader(tx).read(id)
}

// linkReader reads links with their channel ids in one transaction, its
// buckets looked up once: for the ids of an owner's index, whose ownership
// needs no check per link.
type linkReader struct{ recs, byItem *bbolt.Bucket }

func newLinkReader(tx *bbolt.Tx) linkReader {
	return linkReader{tx.Bucket(bucketLinkLinks), tx.Bucket(bucketLinkItemsByItem)}
}

// read returns link id with its channel ids.
func (r linkReader) read(id int64) (links.ShortLink, error) {
	l, err := readIndexed[links.ShortLink](r.recs, tLinks, id)
	if err != nil {
		return l, err
	}
	l.ChannelIDs, err = itemChannels(r.byItem, links.ItemLink, id)
	return l, err
}

// CreateLink stores l.
func (s *Store) CreateLink(ctx context.Context, l links.ShortLink) (links.ShortLink, error) {
	l.CreatedAt, l.UpdatedAt, l.ExpiresAt = ts(l.CreatedAt), ts(l.UpdatedAt), tsPtr(l.ExpiresAt)
	err := s.update(ctx, "create link", func(tx *bbolt.Tx) error {
		if err := checkLinkRefs(tx, &l); err != nil {
			return err
		}
		byAlias := tx.Bucket(bucketLinkLinksByAlias)
		if byAlias.Get(aliasKey(l.DomainID, l.Alias)) != nil {
			return links.ErrAliasTaken
		}
		channels := l.ChannelIDs
		campaign := l.CampaignID
		l.CampaignID = 0
		id, err := insert(tx, tLinks, l.UserID, func(id int64) { l.ID = id }, &l)
		if err != nil {
			return err
		}
		if err := setLinkCampaign(tx, &l, campaign); err != nil {
			return err
		}
		if err := putLink(tx, l); err != nil {
			return err
		}
		for _, ch := range channels {
			if err := assignItem(tx, ch, links.ItemLink, id, l.CreatedAt); err != nil {
				return err
			}
		}
		l.ChannelIDs = channels
		return byAlias.Put(aliasKey(l.DomainID, l.Alias), id8(id))
	})
	return l, err
}

// GetLink returns the owner's link.
func (s *Store) GetLink(ctx context.Context, owner, id int64) (links.ShortLink, error) {
	var l links.ShortLink
	err := s.view(ctx, "get link", func(tx *bbolt.Tx) error {
		var err error
		l, err = readLink(tx, owner, id)
		return err
	})
	return l, err
}

// GetLinkByAlias returns the link of the domain with the alias.
func (s *Store) GetLinkByAlias(ctx context.Context, domainID int64, alias string) (links.ShortLink, error) {
	var l links.ShortLink
	err := s.view(ctx, "get link by alias", func(tx *bbolt.Tx) error {
		id := tx.Bucket(bucketLinkLinksByAlias).Get(aliasKey(domainID, alias))
		if id == nil {
			return fmt.Errorf("alias %q of domain %d: %w", alias, domainID, links.ErrNotFound)
		}
		var rec links.ShortLink
		ok, err := getJSON(tx.Bucket(bucketLinkLinks), id, &rec)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("alias %q is indexed but missing", alias)
		}
		l, err = readLink(tx, rec.UserID, rec.ID)
		return err
	})
	return l, err
}

// ListLinks returns one page of the owner's matching links.
func (s *Store) ListLinks(ctx context.Context, owner int64, f links.LinkFilter, p links.Page) (links.List[links.ShortLink], error) {
	var l links.List[links.ShortLink]
	err := s.view(ctx, "list links", func(tx *bbolt.Tx) error {
		ids := tLinks.ownedIDs(tx, owner)
		if f.CampaignID != 0 {
			idx := tx.Bucket(bucketLinkLinksByCamp)
			ids = slices.DeleteFunc(ids, func(id int64) bool { return idx.Get(id8(f.CampaignID, id)) == nil })
		}
		recs := tx.Bucket(bucketLinkLinks)
		if f.DomainID > 0 || f.Search != "" {
			var kept []int64
			prefilter := rawSearchable(f.Search)
			for _, id := range ids {
				if prefilter && !bytes.Contains(bytes.ToLower(recs.Get(id8(id))), []byte(f.Search)) {
					continue // the record's JSON does not hold the text: no field of it does
				}
				v, err := readIndexed[links.ShortLink](recs, tLinks, id)
				if err != nil {
					return err
				}
				if f.Matches(v) {
					kept = append(kept, id)
				}
			}
			ids = kept
		}
		if f.Order == links.OrderClicks {
			all := make([]links.ShortLink, 0, len(ids))
			for _, id := range ids {
				v, err := readIndexed[links.ShortLink](recs, tLinks, id)
				if err != nil {
					return err
				}
				all = append(all, v)
			}
			slices.SortStableFunc(all, func(a, b links.ShortLink) int { return cmp.Compare(b.Clicks, a.Clicks) })
			for i := range all {
				ids[i] = all[i].ID
			}
		}
		var err error
		l, err = pageOf(ids, p, newLinkReader(tx).read)
		return err
	})
	return l, err
}

// rawSearchable reports whether the (lower-case) search text s can be
// looked for in a record's JSON as it is: a text that encoding/json writes
// unchanged (no quote, backslash, <, >, &, control character or line or
// paragraph separator, which it escapes). A record whose JSON does not hold
// such a text has no field that does, and is skipped without decoding.
func rawSearchable(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return r < 0x20 || strings.ContainsRune("\"\\<>&\u2028\u2029", r)
	})
}

// UpdateLink applies fn to the owner's link, re-indexing alias, campaign and channels.
func (s *Store) UpdateLink(ctx context.Context, owner, id int64, fn func(*links.ShortLink) error) (links.ShortLink, error) {
	var l links.ShortLink
	err := s.update(ctx, "update link", func(tx *bbolt.Tx) error {
		old, err := readLink(tx, owner, id)
		if err != nil {
			return err
		}
		l = old
		l.PixelIDs, l.ChannelIDs = slices.Clone(old.PixelIDs), slices.Clone(old.ChannelIDs)
		if err := fn(&l); err != nil {
			return err
		}
		l.ID, l.UserID, l.CreatedAt, l.Clicks, l.UniqueClicks = old.ID, old.UserID, old.CreatedAt, old.Clicks, old.UniqueClicks
		l.UpdatedAt, l.ExpiresAt = ts(l.UpdatedAt), tsPtr(l.ExpiresAt)
		if err := checkLinkRefs(tx, &l); err != nil {
			return err
		}
		byAlias := tx.Bucket(bucketLinkLinksByAlias)
		if oldKey, newKey := aliasKey(old.DomainID, old.Alias), aliasKey(l.DomainID, l.Alias); string(oldKey) != string(newKey) {
			if byAlias.Get(newKey) != nil {
				return links.ErrAliasTaken
			}
			if err := byAlias.Delete(oldKey); err != nil {
				return err
			}
			if err := byAlias.Put(newKey, id8(id)); err != nil {
				return err
			}
		}
		campaign := l.CampaignID
		l.CampaignID = old.CampaignID
		if err := setLinkCampaign(tx, &l, campaign); err != nil {
			return err
		}
		for _, ch := range old.ChannelIDs {
			if !slices.Contains(l.ChannelIDs, ch) {
				if err := unassignItem(tx, ch, links.ItemLink, id); err != nil {
					return err
				}
			}
		}
		for _, ch := range l.ChannelIDs {
			if err := assignItem(tx, ch, links.ItemLink, id, l.UpdatedAt); err != nil {
				return err
			}
		}
		return putLink(tx, l)
	})
	return l, err
}

// DeleteLink removes the owner's link, its indexes, channel assignments and
// visits; QR codes through it lose their LinkID.
func (s *Store) DeleteLink(ctx context.Context, owner, id int64) error {
	return s.update(ctx, "delete link", func(tx *bbolt.Tx) error {
		l, err := getOwned[links.ShortLink](tx, tLinks, owner, id)
		if err != nil {
			return err
		}
		if err := unassignEverywhere(tx, links.ItemLink, id); err != nil {
			return err
		}
		if err := setLinkCampaign(tx, &l, 0); err != nil {
			return err
		}
		if err := tx.Bucket(bucketLinkLinksByAlias).Delete(aliasKey(l.DomainID, l.Alias)); err != nil {
			return err
		}
		qrIdx := tx.Bucket(bucketLinkQRsByLink)
		var qrKeys [][]byte
		if err := scanPrefix(qrIdx, id8(id), func(k, _ []byte) (bool, error) {
			qrKeys = append(qrKeys, append([]byte(nil), k...))
			return true, nil
		}); err != nil {
			return err
		}
		for _, k := range qrKeys {
			qrID := readID(k[8:])
			q, err := getOwned[links.QRCode](tx, tQRs, owner, qrID)
			if err != nil {
				return err
			}
			q.LinkID = 0
			if err := putOwned(tx, tQRs, qrID, q); err != nil {
				return err
			}
			if err := qrIdx.Delete(k); err != nil {
				return err
			}
		}
		if err := deleteVisits(tx, visits.KindLink, id); err != nil {
			return err
		}
		return tLinks.remove(tx, owner, id)
	})
}
