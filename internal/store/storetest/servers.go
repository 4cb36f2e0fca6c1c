package storetest

import (
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
)

func binding(code, npsn, hw, lic string, bound time.Time) exam.ServerBinding {
	return exam.ServerBinding{ServerCode: code, NPSN: npsn, HardwareID: hw, LicenseID: lic, BoundAt: bound}
}

func testBindServer(t *testing.T, s Store) {
	ctx := t.Context()
	first := binding("LAB-A", npsnA, "hw-1", "lic-1", at(0))
	check(t, "first BindServer", MustBindServer(t, s, first), first)
	got, err := s.GetServerBinding(ctx, "LAB-A")
	mustOK(t, "GetServerBinding", err)
	check(t, "GetServerBinding", got, first)

	// Same machine and school with a new licence: LicenseID follows, BoundAt stays.
	want := first
	want.LicenseID = "lic-2"
	check(t, "BindServer with a new licence", MustBindServer(t, s, binding("LAB-A", npsnA, "hw-1", "lic-2", at(time.Hour))), want)
	got, err = s.GetServerBinding(ctx, "LAB-A")
	mustOK(t, "GetServerBinding", err)
	check(t, "GetServerBinding after rebinding", got, want)

	// Same machine, same licence again.
	check(t, "BindServer again", MustBindServer(t, s, binding("LAB-A", npsnA, "hw-1", "lic-2", at(2*time.Hour))), want)

	_, err = s.GetServerBinding(ctx, "LAB-404")
	wantErr(t, "GetServerBinding of an unknown code", err, exam.ErrNotFound)
}

func testBindServerMismatch(t *testing.T, s Store) {
	ctx := t.Context()
	first := MustBindServer(t, s, binding("LAB-A", npsnA, "hw-1", "lic-1", at(0)))
	_, err := s.BindServer(ctx, binding("LAB-A", npsnA, "hw-2", "lic-9", at(time.Hour)))
	wantErr(t, "BindServer from another machine", err, exam.ErrHardwareMismatch)
	_, err = s.BindServer(ctx, binding("LAB-A", npsnB, "hw-1", "lic-9", at(time.Hour)))
	wantErr(t, "BindServer for another school", err, exam.ErrServerNPSNMismatch)
	_, err = s.BindServer(ctx, binding("LAB-A", npsnB, "hw-2", "lic-9", at(time.Hour)))
	wantErr(t, "BindServer from another machine of another school", err, exam.ErrHardwareMismatch)
	got, err := s.GetServerBinding(ctx, "LAB-A")
	mustOK(t, "GetServerBinding", err)
	check(t, "binding after refused BindServer calls", got, first)
}

func testListServerBindings(t *testing.T, s Store) {
	ctx := t.Context()
	b1 := binding("LAB-B", npsnA, "hw-1", "lic-1", at(0))
	b2 := binding("LAB-A", npsnB, "hw-2", "lic-2", at(time.Minute))
	b3 := binding("LAB-A2", npsnA, "hw-3", "lic-3", at(2*time.Minute))
	b4 := binding("LAB-10", npsnA, "hw-4", "lic-4", at(3*time.Minute))
	for _, b := range []exam.ServerBinding{b1, b2, b3, b4} {
		MustBindServer(t, s, b)
	}
	all, err := s.ListServerBindings(ctx, "")
	mustOK(t, "ListServerBindings", err)
	check(t, "ListServerBindings (by server_code)", all, []exam.ServerBinding{b4, b2, b3, b1})
	a, err := s.ListServerBindings(ctx, npsnA)
	mustOK(t, "ListServerBindings", err)
	check(t, "ListServerBindings of school A", a, []exam.ServerBinding{b4, b3, b1})
	none, err := s.ListServerBindings(ctx, "29999999")
	mustOK(t, "ListServerBindings", err)
	check(t, "ListServerBindings of a school without servers", none, []exam.ServerBinding{})
}

func testDeleteServerBinding(t *testing.T, s Store) {
	ctx := t.Context()
	MustBindServer(t, s, binding("LAB-A", npsnA, "hw-1", "lic-1", at(0)))
	other := MustBindServer(t, s, binding("LAB-B", npsnA, "hw-2", "lic-1", at(0)))
	mustOK(t, "DeleteServerBinding", s.DeleteServerBinding(ctx, "LAB-A"))
	_, err := s.GetServerBinding(ctx, "LAB-A")
	wantErr(t, "GetServerBinding after delete", err, exam.ErrNotFound)
	wantErr(t, "DeleteServerBinding again", s.DeleteServerBinding(ctx, "LAB-A"), exam.ErrNotFound)
	wantErr(t, "DeleteServerBinding of an unknown code", s.DeleteServerBinding(ctx, "LAB-404"), exam.ErrNotFound)

	// The next handshake binds afresh, even from another machine.
	fresh := binding("LAB-A", npsnA, "hw-9", "lic-2", at(time.Hour))
	check(t, "BindServer after reset", MustBindServer(t, s, fresh), fresh)
	all, err := s.ListServerBindings(ctx, "")
	mustOK(t, "ListServerBindings", err)
	check(t, "ListServerBindings after reset", all, []exam.ServerBinding{fresh, other})
}
