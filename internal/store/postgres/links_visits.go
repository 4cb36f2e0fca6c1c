package postgres

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
)

// This file holds links.VisitStore: the tables of
// migrations/0003_link_visits.sql. Deleting a link, QR code or campaign
// deletes its visits in the same transaction (deleteVisits).

// visitTargets maps a visit kind to its target table and the word naming it.
var visitTargets = map[string]struct{ table, what string }{
	visits.KindLink:     {"links_links", "link"},
	visits.KindQR:       {"links_qrcodes", "QR code"},
	visits.KindCampaign: {"links_campaigns", "campaign"},
}

// deleteVisits removes the visits, the roll-ups and the seen visitors of the
// target of the kind, in tx: DeleteLink, DeleteQR and DeleteCampaign call it after removing
// the target, so that a target's visits go with it. The target's row is then
// locked by the delete, and SaveVisits locks the rows of its targets (FOR KEY
// SHARE) before writing their visits: a concurrent SaveVisits either
// committed first, and this statement, under READ COMMITTED, sees and removes
// its visits, or waits and then finds the target gone and drops them.
func deleteVisits(ctx context.Context, tx pgx.Tx, kind string, id int64) error {
	if _, err := tx.Exec(ctx, `WITH u AS (DELETE FROM links_visit_uniques WHERE kind = $1 AND target_id = $2),
			r AS (DELETE FROM links_visit_rollups WHERE kind = $1 AND target_id = $2)
		DELETE FROM links_visits WHERE kind = $1 AND target_id = $2`, kind, id); err != nil {
		return fmt.Errorf("delete %s visits: %w", kind, err)
	}
	return nil
}

// visitDay returns the number of UTC days since the Unix epoch of t.
func visitDay(t time.Time) int32 {
	s := t.Unix()
	d := s / 86400
	if s%86400 < 0 {
		d--
	}
	return int32(d)
}

type visitTargetKey struct {
	kind string
	id   int64
}

// visitCounts is what a batch adds to one target's counters.
type visitCounts struct{ clicks, uniques int64 }

