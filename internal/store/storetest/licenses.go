package storetest

import (
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
)

func testLicenses(t *testing.T, s Store) {
	ctx := t.Context()
	l1 := license("lic-1", npsnA, at(0))
	l2 := license("lic-2", npsnB, at(time.Hour))
	l3 := license("lic-3", npsnA, at(2*time.Hour))
	for _, l := range []exam.License{l2, l1, l3} {
		MustCreateLicense(t, s, l)
	}
	for _, want := range []exam.License{l1, l2, l3} {
		got, err := s.GetLicense(ctx, want.ID)
		mustOK(t, "GetLicense", err)
		check(t, "GetLicense", got, want)
	}
	all, err := s.ListLicenses(ctx, exam.LicenseFilter{})
	mustOK(t, "ListLicenses", err)
	check(t, "ListLicenses (newest IssuedAt first)", all, []exam.License{l3, l2, l1})
	a, err := s.ListLicenses(ctx, exam.LicenseFilter{NPSN: npsnA})
	mustOK(t, "ListLicenses", err)
	check(t, "ListLicenses of school A", a, []exam.License{l3, l1})
	none, err := s.ListLicenses(ctx, exam.LicenseFilter{NPSN: "29999999"})
	mustOK(t, "ListLicenses", err)
	check(t, "ListLicenses of a school without licences", none, []exam.License{})
	_, err = s.GetLicense(ctx, "lic-404")
	wantErr(t, "GetLicense of an unknown id", err, exam.ErrNotFound)
}

func testRevokeLicense(t *testing.T, s Store) {
	ctx := t.Context()
	l := license("lic-1", npsnA, at(0))
	other := license("lic-2", npsnA, at(time.Minute))
	MustCreateLicense(t, s, l)
	MustCreateLicense(t, s, other)
	want := l
	want.RevokedAt = ptr(at(time.Hour))
	got, err := s.RevokeLicense(ctx, l.ID, at(time.Hour))
	mustOK(t, "RevokeLicense", err)
	check(t, "RevokeLicense", got, want)
	if !got.Revoked() {
		t.Fatal("RevokeLicense returned a licence that is not revoked")
	}
	got, err = s.RevokeLicense(ctx, l.ID, at(2*time.Hour))
	mustOK(t, "RevokeLicense again", err)
	check(t, "RevokeLicense again (keeps the first time)", got, want)
	got, err = s.GetLicense(ctx, l.ID)
	mustOK(t, "GetLicense", err)
	check(t, "GetLicense after revocation", got, want)
	list, err := s.ListLicenses(ctx, exam.LicenseFilter{NPSN: npsnA})
	mustOK(t, "ListLicenses", err)
	check(t, "ListLicenses after revocation", list, []exam.License{other, want})
	_, err = s.RevokeLicense(ctx, "lic-404", at(time.Hour))
	wantErr(t, "RevokeLicense of an unknown id", err, exam.ErrNotFound)
}
