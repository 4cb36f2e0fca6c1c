-- Failed sign-ins per key (throttle.Store), shared by every portal instance:
-- the failures of the window that began at started_at.
CREATE TABLE login_failures (
    key        text PRIMARY KEY,
    count      integer NOT NULL,
    started_at timestamptz NOT NULL
);
CREATE INDEX login_failures_started_idx ON login_failures (started_at);
