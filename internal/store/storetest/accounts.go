package storetest

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
)

func testSecrets(t *testing.T, s exam.Store) {
	ctx := t.Context()
	v1 := make([]byte, 256)
	for i := range v1 {
		v1[i] = byte(i) // every byte value, NUL included
	}
	got, err := s.GetOrCreateSecret(ctx, "jwt-hs256", v1)
	mustOK(t, "GetOrCreateSecret", err)
	if !bytes.Equal(got, v1) {
		t.Fatalf("first GetOrCreateSecret = %x, want the value passed", got)
	}
	got, err = s.GetOrCreateSecret(ctx, "jwt-hs256", []byte("another value"))
	mustOK(t, "GetOrCreateSecret", err)
	if !bytes.Equal(got, v1) {
		t.Fatalf("second GetOrCreateSecret = %x, want the first value", got)
	}
	got, err = s.GetOrCreateSecret(ctx, "package-key:"+npsnA, []byte("key A"))
	mustOK(t, "GetOrCreateSecret", err)
	if string(got) != "key A" {
		t.Fatalf("GetOrCreateSecret of another name = %q, want %q", got, "key A")
	}
}

func testSecretsConcurrent(t *testing.T, s exam.Store) {
	ctx := t.Context()
	const n = 16
	results := make([][]byte, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			results[i], errs[i] = s.GetOrCreateSecret(ctx, "race", fmt.Appendf(nil, "value-%02d", i))
		})
	}
	close(start)
	wg.Wait()
	for i := range n {
		mustOK(t, fmt.Sprintf("GetOrCreateSecret in goroutine %d", i), errs[i])
	}
	first := results[0]
	if len(first) != len("value-00") || !bytes.HasPrefix(first, []byte("value-")) {
		t.Fatalf("GetOrCreateSecret = %q, want one of the values passed", first)
	}
	for i, r := range results {
		if !bytes.Equal(r, first) {
			t.Fatalf("goroutine %d got %q, goroutine 0 got %q: concurrent callers must all get the first value", i, r, first)
		}
	}
	got, err := s.GetOrCreateSecret(ctx, "race", []byte("late"))
	mustOK(t, "GetOrCreateSecret", err)
	if !bytes.Equal(got, first) {
		t.Fatalf("GetOrCreateSecret after the race = %q, want %q", got, first)
	}
}

func testUsers(t *testing.T, s exam.Store) {
	ctx := t.Context()
	if n := MustCountUsers(t, s); n != 0 {
		t.Fatalf("CountUsers of an empty store = %d", n)
	}
	admin := user("u-1", "admin", exam.RoleSuperAdmin, at(0))
	op := user("u-2", "operator.satu", exam.RoleOperator, at(time.Hour))
	MustCreateUser(t, s, admin)
	MustCreateUser(t, s, op)
	if n := MustCountUsers(t, s); n != 2 {
		t.Fatalf("CountUsers = %d, want 2", n)
	}
	for _, want := range []exam.User{admin, op} {
		got, err := s.GetUser(ctx, want.ID)
		mustOK(t, "GetUser", err)
		check(t, "GetUser", got, want)
		got, err = s.GetUserByUsername(ctx, want.Username)
		mustOK(t, "GetUserByUsername", err)
		check(t, "GetUserByUsername", got, want)
	}
	_, err := s.GetUser(ctx, "u-404")
	wantErr(t, "GetUser of an unknown id", err, exam.ErrNotFound)
	_, err = s.GetUserByUsername(ctx, "nobody")
	wantErr(t, "GetUserByUsername of an unknown username", err, exam.ErrNotFound)
}

func testUsernameTaken(t *testing.T, s exam.Store) {
	ctx := t.Context()
	admin := user("u-1", "admin", exam.RoleSuperAdmin, at(0))
	MustCreateUser(t, s, admin)
	err := s.CreateUser(ctx, user("u-2", "admin", exam.RoleOperator, at(time.Hour)))
	wantErr(t, "CreateUser with a taken username", err, exam.ErrUsernameTaken)
	err = s.CreateUser(ctx, user("u-3", "ADMIN", exam.RoleOperator, at(time.Hour)))
	wantErr(t, "CreateUser with a taken username in other case", err, exam.ErrUsernameTaken)
	if n := MustCountUsers(t, s); n != 1 {
		t.Fatalf("CountUsers after refused creations = %d, want 1", n)
	}
	for _, id := range []string{"u-2", "u-3"} {
		_, err := s.GetUser(ctx, id)
		wantErr(t, "GetUser of a refused user", err, exam.ErrNotFound)
	}
	got, err := s.GetUserByUsername(ctx, "admin")
	mustOK(t, "GetUserByUsername", err)
	check(t, "GetUserByUsername after refused creations", got, admin)
}

func testLicenses(t *testing.T, s exam.Store) {
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

func testRevokeLicense(t *testing.T, s exam.Store) {
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

func binding(code, npsn, hw, lic string, bound time.Time) exam.ServerBinding {
	return exam.ServerBinding{ServerCode: code, NPSN: npsn, HardwareID: hw, LicenseID: lic, BoundAt: bound}
}

func testBindServer(t *testing.T, s exam.Store) {
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

func testBindServerMismatch(t *testing.T, s exam.Store) {
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

func testListServerBindings(t *testing.T, s exam.Store) {
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

func testDeleteServerBinding(t *testing.T, s exam.Store) {
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
