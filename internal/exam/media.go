package exam

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // image.DecodeConfig of JPEG uploads
	_ "image/png"  // image.DecodeConfig of PNG uploads
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	_ "golang.org/x/image/webp" // image.DecodeConfig of WebP uploads

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/pkg/labwire/sanitize"
)

// MediaKind says how a media file is shown: as an image or as an audio
// player.
type MediaKind string

// The media kinds.
const (
	MediaImage MediaKind = "image"
	MediaAudio MediaKind = "audio"
)

// Media is one uploaded image or audio file. Media are stored once per
// content (their SHA-256) and referred to by texts as media:SHA256.
type Media struct {
	SHA256 string
	// Type is the MIME type found in the bytes: image/png, image/jpeg,
	// image/webp, audio/mpeg, audio/ogg, audio/mp4 or audio/aac.
	Type string
	Kind MediaKind
	Size int64
	// Name is the file name given at the first upload, for the authors'
	// lists; it is never part of a page's markup.
	Name      string
	CreatedAt time.Time
	// BlobName and BlobSize name and size the file's blob: its bytes
	// sealed once under its content key (ContentKey), the same for every
	// school, served at /api/v1/blobs/{BlobName}. BlobName is the SHA-256
	// of the sealed bytes; both are empty until the file first goes into a
	// package of format 3.
	BlobName string
	BlobSize int64
}

// Limits of media (docs/exam-content.md, "Media").
const (
	// MaxImageSize is the largest image accepted, in bytes.
	MaxImageSize = 5 << 20
	// MaxAudioSize is the largest audio file accepted, in bytes: about 30
	// minutes of speech at 128 kbit/s.
	MaxAudioSize = 30 << 20
	// MaxExamMedia is the largest total size of the media one exam shows.
	MaxExamMedia = 200 << 20
	// maxImagePixels bounds an image's width × height, which browsers
	// decode whole.
	maxImagePixels = 40_000_000
	// maxMediaName is the longest file name kept, in bytes.
	maxMediaName = 200
)

// Media errors.
var (
	ErrUnsupportedMedia = apperr.New(apperr.UnsupportedMedia, "UNSUPPORTED_MEDIA",
		"the file is not an accepted image (PNG, JPEG, WebP) or audio (MP3, Ogg Vorbis or Opus, M4A/AAC); the type is read from the bytes, not the name")
	ErrEmptyMedia = apperr.New(apperr.Invalid, "EMPTY_MEDIA", "the upload has no bytes")
	// ErrMediaTooLarge refuses an upload over the largest accepted file.
	ErrMediaTooLarge = mediaTooLarge("a media file", MaxAudioSize)
)

// mediaTooLarge is the refusal of a file over its kind's limit.
func mediaTooLarge(what string, limit int64) *apperr.Error {
	return apperr.Errorf(apperr.TooLarge, "MEDIA_TOO_LARGE", "%s is larger than %d MiB", what, limit>>20)
}

// MediaStore keeps media content-addressed.
type MediaStore interface {
	// SaveMedia stores m and its m.Size bytes read from r, whose SHA-256
	// must be m.SHA256, else nothing is kept. When media of that SHA-256
	// are stored already, r need not be read and the stored record stays.
	// r is streamed: it is never held whole in memory.
	SaveMedia(ctx context.Context, m Media, r io.Reader) error
	// GetMedia returns the media of sha (lowercase hex); ErrNotFound when
	// none is stored.
	GetMedia(ctx context.Context, sha string) (Media, error)
	// OpenMedia opens the bytes of the media of sha; it reads lazily, one
	// chunk at a time, with ctx. ErrNotFound when none is stored.
	OpenMedia(ctx context.Context, sha string) (PackageReader, error)
	// SetMediaBlob records the blob name (lowercase hex SHA-256) and size
	// of the media of sha. ErrNotFound when no media of sha is stored.
	// Setting the blob a media has already is a no-op; another blob for a
	// media that has one, or a name another media has, is refused
	// (ErrBlobConflict, wrapped) and nothing is written.
	SetMediaBlob(ctx context.Context, sha, name string, size int64) error
	// GetMediaByBlob returns the media whose blob is name; ErrNotFound
	// when no media has that blob.
	GetMediaByBlob(ctx context.Context, name string) (Media, error)
}

