package labwire

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Package is the decrypted content of an exam package. Answer keys never
// appear in it.
type Package struct {
	// Format is the content format: 1, or 2 when a question has rich
	// content (PackageQuestion.HTML), or 3 when media are blobs
	// (PackageMedia.Blob), for a client that names 3 in PackageFormats, or
	// 4: format 3 with Numeric or Cloze questions.
	Format      int              `json:"format"`
	NPSN        string           `json:"npsn"`
	SchoolName  string           `json:"school_name"`
	GeneratedAt time.Time        `json:"generated_at"`
	Students    []PackageStudent `json:"students"`
	Exams       []PackageExam    `json:"exams"`

	// Version is the lowercase hex SHA-256 of the plaintext, computed by
	// DecodePackage: compare it with the version a pull announces.
	Version string `json:"-"`
}

// PackageStudent is a student as a package ships it.
type PackageStudent struct {
	ID       string `json:"id"`
	Username string `json:"username"`
	Nama     string `json:"nama"`
	Kelas    string `json:"kelas"`
	NISN     string `json:"nisn"`
	// PasswordHash is
	// "pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>" of the student's
	// exam password.
	PasswordHash string `json:"password_hash"`
}

// PackageExam is an exam as a package ships it.
type PackageExam struct {
	ID              string            `json:"id"`
	Title           string            `json:"title"`
	Subject         string            `json:"subject"`
	StartsAt        time.Time         `json:"starts_at"`
	EndsAt          time.Time         `json:"ends_at"`
	DurationMinutes int               `json:"duration_minutes"`
	Questions       []PackageQuestion `json:"questions,omitempty"`
	// Stimuli are what groups of the questions share (format 2), each
	// with its HTML for a rich format.
	Stimuli []PackageStimulus `json:"stimuli,omitempty"`
	// Media lists the images and audio the exam's questions show (format
	// 2 and 3); fetch each from the blob route when it has a Blob, else
	// from the media route (pkg/client: ExamSyncService.DownloadBlob,
	// DownloadMedia).
	Media []PackageMedia `json:"media,omitempty"`
	// QuestionBlobs and StimulusBlobs replace Questions and Stimuli in a
	// package of format 3: each question and stimulus, in order, as a
	// blob; fetch each from the blob route and open it with
	// OpenContentBlob into a PackageQuestion or a PackageStimulus.
	QuestionBlobs []PackageBlob `json:"question_blobs,omitempty"`
	StimulusBlobs []PackageBlob `json:"stimulus_blobs,omitempty"`
}

// ErrBlobMismatch: bytes given as a blob are not the blob named (their
// SHA-256 is not its name).
var ErrBlobMismatch = errors.New("labwire: the bytes are not the blob named")

// OpenContentBlob checks that sealed, the bytes of the blob b, are the
// blob named (ErrBlobMismatch), decrypts them with b's content key
// (ErrPackageCorrupt and the other errors of NewPackageDecrypter) and
// decodes the JSON plaintext into v: a *PackageQuestion for a question
// blob, a *PackageStimulus for a stimulus blob.
func OpenContentBlob(b PackageBlob, sealed []byte, v any) error {
	if sum := sha256.Sum256(sealed); hex.EncodeToString(sum[:]) != b.Name {
		return fmt.Errorf("%w: %s has SHA-256 %x", ErrBlobMismatch, b.Name, sum)
	}
	dec, err := NewPackageDecrypter(bytes.NewReader(sealed), b.Key)
	if err != nil {
		return err
	}
	plain, err := io.ReadAll(dec)
	if err != nil {
		return fmt.Errorf("labwire: open blob %s: %w", b.Name, err)
	}
	if err := json.Unmarshal(plain, v); err != nil {
		return fmt.Errorf("labwire: decode blob %s: %w", b.Name, err)
	}
	return nil
}

// PackageMedia is an image or audio file an exam shows, referred to in the
// questions' HTML as media/<SHA256>.
type PackageMedia struct {
	SHA256 string `json:"sha256"`
	// Type is the MIME type: image/png, image/jpeg, image/webp, audio/mpeg,
	// audio/ogg, audio/mp4 or audio/aac.
	Type string `json:"type"`
	// Kind is "image" or "audio".
	Kind string `json:"kind"`
	// Size is the size of the plaintext file.
	Size int64 `json:"size"`
	// Blob, in a package of format 3, is where the file is encrypted once
	// for every school, with its content key: fetch it from the blob
	// route. Without it, fetch the file encrypted for the school from the
	// media route.
	Blob *PackageBlob `json:"blob,omitempty"`
}

