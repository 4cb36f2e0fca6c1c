package bolt

import (
	"context"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/links"
)

// CreateChannel stores c.
func (s *Store) CreateChannel(ctx context.Context, c links.Channel) (links.Channel, error) {
	c.CreatedAt = ts(c.CreatedAt)
	err := s.update(ctx, "create channel", func(tx *bbolt.Tx) error {
		_, err := insert(tx, tChannels, c.UserID, func(id int64) { c.ID = id }, &c)
		return err
	})
	return c, err
}

// GetChannel returns the owner's channel.
func (s *Store) GetChannel(ctx context.Context, owner, id int64) (links.Channel, error) {
	return getOne[links.Channel](s, ctx, tChannels, owner, id)
}

// ListChannels returns one page of the owner's channels.
func (s *Store) ListChannels(ctx context.Context, owner int64, p links.Page) (links.List[links.Channel], error) {
	return listOwned[links.Channel](s, ctx, tChannels, owner, p)
}

// UpdateChannel applies fn to the owner's channel.
func (s *Store) UpdateChannel(ctx context.Context, owner, id int64, fn func(*links.Channel) error) (links.Channel, error) {
	var c links.Channel
	err := s.update(ctx, "update channel", func(tx *bbolt.Tx) error {
		old, err := getOwned[links.Channel](tx, tChannels, owner, id)
		if err != nil {
			return err
		}
		c = old
		if err := fn(&c); err != nil {
			return err
		}
		c.ID, c.UserID, c.CreatedAt = old.ID, old.UserID, old.CreatedAt
		return putOwned(tx, tChannels, id, c)
	})
	return c, err
}

// DeleteChannel removes the owner's channel and its item assignments.
func (s *Store) DeleteChannel(ctx context.Context, owner, id int64) error {
	return s.update(ctx, "delete channel", func(tx *bbolt.Tx) error {
		if err := tChannels.mustOwn(tx, owner, id); err != nil {
			return err
		}
		items := tx.Bucket(bucketLinkChannelItems)
		type entry struct {
			key  []byte
			item channelItem
		}
		var es []entry
		if err := scanPrefix(items, id8(id), func(k, v []byte) (bool, error) {
			var it channelItem
			if err := decodeJSON(k, v, &it); err != nil {
				return false, err
			}
			es = append(es, entry{append([]byte(nil), k...), it})
			return true, nil
		}); err != nil {
			return err
		}
		for _, e := range es {
			if err := items.Delete(e.key); err != nil {
				return err
			}
			if err := tx.Bucket(bucketLinkItemsByItem).Delete(itemKey(e.item.Type, e.item.ItemID, id)); err != nil {
				return err
			}
		}
		return tChannels.remove(tx, owner, id)
	})
}

// channelItem is the value of an assignment in bucketLinkChannelItems.
type channelItem struct {
	Type       links.ItemType
	ItemID     int64
	AssignedAt time.Time
}

// itemKey is the key of bucketLinkItemsByItem: (type, item, channel), or its
// (type, item) prefix when channel is 0.
func itemKey(t links.ItemType, item, channel int64) []byte {
	k := append([]byte(t), 0)
	k = append(k, id8(item)...)
	if channel != 0 {
		k = append(k, id8(channel)...)
	}
	return k
}

// assignItem assigns an item to a channel unless it is assigned already.
func assignItem(tx *bbolt.Tx, channelID int64, t links.ItemType, itemID int64, at time.Time) error {
	byItem := tx.Bucket(bucketLinkItemsByItem)
	if byItem.Get(itemKey(t, itemID, channelID)) != nil {
		return nil
	}
	items := tx.Bucket(bucketLinkChannelItems)
	seq, err := items.NextSequence()
	if err != nil {
		return err
	}
	if err := putJSON(items, id8(channelID, int64(seq)), channelItem{Type: t, ItemID: itemID, AssignedAt: ts(at)}); err != nil {
		return err
	}
	return byItem.Put(itemKey(t, itemID, channelID), id8(int64(seq)))
}

