-- The blob of each media file (exam.Media.BlobName, BlobSize): its bytes
-- sealed once under its content key, named by the SHA-256 of the sealed
-- bytes and served to every school at /api/v1/blobs/{name}. Set when the
-- file first goes into a package of format 3; NULL until then.
ALTER TABLE media ADD COLUMN blob_name text COLLATE "C";
ALTER TABLE media ADD COLUMN blob_size bigint;
CREATE UNIQUE INDEX media_blob_name_idx ON media (blob_name) WHERE blob_name IS NOT NULL;

-- Content blobs: a question or a stimulus of a package of format 3, sealed
-- once under its content key (exam.ContentBlob), named by the SHA-256 of
-- these bytes and served at /api/v1/blobs/{name} like media blobs.
CREATE TABLE content_blobs (
    name       text COLLATE "C" PRIMARY KEY,
    data       bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
-- Sealed bytes do not compress: store them out of line, uncompressed.
ALTER TABLE content_blobs ALTER COLUMN data SET STORAGE EXTERNAL;
