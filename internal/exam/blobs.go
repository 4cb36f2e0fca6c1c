package exam

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/seedhq/portal/internal/blobstore"
	"github.com/seedhq/portal/pkg/labwire"
)

// Exam content encrypted once for every school. A media file is sealed, in
// the package's AES-256-GCM-STREAM format, under a content key derived from
// the portal's content secret and the file's SHA-256, with a nonce prefix
// derived from that key: the sealed bytes are the same for every school and
// on every instance, so that any HTTP cache can keep them. They are served
// as a blob named by the SHA-256 of the sealed bytes (which does not reveal
// the plaintext's hash) at BlobPath; a school's package of format 3 carries
// each blob's name and content key, encrypted with the school's package key.
//
// A package of format 3 ships each exam's questions and stimuli the same
// way: each, rendered as the package shows it, is a content blob sealed
// under a key derived from the content secret and the SHA-256 of its
// JSON, so that a one-question edit changes one small blob and the rest
// stay where every cache holds them.

// BlobsPackageFormat is the package format whose media are blobs encrypted
// once (labwire.PackageBlob), for labagents that name it in PackageFormatsHeader.
const BlobsPackageFormat = 3

// BlobPath is the URL, relative to the portal's root URL (no leading slash,
// so that a portal under a path prefix keeps it), at which the blob name is
// served.
func BlobPath(name string) string { return "api/v1/blobs/" + name }

// ContentKey returns the content key of the media of sha: HMAC-SHA256 of
// "media:" + sha under the portal's content secret.
func (s *Service) ContentKey(sha string) []byte { return s.contentKey("media", sha) }

// contentKey returns the content key of the content of kind ("media",
// "question", "stimulus") whose plaintext has the SHA-256 sha:
// HMAC-SHA256 of kind + ":" + sha under the portal's content secret.
func (s *Service) contentKey(kind, sha string) []byte {
	mac := hmac.New(sha256.New, s.contentSecret)
	mac.Write([]byte(kind + ":" + sha))
	return mac.Sum(nil)
}

// maxContentRefs bounds the cache of content blobs already sealed.
const maxContentRefs = 100_000

// ExamBlobKey is the key in the blob store of the exam blob name.
func ExamBlobKey(name string) string { return ExamBlobKeyPrefix + name }

// CheckBlobPublicURL checks a public base URL of blobs
// (Config.BlobPublicURL): absolute http or https, with a host, no query,
// fragment or credentials.
func CheckBlobPublicURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("blob public URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("blob public URL %q: want an absolute http or https URL with a host and no query, fragment or credentials", s)
	}
	return nil
}

// blobRef returns the reference of the blob name of size bytes sealed under
// key, at its URL: under Config.BlobPublicURL when set, else the portal's
// blob route.
func (s *Service) blobRef(name string, size int64, key []byte) labwire.PackageBlob {
	u := BlobPath(name)
	if s.cfg.BlobPublicURL != "" {
		u = s.cfg.BlobPublicURL + "/" + name
	}
	return labwire.PackageBlob{Name: name, Size: size, Key: key, URL: u}
}

// blobCheckAge is how long the service trusts that a blob it put or found
// is still in the blob store before it asks again: far less than any
// retention of the blob store's garbage collection, so that a blob deleted
// there is put again by the next package build that names it.
const blobCheckAge = 10 * time.Minute