// unassignItem removes the item from the channel when assigned.
func unassignItem(tx *bbolt.Tx, channelID int64, t links.ItemType, itemID int64) error {
	byItem := tx.Bucket(bucketLinkItemsByItem)
	k := itemKey(t, itemID, channelID)
	seq := byItem.Get(k)
	if seq == nil {
		return nil
	}
	if err := tx.Bucket(bucketLinkChannelItems).Delete(append(id8(channelID), seq...)); err != nil {
		return err
	}
	return byItem.Delete(k)
}

// itemChannels returns the ids of the channels the item is assigned to,
// ascending, from byItem (the bucketLinkItemsByItem index).
func itemChannels(byItem *bbolt.Bucket, t links.ItemType, itemID int64) ([]int64, error) {
	prefix := itemKey(t, itemID, 0)
	var out []int64
	err := scanPrefix(byItem, prefix, func(k, _ []byte) (bool, error) {
		out = append(out, readID(k[len(prefix):]))
		return true, nil
	})
	return out, err
}

// unassignEverywhere removes the item from every channel.
func unassignEverywhere(tx *bbolt.Tx, t links.ItemType, itemID int64) error {
	chs, err := itemChannels(tx.Bucket(bucketLinkItemsByItem), t, itemID)
	if err != nil {
		return err
	}
	for _, ch := range chs {
		if err := unassignItem(tx, ch, t, itemID); err != nil {
			return err
		}
	}
	return nil
}

// itemTable returns the table of an assignable item type.
func itemTable(t links.ItemType) (table, error) {
	switch t {
	case links.ItemLink:
		return tLinks, nil
	case links.ItemQR:
		return tQRs, nil
	}
	return table{}, fmt.Errorf("items of type %q cannot be assigned: %w", t, links.ErrInvalid)
}

// AssignChannelItem adds the owner's item to the owner's channel.
func (s *Store) AssignChannelItem(ctx context.Context, owner, channelID int64, t links.ItemType, itemID int64, at time.Time) error {
	return s.update(ctx, "assign channel item", func(tx *bbolt.Tx) error {
		if err := tChannels.mustOwn(tx, owner, channelID); err != nil {
			return err
		}
		tt, err := itemTable(t)
		if err != nil {
			return err
		}
		if err := tt.mustOwn(tx, owner, itemID); err != nil {
			return err
		}
		return assignItem(tx, channelID, t, itemID, at)
	})
}

// ListChannelItems returns one page of the channel's items, newest assignment first.
func (s *Store) ListChannelItems(ctx context.Context, owner, channelID int64, p links.Page) (links.List[links.ChannelItem], error) {
	var l links.List[links.ChannelItem]
	err := s.view(ctx, "list channel items", func(tx *bbolt.Tx) error {
		if err := tChannels.mustOwn(tx, owner, channelID); err != nil {
			return err
		}
		var keys [][]byte
		if err := scanPrefix(tx.Bucket(bucketLinkChannelItems), id8(channelID), func(k, _ []byte) (bool, error) {
			keys = append(keys, k)
			return true, nil
		}); err != nil {
			return err
		}
		ids := make([]int64, len(keys)) // positions, newest first
		for i := range keys {
			ids[i] = int64(len(keys) - 1 - i)
		}
		var err error
		l, err = pageOf(ids, p, func(i int64) (links.ChannelItem, error) {
			k := keys[i]
			var it channelItem
			if err := decodeJSON(k, tx.Bucket(bucketLinkChannelItems).Get(k), &it); err != nil {
				return links.ChannelItem{}, err
			}
			out := links.ChannelItem{Type: it.Type, ItemID: it.ItemID, AssignedAt: it.AssignedAt}
			switch it.Type {
			case links.ItemLink:
				v, err := getOwned[links.ShortLink](tx, tLinks, owner, it.ItemID)
				if err != nil {
					return out, err
				}
				out.Title, out.Alias, out.DomainID, out.CreatedAt = v.Title, v.Alias, v.DomainID, v.CreatedAt
				if out.Title == "" {
					out.Title = v.Alias
				}
			case links.ItemQR:
				v, err := getOwned[links.QRCode](tx, tQRs, owner, it.ItemID)
				if err != nil {
					return out, err
				}
				out.Title, out.CreatedAt = v.Name, v.CreatedAt
			}
			return out, nil
		})
		return err
	})
	return l, err
}
