package bolt

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/store/chunkio"
)

// Media are kept inside the bbolt file, so that a backup holds them: they
// are authored content, not derived like package blobs. The bytes are
// chunks of mediaChunkSize in bucketMediaChunks, written over several
// transactions of mediaChunksPerTx chunks (a transaction holds its pages in
// memory until it commits), then the record in bucketMedia makes them
// visible. Chunks without a record, left by a crash, are removed at Open.

const (
	mediaChunkSize   = 256 << 10
	mediaChunksPerTx = 16
)

type mediaRecord struct {
	SHA256    string    `json:"sha256"`
	Type      string    `json:"type"`
	Kind      string    `json:"kind"`
	Size      int64     `json:"size"`
	Name      string    `json:"name,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	BlobName  string    `json:"blob_name,omitempty"`
	BlobSize  int64     `json:"blob_size,omitempty"`
}

func (r mediaRecord) media() exam.Media {
	return exam.Media{SHA256: r.SHA256, Type: r.Type, Kind: exam.MediaKind(r.Kind), Size: r.Size,
		Name: r.Name, CreatedAt: utc(r.CreatedAt), BlobName: r.BlobName, BlobSize: r.BlobSize}
}

// mediaChunkKey is the key of chunk seq of the media of sha.
func mediaChunkKey(sha string, seq int64) []byte {
	return binary.BigEndian.AppendUint32([]byte(sha), uint32(seq))
}

// SaveMedia stores m and its bytes read from r; when media of m.SHA256 are
// stored already, r is not read.
func (s *Store) SaveMedia(ctx context.Context, m exam.Media, r io.Reader) error {
	if !validChecksum(m.SHA256) || m.Size <= 0 {
		return fmt.Errorf("bolt: save media %q: bad SHA-256 or size %d", m.SHA256, m.Size)
	}
	if _, err := s.GetMedia(ctx, m.SHA256); err == nil {
		return nil
	} else if !errors.Is(err, exam.ErrNotFound) {
		return err
	}
	h := sha256.New()
	// bbolt keeps the values put until the transaction ends: each
	// transaction's chunks get their own part of buf.
	buf := make([]byte, mediaChunkSize*mediaChunksPerTx)
	var seq int64
	remaining := m.Size
	for remaining > 0 {
		err := s.update(ctx, "save media", func(tx *bbolt.Tx) error {
			b := tx.Bucket(bucketMediaChunks)
			for i := 0; i < mediaChunksPerTx && remaining > 0; i++ {
				n := min(remaining, mediaChunkSize)
				chunk := buf[i*mediaChunkSize:][:n]
				if _, err := io.ReadFull(r, chunk); err != nil {
					return fmt.Errorf("read media: %w", err)
				}
				h.Write(chunk)
				if err := b.Put(mediaChunkKey(m.SHA256, seq), chunk); err != nil {
					return err
				}
				seq++
				remaining -= n
			}
			return nil
		})
		if err != nil {
			s.dropMediaChunks(m.SHA256)
			return err
		}
	}
	var one [1]byte
	if n, _ := io.ReadFull(r, one[:]); n > 0 {
		s.dropMediaChunks(m.SHA256)
		return fmt.Errorf("bolt: save media %s: more than %d bytes", m.SHA256, m.Size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != m.SHA256 {
		s.dropMediaChunks(m.SHA256)
		return fmt.Errorf("bolt: save media %s: the bytes' SHA-256 is %s", m.SHA256, got)
	}
	return s.update(ctx, "save media", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketMedia)
		if b.Get([]byte(m.SHA256)) != nil {
			return nil // saved meanwhile, with the same bytes
		}
		return putJSON(b, []byte(m.SHA256), mediaRecord{SHA256: m.SHA256, Type: m.Type, Kind: string(m.Kind),
			Size: m.Size, Name: m.Name, CreatedAt: m.CreatedAt.UTC()})
	})
}

// dropMediaChunks removes the chunks of sha when no record refers to them
// (a save that failed part way).
func (s *Store) dropMediaChunks(sha string) {
	_ = s.db.Update(func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketMedia).Get([]byte(sha)) != nil {
			return nil
		}
		return deleteMediaChunks(tx, sha)
	})
}

func deleteMediaChunks(tx *bbolt.Tx, sha string) error {
	c := tx.Bucket(bucketMediaChunks).Cursor()
	prefix := []byte(sha)
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

// GetMedia returns the media of sha; exam.ErrNotFound when none is stored.
func (s *Store) GetMedia(ctx context.Context, sha string) (exam.Media, error) {
	var rec mediaRecord
	err := s.view(ctx, "get media", func(tx *bbolt.Tx) error {
		found, err := getJSON(tx.Bucket(bucketMedia), []byte(sha), &rec)
		if err == nil && !found {
			err = exam.ErrNotFound
		}
		return err
	})
	if err != nil {
		return exam.Media{}, err
	}
	return rec.media(), nil
}

// OpenMedia opens the bytes of the media of sha, read one chunk per read
// transaction, so that no transaction stays open while a slow client reads.
func (s *Store) OpenMedia(ctx context.Context, sha string) (exam.PackageReader, error) {
	m, err := s.GetMedia(ctx, sha)
	if err != nil {
		return nil, fmt.Errorf("bolt: open media: %w", err)
	}
	return chunkio.NewReader(m.Size, mediaChunkSize, func(seq int64, buf []byte) ([]byte, error) {
		err := s.view(ctx, "read media", func(tx *bbolt.Tx) error {
			v := tx.Bucket(bucketMediaChunks).Get(mediaChunkKey(sha, seq))
			if v == nil {
				return errors.New("chunk missing")
			}
			buf = append(buf, v...)
			return nil
		})
		return buf, err
	}), nil
}

// SetMediaBlob records the blob of the media of sha, and indexes the media
// by its blob name, in one transaction.
func (s *Store) SetMediaBlob(ctx context.Context, sha, name string, size int64) error {
	if !validChecksum(name) || size <= 0 {
		return fmt.Errorf("bolt: set media blob %q: bad name or size %d", name, size)
	}
	err := s.update(ctx, "set media blob", func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketMedia)
		var rec mediaRecord
		found, err := getJSON(b, []byte(sha), &rec)
		switch {
		case err != nil:
			return err
		case !found:
			return exam.ErrNotFound
		case rec.BlobName == name && rec.BlobSize == size:
			return nil
		case rec.BlobName != "":
			return fmt.Errorf("%w: media %s has blob %s", exam.ErrBlobConflict, sha, rec.BlobName)
		}
		idx := tx.Bucket(bucketMediaBlobs)
		if other := idx.Get([]byte(name)); other != nil && string(other) != sha {
			return fmt.Errorf("%w: blob %s is media %s's", exam.ErrBlobConflict, name, other)
		}
		rec.BlobName, rec.BlobSize = name, size
		if err := putJSON(b, []byte(sha), rec); err != nil {
			return err
		}
		return idx.Put([]byte(name), []byte(sha))
	})
	if err != nil {
		return fmt.Errorf("bolt: set media blob of %s: %w", sha, err)
	}
	return nil
}

// GetMediaByBlob returns the media whose blob is name; exam.ErrNotFound
// when none has it.
func (s *Store) GetMediaByBlob(ctx context.Context, name string) (exam.Media, error) {
	var rec mediaRecord
	err := s.view(ctx, "get media by blob", func(tx *bbolt.Tx) error {
		sha := tx.Bucket(bucketMediaBlobs).Get([]byte(name))
		if sha == nil {
			return exam.ErrNotFound
		}
		found, err := getJSON(tx.Bucket(bucketMedia), sha, &rec)
		if err == nil && !found {
			err = exam.ErrNotFound
		}
		return err
	})
	if err != nil {
		return exam.Media{}, err
	}
	return rec.media(), nil
}

// removeStrayMediaChunks removes chunks that no media record refers to,
// left by a crash during SaveMedia.
func (s *Store) removeStrayMediaChunks() error {
	return s.db.Update(func(tx *bbolt.Tx) error {
		media := tx.Bucket(bucketMedia)
		var stray []string
		c := tx.Bucket(bucketMediaChunks).Cursor()
		for k, _ := c.First(); k != nil; {
			sha := string(k[:min(len(k), 2*sha256.Size)])
			if media.Get([]byte(sha)) == nil {
				stray = append(stray, sha)
			}
			k, _ = c.Seek(mediaChunkKey(sha, 1<<32-1))
			if k != nil && string(k[:min(len(k), 2*sha256.Size)]) == sha {
				k, _ = c.Next()
			}
		}
		for _, sha := range stray {
			if err := deleteMediaChunks(tx, sha); err != nil {
				return fmt.Errorf("remove stray media chunks: %w", err)
			}
		}
		return nil
	})
}

// moveContentBlobs moves the content blobs an earlier release kept in a
// bucket of their own into the blob store, under the keys the exam
// service reads them from (exam.ExamBlobKey), and drops the bucket.
func (s *Store) moveContentBlobs() error {
	type blob struct {
		name string
		data []byte
	}
	var blobs []blob
	err := s.db.View(func(tx *bbolt.Tx) error {
		bk := tx.Bucket(bucketContentBlobsLegacy)
		if bk == nil {
			return nil
		}
		return bk.ForEach(func(k, v []byte) error {
			blobs = append(blobs, blob{string(k), bytes.Clone(v)})
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("move content blobs: %w", err)
	}
	bs := s.Blobs()
	for _, b := range blobs {
		if err := bs.Put(context.Background(), exam.ExamBlobKey(b.name), bytes.NewReader(b.data), int64(len(b.data))); err != nil {
			return fmt.Errorf("move content blob %s: %w", b.name, err)
		}
	}
	err = s.db.Update(func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketContentBlobsLegacy) == nil {
			return nil
		}
		return tx.DeleteBucket(bucketContentBlobsLegacy)
	})
	if err != nil {
		return fmt.Errorf("move content blobs: %w", err)
	}
	return nil
}
