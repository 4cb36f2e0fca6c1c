// Package bolt is the embedded store of the portal: it implements exam.Store
// and links.Store (links*.go, buckets named links_*)
// on one bbolt file, for a single portal instance.
//
// Every method runs in one bbolt transaction, so an error leaves nothing
// half-written. Records are JSON values in buckets; secondary-index buckets
// keep the unique member fields, the pushes by idempotency key and by
// checksum, and the orders the Store interface documents. Encrypted exam
// packages are files in a packages directory next to the bbolt file, named by
// their SHA-256; the bbolt file only holds their metadata.
package bolt

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/jsonx"
)

var _ exam.Store = (*Store)(nil)

// Store is an exam.Store on a bbolt file. It is safe for concurrent use; the
// file is locked, so one process at a time may open it.
type Store struct {
	db         *bbolt.DB
	packageDir string
	// pkgMu serialises SavePackage, so that a blob is never removed as
	// unreferenced while another save is about to reference it.
	pkgMu sync.Mutex
	// gcMu is the lock of the garbage collection of blobs (TryLockBlobGC):
	// the file is one process's, so a mutex is enough.
	gcMu sync.Mutex
	// calibrationLocks are the locks of calibrations (LockCalibration), a
	// one-slot channel per exam and model, under calibrationMu.
	calibrationMu    sync.Mutex
	calibrationLocks map[string]chan struct{}
}

// Option configures Open.
type Option func(*options)

type options struct {
	timeout    time.Duration
	noSync     bool
	packageDir string
}

// WithTimeout sets how long Open waits for another process to release the
// file lock before failing. The default is 5 seconds.
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// WithNoSync skips the fsync of each commit: faster, but a crash can lose or
// corrupt recent writes. Meant for tests only.
func WithNoSync() Option { return func(o *options) { o.noSync = true } }

// WithPackageDir keeps package blobs in dir instead of the packages directory
// next to the bbolt file.
func WithPackageDir(dir string) Option { return func(o *options) { o.packageDir = dir } }

// Bucket names.
var (
	bucketMeta            = []byte("meta")
	bucketSecrets         = []byte("secrets")
	bucketUsers           = []byte("users")
	bucketUsersByName     = []byte("users_by_username")
	bucketLicenses        = []byte("licenses")
	bucketServers         = []byte("server_bindings")
	bucketExams           = []byte("exams")
	bucketExamQuestions   = []byte("exam_questions")
	bucketExamStimuli     = []byte("exam_stimuli") // exam id -> []exam.Stimulus; absent: none
	bucketMembers         = []byte("members")
	bucketMembersByName   = []byte("members_by_nama")      // (nama, id) -> empty
	bucketMembersBySchool = []byte("members_by_npsn_nama") // (npsn, nama, id) -> empty
	bucketYears           = []byte("academic_years")
	bucketYearsByName     = []byte("academic_years_by_name")
	bucketAPIKeys         = []byte("api_keys")
	bucketAPIKeysByHash   = []byte("api_keys_by_hash")
	bucketAnswers         = []byte("answers")            // (exam, member, question) -> answer
	bucketPushesByKey     = []byte("pushes_by_key")      // (server, idempotency key) -> push
	bucketPushesBySum     = []byte("pushes_by_checksum") // (server, checksum) -> push
	bucketSyncLogs        = []byte("sync_logs")          // received_at, (id) -> record
	bucketMonitors        = []byte("monitors")
	bucketPackages        = []byte("packages")
	bucketFailures        = []byte("login_failures") // key -> throttle window
	bucketIdempotency     = []byte("idempotency")    // receipt id -> idempotency.Receipt (JSON)
	bucketMedia           = []byte("media")          // sha256 -> mediaRecord (JSON)
	bucketMediaChunks     = []byte("media_chunks")   // (sha256, uint32 BE seq) -> bytes
	bucketMediaBlobs      = []byte("media_blobs")    // blob name -> sha256 of the media
	// bucketContentBlobsLegacy held content blobs (name -> sealed bytes)
	// before they went to the blob store: moveContentBlobs moves them.
	bucketContentBlobsLegacy = []byte("content_blobs")
	bucketGrades             = []byte("grades")             // (exam, member, question, version) -> grade
	bucketGraderExams        = []byte("grader_exams")       // (grader, exam) -> empty
	bucketBlobs              = []byte("blobs")              // blob key -> blobRecord (JSON)
	bucketBlobChunks         = []byte("blob_chunks")        // (uint64 BE upload, uint32 BE seq) -> bytes
	bucketPackageBlobs       = []byte("package_blob_names") // package key -> JSON []string of blob names (PackageMeta.Blobs)
	bucketBlobGCMarks        = []byte("blob_gc_marks")      // blob key -> unreferenced since (RFC 3339, UTC)
	bucketCalibrations       = []byte("calibrations")       // (exam, model) -> calibrationRecord (JSON)
)

