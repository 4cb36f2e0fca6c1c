-- 0005_ordering_login: the ordering service's users, login tokens, ban
-- records, consents and spent keys (internal/ordering).
--
-- Login tokens are kept as the SHA-256 (hex) of their text, never the text.
-- Ban records count login attempts per messenger number and per client
-- address (kind 'number' or 'address'). A spent key is a webhook id or a
-- solved challenge that must not be accepted twice before until.
CREATE TABLE ordering_users (
    id               text COLLATE "C" PRIMARY KEY,
    name             text NOT NULL DEFAULT '',
    messenger_number text COLLATE "C" NOT NULL UNIQUE,
    role             text COLLATE "C" NOT NULL CHECK (role IN ('CUSTOMER', 'STAFF', 'ADMIN', 'OWNER')),
    allowed_menus    text[] NOT NULL DEFAULT '{}',
    created_at       timestamptz NOT NULL,
    last_login_at    timestamptz NOT NULL
);

CREATE TABLE ordering_logins (
    hash             text COLLATE "C" PRIMARY KEY,
    messenger_number text COLLATE "C" NOT NULL,
    address          text COLLATE "C" NOT NULL,
    status           text COLLATE "C" NOT NULL CHECK (status IN ('PENDING', 'VERIFIED', 'DELIVERED')),
    created_at       timestamptz NOT NULL,
    expires_at       timestamptz NOT NULL,
    user_id          text COLLATE "C" REFERENCES ordering_users (id) ON DELETE CASCADE,
    verified_at      timestamptz
);
CREATE INDEX ordering_logins_expires_idx ON ordering_logins (expires_at);

CREATE TABLE ordering_bans (
    id              text COLLATE "C" PRIMARY KEY,
    kind            text COLLATE "C" NOT NULL CHECK (kind IN ('number', 'address')),
    value           text COLLATE "C" NOT NULL,
    attempts        integer NOT NULL,
    level           integer NOT NULL CHECK (level BETWEEN 0 AND 3),
    ban_until       timestamptz,
    last_attempt_at timestamptz NOT NULL,
    created_at      timestamptz NOT NULL,
    UNIQUE (kind, value)
);

CREATE TABLE ordering_consents (
    messenger_number text COLLATE "C" PRIMARY KEY,
    source           text COLLATE "C" NOT NULL,
    first_at         timestamptz NOT NULL,
    last_at          timestamptz NOT NULL
);

CREATE TABLE ordering_spent (
    key   text COLLATE "C" PRIMARY KEY,
    until timestamptz NOT NULL
);
