package exam

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/seedhq/portal/pkg/labwire"
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
		Size:  labwire.SealedSize(m.Size),
		Open: func() (PackageReader, error) {
			plain, err := s.store.OpenMedia(ctx, sha)
			if err != nil {
				return nil, fmt.Errorf("open media: %w", err)
			}
			r, err := labwire.NewSealedReader(plain, m.Size, key, prefix)
			if err != nil {
				plain.Close()
				return nil, err
			}
			return r, nil
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
