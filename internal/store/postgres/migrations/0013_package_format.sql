-- The format of a package's plaintext (exam.PackageMeta.Format): 2 when an
-- exam of it has rich content; every package before it is format 1.
ALTER TABLE packages ADD COLUMN format integer NOT NULL DEFAULT 1;
