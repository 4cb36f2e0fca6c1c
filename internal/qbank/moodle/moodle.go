// Package moodle is a stand-in for the Moodle XML importer and exporter,
// replaced when its branch merges.
package moodle

import (
	"context"
	"io"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/qbank"
)

var errNotYet = apperr.New(apperr.Invalid, "FORMAT_NOT_AVAILABLE", "the Moodle XML format is not available yet")

// Import is not available yet.
func Import(ctx context.Context, r io.Reader, media qbank.MediaStore) (*qbank.Bank, error) {
	return nil, errNotYet
}

// Export is not available yet.
func Export(ctx context.Context, w io.Writer, e exam.Exam, media qbank.MediaSource) error {
	return errNotYet
}
