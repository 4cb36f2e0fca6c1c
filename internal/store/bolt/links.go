package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/links"
)

var _ links.Store = (*Store)(nil)

// Buckets of the link domain. Records are JSON values keyed by their 8-byte
// big-endian id, assigned with the record bucket's NextSequence. Each owned
// record type has a by-owner index keyed (owner id, record id), scanned
// backwards for newest-first lists.
var (
	bucketLinkUsers          = []byte("links_users")
	bucketLinkUsersByEmail   = []byte("links_users_by_email")    // email -> user id
	bucketLinkUsersByName    = []byte("links_users_by_username") // username -> user id
	bucketLinkKeys           = []byte("links_api_keys")          // user id -> APIKey
	bucketLinkKeysByHash     = []byte("links_api_keys_by_hash")  // hash -> user id
	bucketLinkDomains        = []byte("links_domains")
	bucketLinkDomainsByOwner = []byte("links_domains_by_owner")
	bucketLinkDomainsByHost  = []byte("links_domains_by_host") // host -> domain id
	bucketLinkOverlays       = []byte("links_overlays")
	bucketLinkOverlaysByOwn  = []byte("links_overlays_by_owner")
	bucketLinkSplashes       = []byte("links_splashes")
	bucketLinkSplashesByOwn  = []byte("links_splashes_by_owner")
	bucketLinkCampaigns      = []byte("links_campaigns")
	bucketLinkCampaignsByOwn = []byte("links_campaigns_by_owner")
	bucketLinkCampaignsBySlg = []byte("links_campaigns_by_slug") // slug -> campaign id
	bucketLinkChannels       = []byte("links_channels")
	bucketLinkChannelsByOwn  = []byte("links_channels_by_owner")
	bucketLinkChannelItems   = []byte("links_channel_items")         // (channel, seq) -> channelItem
	bucketLinkItemsByItem    = []byte("links_channel_items_by_item") // (type byte, item, channel) -> seq
	bucketLinkPixels         = []byte("links_pixels")
	bucketLinkPixelsByOwner  = []byte("links_pixels_by_owner")
	bucketLinkQRs            = []byte("links_qrs")
	bucketLinkQRsByOwner     = []byte("links_qrs_by_owner")
	bucketLinkQRsByLink      = []byte("links_qrs_by_link") // (link, qr) -> empty
	bucketLinkLinks          = []byte("links_links")
	bucketLinkLinksByOwner   = []byte("links_links_by_owner")
	bucketLinkLinksByAlias   = []byte("links_links_by_alias")    // (domain, alias) -> link id
	bucketLinkLinksByCamp    = []byte("links_links_by_campaign") // (campaign, link) -> empty
	bucketLinkRateLimits     = []byte("links_rate_limits")       // (key tuple, window unix) -> count
)

func init() {
	allBuckets = append(allBuckets,
		bucketLinkUsers, bucketLinkUsersByEmail, bucketLinkUsersByName, bucketLinkKeys, bucketLinkKeysByHash,
		bucketLinkDomains, bucketLinkDomainsByOwner, bucketLinkDomainsByHost, bucketLinkOverlays,
		bucketLinkOverlaysByOwn, bucketLinkSplashes, bucketLinkSplashesByOwn, bucketLinkCampaigns,
		bucketLinkCampaignsByOwn, bucketLinkCampaignsBySlg, bucketLinkChannels, bucketLinkChannelsByOwn,
		bucketLinkChannelItems, bucketLinkItemsByItem, bucketLinkPixels, bucketLinkPixelsByOwner,
		bucketLinkQRs, bucketLinkQRsByOwner, bucketLinkQRsByLink, bucketLinkLinks, bucketLinkLinksByOwner,
		bucketLinkLinksByAlias, bucketLinkLinksByCamp, bucketLinkRateLimits)
}

// id8 returns the 8-byte big-endian key of an id.
func id8(ids ...int64) []byte {
	k := make([]byte, 0, 8*len(ids))
	for _, id := range ids {
		k = binary.BigEndian.AppendUint64(k, uint64(id))
	}
	return k
}

// readID decodes an 8-byte id.
func readID(b []byte) int64 { return int64(binary.BigEndian.Uint64(b)) }

// table is one owned record type: its record bucket, its by-owner index and
// the word naming it in errors.
type table struct {
	rec, byOwner []byte
	what         string
}

var (
	tDomains   = table{bucketLinkDomains, bucketLinkDomainsByOwner, "domain"}
	tOverlays  = table{bucketLinkOverlays, bucketLinkOverlaysByOwn, "overlay"}
	tSplashes  = table{bucketLinkSplashes, bucketLinkSplashesByOwn, "splash page"}
	tCampaigns = table{bucketLinkCampaigns, bucketLinkCampaignsByOwn, "campaign"}
	tChannels  = table{bucketLinkChannels, bucketLinkChannelsByOwn, "channel"}
	tPixels    = table{bucketLinkPixels, bucketLinkPixelsByOwner, "pixel"}
	tQRs       = table{bucketLinkQRs, bucketLinkQRsByOwner, "QR code"}
	tLinks     = table{bucketLinkLinks, bucketLinkLinksByOwner, "link"}
)

