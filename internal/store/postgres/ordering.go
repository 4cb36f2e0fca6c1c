package postgres

import (
	"fmt"

	"github.com/seedhq/portal/internal/ordering"
)

var _ ordering.Store = (*Store)(nil)

// This file holds what the ordering files share; each of the others holds
// one resource of ordering.Store. The tables of the logins, users, bans,
// consents and spent keys are those of migrations/0005_ordering_login.sql.

// ordErr wraps the error of the ordering-store operation op.
func ordErr(op string, err error) error { return fmt.Errorf("postgres: %s: %w", op, err) }
