package storetest

import (
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
)

func year(id, name string, active bool, created time.Time) exam.AcademicYear {
	return exam.AcademicYear{ID: id, Name: name, IsActive: active, CreatedAt: created}
}

// wantYears fails the test unless ListAcademicYears returns want.
func wantYears(t *testing.T, s Store, what string, want ...exam.AcademicYear) {
	t.Helper()
	got, err := s.ListAcademicYears(t.Context())
	mustOK(t, "ListAcademicYears", err)
	check(t, what, got, want)
}

func testAcademicYears(t *testing.T, s Store) {
	ctx := t.Context()
	_, err := s.GetActiveAcademicYear(ctx)
	wantErr(t, "GetActiveAcademicYear of an empty store", err, exam.ErrNotFound)
	wantYears(t, s, "ListAcademicYears of an empty store")

	y1 := year("ay-1", "2024/2025", false, at(0))
	MustCreateAcademicYear(t, s, y1)
	_, err = s.GetActiveAcademicYear(ctx)
	wantErr(t, "GetActiveAcademicYear with only inactive years", err, exam.ErrNotFound)

	y2 := year("ay-2", "2025/2026", true, at(time.Hour))
	MustCreateAcademicYear(t, s, y2)
	got, err := s.GetActiveAcademicYear(ctx)
	mustOK(t, "GetActiveAcademicYear", err)
	check(t, "GetActiveAcademicYear", got, y2)

	// Creating an active year deactivates the others.
	y3 := year("ay-3", "2023/2024", true, at(2*time.Hour))
	MustCreateAcademicYear(t, s, y3)
	got, err = s.GetActiveAcademicYear(ctx)
	mustOK(t, "GetActiveAcademicYear", err)
	check(t, "GetActiveAcademicYear after creating an active year", got, y3)
	y2.IsActive = false
	wantYears(t, s, "ListAcademicYears (newest name first, one active)", y2, y1, y3)

	// A taken name is refused and changes nothing, even for an active year.
	err = s.CreateAcademicYear(ctx, year("ay-4", "2025/2026", true, at(3*time.Hour)))
	wantErr(t, "CreateAcademicYear with a taken name", err, exam.ErrAcademicYearExists)
	wantYears(t, s, "ListAcademicYears after a refused creation", y2, y1, y3)

	y1.IsActive = true
	y3.IsActive = false
	got, err = s.ActivateAcademicYear(ctx, y1.ID)
	mustOK(t, "ActivateAcademicYear", err)
	check(t, "ActivateAcademicYear", got, y1)
	got, err = s.GetActiveAcademicYear(ctx)
	mustOK(t, "GetActiveAcademicYear", err)
	check(t, "GetActiveAcademicYear after activation", got, y1)
	wantYears(t, s, "ListAcademicYears after activation", y2, y1, y3)

	got, err = s.ActivateAcademicYear(ctx, y1.ID)
	mustOK(t, "ActivateAcademicYear of the active year", err)
	check(t, "ActivateAcademicYear of the active year", got, y1)
	_, err = s.ActivateAcademicYear(ctx, "ay-404")
	wantErr(t, "ActivateAcademicYear of an unknown id", err, exam.ErrNotFound)
	wantYears(t, s, "ListAcademicYears after a refused activation", y2, y1, y3)
}
