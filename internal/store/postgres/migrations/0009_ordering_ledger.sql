-- 0009_ordering_ledger: the ledger's read model (internal/ordering,
-- Order.LedgerEntry): one row per order in the ledger (paid, not refunded),
-- written in the transaction of every order insert and update (upserted
-- while the order is in the ledger, deleted otherwise). The ledger reads
-- these rows by paid time, never the orders' bodies.
CREATE TABLE ordering_ledger (
    order_id     text COLLATE "C" PRIMARY KEY REFERENCES ordering_orders (id) ON DELETE CASCADE,
    paid_at      timestamptz NOT NULL,
    order_number text COLLATE "C" NOT NULL,
    method       text COLLATE "C" NOT NULL,
    items_total  bigint NOT NULL,
    shipping     bigint NOT NULL,
    total        bigint NOT NULL,
    status       text COLLATE "C" NOT NULL
);
CREATE INDEX ordering_ledger_paid_at_idx ON ordering_ledger (paid_at, order_id);

-- The orders stored so far, as Order.LedgerEntry derives them from their
-- JSON bodies (ordering.Order's json names): paid at the time of the first
-- entry of "history" moving "to" PAID, its "at"; refunded orders left out.
INSERT INTO ordering_ledger (order_id, paid_at, order_number, method, items_total, shipping, total, status)
SELECT o.id, p.at, o.order_number, o.body ->> 'paymentMethod', (o.body ->> 'itemsTotal')::bigint,
       (o.body ->> 'shippingCost')::bigint, (o.body ->> 'totalPrice')::bigint, o.status
  FROM ordering_orders o
  CROSS JOIN LATERAL (
      SELECT (h.change ->> 'at')::timestamptz AS at
        FROM jsonb_array_elements(CASE jsonb_typeof(o.body -> 'history') WHEN 'array' THEN o.body -> 'history' ELSE '[]' END)
             WITH ORDINALITY AS h (change, n)
       WHERE h.change ->> 'to' = 'PAID'
       ORDER BY h.n
       LIMIT 1
  ) p
 WHERE o.status <> 'REFUNDED';
