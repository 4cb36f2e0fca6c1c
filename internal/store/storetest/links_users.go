package storetest

import (
	"testing"
	"time"

	"github.com/seedhq/portal/internal/links"
)

func testLinkUsers(t *testing.T, s links.Store) {
	ctx := t.Context()
	ana := mustLinkUser(t, s, "ana")
	budi := mustLinkUser(t, s, "budi")
	if ana.ID <= 0 || budi.ID <= 0 || ana.ID == budi.ID {
		t.Fatalf("ids %d, %d: want distinct positive ids", ana.ID, budi.ID)
	}
	got, err := s.GetLinkUser(ctx, ana.ID)
	mustOK(t, "GetLinkUser", err)
	check(t, "GetLinkUser", got, ana)
	_, err = s.CreateLinkUser(ctx, links.User{Email: "ana@example.com", Username: "other", RegisteredAt: at(0)}, "h1")
	wantErr(t, "CreateLinkUser with a taken email", err, links.ErrEmailTaken)
	_, err = s.CreateLinkUser(ctx, links.User{Email: "x@example.com", Username: "ana", RegisteredAt: at(0)}, "h2")
	wantErr(t, "CreateLinkUser with a taken username", err, links.ErrUsernameTaken)

	for _, login := range []string{"ana", "ana@example.com"} {
		byLogin, err := s.GetLinkUserByLogin(ctx, login)
		mustOK(t, "GetLinkUserByLogin "+login, err)
		check(t, "user by login "+login, byLogin.ID, ana.ID)
	}
	_, err = s.GetLinkUserByLogin(ctx, "nobody")
	wantErr(t, "GetLinkUserByLogin of an unknown login", err, links.ErrNotFound)

	byKey, err := s.GetLinkUserByKeyHash(ctx, "hash-ana")
	mustOK(t, "GetLinkUserByKeyHash", err)
	check(t, "user by key", byKey.ID, ana.ID)
	k, err := s.RotateLinkAPIKey(ctx, ana.ID, "hash-ana-2", at(time.Hour))
	mustOK(t, "RotateLinkAPIKey", err)
	check(t, "rotated key", k, links.APIKey{UserID: ana.ID, Hash: "hash-ana-2", CreatedAt: at(time.Hour).UTC(), RotatedAt: ptr(at(time.Hour).UTC())})
	_, err = s.GetLinkUserByKeyHash(ctx, "hash-ana")
	wantErr(t, "old key after rotation", err, links.ErrNotFound)
	if got, err := s.GetLinkUserByKeyHash(ctx, "hash-ana-2"); err != nil || got.ID != ana.ID {
		t.Fatalf("new key = %d, %v", got.ID, err)
	}

	_, err = s.UpdateLinkUser(ctx, ana.ID, func(u *links.User) error { u.Email = "budi@example.com"; return nil })
	wantErr(t, "UpdateLinkUser to a taken email", err, links.ErrEmailTaken)
	u, err := s.UpdateLinkUser(ctx, ana.ID, func(u *links.User) error { u.Email = "ana2@example.com"; u.PasswordHash = "h"; return nil })
	mustOK(t, "UpdateLinkUser", err)
	check(t, "updated email", u.Email, "ana2@example.com")
	_, err = s.CreateLinkUser(ctx, links.User{Email: "ana@example.com", Username: "ana3", RegisteredAt: at(0)}, "h3")
	mustOK(t, "CreateLinkUser with the freed email", err)
	list, err := s.ListLinkUsers(ctx, p1)
	mustOK(t, "ListLinkUsers", err)
	if list.Total != 3 || list.Items[0].Username != "ana3" || list.Items[2].ID != ana.ID {
		t.Fatalf("ListLinkUsers = %+v, want 3 users newest first", list)
	}
	_, err = s.GetLinkUser(ctx, 999)
	wantErr(t, "GetLinkUser of a missing id", err, links.ErrNotFound)
}
