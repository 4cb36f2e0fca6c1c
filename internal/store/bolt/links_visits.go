package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/jsonx"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
)

// Buckets of the visit records (links.VisitStore). Every key starts with
// the target's prefix (kind byte, target id); in the raw visits and the seen
// visitors an 8-byte big-endian time follows, so that pruning by age deletes
// a prefix of each target's keys.
var (
	// bucketLinkVisits holds the raw visits: (kind byte, target id, Unix
	// microseconds, seq) -> visitRec.
	bucketLinkVisits = []byte("links_visits_at")
	// bucketLinkVisitUniques holds the visitors already counted as unique:
	// (kind byte, target id, UTC day, visitor) -> 1.
	bucketLinkVisitUniques = []byte("links_visit_uniques")
	// bucketLinkVisitRollups holds the statistics (visits.Rollup):
	// (kind byte, target id, dimension byte, label) -> 8-byte big-endian count.
	bucketLinkVisitRollups = []byte("links_visit_rollups")
	// bucketLinkVisitsV1 is the raw visits' layout before roll-ups,
	// (kind byte, target id, seq) -> visitRec: migrateVisits moves it.
	bucketLinkVisitsV1 = []byte("links_visits")
)

// metaVisits is the meta key recording that the visits are in the layout
// above, roll-ups included.
var metaVisits = []byte("visits_layout")

// visitsLayout is the value of metaVisits: "2" had roll-ups without the
// days and devices (visits.DimDay, DimDevice), which "3" adds.
const (
	visitsLayout   = "3"
	visitsLayoutV2 = "2"
)

// seenValue is the value of bucketLinkVisitUniques: not empty, since within
// the write transaction Get reads a key put with an empty value as missing.
var seenValue = []byte{1}

func init() {
	allBuckets = append(allBuckets, bucketLinkVisits, bucketLinkVisitUniques, bucketLinkVisitRollups)
}

// visitRec is a stored visit; kind and target id are in its key.
type visitRec struct {
	Owner    int64  `json:"o"`
	At       int64  `json:"t"` // Unix microseconds, UTC
	Referrer string `json:"r,omitempty"`
	Browser  string `json:"b,omitempty"`
	OS       string `json:"s,omitempty"`
	Country  string `json:"c,omitempty"`
	Bot      bool   `json:"x,omitempty"`
	Visitor  string `json:"v,omitempty"`
	Social   string `json:"n,omitempty"`
}

// visitKindByte returns the key byte of a target kind, false for an unknown kind.
func visitKindByte(kind string) (byte, bool) {
	switch kind {
	case visits.KindLink:
		return 'l', true
	case visits.KindQR:
		return 'q', true
	case visits.KindCampaign:
		return 'c', true
	}
	return 0, false
}

// visitTable returns the table of the targets of a kind.
func visitTable(kind string) (table, bool) {
	switch kind {
	case visits.KindLink:
		return tLinks, true
	case visits.KindQR:
		return tQRs, true
	case visits.KindCampaign:
		return tCampaigns, true
	}
	return table{}, false
}

// visitTarget is one target of a batch: its owner and, for links and QR
// codes, the record whose counters the batch increases.
type visitTarget struct {
	exists bool
	owner  int64
	link   *links.ShortLink
	qr     *links.QRCode
}

type visitTargetKey struct {
	kind string
	id   int64
}

// loadVisitTarget reads the target of a visit.
func loadVisitTarget(tx *bbolt.Tx, kind string, id int64) (*visitTarget, error) {
	t := &visitTarget{}
	if id <= 0 {
		return t, nil
	}
	switch kind {
	case visits.KindLink:
		var l links.ShortLink
		ok, err := getJSON(tx.Bucket(bucketLinkLinks), id8(id), &l)
		if err != nil || !ok {
			return t, err
		}
		t.exists, t.owner, t.link = true, l.UserID, &l
	case visits.KindQR:
		var q links.QRCode
		ok, err := getJSON(tx.Bucket(bucketLinkQRs), id8(id), &q)
		if err != nil || !ok {
			return t, err
		}
		t.exists, t.owner, t.qr = true, q.UserID, &q
	case visits.KindCampaign:
		var c links.Campaign
		ok, err := getJSON(tx.Bucket(bucketLinkCampaigns), id8(id), &c)
		if err != nil || !ok {
			return t, err
		}
		t.exists, t.owner = true, c.UserID
	}
	return t, nil
}

// visitKey returns a new key (kind byte, target id, parts...). bbolt keeps
// the keys given to Put until the transaction ends, so every key is its own
// allocation.
func visitKey(kind string, id int64, parts ...[]byte) []byte {
	kb, _ := visitKindByte(kind)
	n := 9
	for _, p := range parts {
		n += len(p)
	}
	k := make([]byte, 0, n)
	k = append(k, kb)
	k = binary.BigEndian.AppendUint64(k, uint64(id))
	for _, p := range parts {
		k = append(k, p...)
	}
	return k
}

