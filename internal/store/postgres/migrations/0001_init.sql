-- 0001_init: the initial schema of the portal.
--
-- Identifier-like columns (ids, npsn, server codes, checksums, lookup keys)
-- use the "C" collation: they compare and sort byte-wise, as Go does, and
-- their indexes are cheaper. Human text (nama, titles) keeps the database
-- collation; lists ordered by it say COLLATE "C" explicitly.
--
-- Every timestamp is timestamptz (microsecond precision).

-- Secrets shared by every portal instance (JWT secret, signing key, ...).
CREATE TABLE secrets (
    name  text COLLATE "C" PRIMARY KEY,
    value bytea NOT NULL
);

-- Operator accounts. username_key is the lower-case username, written by the
-- store, so that usernames are unique case-insensitively.
CREATE TABLE users (
    id            text COLLATE "C" PRIMARY KEY,
    username      text NOT NULL,
    username_key  text COLLATE "C" NOT NULL CONSTRAINT users_username_key UNIQUE,
    name          text NOT NULL,
    role          text NOT NULL,
    password_hash text NOT NULL,
    created_at    timestamptz NOT NULL
);

-- Issued licences.
CREATE TABLE licenses (
    id             text COLLATE "C" PRIMARY KEY,
    npsn           text COLLATE "C" NOT NULL,
    school_name    text NOT NULL,
    hardware_id    text NOT NULL,
    max_students   integer NOT NULL,
    operating_mode text NOT NULL,
    issued_at      timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    revoked_at     timestamptz,
    token          text NOT NULL
);
CREATE INDEX licenses_issued_idx ON licenses (issued_at DESC, id DESC);
CREATE INDEX licenses_npsn_issued_idx ON licenses (npsn, issued_at DESC, id DESC);

-- The machine each server_code is bound to.
CREATE TABLE server_bindings (
    server_code text COLLATE "C" PRIMARY KEY,
    npsn        text COLLATE "C" NOT NULL,
    hardware_id text NOT NULL,
    license_id  text NOT NULL,
    bound_at    timestamptz NOT NULL
);
CREATE INDEX server_bindings_npsn_idx ON server_bindings (npsn, server_code);

-- The content revision: one row, bumped in the transaction of every change
-- to exams, members or exam passwords.
CREATE TABLE content_revision (
    singleton boolean PRIMARY KEY DEFAULT true CONSTRAINT content_revision_singleton CHECK (singleton),
    revision  bigint NOT NULL
);
INSERT INTO content_revision (singleton, revision) VALUES (true, 0);

-- Exams. questions is the JSON encoding of []exam.Question (kept as bytes:
-- jsonb would reject a NUL escape and reorder keys).
CREATE TABLE exams (
    id               text COLLATE "C" PRIMARY KEY,
    title            text NOT NULL,
    subject          text NOT NULL,
    npsns            text[] COLLATE "C" NOT NULL,
    starts_at        timestamptz NOT NULL,
    ends_at          timestamptz NOT NULL,
    duration_minutes integer NOT NULL,
    questions        bytea NOT NULL,
    question_count   integer NOT NULL,
    created_at       timestamptz NOT NULL
);
CREATE INDEX exams_starts_idx ON exams (starts_at, id);
CREATE INDEX exams_npsns_idx ON exams USING gin (npsns);

-- The member directory. The *_key columns are NULL when the field is empty,
-- so that the unique constraints only hold among non-empty values;
-- username_key and email_key are lower-case and written by the store. The
-- constraints are deferrable so that one statement of an import may move a
-- value from one member to another.
CREATE TABLE members (
    id                 text COLLATE "C" PRIMARY KEY,
    npsn               text COLLATE "C" NOT NULL,
    nama               text NOT NULL,
    role               text NOT NULL,
    dapodik_id         text COLLATE "C" NOT NULL,
    nisn               text COLLATE "C" NOT NULL,
    nip                text COLLATE "C" NOT NULL,
    nik                text COLLATE "C" NOT NULL,
    username           text NOT NULL,
    email              text NOT NULL,
    kelas              text NOT NULL,
    academic_year_name text NOT NULL,
    google_email       text NOT NULL,
    is_claimed         boolean NOT NULL,
    exam_password_gen  integer NOT NULL,
    exam_password_hash text NOT NULL,
    created_at         timestamptz NOT NULL,
    updated_at         timestamptz NOT NULL,
    username_key       text COLLATE "C",
    email_key          text COLLATE "C",
    dapodik_key        text COLLATE "C" GENERATED ALWAYS AS (nullif(dapodik_id, '')) STORED,
    nisn_key           text COLLATE "C" GENERATED ALWAYS AS (nullif(nisn, '')) STORED,
    nip_key            text COLLATE "C" GENERATED ALWAYS AS (nullif(nip, '')) STORED,
    nik_key            text COLLATE "C" GENERATED ALWAYS AS (nullif(nik, '')) STORED,
    CONSTRAINT members_username_key UNIQUE (username_key) DEFERRABLE INITIALLY IMMEDIATE,
    CONSTRAINT members_email_key UNIQUE (email_key) DEFERRABLE INITIALLY IMMEDIATE,
    CONSTRAINT members_dapodik_key UNIQUE (dapodik_key) DEFERRABLE INITIALLY IMMEDIATE,
    CONSTRAINT members_nisn_key UNIQUE (nisn_key) DEFERRABLE INITIALLY IMMEDIATE,
    CONSTRAINT members_nip_key UNIQUE (nip_key) DEFERRABLE INITIALLY IMMEDIATE,
    CONSTRAINT members_nik_key UNIQUE (nik_key) DEFERRABLE INITIALLY IMMEDIATE
);
CREATE INDEX members_nama_idx ON members ((nama COLLATE "C"), id);
CREATE INDEX members_npsn_idx ON members (npsn, role, (nama COLLATE "C"), id);

