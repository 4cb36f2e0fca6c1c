package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/seedhq/portal/internal/agent/localdb"
	"github.com/seedhq/portal/pkg/client"
	"github.com/seedhq/portal/pkg/labwire"
)

// ExportBatchSize is the most answers Export seals into one batch.
const ExportBatchSize = 5000

// ErrNothingToExport means every answer saved on this server has reached the
// portal: no batch is sealed and the outbox is empty.
var ErrNothingToExport = errors.New("nothing to export: no answers are waiting for the portal")

// ExportSummary describes a written answer export file.
type ExportSummary struct {
	Batches int
	Records int
	// ChecksumSHA256 is the SHA-256 of the file's encrypted body, as its
	// header says; portal admin import-answers checks it first.
	ChecksumSHA256 string
}

// Export seals every answer of the outbox into batches (ExportBatchSize at
// most each) and writes all sealed batches to w as one answer export file
// (docs/api/exam.md, "Answer export file"), encrypted with the school's
// package key. The portal imports it with "portal admin import-answers".
//
// The batches stay in the outbox: each keeps its Idempotency-Key, so whether
// a batch reaches the portal by a later push or by an import (or both, or
// the same file imported twice), it is stored exactly once; the push that
// finally gets a receipt, a duplicate one after an import, removes it.
// Exporting again writes every batch still waiting, earlier exported ones
// included.
//
// With nothing waiting it writes nothing and returns ErrNothingToExport.
func Export(ctx context.Context, db *localdb.DB, cfg *Config, w io.Writer, now time.Time) (ExportSummary, error) {
	if cfg == nil {
		return ExportSummary{}, errors.New("export: no configuration")
	}
	key, err := LoadPackageKey(db, cfg)
	if err != nil {
		return ExportSummary{}, fmt.Errorf("export: %w", err)
	}
	sealed, err := db.SealAll(ctx, ExportBatchSize, now)
	if err != nil {
		return ExportSummary{}, fmt.Errorf("export: seal the outbox: %w", err)
	}
	if len(sealed) == 0 {
		return ExportSummary{}, ErrNothingToExport
	}
	e := labwire.AnswerExport{
		ServerCode: cfg.ServerCode, NPSN: cfg.NPSN, LicenseID: cfg.LicenseID, ExportedAt: now.UTC(),
		Batches: make([]labwire.AnswerExportBatch, len(sealed)),
	}
	for i, b := range sealed {
		raw, err := answersJSON(b.Answers)
		if err != nil {
			return ExportSummary{}, fmt.Errorf("export: batch %s: %w", b.IdempotencyKey, err)
		}
		e.Batches[i] = labwire.AnswerExportBatch{IdempotencyKey: b.IdempotencyKey, SealedAt: b.SealedAt, Answers: raw}
	}
	h, err := labwire.WriteAnswerExport(w, key, e)
	if err != nil {
		return ExportSummary{}, fmt.Errorf("export: %w", err)
	}
	return ExportSummary{Batches: h.Batches, Records: h.Records, ChecksumSHA256: h.Checksum}, nil
}

// answersJSON returns the answers array exactly as pkg/client's PushAnswers
// sends it (times in UTC), so that an exported batch has the checksum of
// its push and the portal sees the two as one.
func answersJSON(answers []client.Answer) (json.RawMessage, error) {
	out := make([]client.Answer, len(answers))
	for i, a := range answers {
		a.AnsweredAt = a.AnsweredAt.UTC()
		out[i] = a
	}
	return json.Marshal(out)
}