// ErrBlobConflict is returned (wrapped) by SetMediaBlob for a blob other
// than the one a media has, or a name that another media has.
var ErrBlobConflict = errors.New("exam: the media has another blob, or the blob name is another media's")

// UploadMedia reads one file from r (at most MaxAudioSize bytes), checks
// its type from its bytes and stores it; the same bytes uploaded again
// return the stored media. name is the file's name, kept for display.
func (s *Service) UploadMedia(ctx context.Context, name string, r io.Reader) (Media, error) {
	f, err := os.CreateTemp(s.cfg.TempDir, "media-*.tmp")
	if err != nil {
		return Media{}, fmt.Errorf("upload media: %w", err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(r, MaxAudioSize+1))
	var tooLarge interface{ MaxBytes() int64 }
	switch {
	case err != nil && errors.As(err, &tooLarge):
		return Media{}, ErrMediaTooLarge
	case err != nil:
		return Media{}, fmt.Errorf("upload media: read: %w", err)
	case n == 0:
		return Media{}, ErrEmptyMedia
	case n > MaxAudioSize:
		return Media{}, ErrMediaTooLarge
	}
	typ, kind, err := SniffMedia(io.NewSectionReader(f, 0, n))
	if err != nil {
		return Media{}, err
	}
	if kind == MediaImage && n > MaxImageSize {
		return Media{}, mediaTooLarge("an image", MaxImageSize)
	}
	m := Media{SHA256: hex.EncodeToString(h.Sum(nil)), Type: typ, Kind: kind, Size: n,
		Name: cleanMediaName(name), CreatedAt: s.now().UTC().Truncate(time.Second)}
	if old, err := s.store.GetMedia(ctx, m.SHA256); err == nil {
		return old, nil
	} else if !errors.Is(err, ErrNotFound) {
		return Media{}, fmt.Errorf("upload media: %w", err)
	}
	if err := s.store.SaveMedia(ctx, m, io.NewSectionReader(f, 0, n)); err != nil {
		return Media{}, fmt.Errorf("upload media: %w", err)
	}
	s.log.InfoContext(ctx, "media uploaded", "sha256", m.SHA256[:12], "type", m.Type, "size", m.Size)
	return s.store.GetMedia(ctx, m.SHA256)
}

// cleanMediaName keeps the base name of a file name, printable and short.
func cleanMediaName(name string) string {
	name = name[strings.LastIndexAny(name, `/\`)+1:]
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return -1
		}
		return r
	}, name)
	for len(name) > maxMediaName {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	return strings.TrimSpace(name)
}

// GetMedia returns the media of sha; ErrNotFound when there is none.
func (s *Service) GetMedia(ctx context.Context, sha string) (Media, error) {
	if !sanitize.SHA256Hex.MatchString(sha) {
		return Media{}, ErrNotFound
	}
	if v, ok := s.mediaInfo.Load(sha); ok {
		return v.(Media), nil
	}
	m, err := s.store.GetMedia(ctx, sha)
	if err != nil {
		return Media{}, fmt.Errorf("get media: %w", err)
	}
	s.mediaInfo.Store(sha, m) // media change only once, when their blob is set (mediaBlob)
	return m, nil
}

// OpenMedia opens the bytes of the media of sha.
func (s *Service) OpenMedia(ctx context.Context, sha string) (Media, PackageReader, error) {
	m, err := s.GetMedia(ctx, sha)
	if err != nil {
		return Media{}, nil, err
	}
	r, err := s.store.OpenMedia(ctx, sha)
	if err != nil {
		return Media{}, nil, fmt.Errorf("open media: %w", err)
	}
	return m, r, nil
}

// SniffMedia reads the type of a media file from its first bytes (and, for
// images, their header: size and format must decode). It accepts PNG, JPEG,
// WebP, MP3, Ogg (Vorbis or Opus), M4A and AAC; anything else is
// ErrUnsupportedMedia.
func SniffMedia(r io.ReaderAt) (typ string, kind MediaKind, err error) {
	var head [64]byte
	n, err := r.ReadAt(head[:], 0)
	if err != nil && err != io.EOF {
		return "", "", fmt.Errorf("sniff media: %w", err)
	}
	b := head[:n]
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return checkImage(r, "png", "image/png")
	case bytes.HasPrefix(b, []byte("\xff\xd8\xff")):
		return checkImage(r, "jpeg", "image/jpeg")
	case len(b) >= 12 && string(b[0:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return checkImage(r, "webp", "image/webp")
	case bytes.HasPrefix(b, []byte("ID3")) && len(b) >= 10 && b[3] >= 2 && b[3] <= 4 && b[5]&0x0f == 0 &&
		b[6]|b[7]|b[8]|b[9] < 0x80:
		return "audio/mpeg", MediaAudio, nil
	case mpegAudioFrame(b):
		return "audio/mpeg", MediaAudio, nil
	case adtsFrame(b):
		return "audio/aac", MediaAudio, nil
	case len(b) >= 36 && string(b[0:4]) == "OggS" &&
		(string(b[28:36]) == "OpusHead" || string(b[28:35]) == "\x01vorbis"):
		return "audio/ogg", MediaAudio, nil
	case m4aAudio(b):
		return "audio/mp4", MediaAudio, nil
	}
	return "", "", ErrUnsupportedMedia
}

// checkImage decodes the header of an image of format and bounds its size.
func checkImage(r io.ReaderAt, format, typ string) (string, MediaKind, error) {
	cfg, got, err := image.DecodeConfig(io.NewSectionReader(r, 0, 1<<62))
	switch {
	case err != nil || got != format:
		return "", "", apperr.Errorf(apperr.UnsupportedMedia, "UNSUPPORTED_MEDIA", "the file starts as %s but its header does not decode", strings.ToUpper(format))
	case cfg.Width < 1 || cfg.Height < 1 || int64(cfg.Width)*int64(cfg.Height) > maxImagePixels:
		return "", "", apperr.Errorf(apperr.TooLarge, "MEDIA_TOO_LARGE", "an image is at most %d megapixels (this one is %d×%d)", maxImagePixels/1_000_000, cfg.Width, cfg.Height)
	}
	return typ, MediaImage, nil
}

// mpegAudioFrame reports whether b starts with an MPEG-1/2/2.5 Layer III
// frame header (an MP3 without an ID3 tag).
func mpegAudioFrame(b []byte) bool {
	if len(b) < 4 || b[0] != 0xff || b[1]&0xe0 != 0xe0 {
		return false
	}
	version, layer := b[1]>>3&3, b[1]>>1&3
	bitrate, rate := b[2]>>4, b[2]>>2&3
	return version != 1 && layer == 1 && bitrate != 0 && bitrate != 15 && rate != 3
}

// adtsFrame reports whether b starts with an AAC ADTS frame header.
func adtsFrame(b []byte) bool {
	return len(b) >= 7 && b[0] == 0xff && b[1]&0xf6 == 0xf0 && b[2]>>2&0xf < 13
}

// m4aAudio reports whether b starts with an ISO base media file type box
// whose brands say audio-only MP4 (M4A, M4B).
func m4aAudio(b []byte) bool {
	if len(b) < 16 || string(b[4:8]) != "ftyp" {
		return false
	}
	size := int(b[0])<<24 | int(b[1])<<16 | int(b[2])<<8 | int(b[3])
	if size < 16 || size%4 != 0 {
		return false
	}
	brands := b[8:min(size, len(b))]
	for i := 0; i+4 <= len(brands); i += 4 {
		if i == 4 {
			continue // the minor version, not a brand
		}
		if br := string(brands[i : i+4]); br == "M4A " || br == "M4B " {
			return true
		}
	}
	return false
}