-- Academic years; at most one is active.
CREATE TABLE academic_years (
    id         text COLLATE "C" PRIMARY KEY,
    name       text COLLATE "C" NOT NULL CONSTRAINT academic_years_name_key UNIQUE,
    is_active  boolean NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX academic_years_one_active ON academic_years (is_active) WHERE is_active;

-- Hashed API keys of the member directory API.
CREATE TABLE api_keys (
    id           text COLLATE "C" PRIMARY KEY,
    name         text NOT NULL,
    prefix       text NOT NULL,
    hash         text COLLATE "C" NOT NULL CONSTRAINT api_keys_hash_key UNIQUE,
    created_at   timestamptz NOT NULL,
    revoked_at   timestamptz,
    last_used_at timestamptz
);
CREATE INDEX api_keys_created_idx ON api_keys (created_at DESC, id DESC);

-- Answers, one per (exam, member, question); the newest answered_at wins.
-- No foreign key to exams: pushes are validated by the caller, and a key
-- check per row would slow down pushes.
CREATE TABLE answers (
    exam_id     text COLLATE "C" NOT NULL,
    member_id   text COLLATE "C" NOT NULL,
    question_id text COLLATE "C" NOT NULL,
    answer      text NOT NULL,
    answered_at timestamptz NOT NULL,
    server_code text NOT NULL,
    sync_id     text NOT NULL,
    PRIMARY KEY (exam_id, member_id, question_id)
);

-- Accepted pushes: what makes a later push a duplicate or an idempotency
-- conflict. Sync-log records of rejected or duplicate pushes are not here.
CREATE TABLE pushes (
    sync_id         text COLLATE "C" PRIMARY KEY,
    server_code     text COLLATE "C" NOT NULL,
    checksum        text COLLATE "C" NOT NULL,
    idempotency_key text COLLATE "C", -- NULL when the push had none
    record_count    integer NOT NULL,
    received_at     timestamptz NOT NULL,
    CONSTRAINT pushes_server_checksum_key UNIQUE (server_code, checksum),
    CONSTRAINT pushes_server_idempotency_key UNIQUE (server_code, idempotency_key)
);

-- The sync log, an append-only audit trail.
CREATE TABLE sync_logs (
    seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id              text COLLATE "C" NOT NULL,
    action          text NOT NULL,
    server_code     text COLLATE "C" NOT NULL,
    npsn            text COLLATE "C" NOT NULL,
    record_count    integer NOT NULL,
    checksum        text NOT NULL,
    idempotency_key text NOT NULL,
    outcome         text NOT NULL,
    error_code      text NOT NULL,
    received_at     timestamptz NOT NULL
);
CREATE INDEX sync_logs_received_idx ON sync_logs (received_at DESC, id DESC, seq DESC);
CREATE INDEX sync_logs_npsn_idx ON sync_logs (npsn, received_at DESC, id DESC, seq DESC);
CREATE INDEX sync_logs_server_idx ON sync_logs (server_code, received_at DESC, id DESC, seq DESC);

-- One monitor record per lab server, rewritten by every heartbeat: the
-- fill factor leaves room for HOT updates.
CREATE TABLE monitors (
    server_code        text COLLATE "C" PRIMARY KEY,
    id                 text NOT NULL,
    npsn               text COLLATE "C" NOT NULL,
    school_name        text NOT NULL,
    hardware_id        text NOT NULL,
    status             text NOT NULL,
    active_exams_count integer NOT NULL,
    connected_students integer NOT NULL,
    client_ip          text NOT NULL,
    client_version     text NOT NULL,
    last_ping_at       timestamptz NOT NULL,
    updated_at         timestamptz NOT NULL
) WITH (fillfactor = 70);
CREATE INDEX monitors_npsn_idx ON monitors (npsn, server_code);

-- Encrypted package blobs, content-addressed by the SHA-256 of their bytes,
-- stored as 1 MiB chunks. orphaned_at is set when the last package
-- referencing a blob moved to another one; orphans are removed after a grace
-- period so that downloads in progress can finish.
CREATE TABLE package_blobs (
    checksum    text COLLATE "C" PRIMARY KEY,
    size        bigint NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    orphaned_at timestamptz
);
CREATE INDEX package_blobs_orphaned_idx ON package_blobs (orphaned_at) WHERE orphaned_at IS NOT NULL;

CREATE TABLE package_chunks (
    checksum text COLLATE "C" NOT NULL REFERENCES package_blobs (checksum) ON DELETE CASCADE,
    seq      integer NOT NULL,
    data     bytea NOT NULL,
    PRIMARY KEY (checksum, seq)
);
-- Encrypted bytes do not compress: store them out of line, uncompressed.
ALTER TABLE package_chunks ALTER COLUMN data SET STORAGE EXTERNAL;

-- The current package of each school.
CREATE TABLE packages (
    npsn         text COLLATE "C" PRIMARY KEY,
    version      text NOT NULL,
    checksum     text COLLATE "C" NOT NULL REFERENCES package_blobs (checksum),
    size         bigint NOT NULL,
    revision     bigint NOT NULL,
    generated_at timestamptz NOT NULL
);
CREATE INDEX packages_checksum_idx ON packages (checksum);