var allBuckets = [][]byte{
	bucketMeta, bucketSecrets, bucketUsers, bucketUsersByName, bucketLicenses, bucketServers,
	bucketExams, bucketExamQuestions, bucketExamStimuli, bucketMembers, bucketMembersByName, bucketMembersBySchool,
	bucketYears, bucketYearsByName, bucketAPIKeys, bucketAPIKeysByHash, bucketAnswers,
	bucketPushesByKey, bucketPushesBySum, bucketSyncLogs, bucketMonitors, bucketPackages, bucketFailures,
	bucketIdempotency, bucketMedia, bucketMediaChunks, bucketMediaBlobs, bucketGrades, bucketGraderExams,
	bucketBlobs, bucketBlobChunks, bucketPackageBlobs, bucketBlobGCMarks, bucketCalibrations,
}

func init() {
	for _, f := range uniqueMemberFields {
		allBuckets = append(allBuckets, f.bucket)
	}
}

// Keys of the meta bucket.
var (
	metaFormat          = []byte("format")
	metaContentRevision = []byte("content_revision")
)

// format is the version of the file's layout, checked at Open.
const format = "1"

// Open opens (creating when absent) the bbolt file at path and the package
// directory next to it. Blobs left by an interrupted SavePackage are removed,
// and so are the package records whose blob is missing (a restored backup):
// those packages are built again at the next pull.
func Open(path string, opts ...Option) (*Store, error) {
	o := options{timeout: 5 * time.Second, packageDir: filepath.Join(filepath.Dir(path), "packages")}
	for _, opt := range opts {
		opt(&o)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("bolt: open: %w", err)
	}
	if err := os.MkdirAll(o.packageDir, 0o700); err != nil {
		return nil, fmt.Errorf("bolt: open: package directory: %w", err)
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: o.timeout, NoSync: o.noSync})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("bolt: open %s: the file is locked by another process: %w", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("bolt: open %s: %w", path, err)
	}
	s := &Store{db: db, packageDir: o.packageDir}
	if err := db.Update(initialise); err != nil {
		db.Close()
		return nil, fmt.Errorf("bolt: open %s: %w", path, err)
	}
	if err := s.dropMissingPackages(); err != nil {
		db.Close()
		return nil, fmt.Errorf("bolt: open %s: %w", path, err)
	}
	if err := s.removeStrayBlobs(); err != nil {
		db.Close()
		return nil, fmt.Errorf("bolt: open %s: %w", path, err)
	}
	if err := s.removeStrayMediaChunks(); err != nil {
		db.Close()
		return nil, fmt.Errorf("bolt: open %s: %w", path, err)
	}
	if err := s.removeStrayBlobChunks(); err != nil {
		db.Close()
		return nil, fmt.Errorf("bolt: open %s: %w", path, err)
	}
	if err := s.moveContentBlobs(); err != nil {
		db.Close()
		return nil, fmt.Errorf("bolt: open %s: %w", path, err)
	}
	return s, nil
}

func initialise(tx *bbolt.Tx) error {
	for _, name := range allBuckets {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	meta := tx.Bucket(bucketMeta)
	switch v := meta.Get(metaFormat); {
	case v == nil:
		if err := meta.Put(metaFormat, []byte(format)); err != nil {
			return err
		}
	case string(v) != format:
		return fmt.Errorf("file format %q is not supported (want %q)", v, format)
	}
	if err := migrateVisits(tx); err != nil {
		return err
	}
	return migrateLedger(tx)
}

// Close closes the bbolt file.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("bolt: close: %w", err)
	}
	return nil
}

