// Package qbank carries question banks in and out of exams: what an import
// read (a Bank of questions, stimuli and their per-item report) and the
// safety rules every importer shares (sizes, archives, XML). The formats
// are its subpackages (moodle, qti, sheet); package formats picks one by
// name.
package qbank

import (
	"context"
	"io"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
)

// Format names a bank format.
type Format string

// The formats.
const (
	// Moodle is Moodle's quiz XML (a .xml file, files embedded in base64).
	Moodle Format = "moodle"
	// QTI is a 1EdTech QTI 2.1 or 3.0 content package (a .zip with
	// imsmanifest.xml, the items' XML and their media).
	QTI Format = "qti"
	// Sheet is the spreadsheet template (.xlsx), with its media in a .zip
	// beside it or pictures embedded in the sheet.
	Sheet Format = "xlsx"
)

// Status is what happened to one item of an imported file.
type Status string

// The statuses.
const (
	// Imported: the item became a question as it was.
	Imported Status = "imported"
	// Changed: the item became a question, with what the exam cannot hold
	// dropped or changed (ItemReport.Changes says what and why).
	Changed Status = "changed"
	// Refused: the item did not become a question (ItemReport.Code and
	// Message say why).
	Refused Status = "refused"
)

// ItemReport is the report of one item of an imported file.
type ItemReport struct {
	// Position is the item's place in the file, from 1.
	Position int `json:"position"`
	// Title is the item's name in the file (Moodle's <name>, QTI's title,
	// the sheet's row), for the operator to find it.
	Title string `json:"title"`
	// QuestionID is the id of the question it became (imported, changed)
	// or would have had.
	QuestionID string `json:"question_id,omitempty"`
	// Kind is what the file called the item (multichoice,
	// choiceInteraction, ...).
	Kind string `json:"kind,omitempty"`
	// Category is where the file filed the item (a Moodle category's
	// path, the sheet's category column), as its question keeps it.
	Category string `json:"category,omitempty"`
	Status   Status `json:"status"`
	// Changes lists what was dropped or changed and why (Changed).
	Changes []string `json:"changes,omitempty"`
	// Code and Message say why an item was refused: UNSUPPORTED_TYPE,
	// MEDIA_NOT_FOUND, TEX_ERROR, KEY_NOT_AN_OPTION, INVALID_ITEM, ...
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	// Lost lists the images and audio the item's texts show that could
	// not be found or stored, each with why: the item became a question
	// without them (Changed, each also in Changes) and Bank.RefuseLostMedia
	// refuses it unless the operator allowed missing media.
	Lost []string `json:"-"`
}

// Bank is what an importer read from a file: the questions and stimuli of
// the items it could import, in the file's order, with every item's report.
// The media the texts show are stored already (content-addressed: an
// import that is not used leaves files no exam shows, which cost nothing
// more than their bytes).
type Bank struct {
	// Title is the file's own name for the bank (a Moodle category, a QTI
	// manifest's title), "" when it has none.
	Title     string
	Questions []exam.Question
	Stimuli   []exam.Stimulus
	Items     []ItemReport
}

// Counts returns how many items were imported, changed and refused.
func (b *Bank) Counts() (imported, changed, refused int) {
	for _, it := range b.Items {
		switch it.Status {
		case Imported:
			imported++
		case Changed:
			changed++
		case Refused:
			refused++
		}
	}
	return imported, changed, refused
}

// MediaStore stores a media file an import found and returns it (its
// Reference is "media:" + SHA256). *exam.Service is one.
type MediaStore interface {
	UploadMedia(ctx context.Context, name string, r io.Reader) (exam.Media, error)
}

// MediaSource reads the bytes of a stored media file, for an export.
// *exam.Service is one.
type MediaSource interface {
	OpenMedia(ctx context.Context, sha string) (exam.Media, exam.PackageReader, error)
}

// Limits of an import (docs/question-banks.md).
const (
	// MaxFileSize is the largest file an import reads.
	MaxFileSize = 256 << 20
	// MaxItems is the most items a file may hold.
	MaxItems = 1000
	// MaxArchiveEntries is the most entries of a zip an import opens.
	MaxArchiveEntries = 10_000
	// MaxUnpacked is the most bytes an import unpacks from a zip, all
	// entries together (a zip bomb stops here).
	MaxUnpacked = 1 << 30
	// MaxXMLDepth bounds the nesting of an XML document.
	MaxXMLDepth = 256
)

// Errors of the importers: a file refused as a whole (an item refused is
// in the report instead).
var (
	ErrTooLarge     = apperr.Errorf(apperr.TooLarge, "BANK_TOO_LARGE", "a question bank file is at most %d MiB", MaxFileSize>>20)
	ErrTooManyItems = apperr.Errorf(apperr.TooLarge, "TOO_MANY_ITEMS", "a question bank holds at most %d items", MaxItems)
)

// Invalid returns the refusal of a file that is not a well-formed bank of
// its format.
func Invalid(format string, args ...any) error {
	return apperr.Errorf(apperr.Invalid, "INVALID_BANK", format, args...)
}
