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

// Buckets of the visit records (links.VisitStore).
var (
	// bucketLinkVisits holds the visits: (kind byte, target id, seq) -> visitRec.
	// A prefix scan of (kind byte, target id) reads one target's visits in
	// the order they were saved.
	bucketLinkVisits = []byte("links_visits")
	// bucketLinkVisitUniques holds the visitors already counted as unique:
	// (kind byte, target id, UTC day, visitor) -> 1.
	bucketLinkVisitUniques = []byte("links_visit_uniques")
)

// seenValue is the value of bucketLinkVisitUniques: not empty, since within
// the write transaction Get reads a key put with an empty value as missing.
var seenValue = []byte{1}

func init() {
	allBuckets = append(allBuckets, bucketLinkVisits, bucketLinkVisitUniques)
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

// deleteVisits removes the visits and the seen visitors of the target of the
// kind: every key with its prefix (kind byte, target id) in bucketLinkVisits
// and bucketLinkVisitUniques. DeleteLink, DeleteQR and DeleteCampaign call
// it in the transaction removing the target, so that a target's visits go
// with it.
func deleteVisits(tx *bbolt.Tx, kind string, id int64) error {
	prefix := visitKey(kind, id)
	for _, name := range [][]byte{bucketLinkVisits, bucketLinkVisitUniques} {
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
			if err := putJSON(rows, visitKey(v.Kind, v.ID, id8(int64(seq))), rec); err != nil {
				return err
			}
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

// VisitStats returns the statistics of the owner's target of the kind.
func (s *Store) VisitStats(ctx context.Context, owner int64, kind string, id int64) (visits.Stats, error) {
	t, ok := visitTable(kind)
	if !ok {
		return visits.Stats{}, fmt.Errorf("bolt: visit statistics: unknown target kind %q", kind)
	}
	var acc visits.Accumulator
	err := s.view(ctx, "visit statistics", func(tx *bbolt.Tx) error {
		if err := t.mustOwn(tx, owner, id); err != nil {
			return err
		}
		return scanPrefix(tx.Bucket(bucketLinkVisits), visitKey(kind, id), func(k, v []byte) (bool, error) {
			var rec visitRec
			if err := jsonx.Unmarshal(v, &rec); err != nil {
				return false, fmt.Errorf("decode visit %x: %w", k, err)
			}
			acc.Add(visits.Visit{Kind: kind, ID: id, OwnerID: rec.Owner, At: time.UnixMicro(rec.At).UTC(),
				Referrer: rec.Referrer, Browser: rec.Browser, OS: rec.OS, Country: rec.Country, Bot: rec.Bot,
				Visitor: rec.Visitor, Social: rec.Social})
			return true, nil
		})
	})
	if err != nil {
		return visits.Stats{}, err
	}
	return acc.Stats(links.VisitStatsTop), nil
}
