-- The answers a lab server holds that the portal has not acknowledged yet,
-- as its last heartbeat reported them (the console's fleet shows them).
ALTER TABLE monitors ADD COLUMN pending_answers integer NOT NULL DEFAULT 0;
