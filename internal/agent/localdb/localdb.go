// Package localdb is labagent's state: one bbolt file holding the sync state,
// the encrypted exam package (and a download in progress), the students'
// sessions, attempts and answers, and the outbox of answers waiting for the
// portal.
//
// Every write is one fsync'd bbolt transaction, so a power cut leaves either
// the state before the write or the state after it. Writes issued
// concurrently share one commit (group commit): a save is acknowledged only
// once its commit is on disk, and hundreds of students saving at once cost a
// handful of fsyncs.
package localdb

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/seedhq/portal/internal/jsonx"
	"go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// FileName is the name of the state file in labagent's data directory.
const FileName = "labagent.db"

// ErrLocked means another process (a running labagent) holds the file.
var ErrLocked = errors.New("localdb: the state file is in use by another labagent process")

// Bucket names.
var (
	bucketMeta       = []byte("meta")       // key -> JSON
	bucketPackage    = []byte("package")    // "data" -> encrypted bytes, "meta" -> PackageMeta
	bucketDownload   = []byte("download")   // "meta" -> Download, offset (8 bytes) -> chunk
	bucketSessions   = []byte("sessions")   // member id -> Session
	bucketAttempts   = []byte("attempts")   // exam id \0 member id -> Attempt
	bucketAnswers    = []byte("answers")    // exam id \0 member id \0 question id -> Answer
	bucketFlags      = []byte("flags")      // exam id \0 member id \0 question id -> empty: flagged as unsure
	bucketOutbox     = []byte("outbox")     // sequence (8 bytes) -> client.Answer
	bucketBatches    = []byte("batches")    // sequence (8 bytes) -> batchRecord
	bucketExtensions = []byte("extensions") // sequence (8 bytes) -> Extension
	bucketPlays      = []byte("plays")      // exam id \0 member id \0 question id -> Plays
	bucketContent    = []byte("content")    // blob name -> sealed bytes of a question or stimulus blob
	allBuckets       = [][]byte{bucketMeta, bucketPackage, bucketDownload, bucketSessions,
		bucketAttempts, bucketAnswers, bucketFlags, bucketOutbox, bucketBatches, bucketExtensions, bucketPlays,
		bucketContent}
)

// initialMmapSize is the address space mapped at open: 512 MiB, virtual
// only (pages are read in as used).
var initialMmapSize = map[bool]int{true: 0, false: 512 << 20}[runtime.GOOS == "windows"]

// DB is labagent's state file. It is safe for concurrent use.
type DB struct {
	bolt    *bbolt.DB
	commits chan *commit
	done    chan struct{}

	closeOnce sync.Once
	closeErr  error

	// sealMu serialises sealing and purging the outbox.
	sealMu sync.Mutex
}

// Options configure Open.
type Options struct {
	// Timeout is how long Open waits for another process to release the
	// file; zero means one second.
	Timeout time.Duration
	// ReadOnly opens the file for reading only (labagent status while the
	// daemon is stopped).
	ReadOnly bool
	// NoSync skips fsync: for tests only, never for real answers.
	NoSync bool
}

// Open opens (creating it if needed) the state file at path.
func Open(path string, o Options) (*DB, error) {
	if o.Timeout == 0 {
		o.Timeout = time.Second
	}
	if !o.ReadOnly {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("localdb: create data directory: %w", err)
		}
	}
	b, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: o.Timeout, ReadOnly: o.ReadOnly, NoSync: o.NoSync,
		// The freelist is rebuilt at open instead of written at every commit:
		// cheaper commits for a file that takes a write per answer.
		NoFreelistSync: true, FreelistType: bbolt.FreelistMapType,
		// Map address space up front so that a growing file is not
		// remapped (which stops every reader and writer) while students
		// save. Windows grows the file itself to the mapping's size, so
		// there it stays at bbolt's default.
		InitialMmapSize: initialMmapSize})
	if err != nil {
		if errors.Is(err, berrors.ErrTimeout) {
			return nil, fmt.Errorf("%w (%s)", ErrLocked, path)
		}
		return nil, fmt.Errorf("localdb: open %s: %w", path, err)
	}
	if !o.ReadOnly {
		err = b.Update(func(tx *bbolt.Tx) error {
			for _, name := range allBuckets {
				if _, err := tx.CreateBucketIfNotExists(name); err != nil {
					return err
				}
			}
			if tx.Bucket(bucketMeta).Get(keyPending) == nil {
				n, err := countPending(tx)
				if err != nil {
					return err
				}
				return addPending(tx, n)
			}
			return nil
		})
		if err != nil {
			b.Close()
			return nil, fmt.Errorf("localdb: create buckets: %w", err)
		}
	}
	d := &DB{bolt: b, commits: make(chan *commit, 4096), done: make(chan struct{})}
	go d.committer()
	return d, nil
}

