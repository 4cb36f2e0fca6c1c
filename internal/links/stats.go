package links

import (
	"context"
	"fmt"

	"github.com/seedhq/portal/internal/links/visits"
)

// LinkStats returns the statistics block of the owner's short link (GET
// /api/url/:id): its non-bot visits, top lists cut to VisitStatsTop entries.
func (s *Service) LinkStats(ctx context.Context, owner, id int64) (visits.Stats, error) {
	st, err := s.store.VisitStats(ctx, owner, visits.KindLink, id)
	if err != nil {
		return visits.Stats{}, fmt.Errorf("links: statistics of link %d: %w", id, err)
	}
	return st, nil
}

// QRStats returns the statistics block of the owner's QR code (GET
// /api/qr/:id): its non-bot scans, top lists cut to VisitStatsTop entries.
func (s *Service) QRStats(ctx context.Context, owner, id int64) (visits.Stats, error) {
	st, err := s.store.VisitStats(ctx, owner, visits.KindQR, id)
	if err != nil {
		return visits.Stats{}, fmt.Errorf("links: statistics of QR code %d: %w", id, err)
	}
	return st, nil
}
