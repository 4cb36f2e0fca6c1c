-- 0007_ordering_messages: the ordering service's outbound message queue and
-- the safety gate's record per channel (internal/ordering, outbound.go and
-- gate.go).
--
-- A message is claimed by one portal instance at a time (FOR UPDATE SKIP
-- LOCKED, then a lease): SENDING with a lease owner and end; a message still
-- SENDING after its lease ended is marked FAILED and never sent again.
CREATE TABLE ordering_messages (
    id          text COLLATE "C" PRIMARY KEY,
    channel     text COLLATE "C" NOT NULL,
    to_number   text COLLATE "C" NOT NULL,
    text        text NOT NULL,
    order_id    text COLLATE "C",
    status      text COLLATE "C" NOT NULL,
    reason      text NOT NULL DEFAULT '',
    attempts    integer NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL,
    not_before  timestamptz NOT NULL,
    sent_at     timestamptz,
    lease_owner text COLLATE "C",
    lease_until timestamptz
);
CREATE INDEX ordering_messages_due_idx ON ordering_messages (not_before, id) WHERE status = 'QUEUED';
CREATE INDEX ordering_messages_sending_idx ON ordering_messages (lease_until) WHERE status = 'SENDING';

CREATE TABLE ordering_gates (
    channel text COLLATE "C" PRIMARY KEY,
    state   jsonb NOT NULL
);
