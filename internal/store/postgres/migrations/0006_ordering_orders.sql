-- 0006_ordering_orders: the ordering service's menu, settings and orders
-- (internal/ordering).
--
-- Amounts are integers in the smallest unit of the currency (rupiah). An
-- order keeps its own copy of its lines (name and price when ordered) and
-- its history of states in jsonb: they are read and written with the order.
-- Order numbers come from one counter row per prefix and shop day, taken in
-- the order's own transaction: unique and without gaps on every instance.
CREATE TABLE ordering_categories (
    id         text COLLATE "C" PRIMARY KEY,
    name       text NOT NULL,
    position   integer NOT NULL,
    created_at timestamptz NOT NULL
);

CREATE TABLE ordering_menu_items (
    id          text COLLATE "C" PRIMARY KEY,
    category_id text COLLATE "C" NOT NULL REFERENCES ordering_categories (id),
    name        text NOT NULL,
    description text NOT NULL,
    price       bigint NOT NULL CHECK (price >= 0),
    available   boolean NOT NULL,
    image_url   text NOT NULL,
    position    integer NOT NULL,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);
CREATE INDEX ordering_menu_items_category_idx ON ordering_menu_items (category_id);

CREATE TABLE ordering_settings (
    id       boolean PRIMARY KEY DEFAULT true CHECK (id),
    settings jsonb NOT NULL
);

CREATE TABLE ordering_order_counters (
    counter text COLLATE "C" PRIMARY KEY,
    n       integer NOT NULL
);

CREATE TABLE ordering_orders (
    id           text COLLATE "C" PRIMARY KEY,
    order_number text COLLATE "C" NOT NULL UNIQUE,
    user_id      text COLLATE "C" NOT NULL REFERENCES ordering_users (id),
    status       text COLLATE "C" NOT NULL,
    invoice_id   text COLLATE "C" UNIQUE,
    total_price  bigint NOT NULL,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL,
    expires_at   timestamptz,
    body         jsonb NOT NULL
);
CREATE INDEX ordering_orders_user_idx ON ordering_orders (user_id, created_at);
CREATE INDEX ordering_orders_status_idx ON ordering_orders (status, created_at);
