-- Images and audio of exams, content-addressed by SHA-256 (exam.Media),
-- stored in 1 MiB chunks like package blobs.
CREATE TABLE media (
    sha256     text COLLATE "C" PRIMARY KEY,
    type       text NOT NULL,
    kind       text NOT NULL,
    size       bigint NOT NULL,
    name       text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL
);

CREATE TABLE media_chunks (
    sha256 text COLLATE "C" NOT NULL REFERENCES media (sha256) ON DELETE CASCADE,
    seq    integer NOT NULL,
    data   bytea NOT NULL,
    PRIMARY KEY (sha256, seq)
);
-- Images and audio are compressed already: store them out of line, as they are.
ALTER TABLE media_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
