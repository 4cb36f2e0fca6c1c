-- 0002_links: the link-management domain (internal/links).
--
-- Ids are bigint identities. Every record but a user belongs to one user
-- (user_id), removed with it. References between records (a link's domain,
-- campaign, pixels and channels; a QR code's link) are foreign keys, so that
-- deleting the referenced record detaches or removes what points to it; that
-- they belong to the same user is checked by the store. Identifier-like text
-- (emails, usernames, hosts, slugs, aliases, key hashes) uses the "C"
-- collation: it compares byte-wise, as Go does. Emails and usernames arrive
-- lower-cased from the domain, so their unique constraints are
-- case-insensitive in effect.

CREATE TABLE links_users (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email         text COLLATE "C" NOT NULL CONSTRAINT links_users_email_key UNIQUE,
    username      text COLLATE "C" NOT NULL CONSTRAINT links_users_username_key UNIQUE,
    password_hash text NOT NULL,
    avatar        text NOT NULL,
    plan          text NOT NULL,
    rate_limit    integer NOT NULL,
    expires_at    timestamptz,
    registered_at timestamptz NOT NULL
);

-- The one current API key of each user (only its SHA-256 is kept).
CREATE TABLE links_api_keys (
    user_id    bigint PRIMARY KEY REFERENCES links_users (id) ON DELETE CASCADE,
    hash       text COLLATE "C" NOT NULL CONSTRAINT links_api_keys_hash_key UNIQUE,
    created_at timestamptz NOT NULL,
    rotated_at timestamptz
);

CREATE TABLE links_domains (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id       bigint NOT NULL REFERENCES links_users (id) ON DELETE CASCADE,
    url           text NOT NULL,
    host          text COLLATE "C" NOT NULL CONSTRAINT links_domains_host_key UNIQUE,
    redirect_root text NOT NULL,
    redirect_404  text NOT NULL,
    created_at    timestamptz NOT NULL
);
CREATE INDEX links_domains_user_idx ON links_domains (user_id, id DESC);

CREATE TABLE links_overlays (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id    bigint NOT NULL REFERENCES links_users (id) ON DELETE CASCADE,
    type       text NOT NULL,
    name       text NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX links_overlays_user_idx ON links_overlays (user_id, id DESC);

CREATE TABLE links_splashes (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id    bigint NOT NULL REFERENCES links_users (id) ON DELETE CASCADE,
    name       text NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX links_splashes_user_idx ON links_splashes (user_id, id DESC);

-- slug is NULL for a campaign without a rotator.
CREATE TABLE links_campaigns (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id    bigint NOT NULL REFERENCES links_users (id) ON DELETE CASCADE,
    name       text NOT NULL,
    slug       text COLLATE "C" CONSTRAINT links_campaigns_slug_key UNIQUE,
    public     boolean NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX links_campaigns_user_idx ON links_campaigns (user_id, id DESC);

CREATE TABLE links_channels (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id     bigint NOT NULL REFERENCES links_users (id) ON DELETE CASCADE,
    name        text NOT NULL,
    description text NOT NULL,
    color       text NOT NULL,
    starred     boolean NOT NULL,
    created_at  timestamptz NOT NULL
);
CREATE INDEX links_channels_user_idx ON links_channels (user_id, id DESC);

CREATE TABLE links_pixels (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id    bigint NOT NULL REFERENCES links_users (id) ON DELETE CASCADE,
    type       text NOT NULL,
    name       text NOT NULL,
    tag        text NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX links_pixels_user_idx ON links_pixels (user_id, id DESC);

-- Short links. domain_id is NULL for the portal's own short host (domain 0
-- of the domain); aliases are unique per domain, NULL included. A domain
-- cannot be deleted while links use it; deleting a campaign leaves its links
-- without one.
CREATE TABLE links_links (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id       bigint NOT NULL REFERENCES links_users (id) ON DELETE CASCADE,
    domain_id     bigint REFERENCES links_domains (id),
    alias         text COLLATE "C" NOT NULL,
    long_url      text NOT NULL,
    title         text NOT NULL,
    description   text NOT NULL,
    password_hash text NOT NULL,
    expires_at    timestamptz,
    campaign_id   bigint REFERENCES links_campaigns (id) ON DELETE SET NULL,
    clicks        bigint NOT NULL DEFAULT 0,
    unique_clicks bigint NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    CONSTRAINT links_links_alias_key UNIQUE NULLS NOT DISTINCT (domain_id, alias)
);
CREATE INDEX links_links_user_idx ON links_links (user_id, id DESC);
CREATE INDEX links_links_user_clicks_idx ON links_links (user_id, clicks DESC, id DESC);
CREATE INDEX links_links_campaign_idx ON links_links (campaign_id, id DESC) WHERE campaign_id IS NOT NULL;

-- The tracking pixels of each link.
CREATE TABLE links_link_pixels (
    link_id  bigint NOT NULL REFERENCES links_links (id) ON DELETE CASCADE,
    pixel_id bigint NOT NULL REFERENCES links_pixels (id) ON DELETE CASCADE,
    PRIMARY KEY (link_id, pixel_id)
);
CREATE INDEX links_link_pixels_pixel_idx ON links_link_pixels (pixel_id);

-- QR code records. data is the request's JSON, kept as bytes. Deleting the
-- link a QR code points through leaves the QR code without one.
CREATE TABLE links_qrcodes (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id    bigint NOT NULL REFERENCES links_users (id) ON DELETE CASCADE,
    name       text NOT NULL,
    type       text NOT NULL,
    data       bytea NOT NULL,
    background text NOT NULL,
    foreground text NOT NULL,
    logo       text NOT NULL,
    link_id    bigint REFERENCES links_links (id) ON DELETE SET NULL,
    scans      bigint NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX links_qrcodes_user_idx ON links_qrcodes (user_id, id DESC);
CREATE INDEX links_qrcodes_link_idx ON links_qrcodes (link_id) WHERE link_id IS NOT NULL;

-- Items assigned to channels: exactly one of link_id and qr_id is set. The
-- identity id orders assignments; deleting the channel or the item removes
-- the assignment.
CREATE TABLE links_channel_items (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    channel_id  bigint NOT NULL REFERENCES links_channels (id) ON DELETE CASCADE,
    link_id     bigint REFERENCES links_links (id) ON DELETE CASCADE,
    qr_id       bigint REFERENCES links_qrcodes (id) ON DELETE CASCADE,
    assigned_at timestamptz NOT NULL,
    CONSTRAINT links_channel_items_one_item CHECK (num_nonnulls(link_id, qr_id) = 1),
    CONSTRAINT links_channel_items_link_key UNIQUE (channel_id, link_id),
    CONSTRAINT links_channel_items_qr_key UNIQUE (channel_id, qr_id)
);
CREATE INDEX links_channel_items_channel_idx ON links_channel_items (channel_id, id DESC);
CREATE INDEX links_channel_items_link_idx ON links_channel_items (link_id) WHERE link_id IS NOT NULL;
CREATE INDEX links_channel_items_qr_idx ON links_channel_items (qr_id) WHERE qr_id IS NOT NULL;

-- Rate-limit counters, one per key and fixed window, shared by every portal
-- instance. A key's earlier windows are removed as it counts.
CREATE TABLE links_rate_limits (
    key          text COLLATE "C" NOT NULL,
    window_start timestamptz NOT NULL,
    count        integer NOT NULL,
    PRIMARY KEY (key, window_start)
);
