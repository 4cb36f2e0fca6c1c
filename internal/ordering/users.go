package ordering

import (
	"context"
	"fmt"
)

// Bans returns the ban records with a level or attempts, most recent
// attempt first (owners review them).
func (s *Service) Bans(ctx context.Context) ([]Ban, error) {
	bans, err := s.store.ListBans(ctx)
	if err != nil {
		return nil, fmt.Errorf("list bans: %w", err)
	}
	return bans, nil
}

// LiftBan ends the ban with id, a permanent one included, and restarts its
// count (an owner's decision).
func (s *Service) LiftBan(ctx context.Context, id string) error {
	bans, err := s.store.ListBans(ctx)
	if err != nil {
		return fmt.Errorf("lift ban: %w", err)
	}
	for _, b := range bans {
		if b.ID != id {
			continue
		}
		_, err := s.store.UpdateBans(ctx, []BanKey{b.BanKey}, s.cfg.Now().UTC(), newID, func(bans []*Ban) error {
			bans[0].lift()
			return nil
		})
		if err != nil {
			return fmt.Errorf("lift ban: %w", err)
		}
		s.log.Info("ordering: ban lifted", "ban", id, "kind", b.Kind, "level", b.Level)
		return nil
	}
	return ErrBanNotFound
}
