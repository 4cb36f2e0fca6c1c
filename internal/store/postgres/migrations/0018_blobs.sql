-- The blob store kept in the database (blobstore.Store): payment receipts,
-- QR logos and other large immutable blobs when no object storage is
-- configured. A blob is its row in blobs and its 1 MiB chunks, written in
-- one transaction, so a blob is visible whole or not at all.
CREATE TABLE blobs (
    key         text COLLATE "C" PRIMARY KEY,
    size        bigint NOT NULL,
    etag        text NOT NULL,
    modified_at timestamptz NOT NULL
);

CREATE TABLE blob_chunks (
    key  text COLLATE "C" NOT NULL REFERENCES blobs (key) ON DELETE CASCADE,
    seq  integer NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (key, seq)
);
-- Images are compressed already: store them out of line, as they are.
ALTER TABLE blob_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