// deleteVisits removes the visits, the seen visitors and the roll-ups of
// the target of the kind: every key with its prefix (kind byte, target id)
// in their buckets. DeleteLink, DeleteQR and DeleteCampaign call it in the
// transaction removing the target, so that a target's visits go with it.
func deleteVisits(tx *bbolt.Tx, kind string, id int64) error {
	prefix := visitKey(kind, id)
	for _, name := range [][]byte{bucketLinkVisits, bucketLinkVisitUniques, bucketLinkVisitRollups} {
		// Seek again after each Delete: a cursor's Next after Delete may
		// skip the key that moved into the deleted one's place.
		c := tx.Bucket(name).Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
			if err := c.Delete(); err != nil {
				return fmt.Errorf("delete %s visits: %w", kind, err)
			}
		}
	}
	return nil
}

// visitDay returns the number of UTC days since the Unix epoch of a time
// given in Unix microseconds.
func visitDay(usec int64) int64 {
	d := usec / 86_400_000_000
	if usec%86_400_000_000 < 0 {
		d--
	}
	return d
}

// SaveVisits stores the visits in one transaction and updates the counters
// of their targets; visits of targets that do not exist are dropped. An
// unknown kind fails the whole batch.
func (s *Store) SaveVisits(ctx context.Context, vs []visits.Visit) error {
	for _, v := range vs {
		if _, ok := visitKindByte(v.Kind); !ok {
			return fmt.Errorf("bolt: save visits: unknown target kind %q", v.Kind)
		}
	}
	if len(vs) == 0 {
		return nil
	}
	return s.update(ctx, "save visits", func(tx *bbolt.Tx) error {
		rows, uniques := tx.Bucket(bucketLinkVisits), tx.Bucket(bucketLinkVisitUniques)
		targets := make(map[visitTargetKey]*visitTarget)
		roll := visits.Rollup{}
		for _, v := range vs {
			tk := visitTargetKey{v.Kind, v.ID}
			t, ok := targets[tk]
			if !ok {
				var err error
				if t, err = loadVisitTarget(tx, v.Kind, v.ID); err != nil {
					return err
				}
				targets[tk] = t
			}
			if !t.exists {
				continue
			}
			seq, err := rows.NextSequence()
			if err != nil {
				return err
			}
			at := ts(v.At).UnixMicro()
			rec := visitRec{Owner: t.owner, At: at, Referrer: v.Referrer, Browser: v.Browser, OS: v.OS,
				Country: v.Country, Bot: v.Bot, Visitor: v.Visitor, Social: v.Social}
			if err := putJSON(rows, visitKey(v.Kind, v.ID, id8(at, int64(seq))), rec); err != nil {
				return err
			}
			roll.Add(v)
			if v.Bot {
				continue
			}
			unique := true
			if v.Visitor != "" {
				uk := visitKey(v.Kind, v.ID, id8(visitDay(at)), []byte(v.Visitor))
				if uniques.Get(uk) != nil {
					unique = false
				} else if err := uniques.Put(uk, seenValue); err != nil {
					return err
				}
				if unique {
					roll.AddUnique(v.Kind, v.ID)
				}
			}
			switch {
			case t.link != nil:
				t.link.Clicks++
				if unique {
					t.link.UniqueClicks++
				}
			case t.qr != nil:
				t.qr.Scans++
			}
		}
		if err := addRollups(tx.Bucket(bucketLinkVisitRollups), roll); err != nil {
			return err
		}
		for tk, t := range targets {
			switch {
			case t.link != nil:
				if err := putOwned(tx, tLinks, tk.id, t.link); err != nil {
					return err
				}
			case t.qr != nil:
				if err := putOwned(tx, tQRs, tk.id, t.qr); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// rollupKey returns the key of a roll-up counter in bucketLinkVisitRollups.
func rollupKey(k visits.RollupKey) []byte {
	return visitKey(k.Kind, k.ID, []byte(k.Dim), []byte(k.Label))
}

// addRollups adds the increments of roll to the counters in b.
func addRollups(b *bbolt.Bucket, roll visits.Rollup) error {
	for _, c := range roll.Sorted() {
		key := rollupKey(c.RollupKey)
		n := uint64(c.N)
		if v := b.Get(key); len(v) == 8 {
			n += binary.BigEndian.Uint64(v)
		}
		if err := b.Put(key, binary.BigEndian.AppendUint64(nil, n)); err != nil {
			return fmt.Errorf("add visit roll-ups: %w", err)
		}
	}
	return nil
}

// VisitStats returns the statistics of the owner's target of the kind.
func (s *Store) VisitStats(ctx context.Context, owner int64, kind string, id int64) (visits.Stats, error) {
	t, ok := visitTable(kind)
	if !ok {
		return visits.Stats{}, fmt.Errorf("bolt: visit statistics: unknown target kind %q", kind)
	}
	var counts []visits.RollupCount
	err := s.view(ctx, "visit statistics", func(tx *bbolt.Tx) error {
		if err := t.mustOwn(tx, owner, id); err != nil {
			return err
		}
		return scanPrefix(tx.Bucket(bucketLinkVisitRollups), visitKey(kind, id), func(k, v []byte) (bool, error) {
			if len(k) < 10 || len(v) != 8 {
				return false, fmt.Errorf("malformed roll-up %x", k)
			}
			counts = append(counts, visits.RollupCount{
				RollupKey: visits.RollupKey{Dim: string(k[9:10]), Label: string(k[10:])},
				N:         int64(binary.BigEndian.Uint64(v)),
			})
			return true, nil
		})
	})
	if err != nil {
		return visits.Stats{}, err
	}
	return visits.StatsFromRollup(counts, links.VisitStatsTop), nil
}

// migrateVisits brings the visits of an older file to the current layout,
// once (metaVisits). From before roll-ups: every visit of the old bucket is
// moved to its time-ordered key and rolled up as SaveVisits would have, then
// the old bucket is dropped. From layout 2: the stored visits are rolled up
// by day and device (Unknown: raw visits do not keep it). It runs in Open's
// transaction: all or nothing.
func migrateVisits(tx *bbolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	switch string(meta.Get(metaVisits)) {
	case visitsLayout:
		return nil
	case visitsLayoutV2:
		if err := rollUpDaysAndDevices(tx); err != nil {
			return fmt.Errorf("migrate visits: %w", err)
		}
		return meta.Put(metaVisits, []byte(visitsLayout))
	}
	if old := tx.Bucket(bucketLinkVisitsV1); old != nil {
		rows, rollups := tx.Bucket(bucketLinkVisits), tx.Bucket(bucketLinkVisitRollups)
		roll := visits.Rollup{}
		var target []byte
		var seen map[string]bool // the (day, visitor) pairs seen on the target
		err := old.ForEach(func(k, v []byte) error {
			if len(k) != 17 {
				return fmt.Errorf("malformed visit key %x", k)
			}
			var rec visitRec
			if err := jsonx.Unmarshal(v, &rec); err != nil {
				return fmt.Errorf("decode visit %x: %w", k, err)
			}
			if !bytes.Equal(k[:9], target) {
				target, seen = k[:9], map[string]bool{}
			}
			nk := make([]byte, 0, 25)
			nk = append(append(append(nk, k[:9]...), id8(rec.At)...), k[9:]...)
			if err := rows.Put(nk, bytes.Clone(v)); err != nil {
				return err
			}
			kind := visitKindName(k[0])
			if kind == "" {
				return fmt.Errorf("visit key %x: unknown target kind", k)
			}
			id := readID(k[1:9])
			roll.Add(visits.Visit{Kind: kind, ID: id, At: time.UnixMicro(rec.At), Referrer: rec.Referrer, Browser: rec.Browser, OS: rec.OS,
				Country: rec.Country, Bot: rec.Bot, Visitor: rec.Visitor, Social: rec.Social})
			if !rec.Bot && rec.Visitor != "" {
				key := string(id8(visitDay(rec.At))) + rec.Visitor
				if !seen[key] {
					seen[key] = true
					roll.AddUnique(kind, id)
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("migrate visits: %w", err)
		}
		if err := addRollups(rollups, roll); err != nil {
			return fmt.Errorf("migrate visits: %w", err)
		}
		if err := tx.DeleteBucket(bucketLinkVisitsV1); err != nil {
			return fmt.Errorf("migrate visits: %w", err)
		}
	}
	return meta.Put(metaVisits, []byte(visitsLayout))
}

// rollUpDaysAndDevices adds the day and device roll-ups (visits.DimDay,
// DimDevice) of the stored visits, for a file of layout 2.
func rollUpDaysAndDevices(tx *bbolt.Tx) error {
	roll := visits.Rollup{}
	err := tx.Bucket(bucketLinkVisits).ForEach(func(k, v []byte) error {
		kind := visitKindName(k[0])
		if len(k) < 9 || kind == "" {
			return fmt.Errorf("malformed visit key %x", k)
		}
		var rec visitRec
		if err := jsonx.Unmarshal(v, &rec); err != nil {
			return fmt.Errorf("decode visit %x: %w", k, err)
		}
		if rec.Bot {
			return nil
		}
		id := readID(k[1:9])
		roll[visits.RollupKey{Kind: kind, ID: id, Dim: visits.DimDay, Label: time.UnixMicro(rec.At).UTC().Format(visits.DayLayout)}]++
		roll[visits.RollupKey{Kind: kind, ID: id, Dim: visits.DimDevice, Label: visits.LabelUnknown}]++
		return nil
	})
	if err != nil {
		return err
	}
	return addRollups(tx.Bucket(bucketLinkVisitRollups), roll)
}

// visitKindName is the inverse of visitKindByte.
func visitKindName(b byte) string {
	switch b {
	case 'l':
		return visits.KindLink
	case 'q':
		return visits.KindQR
	case 'c':
		return visits.KindCampaign
	}
	return ""
}
