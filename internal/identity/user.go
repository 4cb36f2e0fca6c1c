package identity

import "time"

// Role is what an operator account may do.
type Role string

// Operator roles. SUPER_ADMIN may do everything, including managing operators;
// OPERATOR may do every exam task; GRADER may only grade the essays of the
// exams an operator assigned to it (internal/exam, grading).
const (
	RoleSuperAdmin Role = "SUPER_ADMIN"
	RoleOperator   Role = "OPERATOR"
	RoleGrader     Role = "GRADER"
)

// Valid reports whether r is a known role.
func (r Role) Valid() bool { return r == RoleSuperAdmin || r == RoleOperator || r == RoleGrader }

// Operates reports whether r may do the exam tasks of an operator (every
// role but GRADER).
func (r Role) Operates() bool { return r == RoleSuperAdmin || r == RoleOperator }

// User is an operator account of the portal.
type User struct {
	ID           string
	Username     string // unique, compared case-insensitively (stored lower-case)
	Name         string
	Role         Role
	PasswordHash string // bcrypt, see package password
	CreatedAt    time.Time
}