// SaveVisits stores the visits in one transaction and updates the counters
// of their targets; visits of targets that do not exist are dropped. An
// unknown kind fails the whole batch.
func (s *Store) SaveVisits(ctx context.Context, vs []visits.Visit) error {
	byKind := make(map[string][]int64)
	for _, v := range vs {
		if _, ok := visitTargets[v.Kind]; !ok {
			return linkErr("save visits", fmt.Errorf("unknown target kind %q", v.Kind))
		}
		byKind[v.Kind] = append(byKind[v.Kind], v.ID)
	}
	if len(vs) == 0 {
		return nil
	}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// The owners of the targets that exist, locked against deletion
		// until the visits are in.
		owners := make(map[visitTargetKey]int64)
		for _, kind := range slices.Sorted(maps.Keys(byKind)) {
			ids := slices.Compact(slices.Sorted(slices.Values(byKind[kind])))
			rows, err := tx.Query(ctx, `SELECT id, user_id FROM `+visitTargets[kind].table+`
				WHERE id = ANY($1) ORDER BY id FOR KEY SHARE`, ids)
			if err != nil {
				return fmt.Errorf("read %s owners: %w", kind, err)
			}
			var id, owner int64
			if _, err := pgx.ForEachRow(rows, []any{&id, &owner}, func() error {
				owners[visitTargetKey{kind, id}] = owner
				return nil
			}); err != nil {
				return fmt.Errorf("read %s owners: %w", kind, err)
			}
		}

		counts := make(map[visitTargetKey]*visitCounts)
		type uniqueKey struct {
			visitTargetKey
			day     int32
			visitor string
		}
		seen := make(map[uniqueKey]bool)
		var uKinds, uVisitors []string
		var uIDs []int64
		var uDays []int32
		rows := make([][]any, 0, len(vs))
		roll := visits.Rollup{}
		for _, v := range vs {
			tk := visitTargetKey{v.Kind, v.ID}
			owner, ok := owners[tk]
			if !ok {
				continue
			}
			roll.Add(v)
			at := v.At.UTC().Truncate(time.Microsecond)
			day := visitDay(at)
			rows = append(rows, []any{v.Kind, v.ID, owner, at, day, v.Referrer, v.Browser, v.OS, v.Country,
				v.Bot, v.Visitor, v.Social})
			if v.Bot {
				continue
			}
			c := counts[tk]
			if c == nil {
				c = &visitCounts{}
				counts[tk] = c
			}
			c.clicks++
			if v.Visitor == "" {
				c.uniques++
				continue
			}
			seen[uniqueKey{tk, day, v.Visitor}] = true
		}
		// The seen visitors are inserted in key order, as every writer
		// does, so that concurrent batches never deadlock on them.
		for _, uk := range slices.SortedFunc(maps.Keys(seen), func(a, b uniqueKey) int {
			return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.id, b.id), cmp.Compare(a.day, b.day),
				cmp.Compare(a.visitor, b.visitor))
		}) {
			uKinds, uIDs, uDays, uVisitors = append(uKinds, uk.kind), append(uIDs, uk.id), append(uDays, uk.day),
				append(uVisitors, uk.visitor)
		}
		if len(rows) == 0 {
			return nil
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"links_visits"}, []string{"kind", "target_id", "user_id",
			"at", "day", "referrer", "browser", "os", "country", "bot", "visitor", "social"},
			pgx.CopyFromRows(rows)); err != nil {
			return fmt.Errorf("insert visits: %w", err)
		}
		if len(uKinds) > 0 {
			urows, err := tx.Query(ctx, `INSERT INTO links_visit_uniques (kind, target_id, day, visitor)
				SELECT * FROM unnest($1::text[], $2::bigint[], $3::integer[], $4::text[])
				ON CONFLICT DO NOTHING RETURNING kind, target_id`, uKinds, uIDs, uDays, uVisitors)
			if err != nil {
				return fmt.Errorf("insert unique visitors: %w", err)
			}
			var kind string
			var id int64
			if _, err := pgx.ForEachRow(urows, []any{&kind, &id}, func() error {
				counts[visitTargetKey{kind, id}].uniques++
				roll.AddUnique(kind, id)
				return nil
			}); err != nil {
				return fmt.Errorf("insert unique visitors: %w", err)
			}
		}
		if err := addRollups(ctx, tx, roll); err != nil {
			return err
		}
		var linkIDs, linkClicks, linkUniques, qrIDs, qrScans []int64
		keys := make([]visitTargetKey, 0, len(counts))
		for k := range counts {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b visitTargetKey) int {
			return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.id, b.id))
		})
		for _, tk := range keys {
			c := counts[tk]
			switch tk.kind {
			case visits.KindLink:
				linkIDs, linkClicks, linkUniques = append(linkIDs, tk.id), append(linkClicks, c.clicks),
					append(linkUniques, c.uniques)
			case visits.KindQR:
				qrIDs, qrScans = append(qrIDs, tk.id), append(qrScans, c.clicks)
			}
		}
		// The counters' rows are locked in id order first: an UPDATE ... FROM
		// locks in its plan's order, and concurrent batches must not
		// deadlock.
		if len(linkIDs) > 0 {
			if _, err := tx.Exec(ctx, `SELECT FROM links_links WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE`, linkIDs); err != nil {
				return fmt.Errorf("lock links: %w", err)
			}
			if _, err := tx.Exec(ctx, `UPDATE links_links AS l
				SET clicks = l.clicks + d.clicks, unique_clicks = l.unique_clicks + d.uniques
				FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) AS d (id, clicks, uniques)
				WHERE l.id = d.id`, linkIDs, linkClicks, linkUniques); err != nil {
				return fmt.Errorf("count link clicks: %w", err)
			}
		}
		if len(qrIDs) > 0 {
			if _, err := tx.Exec(ctx, `SELECT FROM links_qrcodes WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE`, qrIDs); err != nil {
				return fmt.Errorf("lock QR codes: %w", err)
			}
			if _, err := tx.Exec(ctx, `UPDATE links_qrcodes AS q SET scans = q.scans + d.scans
				FROM unnest($1::bigint[], $2::bigint[]) AS d (id, scans)
				WHERE q.id = d.id`, qrIDs, qrScans); err != nil {
				return fmt.Errorf("count QR scans: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return linkErr("save visits", err)
	}
	return nil
}

// addRollups adds a batch's roll-up increments to the counters, in key
// order (visits.Rollup.Sorted), so that concurrent writers never deadlock.
func addRollups(ctx context.Context, tx pgx.Tx, roll visits.Rollup) error {
	incs := roll.Sorted()
	kinds, dims, labels := make([]string, len(incs)), make([]string, len(incs)), make([]string, len(incs))
	ids, ns := make([]int64, len(incs)), make([]int64, len(incs))
	for i, c := range incs {
		kinds[i], ids[i], dims[i], labels[i], ns[i] = c.Kind, c.ID, c.Dim, c.Label, c.N
	}
	if _, err := tx.Exec(ctx, `INSERT INTO links_visit_rollups AS r (kind, target_id, dim, label, count)
		SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::bigint[])
		ON CONFLICT (kind, target_id, dim, label) DO UPDATE SET count = r.count + excluded.count`,
		kinds, ids, dims, labels, ns); err != nil {
		return fmt.Errorf("add visit roll-ups: %w", err)
	}
	return nil
}

// VisitStats returns the statistics of the owner's target of the kind.
func (s *Store) VisitStats(ctx context.Context, owner int64, kind string, id int64) (visits.Stats, error) {
	target, ok := visitTargets[kind]
	if !ok {
		return visits.Stats{}, linkErr("visit statistics", fmt.Errorf("unknown target kind %q", kind))
	}
	var counts []visits.RollupCount
	err := s.readTx(ctx, func(tx pgx.Tx) error {
		if err := mustOwn(ctx, tx, target.table, target.what, owner, id); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT dim, label, count FROM links_visit_rollups
			WHERE kind = $1 AND target_id = $2`, kind, id)
		if err != nil {
			return fmt.Errorf("read roll-ups: %w", err)
		}
		var c visits.RollupCount
		_, err = pgx.ForEachRow(rows, []any{&c.Dim, &c.Label, &c.N}, func() error {
			counts = append(counts, c)
			return nil
		})
		if err != nil {
			return fmt.Errorf("read roll-ups: %w", err)
		}
		return nil
	})
	if err != nil {
		return visits.Stats{}, linkErr("visit statistics", err)
	}
	return visits.StatsFromRollup(counts, links.VisitStatsTop), nil
}
