package storetest

import (
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
)

func testAPIKeys(t *testing.T, s Store) {
	ctx := t.Context()
	k1 := exam.APIKey{ID: "key-1", Name: "SIAKAD", Prefix: "pk_AbCdEfG", Hash: sum("pk_one"), CreatedAt: at(0)}
	k2 := exam.APIKey{ID: "key-2", Name: "LMS", Prefix: "pk_HiJkLmN", Hash: sum("pk_two"), CreatedAt: at(time.Hour),
		LastUsedAt: ptr(at(90 * time.Minute))}
	MustCreateAPIKey(t, s, k2)
	MustCreateAPIKey(t, s, k1)
	for _, want := range []exam.APIKey{k1, k2} {
		got, err := s.GetAPIKeyByHash(ctx, want.Hash)
		mustOK(t, "GetAPIKeyByHash", err)
		check(t, "GetAPIKeyByHash", got, want)
	}
	_, err := s.GetAPIKeyByHash(ctx, sum("pk_unknown"))
	wantErr(t, "GetAPIKeyByHash of an unknown hash", err, exam.ErrNotFound)
	list, err := s.ListAPIKeys(ctx)
	mustOK(t, "ListAPIKeys", err)
	check(t, "ListAPIKeys (newest first)", list, []exam.APIKey{k2, k1})

	want := k1
	want.RevokedAt = ptr(at(2 * time.Hour))
	got, err := s.RevokeAPIKey(ctx, k1.ID, at(2*time.Hour))
	mustOK(t, "RevokeAPIKey", err)
	check(t, "RevokeAPIKey", got, want)
	got, err = s.RevokeAPIKey(ctx, k1.ID, at(3*time.Hour))
	mustOK(t, "RevokeAPIKey again", err)
	check(t, "RevokeAPIKey again (keeps the first time)", got, want)
	got, err = s.GetAPIKeyByHash(ctx, k1.Hash)
	mustOK(t, "GetAPIKeyByHash of a revoked key", err)
	check(t, "GetAPIKeyByHash of a revoked key", got, want)
	list, err = s.ListAPIKeys(ctx)
	mustOK(t, "ListAPIKeys", err)
	check(t, "ListAPIKeys after revocation", list, []exam.APIKey{k2, want})
	_, err = s.RevokeAPIKey(ctx, "key-404", at(time.Hour))
	wantErr(t, "RevokeAPIKey of an unknown id", err, exam.ErrNotFound)
}
