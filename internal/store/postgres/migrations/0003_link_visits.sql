-- 0003_link_visits: visits of short links, QR codes and campaigns
-- (internal/links/visits), and the statistics drawn from them.
--
-- A visit names its target by kind and id, without a foreign key (the kinds
-- live in different tables); visits of a deleted target stay but are no
-- longer reachable, since statistics are read through the owned target.
-- No IP address is kept: visitor is a keyed hash whose key rotates daily.
-- day is the visit's UTC day as days since the Unix epoch. Labels compare
-- byte-wise ("C"), as Go does, so that ties in the top lists break the same
-- way on every store.
CREATE TABLE links_visits (
    id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind      text COLLATE "C" NOT NULL CONSTRAINT links_visits_kind_check CHECK (kind IN ('link', 'qr', 'campaign')),
    target_id bigint NOT NULL,
    user_id   bigint NOT NULL REFERENCES links_users (id) ON DELETE CASCADE,
    at        timestamptz NOT NULL,
    day       integer NOT NULL,
    referrer  text COLLATE "C" NOT NULL,
    browser   text COLLATE "C" NOT NULL,
    os        text COLLATE "C" NOT NULL,
    country   text COLLATE "C" NOT NULL,
    bot       boolean NOT NULL,
    visitor   text COLLATE "C" NOT NULL,
    social    text COLLATE "C" NOT NULL
);
CREATE INDEX links_visits_target_idx ON links_visits (kind, target_id, id);
CREATE INDEX links_visits_user_idx ON links_visits (user_id);

-- The visitors already counted as unique, one row per target, UTC day and
-- visitor: a visit is unique when its row is new.
CREATE TABLE links_visit_uniques (
    kind      text COLLATE "C" NOT NULL,
    target_id bigint NOT NULL,
    day       integer NOT NULL,
    visitor   text COLLATE "C" NOT NULL,
    PRIMARY KEY (kind, target_id, day, visitor)
);