// ensureBlob makes sure the blob store holds the exam blob name of size
// bytes, putting what open returns when it does not. Concurrent calls for
// one name on this instance put it once; instances that race put the same
// bytes, which the store keeps once.
func (s *Service) ensureBlob(ctx context.Context, name string, size int64, open func() (io.ReadCloser, error)) error {
	if at, ok := s.blobsSeen.Load(name); ok && s.now().Sub(at.(time.Time)) < blobCheckAge {
		return nil
	}
	_, err, _ := s.blobPuts.Do(name, func() (any, error) {
		key := ExamBlobKey(name)
		info, err := s.cfg.Blobs.Stat(ctx, key)
		switch {
		case err == nil && info.Size == size:
		case err == nil:
			return nil, fmt.Errorf("blob %s is stored with %d bytes, want %d", name, info.Size, size)
		case errors.Is(err, blobstore.ErrNotFound):
			r, err := open()
			if err != nil {
				return nil, err
			}
			defer r.Close()
			if err := s.cfg.Blobs.Put(ctx, key, r, size); err != nil {
				return nil, err
			}
			s.log.InfoContext(ctx, "exam blob stored", "blob", name[:12], "size", size)
		default:
			return nil, err
		}
		s.blobsSeen.Store(name, s.now())
		return nil, nil
	})
	if err != nil {
		return fmt.Errorf("store blob %s: %w", name[:12], err)
	}
	return nil
}

// sealContent seals plain, the JSON of content of kind whose SHA-256 is
// sha, under its content key.
func (s *Service) sealContent(kind, sha string, plain []byte) ([]byte, error) {
	key := s.contentKey(kind, sha)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(kind + ":" + sha))
	var prefix [8]byte
	copy(prefix[:], mac.Sum(nil))
	var sealed bytes.Buffer
	sealed.Grow(int(labwire.SealedSize(int64(len(plain)))))
	enc, err := labwire.NewPackageEncrypter(&sealed, key, prefix)
	if err != nil {
		return nil, err
	}
	enc.Write(plain) // writes to a bytes.Buffer do not fail
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return sealed.Bytes(), nil
}

// contentBlob seals v, a question or stimulus of kind as a package of format
// 3 ships it (its JSON), once under its content key, makes sure the blob
// store holds the blob and returns its reference. The same content gives
// the same blob, for every school and on every instance.
func (s *Service) contentBlob(ctx context.Context, kind string, v any) (labwire.PackageBlob, error) {
	plain, err := json.Marshal(v)
	if err != nil {
		return labwire.PackageBlob{}, fmt.Errorf("%s blob: %w", kind, err)
	}
	sum := sha256.Sum256(plain)
	sha := hex.EncodeToString(sum[:])
	var sealed []byte // when sealed already
	ref, cached := labwire.PackageBlob{}, false
	if v, ok := s.contentRefs.Load(kind + ":" + sha); ok {
		ref, cached = v.(labwire.PackageBlob), true
	} else {
		if sealed, err = s.sealContent(kind, sha, plain); err != nil {
			return labwire.PackageBlob{}, fmt.Errorf("%s blob: %w", kind, err)
		}
		nameSum := sha256.Sum256(sealed)
		ref = s.blobRef(hex.EncodeToString(nameSum[:]), int64(len(sealed)), s.contentKey(kind, sha))
	}
	err = s.ensureBlob(ctx, ref.Name, ref.Size, func() (io.ReadCloser, error) {
		if sealed == nil {
			if sealed, err = s.sealContent(kind, sha, plain); err != nil {
				return nil, fmt.Errorf("%s blob: %w", kind, err)
			}
		}
		return io.NopCloser(bytes.NewReader(sealed)), nil
	})
	if err != nil {
		return labwire.PackageBlob{}, err
	}
	if !cached {
		if s.contentRefsCount.Add(1) > maxContentRefs {
			s.contentRefs.Clear()
			s.contentRefsCount.Store(1)
		}
		s.contentRefs.Store(kind+":"+sha, ref)
	}
	return ref, nil
}

// sealMedia returns a reader of the media m sealed under its content key,
// which seals each chunk when it is read.
func (s *Service) sealMedia(ctx context.Context, m Media) (PackageReader, error) {
	key := s.ContentKey(m.SHA256)
	plain, err := s.store.OpenMedia(ctx, m.SHA256)
	if err != nil {
		return nil, fmt.Errorf("open media: %w", err)
	}
	r, err := labwire.NewSealedReader(plain, m.Size, key, mediaNoncePrefix(key, m.SHA256))
	if err != nil {
		plain.Close()
		return nil, err
	}
	return r, nil
}

