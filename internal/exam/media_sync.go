package exam

import (
	"context"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Lab servers fetch each media file of their exams once, apart from the
// package, so that a change to a question's text does not move its media
// again. A media file is sent encrypted with the school's package key, in
// the package's AES-256-GCM-STREAM format, with a nonce prefix derived from
// the key and the file's SHA-256: the same school always gets the same
// bytes, so a cut download resumes with Range, and a chunk is sealed only
// when it is read, so any range is served without encrypting what is
// before it.

// SchoolMedia is a media file as a school's lab server fetches it.
type SchoolMedia struct {
	Media
	// ETag names the encrypted bytes: the same for every fetch by the
	// school while its package key stays.
	ETag string
	// Size is the size of the encrypted bytes.
	Size int64
	// Open returns a reader of the encrypted bytes, which seals each
	// chunk when it is read. Close it.
	Open func() (PackageReader, error)
}

// OpenSchoolMedia returns the media of sha for the school npsn, encrypted
// with its package key. ErrNotFound unless an exam assigned to the school
// shows the file.
func (s *Service) OpenSchoolMedia(ctx context.Context, npsn, sha string) (SchoolMedia, error) {
	ok, err := s.schoolShowsMedia(ctx, npsn, sha)
	if err != nil {
		return SchoolMedia{}, fmt.Errorf("school media: %w", err)
	}
	if !ok {
		return SchoolMedia{}, ErrNotFound
	}
	m, err := s.GetMedia(ctx, sha)
	if err != nil {
		return SchoolMedia{}, err
	}
	key, err := s.PackageKey(ctx, npsn)
	if err != nil {
		return SchoolMedia{}, fmt.Errorf("school media: %w", err)
	}
	prefix := mediaNoncePrefix(key, sha)
	return SchoolMedia{
		Media: m,
		ETag:  `"` + sha[:32] + "-" + hex.EncodeToString(prefix[:]) + `"`,
		Size:  SealedSize(m.Size),
		Open: func() (PackageReader, error) {
			aead, err := newPackageAEAD(key)
			if err != nil {
				return nil, err
			}
			plain, err := s.store.OpenMedia(ctx, sha)
			if err != nil {
				return nil, fmt.Errorf("open media: %w", err)
			}
			return newSealedReader(plain, m.Size, aead, prefix), nil
		},
	}, nil
}

// mediaNoncePrefix is the nonce prefix of the media of sha sealed under
// key: an HMAC of its SHA-256 under the key, so that a key seals each
// plaintext under a prefix of its own.
func mediaNoncePrefix(key []byte, sha string) [8]byte {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("media:" + sha))
	var prefix [8]byte
	copy(prefix[:], mac.Sum(nil))
	return prefix
}

// SealedSize is the size in the AES-256-GCM-STREAM format of a plaintext of
// n bytes: the header, and a tag per chunk (the final chunk holds what is
// left after the full ones, possibly nothing).
func SealedSize(n int64) int64 {
	chunks := n/packageChunkSize + 1
	return packageHeaderSize + n + chunks*packageTagSize
}

// schoolShowsMedia reports whether an exam assigned to npsn shows the media
// of sha. The answer is kept per school until the content revision moves.
func (s *Service) schoolShowsMedia(ctx context.Context, npsn, sha string) (bool, error) {
	rev, err := s.store.ContentRevision(ctx)
	if err != nil {
		return false, err
	}
	if v, ok := s.schoolMedia.Load(npsn); ok && v.(schoolMediaSet).revision == rev {
		return v.(schoolMediaSet).media[sha], nil
	}
	set := schoolMediaSet{revision: rev, media: map[string]bool{}}
	exams, err := s.store.ListExams(ctx, ExamFilter{NPSN: npsn})
	if err != nil {
		return false, err
	}
	for _, summary := range exams {
		e, err := s.store.GetExam(ctx, summary.ID)
		if errors.Is(err, ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return false, err
		}
		rep, err := s.checkContent(ctx, e.Questions, e.Stimuli)
		if err != nil {
			return false, err
		}
		for _, m := range rep.Media {
			set.media[m.SHA256] = true
		}
	}
	s.schoolMedia.Store(npsn, set)
	return set.media[sha], nil
}

// schoolMediaSet is the media a school's exams show, at a content revision.
type schoolMediaSet struct {
	revision int64
	media    map[string]bool
}

// sealedReader reads the AES-256-GCM-STREAM encryption of a plaintext of
// plainSize bytes read from plain, sealing one chunk at a time as it is
// read: the bytes are those NewPackageEncrypter writes for the same key
// and prefix.
type sealedReader struct {
	plain     PackageReader
	plainSize int64
	size      int64
	aead      cipher.AEAD
	aad       [packageHeaderSize + 1]byte
	nonce     [12]byte
	chunks    int64

	mu     sync.Mutex
	off    int64
	index  int64  // index of the chunk in sealed, -1 when none
	sealed []byte // the sealed chunk index
}

func newSealedReader(plain PackageReader, plainSize int64, aead cipher.AEAD, prefix [8]byte) *sealedReader {
	r := &sealedReader{plain: plain, plainSize: plainSize, size: SealedSize(plainSize), aead: aead,
		chunks: plainSize/packageChunkSize + 1, index: -1}
	copy(r.aad[0:4], packageMagic)
	r.aad[4] = packageVersion
	r.aad[5] = packageChunkLog2
	copy(r.aad[8:16], prefix[:])
	copy(r.nonce[:8], prefix[:])
	return r
}

// Read implements io.Reader.
func (r *sealedReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.off >= r.size {
		return 0, io.EOF
	}
	if r.off < packageHeaderSize {
		n := copy(p, r.aad[r.off:packageHeaderSize])
		r.off += int64(n)
		return n, nil
	}
	i := (r.off - packageHeaderSize) / packageSealedChunk
	if i != r.index {
		if err := r.seal(i); err != nil {
			return 0, err
		}
	}
	n := copy(p, r.sealed[r.off-packageHeaderSize-i*packageSealedChunk:])
	r.off += int64(n)
	return n, nil
}

// seal reads plaintext chunk i and seals it into r.sealed.
func (r *sealedReader) seal(i int64) error {
	r.index = -1
	start := i * packageChunkSize
	n := min(r.plainSize-start, packageChunkSize)
	if cap(r.sealed) < packageSealedChunk {
		r.sealed = make([]byte, packageSealedChunk)
	}
	buf := r.sealed[:n]
	if _, err := r.plain.Seek(start, io.SeekStart); err != nil {
		return fmt.Errorf("seal media chunk %d: %w", i, err)
	}
	if _, err := io.ReadFull(r.plain, buf); err != nil {
		return fmt.Errorf("seal media chunk %d: %w", i, err)
	}
	r.sealed = r.aead.Seal(buf[:0], chunkNonce(&r.nonce, uint32(i)), buf, packageAAD(&r.aad, i == r.chunks-1))
	r.index = i
	return nil
}

// Seek implements io.Seeker.
func (r *sealedReader) Seek(offset int64, whence int) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += r.off
	case io.SeekEnd:
		offset += r.size
	default:
		return 0, errors.New("sealed media: invalid whence")
	}
	if offset < 0 {
		return 0, errors.New("sealed media: negative position")
	}
	r.off = offset
	return offset, nil
}

// Close closes the plaintext reader.
func (r *sealedReader) Close() error { return r.plain.Close() }
