-- The garbage collection of blobs (internal/blobgc).
--
-- package_blob_names: the names of the blobs each current package of
-- format 3 names (exam.PackageMeta.Blobs), replaced by SavePackage in the
-- package's own transaction.
CREATE TABLE package_blob_names (
    npsn text COLLATE "C" NOT NULL REFERENCES packages (npsn) ON DELETE CASCADE,
    name text COLLATE "C" NOT NULL,
    PRIMARY KEY (npsn, name)
);
CREATE INDEX package_blob_names_name ON package_blob_names (name);
-- Whether SavePackage recorded the package's names: false for packages
-- saved before (PackagesWithoutBlobNames), which the collector has rebuilt
-- before it trusts the names.
ALTER TABLE packages ADD COLUMN blob_names_recorded boolean NOT NULL DEFAULT false;

-- blob_gc_marks: blobs a collection found unreferenced, and since when; a
-- blob unreferenced for the whole retention period is deleted.
CREATE TABLE blob_gc_marks (
    key   text COLLATE "C" PRIMARY KEY,
    since timestamptz NOT NULL
);