// mediaBlob returns m with its blob, sealing it once to name it when it
// has none yet, and recording it.
func (s *Service) mediaBlob(ctx context.Context, m Media) (Media, error) {
	if m.BlobName != "" {
		return m, nil
	}
	r, err := s.sealMedia(ctx, m)
	if err != nil {
		return Media{}, fmt.Errorf("seal media %s: %w", m.SHA256, err)
	}
	defer r.Close()
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return Media{}, fmt.Errorf("seal media %s: %w", m.SHA256, err)
	}
	if n != labwire.SealedSize(m.Size) {
		return Media{}, fmt.Errorf("seal media %s: %d sealed bytes, want %d", m.SHA256, n, labwire.SealedSize(m.Size))
	}
	name := hex.EncodeToString(h.Sum(nil))
	if err := s.store.SetMediaBlob(ctx, m.SHA256, name, n); err != nil {
		return Media{}, fmt.Errorf("record the blob of media %s: %w", m.SHA256, err)
	}
	m.BlobName, m.BlobSize = name, n
	s.mediaInfo.Store(m.SHA256, m)
	s.log.InfoContext(ctx, "media blob sealed", "sha256", m.SHA256[:12], "blob", name[:12], "size", n)
	return m, nil
}

// packageBlob returns the blob reference of the media of sha, sealing it
// first when it has no blob yet.
func (s *Service) packageBlob(ctx context.Context, sha string) (*labwire.PackageBlob, error) {
	m, err := s.GetMedia(ctx, sha)
	if err != nil {
		return nil, err
	}
	if m, err = s.mediaBlob(ctx, m); err != nil {
		return nil, err
	}
	err = s.ensureBlob(ctx, m.BlobName, m.BlobSize, func() (io.ReadCloser, error) { return s.sealMedia(ctx, m) })
	if err != nil {
		return nil, err
	}
	ref := s.blobRef(m.BlobName, m.BlobSize, s.ContentKey(sha))
	return &ref, nil
}

// Blob is a blob as the blob route serves it.
type Blob struct {
	// Name is the lowercase hex SHA-256 of the sealed bytes.
	Name string
	// Size is the size of the sealed bytes.
	Size int64
	// Open returns a reader of the sealed bytes, which seals each chunk
	// when it is read. Close it.
	Open func() (PackageReader, error)
}

// OpenBlob returns the blob name from the blob store. A media blob that
// an earlier release named but never stored there is sealed on the fly
// from the media. Only names the portal issued (in a package) are found:
// ErrNotFound for any other name, so that the route tells nothing of the
// media it holds. When the blob store cannot be reached, the error wraps
// blobstore.ErrUnavailable.
func (s *Service) OpenBlob(ctx context.Context, name string) (Blob, error) {
	if !validBlobName(name) {
		return Blob{}, ErrNotFound
	}
	info, err := s.cfg.Blobs.Stat(ctx, ExamBlobKey(name))
	if err == nil {
		return Blob{Name: name, Size: info.Size, Open: func() (PackageReader, error) {
			return blobstore.NewReader(ctx, s.cfg.Blobs, info), nil
		}}, nil
	}
	if !errors.Is(err, blobstore.ErrNotFound) {
		return Blob{}, fmt.Errorf("open blob: %w", err)
	}
	m, err := s.store.GetMediaByBlob(ctx, name)
	if errors.Is(err, ErrNotFound) {
		return Blob{}, ErrNotFound
	}
	if err != nil {
		return Blob{}, fmt.Errorf("open blob: %w", err)
	}
	return Blob{Name: name, Size: m.BlobSize, Open: func() (PackageReader, error) { return s.sealMedia(ctx, m) }}, nil
}

// validBlobName reports whether name is a lowercase hex SHA-256.
func validBlobName(name string) bool {
	if len(name) != 2*sha256.Size {
		return false
	}
	for _, c := range []byte(name) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
