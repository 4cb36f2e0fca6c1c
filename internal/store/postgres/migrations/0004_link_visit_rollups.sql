-- 0004_link_visit_rollups: the statistics of each visit target kept as its
-- visits are saved (internal/links/visits, Rollup): one counter per target,
-- dimension and label. Statistics read these counters, never the raw visits,
-- so they cost the same at ten clicks and at ten million; raw visits may be
-- pruned (link-visit-retention) while the roll-ups stay.
--
-- dim: t totals (labels clicks, uniques, bots), c country, r referrer,
-- b browser, o OS, s social network. Labels of empty values are those of the
-- top lists (Unknown, Direct). Counters are written in key order by every
-- writer, so that concurrent portals never deadlock.
CREATE TABLE links_visit_rollups (
    kind      text COLLATE "C" NOT NULL,
    target_id bigint NOT NULL,
    dim       text COLLATE "C" NOT NULL,
    label     text COLLATE "C" NOT NULL,
    count     bigint NOT NULL,
    PRIMARY KEY (kind, target_id, dim, label)
);

-- The visits stored so far, rolled up as SaveVisits would have: a visit
-- without a visitor is unique; one with a visitor is unique for its first
-- visit of the UTC day on the target.
INSERT INTO links_visit_rollups (kind, target_id, dim, label, count)
SELECT kind, target_id, 't', 'clicks', count(*) FROM links_visits WHERE NOT bot GROUP BY kind, target_id
UNION ALL
SELECT kind, target_id, 't', 'bots', count(*) FROM links_visits WHERE bot GROUP BY kind, target_id
UNION ALL
SELECT kind, target_id, 't', 'uniques',
       count(*) FILTER (WHERE visitor = '') + count(DISTINCT (day, visitor)) FILTER (WHERE visitor <> '')
  FROM links_visits WHERE NOT bot GROUP BY kind, target_id
UNION ALL
SELECT kind, target_id, 'c', CASE WHEN country = '' THEN 'Unknown' ELSE country END, count(*)
  FROM links_visits WHERE NOT bot GROUP BY 1, 2, 4
UNION ALL
SELECT kind, target_id, 'r', CASE WHEN referrer = '' THEN 'Direct' ELSE referrer END, count(*)
  FROM links_visits WHERE NOT bot GROUP BY 1, 2, 4
UNION ALL
SELECT kind, target_id, 'b', CASE WHEN browser = '' THEN 'Unknown' ELSE browser END, count(*)
  FROM links_visits WHERE NOT bot GROUP BY 1, 2, 4
UNION ALL
SELECT kind, target_id, 'o', CASE WHEN os = '' THEN 'Unknown' ELSE os END, count(*)
  FROM links_visits WHERE NOT bot GROUP BY 1, 2, 4
UNION ALL
SELECT kind, target_id, 's', social, count(*)
  FROM links_visits WHERE NOT bot AND social <> '' GROUP BY 1, 2, 4;

-- Pruning raw visits by age (link-visit-retention) and seen visitors by day
-- reads them by time. Both are written in about time order, so a BRIN index
-- (a few pages, next to nothing per insert) finds the old ones.
CREATE INDEX links_visits_at_idx ON links_visits USING brin (at);
CREATE INDEX links_visit_uniques_day_idx ON links_visit_uniques USING brin (day);
