-- The blob of each media file (exam.Media.BlobName, BlobSize): its bytes
-- sealed once under its content key, named by the SHA-256 of the sealed
-- bytes and served to every school at /api/v1/blobs/{name}. Set when the
-- file first goes into a package of format 3; NULL until then.
ALTER TABLE media ADD COLUMN blob_name text COLLATE "C";
ALTER TABLE media ADD COLUMN blob_size bigint;
CREATE UNIQUE INDEX media_blob_name_idx ON media (blob_name) WHERE blob_name IS NOT NULL;