// Close stops the committer and closes the file; writes must have
// returned. Closing twice is harmless.
func (d *DB) Close() error {
	d.closeOnce.Do(func() {
		close(d.commits)
		<-d.done
		d.closeErr = d.bolt.Close()
	})
	return d.closeErr
}

// Path is the file's path.
func (d *DB) Path() string { return d.bolt.Path() }

// commit is one write waiting for the committer.
type commit struct {
	fn  func(*bbolt.Tx) error
	err chan error
}

// maxGroup bounds the writes that share one commit.
const maxGroup = 2048

// update runs fn in a read-write transaction shared with the writes issued
// at the same time, and returns once that transaction is on disk. fn must
// check everything that can fail before it writes: when one fn of a group
// fails, the group is rolled back and each fn runs again in a transaction of
// its own, so fn may run twice.
func (d *DB) update(ctx context.Context, fn func(*bbolt.Tx) error) error {
	c := &commit{fn: fn, err: make(chan error, 1)}
	select {
	case d.commits <- c:
	case <-ctx.Done():
		return ctx.Err()
	}
	// Once queued the write will happen: wait for its outcome even if ctx
	// ends, so that the caller never reports a write that then lands.
	return storageErr(<-c.err)
}

// committer applies the queued writes: everything queued while a commit runs
// goes into the next one.
func (d *DB) committer() {
	defer close(d.done)
	group := make([]*commit, 0, 64)
	for c := range d.commits {
		group = append(group[:0], c)
	drain:
		for len(group) < maxGroup {
			select {
			case c, ok := <-d.commits:
				if !ok {
					break drain
				}
				group = append(group, c)
			default:
				break drain
			}
		}
		d.apply(group)
	}
}

func (d *DB) apply(group []*commit) {
	if len(group) == 1 {
		group[0].err <- d.bolt.Update(group[0].fn)
		return
	}
	err := d.bolt.Update(func(tx *bbolt.Tx) error {
		for _, c := range group {
			if err := c.fn(tx); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		for _, c := range group {
			c.err <- nil
		}
		return
	}
	for _, c := range group {
		c.err <- d.bolt.Update(c.fn)
	}
}

// view runs fn in a read-only transaction.
func (d *DB) view(fn func(*bbolt.Tx) error) error { return d.bolt.View(fn) }

func seqKey(n uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], n)
	return k[:]
}

func getJSON(b *bbolt.Bucket, key []byte, v any) (bool, error) {
	raw := b.Get(key)
	if raw == nil {
		return false, nil
	}
	if err := jsonx.Unmarshal(raw, v); err != nil {
		return false, fmt.Errorf("localdb: decode %q: %w", key, err)
	}
	return true, nil
}

func putJSON(b *bbolt.Bucket, key []byte, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("localdb: encode %q: %w", key, err)
	}
	return b.Put(key, raw)
}

// GetMeta decodes the JSON value stored under key into v and reports whether
// there was one.
func (d *DB) GetMeta(key string, v any) (found bool, err error) {
	err = d.view(func(tx *bbolt.Tx) error {
		found, err = getJSON(tx.Bucket(bucketMeta), []byte(key), v)
		return err
	})
	return found, err
}

// PutMeta stores v as JSON under key.
func (d *DB) PutMeta(ctx context.Context, key string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("localdb: encode %s: %w", key, err)
	}
	return d.update(ctx, func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketMeta).Put([]byte(key), raw)
	})
}
