-- 0008_link_visit_days_devices: two more roll-up dimensions (see
-- 0004_link_visit_rollups): d, the UTC day of the visits (YYYY-MM-DD, for
-- clicks over time), and v, the kind of device (Desktop, Mobile, Tablet,
-- Unknown). The raw visits stored so far are rolled up here: their day from
-- at; their device is Unknown, as raw visits do not keep it. Visits already
-- pruned stay out of both (their totals are kept by 0004's roll-ups).
INSERT INTO links_visit_rollups (kind, target_id, dim, label, count)
SELECT kind, target_id, 'd', to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), count(*)
  FROM links_visits WHERE NOT bot GROUP BY 1, 2, 4
UNION ALL
SELECT kind, target_id, 'v', 'Unknown', count(*)
  FROM links_visits WHERE NOT bot GROUP BY 1, 2;
