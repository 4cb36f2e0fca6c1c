-- Content blobs (a question or a stimulus of a package of format 3, sealed
-- once) now live in the blob store, under the key exam/<name>, with the
-- media blobs. Move those an earlier release kept in content_blobs into the
-- database's blob store (blobs, blob_chunks of 1 MiB) and drop the table.
-- A blob's name is the SHA-256 of its bytes, which is the blob store's ETag.
INSERT INTO blobs (key, size, etag, modified_at)
SELECT 'exam/' || name, length(data), name, created_at FROM content_blobs
ON CONFLICT (key) DO NOTHING;

INSERT INTO blob_chunks (key, seq, data)
SELECT 'exam/' || c.name, s.seq, substring(c.data FROM s.seq * 1048576 + 1 FOR 1048576)
FROM content_blobs c
CROSS JOIN LATERAL generate_series(0, greatest((length(c.data) - 1) / 1048576, 0)) AS s(seq)
WHERE length(c.data) > 0
ON CONFLICT (key, seq) DO NOTHING;

DROP TABLE content_blobs;