// Ping reports whether the store is open.
func (s *Store) Ping(ctx context.Context) error {
	return s.view(ctx, "ping", func(*bbolt.Tx) error { return nil })
}

// view runs fn in a read transaction, wrapping its error with the operation.
func (s *Store) view(ctx context.Context, op string, fn func(tx *bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("bolt: %s: %w", op, err)
	}
	if err := s.db.View(fn); err != nil {
		return fmt.Errorf("bolt: %s: %w", op, err)
	}
	return nil
}

// update runs fn in a write transaction, wrapping its error with the operation.
func (s *Store) update(ctx context.Context, op string, fn func(tx *bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("bolt: %s: %w", op, err)
	}
	if err := s.db.Update(fn); err != nil {
		return fmt.Errorf("bolt: %s: %w", op, err)
	}
	return nil
}

// getJSON decodes the value of key into v; it reports false when there is none.
func getJSON(b *bbolt.Bucket, key []byte, v any) (bool, error) {
	data := b.Get(key)
	if data == nil {
		return false, nil
	}
	if err := jsonx.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("decode record %q: %w", key, err)
	}
	return true, nil
}

// putJSON stores v encoded as JSON under key.
func putJSON(b *bbolt.Bucket, key []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode record %q: %w", key, err)
	}
	return b.Put(key, data)
}

// decodeJSON decodes one value read from a cursor.
func decodeJSON(k, v []byte, dst any) error {
	if err := jsonx.Unmarshal(v, dst); err != nil {
		return fmt.Errorf("decode record %q: %w", k, err)
	}
	return nil
}

// bumpRevision increments the content revision.
func bumpRevision(tx *bbolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	rev := readRevision(meta) + 1
	return meta.Put(metaContentRevision, binary.BigEndian.AppendUint64(nil, uint64(rev)))
}

func readRevision(meta *bbolt.Bucket) int64 {
	v := meta.Get(metaContentRevision)
	if len(v) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(v))
}

// Composite keys. Each part is written with 0x00 escaped as 0x00 0xff and
// ends with 0x00 0x01, so that keys compare byte-wise exactly as their parts
// compare as Go strings, one after the other, and no key of one tuple is a
// prefix of another's unless its parts are.

// appendPart appends one part of a composite key.
func appendPart(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			dst = append(dst, 0, 0xff)
		} else {
			dst = append(dst, s[i])
		}
	}
	return append(dst, 0, 1)
}

// tuple returns the composite key of parts.
func tuple(parts ...string) []byte {
	n := 0
	for _, p := range parts {
		n += len(p) + 2
	}
	k := make([]byte, 0, n)
	for _, p := range parts {
		k = appendPart(k, p)
	}
	return k
}

// parts splits a composite key into its parts.
func parts(k []byte) ([]string, error) {
	var out []string
	var cur []byte
	for i := 0; i < len(k); i++ {
		if k[i] != 0 {
			cur = append(cur, k[i])
			continue
		}
		if i+1 >= len(k) {
			return nil, fmt.Errorf("malformed key %q", k)
		}
		i++
		switch k[i] {
		case 0xff:
			cur = append(cur, 0)
		case 1:
			out = append(out, string(cur))
			cur = cur[:0]
		default:
			return nil, fmt.Errorf("malformed key %q", k)
		}
	}
	if len(cur) > 0 {
		return nil, fmt.Errorf("malformed key %q", k)
	}
	return out, nil
}

// lastPart returns the last part of a composite key.
func lastPart(k []byte) (string, error) {
	ps, err := parts(k)
	if err != nil {
		return "", err
	}
	if len(ps) == 0 {
		return "", fmt.Errorf("malformed key %q", k)
	}
	return ps[len(ps)-1], nil
}

// scanPrefix calls fn for each key of b starting with prefix, in order, until
// fn returns false or an error.
func scanPrefix(b *bbolt.Bucket, prefix []byte, fn func(k, v []byte) (bool, error)) error {
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		more, err := fn(k, v)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// ts returns t as stored: UTC, truncated to the microsecond.
func ts(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// tsPtr is ts for optional times.
func tsPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := ts(*t)
	return &v
}

// utc returns a time read back in UTC.
func utc(t time.Time) time.Time { return t.UTC() }

// utcPtr is utc for optional times.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := t.UTC()
	return &v
}
