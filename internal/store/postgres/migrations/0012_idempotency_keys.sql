-- Receipts of creating calls made with an Idempotency-Key (idempotency.Store),
-- shared by every portal instance: an unfinished claim (done false) while
-- the first request runs, then its answer, until expires_at.
CREATE TABLE idempotency_keys (
    id           text PRIMARY KEY,
    token        text NOT NULL,
    done         boolean NOT NULL DEFAULT false,
    fingerprint  bytea,
    status       integer NOT NULL DEFAULT 0,
    content_type text NOT NULL DEFAULT '',
    location     text NOT NULL DEFAULT '',
    body         bytea,
    lease_until  timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL
);
CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at);