// PackageBlob is content of a package of format 3 kept apart as a blob:
// sealed once for every school, in the AES-256-GCM-STREAM format under its
// own content key, so that the same bytes at the same URL serve every
// school and any HTTP cache can keep them.
type PackageBlob struct {
	// Name is the lowercase hex SHA-256 of the sealed bytes: check the
	// downloaded bytes against it before decrypting them.
	Name string `json:"name"`
	// Size is the size of the sealed bytes.
	Size int64 `json:"size"`
	// Key is the 32-byte content key that opens the blob (sent in standard
	// base64), for NewPackageDecrypter.
	Key []byte `json:"key"`
	// URL is where the blob is: relative to the portal's root URL (e.g.
	// "api/v1/blobs/<name>") or absolute.
	URL string `json:"url"`
}

// PackageQuestion is a question as a package ships it, without its answer.
type PackageQuestion struct {
	ID string `json:"id"`
	// Type is one of single_choice, multiple_choice, true_false,
	// short_answer, numeric, essay, statement_grid, matching, cloze
	// (pkg/client's SingleChoice, ...).
	Type string `json:"type"`
	// Format is how the texts were written: "" (plain: show Text as text)
	// or "markdown" (format 2: show HTML).
	Format string `json:"format,omitempty"`
	Text   string `json:"text"`
	// HTML is Text rendered by the portal and sanitised against its
	// allow-list, for a question of a rich format.
	HTML    string          `json:"html,omitempty"`
	Options []PackageOption `json:"options,omitempty"`
	// Statements and Columns are a StatementGrid's (format 2).
	Statements []PackageOption `json:"statements,omitempty"`
	Columns    []PackageOption `json:"columns,omitempty"`
	// Premises and Responses are a Matching question's (format 2);
	// ReuseResponses lets one response go with several premises.
	Premises       []PackageOption `json:"premises,omitempty"`
	Responses      []PackageOption `json:"responses,omitempty"`
	ReuseResponses bool            `json:"reuse_responses,omitempty"`
	// Stimulus is the id of the exam's stimulus (PackageExam.Stimuli) the
	// question goes with (format 2).
	Stimulus string `json:"stimulus,omitempty"`
	// PlayLimit is how many times each student may play the question's
	// audio; 0 is no limit.
	PlayLimit int `json:"play_limit,omitempty"`
	// Blanks are a Cloze question's (format 4), without their keys.
	Blanks []PackageBlank `json:"blanks,omitempty"`
	Points float64        `json:"points"`
}

// PackageBlank is a blank of a Cloze question as a package ships it: its
// kind, a choice blank's options and its points, never its key.
type PackageBlank struct {
	ID string `json:"id"`
	// Kind is text, number or choice (pkg/client's BlankText, ...).
	Kind    string          `json:"kind"`
	Options []PackageOption `json:"options,omitempty"`
	Points  float64         `json:"points"`
}

// PackageFormats are the package formats this program reads, as the pulls
// name them to the portal in the X-Package-Formats header.
const PackageFormats = "1, 2, 3, 4"

// maxPackageFormat is the newest package format this program reads: 4 is
// format 3 with Numeric and Cloze questions.
const maxPackageFormat = 4

// ErrPackageTooNew: the package is in a format newer than this program
// reads; upgrade it.
var ErrPackageTooNew = errors.New("labwire: the exam package is in a newer format than this program reads; upgrade labagent")

// DecodePackage decrypts the AES-256-GCM-STREAM package read from r with
// key and decodes its JSON, reading to the end so that the whole package is
// authenticated. The result's Version is the SHA-256 of the plaintext.
func DecodePackage(r io.Reader, key []byte) (*Package, error) {
	dr, err := NewPackageDecrypter(r, key)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	dec := json.NewDecoder(io.TeeReader(dr, h))
	var p Package
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("labwire: decode package: %w", err)
	}
	if p.Format > maxPackageFormat {
		return nil, fmt.Errorf("%w (format %d; this one reads 1 to %d)", ErrPackageTooNew, p.Format, maxPackageFormat)
	}
	// Read to the end: the last chunk must authenticate, and nothing but
	// white space may follow the JSON value.
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("labwire: decode package: data after the JSON value")
	} else if !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("labwire: decode package: %w", err)
	}
	p.Version = hex.EncodeToString(h.Sum(nil))
	return &p, nil
}

// PackageOption is one choice of a question (an option, a statement or a
// column, a premise or a response, a choice blank's option) as a package
// ships it.
type PackageOption struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	// HTML is the option's text rendered, in a question of a rich format
	// (see PackageQuestion.HTML); empty otherwise.
	HTML string `json:"html,omitempty"`
}

// PackageStimulus is what several questions of an exam share (a passage, a
// table, an image or an audio) as a package ships it. Questions name it by
// ID.
type PackageStimulus struct {
	ID     string `json:"id"`
	Title  string `json:"title,omitempty"`
	Format string `json:"format,omitempty"`
	Text   string `json:"text"`
	// HTML is Text rendered by the portal and sanitised, in a stimulus of a
	// rich format; empty otherwise.
	HTML string `json:"html,omitempty"`
}
