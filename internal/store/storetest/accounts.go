package storetest

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/identity"
)

func testSecrets(t *testing.T, s Store) {
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

func testSecretsConcurrent(t *testing.T, s Store) {
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

func testUsers(t *testing.T, s Store) {
	ctx := t.Context()
	if n := MustCountUsers(t, s); n != 0 {
		t.Fatalf("CountUsers of an empty store = %d", n)
	}
	admin := user("u-1", "admin", identity.RoleSuperAdmin, at(0))
	op := user("u-2", "operator.satu", identity.RoleOperator, at(time.Hour))
	MustCreateUser(t, s, admin)
	MustCreateUser(t, s, op)
	if n := MustCountUsers(t, s); n != 2 {
		t.Fatalf("CountUsers = %d, want 2", n)
	}
	for _, want := range []identity.User{admin, op} {
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

func testUsernameTaken(t *testing.T, s Store) {
	ctx := t.Context()
	admin := user("u-1", "admin", identity.RoleSuperAdmin, at(0))
	MustCreateUser(t, s, admin)
	err := s.CreateUser(ctx, user("u-2", "admin", identity.RoleOperator, at(time.Hour)))
	wantErr(t, "CreateUser with a taken username", err, identity.ErrUsernameTaken)
	err = s.CreateUser(ctx, user("u-3", "ADMIN", identity.RoleOperator, at(time.Hour)))
	wantErr(t, "CreateUser with a taken username in other case", err, identity.ErrUsernameTaken)
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

func testListUsers(t *testing.T, s Store) {
	us, err := s.ListUsers(t.Context())
	mustOK(t, "ListUsers", err)
	if len(us) != 0 {
		t.Fatalf("ListUsers of an empty store = %v", us)
	}
	b := user("u-2", "Budi", identity.RoleGrader, at(time.Hour))
	b.Username = "budi"
	a := user("u-1", "zaenal", identity.RoleSuperAdmin, at(0))
	c := user("u-3", "ani_2", identity.RoleOperator, at(0))
	for _, u := range []identity.User{a, b, c} {
		MustCreateUser(t, s, u)
	}
	us, err = s.ListUsers(t.Context())
	mustOK(t, "ListUsers", err)
	check(t, "ListUsers", us, []identity.User{c, b, a})
}
