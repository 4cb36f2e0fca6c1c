package links

import (
	"context"
	"fmt"
	"strings"
)

// LogoKeyPrefix starts the blob store key of every QR logo (LogoKey).
const LogoKeyPrefix = "logos/"

// ReferencedBlobs returns the blob store keys of the logos that QR codes
// use (their Logo references, IsLogoRef), each once, for the garbage
// collection of blobs (internal/blobgc). It reads every user's codes page
// by page. A user or code created or deleted while it reads may shift a page
// and hide a code from this call, which costs nothing: the collector deletes
// only a blob that every one of its runs during the retention period found
// unreferenced, and never one younger than that period.
func (s *Service) ReferencedBlobs(ctx context.Context) ([]string, error) {
	seen := map[string]bool{}
	var keys []string
	for page := 1; ; page++ {
		users, err := s.store.ListLinkUsers(ctx, Page{Number: page, Limit: MaxLimit})
		if err != nil {
			return nil, fmt.Errorf("links: referenced blobs: list users: %w", err)
		}
		for _, u := range users.Items {
			for qp := 1; ; qp++ {
				qrs, err := s.store.ListQRs(ctx, u.ID, Page{Number: qp, Limit: MaxLimit})
				if err != nil {
					return nil, fmt.Errorf("links: referenced blobs: list the QR codes of user %d: %w", u.ID, err)
				}
				for _, q := range qrs.Items {
					if !IsLogoRef(q.Logo) {
						continue
					}
					key := strings.TrimPrefix(q.Logo, logoRefPrefix)
					if !seen[key] {
						seen[key] = true
						keys = append(keys, key)
					}
				}
				if len(qrs.Items) < MaxLimit {
					break
				}
			}
		}
		if len(users.Items) < MaxLimit {
			break
		}
	}
	return keys, nil
}