// owns reports whether id is a record of owner.
func (t table) owns(tx *bbolt.Tx, owner, id int64) bool {
	return id > 0 && tx.Bucket(t.byOwner).Get(id8(owner, id)) != nil
}

// mustOwn returns links.NotFound unless id is a record of owner.
func (t table) mustOwn(tx *bbolt.Tx, owner, id int64) error {
	if !t.owns(tx, owner, id) {
		return links.NotFound(t.what, id)
	}
	return nil
}

// getOwned reads the owner's record id.
func getOwned[T any](tx *bbolt.Tx, t table, owner, id int64) (T, error) {
	var v T
	if err := t.mustOwn(tx, owner, id); err != nil {
		return v, err
	}
	return readIndexed[T](tx.Bucket(t.rec), t, id)
}

// readIndexed decodes record id of t from recs, its record bucket, for an
// id read from an index (so the record must exist).
func readIndexed[T any](recs *bbolt.Bucket, t table, id int64) (T, error) {
	var v T
	ok, err := getJSON(recs, id8(id), &v)
	if err == nil && !ok {
		err = fmt.Errorf("%s %d is indexed but missing", t.what, id)
	}
	return v, err
}

// insert assigns the next id of t to a new record of owner, stores it and
// indexes it; setID receives the id before the record is encoded.
func insert(tx *bbolt.Tx, t table, owner int64, setID func(int64), v any) (int64, error) {
	if tx.Bucket(bucketLinkUsers).Get(id8(owner)) == nil {
		return 0, links.NotFound("user", owner)
	}
	seq, err := tx.Bucket(t.rec).NextSequence()
	if err != nil {
		return 0, err
	}
	id := int64(seq)
	setID(id)
	if err := putJSON(tx.Bucket(t.rec), id8(id), v); err != nil {
		return 0, err
	}
	return id, tx.Bucket(t.byOwner).Put(id8(owner, id), nil)
}

// remove deletes the owner's record id and its owner index entry.
func (t table) remove(tx *bbolt.Tx, owner, id int64) error {
	if err := tx.Bucket(t.rec).Delete(id8(id)); err != nil {
		return err
	}
	return tx.Bucket(t.byOwner).Delete(id8(owner, id))
}

// ownedIDs returns the ids of the owner's records, newest (highest) first.
func (t table) ownedIDs(tx *bbolt.Tx, owner int64) []int64 {
	var out []int64
	prefix := id8(owner)
	c := tx.Bucket(t.byOwner).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		out = append(out, readID(k[8:]))
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// pageOf returns the page p of ids, read with get.
func pageOf[T any](ids []int64, p links.Page, get func(int64) (T, error)) (links.List[T], error) {
	start := min(p.Offset(), len(ids))
	end := min(start+p.Limit, len(ids))
	l := links.List[T]{Total: len(ids), Page: p, Items: make([]T, 0, end-start)}
	for _, id := range ids[start:end] {
		v, err := get(id)
		if err != nil {
			return l, err
		}
		l.Items = append(l.Items, v)
	}
	return l, nil
}

// listOwned returns one page of the owner's records of t, newest first.
func listOwned[T any](s *Store, ctx context.Context, t table, owner int64, p links.Page) (links.List[T], error) {
	var l links.List[T]
	err := s.view(ctx, "list "+t.what+"s", func(tx *bbolt.Tx) error {
		var err error
		// The ids come from the owner's index: no ownership check per record.
		recs := tx.Bucket(t.rec)
		l, err = pageOf(t.ownedIDs(tx, owner), p, func(id int64) (T, error) { return readIndexed[T](recs, t, id) })
		return err
	})
	return l, err
}

// getOne reads the owner's record of t in a read transaction.
func getOne[T any](s *Store, ctx context.Context, t table, owner, id int64) (T, error) {
	var v T
	err := s.view(ctx, "get "+t.what, func(tx *bbolt.Tx) error {
		var err error
		v, err = getOwned[T](tx, t, owner, id)
		return err
	})
	return v, err
}

// getAnyOne reads the record id of t whoever owns it, in a read
// transaction; links.NotFound when it is missing.
func getAnyOne[T any](s *Store, ctx context.Context, t table, id int64) (T, error) {
	var v T
	err := s.view(ctx, "get "+t.what, func(tx *bbolt.Tx) error {
		if id <= 0 {
			return links.NotFound(t.what, id)
		}
		ok, err := getJSON(tx.Bucket(t.rec), id8(id), &v)
		if err == nil && !ok {
			err = links.NotFound(t.what, id)
		}
		return err
	})
	return v, err
}

// putOwned writes back a record of t.
func putOwned(tx *bbolt.Tx, t table, id int64, v any) error {
	return putJSON(tx.Bucket(t.rec), id8(id), v)
}

// binary64 appends v as 8 big-endian bytes (sign bit flipped, so negative
// values sort first) to a copy of prefix.
func binary64(prefix []byte, v int64) []byte {
	k := make([]byte, 0, len(prefix)+8)
	k = append(k, prefix...)
	return binary.BigEndian.AppendUint64(k, uint64(v)^(1<<63))
}

// readIntValue decodes a value written by binary64.
func readIntValue(b []byte) int { return int(int64(binary.BigEndian.Uint64(b) ^ (1 << 63))) }
