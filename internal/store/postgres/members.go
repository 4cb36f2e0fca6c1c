package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/seedhq/portal/internal/exam"
)

const memberColumns = `id, npsn, nama, role, dapodik_id, nisn, nip, nik, username, email, kelas,
	academic_year_name, google_email, is_claimed, exam_password_gen, exam_password_hash, created_at, updated_at`

func scanMember(row pgx.Row) (exam.Member, error) {
	var m exam.Member
	err := row.Scan(&m.ID, &m.NPSN, &m.Nama, &m.Role, &m.DapodikID, &m.NISN, &m.NIP, &m.NIK, &m.Username,
		&m.Email, &m.Kelas, &m.AcademicYearName, &m.GoogleEmail, &m.IsClaimed, &m.ExamPasswordGen,
		&m.ExamPasswordHash, &m.CreatedAt, &m.UpdatedAt)
	return m, err
}

// uniqueField is one of the unique member fields, as ImportMembers checks them.
type uniqueField struct {
	name string                     // as named in rejection messages
	key  func(m exam.Member) string // the compared value; "" when the field is empty
}

// uniqueFields are the member fields unique among members when not empty.
// Username and email compare case-insensitively.
var uniqueFields = []uniqueField{
	{"username", func(m exam.Member) string { return strings.ToLower(m.Username) }},
	{"email", func(m exam.Member) string { return strings.ToLower(m.Email) }},
	{"dapodik_id", func(m exam.Member) string { return m.DapodikID }},
	{"nisn", func(m exam.Member) string { return m.NISN }},
	{"nip", func(m exam.Member) string { return m.NIP }},
	{"nik", func(m exam.Member) string { return m.NIK }},
}

// ImportMembers upserts members in one transaction; see exam.MemberStore.
//
// Imports are serialised across instances with an advisory lock. The
// members that any row could clash with are read in one query; the rows are
// then decided in Go, in order, against that state as updated by the earlier
// rows; the accepted updates are written with one UPDATE over arrays and the
// creations with one COPY.
func (s *Store) ImportMembers(ctx context.Context, ms []exam.Member) ([]exam.ImportResult, error) {
	if len(ms) == 0 {
		return []exam.ImportResult{}, nil
	}
	var results []exam.ImportResult
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, lockMemberImport); err != nil {
			return fmt.Errorf("lock: %w", err)
		}
		existing, err := loadClashing(ctx, tx, ms)
		if err != nil {
			return err
		}
		var creates, updates []exam.Member
		results, creates, updates, err = planImport(ms, existing)
		if err != nil {
			return err
		}
		if len(updates) > 0 {
			if err := updateMembers(ctx, tx, updates); err != nil {
				return err
			}
		}
		if len(creates) > 0 {
			if err := createMembers(ctx, tx, creates); err != nil {
				return err
			}
		}
		if len(creates)+len(updates) > 0 {
			return bumpRevision(ctx, tx)
		}
		return nil
	})
	if err != nil {
		if _, ok := uniqueViolation(err); ok {
			err = fmt.Errorf("%w: %w", exam.ErrDuplicateMemberField, err)
		}
		return nil, fmt.Errorf("postgres: import members: %w", err)
	}
	return results, nil
}

// loadClashing returns every stored member whose id or one of whose unique
// fields equals the value of a row of ms.
func loadClashing(ctx context.Context, tx pgx.Tx, ms []exam.Member) ([]exam.Member, error) {
	keys := make([][]string, len(uniqueFields))
	ids := make([]string, 0, len(ms))
	for _, m := range ms {
		ids = append(ids, m.ID)
		for i, f := range uniqueFields {
			if k := f.key(m); k != "" {
				keys[i] = append(keys[i], k)
			}
		}
	}
	for i := range keys {
		if keys[i] == nil {
			keys[i] = []string{}
		}
	}
	rows, err := tx.Query(ctx, `SELECT `+memberColumns+` FROM members
		WHERE id = ANY($1) OR username_key = ANY($2) OR email_key = ANY($3) OR dapodik_key = ANY($4)
		   OR nisn_key = ANY($5) OR nip_key = ANY($6) OR nik_key = ANY($7)`,
		ids, keys[0], keys[1], keys[2], keys[3], keys[4], keys[5])
	if err != nil {
		return nil, fmt.Errorf("read existing members: %w", err)
	}
	existing, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (exam.Member, error) { return scanMember(r) })
	if err != nil {
		return nil, fmt.Errorf("read existing members: %w", err)
	}
	return existing, nil
}

// planImport decides every row of ms against the existing members that may
// clash with it, as if the rows were applied one after the other. It
// returns the results, in row order, the members to create and the members
// to update (each update carries the kept ID, CreatedAt and exam password).
// A member is written at most once per call, so a row whose username an
// earlier row wrote is rejected. A row to create whose id is empty or taken
// is a caller's bug and fails the whole call.
func planImport(ms []exam.Member, existing []exam.Member) (results []exam.ImportResult, creates, updates []exam.Member, err error) {
	// owner[i][value] is the id of the member holding value in uniqueFields[i].
	owner := make([]map[string]string, len(uniqueFields))
	for i := range owner {
		owner[i] = make(map[string]string)
	}
	current := make(map[string]exam.Member) // by id: members as they stand after the rows so far
	written := make(map[string]bool)        // ids of members written by earlier rows
	claim := func(m exam.Member) {
		for i, f := range uniqueFields {
			if k := f.key(m); k != "" {
				owner[i][k] = m.ID
			}
		}
		current[m.ID] = m
	}
	release := func(m exam.Member) {
		for i, f := range uniqueFields {
			if k := f.key(m); k != "" && owner[i][k] == m.ID {
				delete(owner[i], k)
			}
		}
	}
	for _, m := range existing {
		claim(m)
	}

	results = make([]exam.ImportResult, len(ms))
	for row, m := range ms {
		// reject rejects the row: field's value belongs to the member ownerID.
		reject := func(field string, ownerID string) {
			msg := fmt.Sprintf("%s %q already belongs to another member", field, fieldValue(m, field))
			if written[ownerID] {
				msg = fmt.Sprintf("%s %q is used by an earlier row of this import", field, fieldValue(m, field))
			}
			results[row] = exam.ImportResult{Row: row, Action: exam.ImportRejected,
				Code: exam.ErrDuplicateMemberField.Code, Message: msg}
		}
		// The target: a member stored before the call with this username,
		// else a new member with the row's id.
		target, isUpdate := "", false
		if id, ok := owner[0][uniqueFields[0].key(m)]; ok {
			if written[id] {
				reject("username", id)
				continue
			}
			target, isUpdate = id, true
		} else {
			if _, taken := current[m.ID]; taken || m.ID == "" {
				return nil, nil, nil, fmt.Errorf("row %d: member id %q is empty or taken", row, m.ID)
			}
			target = m.ID
		}
		clash := false
		for i, f := range uniqueFields[1:] {
			k := f.key(m)
			if k == "" {
				continue
			}
			if id, ok := owner[i+1][k]; ok && id != target {
				reject(f.name, id)
				clash = true
				break
			}
		}
		if clash {
			continue
		}
		if isUpdate {
			old := current[target]
			m.ID, m.CreatedAt = old.ID, old.CreatedAt
			m.ExamPasswordGen, m.ExamPasswordHash = old.ExamPasswordGen, old.ExamPasswordHash
			release(old)
			updates = append(updates, m)
			results[row] = exam.ImportResult{Row: row, MemberID: m.ID, Action: exam.ImportUpdated}
		} else {
			creates = append(creates, m)
			results[row] = exam.ImportResult{Row: row, MemberID: m.ID, Action: exam.ImportCreated}
		}
		claim(m)
		written[m.ID] = true
	}
	return results, creates, updates, nil
}

// fieldValue returns the value of the named unique field of m, as given.
func fieldValue(m exam.Member, name string) string {
	switch name {
	case "username":
		return m.Username
	case "email":
		return m.Email
	case "dapodik_id":
		return m.DapodikID
	case "nisn":
		return m.NISN
	case "nip":
		return m.NIP
	default:
		return m.NIK
	}
}

// updateMembers writes the updates with one UPDATE over arrays. It keeps
// each member's id, created_at and exam password columns.
func updateMembers(ctx context.Context, tx pgx.Tx, us []exam.Member) error {
	n := len(us)
	var (
		ids, npsns, namas, roles, dapodiks, nisns, nips, niks = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		usernames, emails, kelases, years, googles            = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		usernameKeys, emailKeys                               = make([]*string, n), make([]*string, n)
		claimed                                               = make([]bool, n)
		updated                                               = make([]time.Time, n)
	)
	for i, m := range us {
		ids[i], npsns[i], namas[i], roles[i] = m.ID, m.NPSN, m.Nama, m.Role
		dapodiks[i], nisns[i], nips[i], niks[i] = m.DapodikID, m.NISN, m.NIP, m.NIK
		usernames[i], emails[i], kelases[i], years[i], googles[i] = m.Username, m.Email, m.Kelas, m.AcademicYearName, m.GoogleEmail
		usernameKeys[i], emailKeys[i] = nullIfEmpty(strings.ToLower(m.Username)), nullIfEmpty(strings.ToLower(m.Email))
		claimed[i], updated[i] = m.IsClaimed, m.UpdatedAt
	}
	_, err := tx.Exec(ctx, `UPDATE members AS m SET
			npsn = u.npsn, nama = u.nama, role = u.role, dapodik_id = u.dapodik_id, nisn = u.nisn, nip = u.nip,
			nik = u.nik, username = u.username, email = u.email, kelas = u.kelas,
			academic_year_name = u.academic_year_name, google_email = u.google_email, is_claimed = u.is_claimed,
			updated_at = u.updated_at, username_key = u.username_key, email_key = u.email_key
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
			$9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::boolean[], $15::timestamptz[],
			$16::text[], $17::text[])
			AS u(id, npsn, nama, role, dapodik_id, nisn, nip, nik, username, email, kelas, academic_year_name,
			google_email, is_claimed, updated_at, username_key, email_key)
		WHERE m.id = u.id`,
		ids, npsns, namas, roles, dapodiks, nisns, nips, niks, usernames, emails, kelases, years, googles,
		claimed, updated, usernameKeys, emailKeys)
	if err != nil {
		return fmt.Errorf("update members: %w", err)
	}
	return nil
}

// createMembers writes new members with one COPY.
func createMembers(ctx context.Context, tx pgx.Tx, cs []exam.Member) error {
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"members"}, []string{
		"id", "npsn", "nama", "role", "dapodik_id", "nisn", "nip", "nik", "username", "email", "kelas",
		"academic_year_name", "google_email", "is_claimed", "exam_password_gen", "exam_password_hash",
		"created_at", "updated_at", "username_key", "email_key",
	}, pgx.CopyFromSlice(len(cs), func(i int) ([]any, error) {
		m := cs[i]
		return []any{m.ID, m.NPSN, m.Nama, m.Role, m.DapodikID, m.NISN, m.NIP, m.NIK, m.Username, m.Email,
			m.Kelas, m.AcademicYearName, m.GoogleEmail, m.IsClaimed, m.ExamPasswordGen, m.ExamPasswordHash,
			m.CreatedAt, m.UpdatedAt, nullIfEmpty(strings.ToLower(m.Username)),
			nullIfEmpty(strings.ToLower(m.Email))}, nil
	}))
	if err != nil {
		return fmt.Errorf("create members: %w", err)
	}
	return nil
}

// LookupMember returns the member whose field equals value exactly (email
// and username compared case-insensitively).
func (s *Store) LookupMember(ctx context.Context, field exam.LookupField, value string) (exam.Member, error) {
	var where string
	switch field {
	case exam.LookupID:
		where = `id = $1`
	case exam.LookupUsername:
		where, value = `username_key = $1`, strings.ToLower(value)
	case exam.LookupEmail:
		where, value = `email_key = $1`, strings.ToLower(value)
	case exam.LookupDapodikID:
		where = `dapodik_key = $1`
	case exam.LookupNISN:
		where = `nisn_key = $1`
	case exam.LookupNIP:
		where = `nip_key = $1`
	case exam.LookupNIK:
		where = `nik_key = $1`
	default:
		return exam.Member{}, fmt.Errorf("postgres: lookup member: unknown field %q", field)
	}
	m, err := scanMember(s.pool.QueryRow(ctx, `SELECT `+memberColumns+` FROM members WHERE `+where, value))
	if err != nil {
		return exam.Member{}, fmt.Errorf("postgres: lookup member by %s: %w", field, notFound(err))
	}
	return m, nil
}

// ListMembers returns one page of matching members ordered by Nama then ID
// (byte-wise), and the total number of matches. Search matches a
// case-insensitive substring of nama, username, nisn or email.
func (s *Store) ListMembers(ctx context.Context, f exam.MemberFilter) ([]exam.Member, int, error) {
	var conds []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if f.Search != "" {
		p := arg(strings.ToLower(f.Search))
		conds = append(conds, fmt.Sprintf(`(strpos(lower(nama), %[1]s) > 0 OR strpos(lower(username), %[1]s) > 0
			OR strpos(lower(nisn), %[1]s) > 0 OR strpos(lower(email), %[1]s) > 0)`, p))
	}
	if f.Role != "" {
		conds = append(conds, `role = `+arg(f.Role))
	}
	if f.Kelas != "" {
		conds = append(conds, `kelas = `+arg(f.Kelas))
	}
	if f.NPSN != "" {
		conds = append(conds, `npsn = `+arg(f.NPSN))
	}
	if f.AcademicYear != "" {
		conds = append(conds, `academic_year_name = `+arg(f.AcademicYear))
	}
	where := ""
	if len(conds) > 0 {
		where = ` WHERE ` + strings.Join(conds, ` AND `)
	}
	countArgs := append([]any(nil), args...)
	page := `SELECT ` + memberColumns + ` FROM members` + where + ` ORDER BY nama COLLATE "C", id`
	if f.Limit > 0 {
		page += ` LIMIT ` + arg(f.Limit)
	}
	if f.Offset > 0 {
		page += ` OFFSET ` + arg(f.Offset)
	}
	var ms []exam.Member
	var total int
	err := s.readTx(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM members`+where, countArgs...).Scan(&total); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, page, args...)
		if err != nil {
			return err
		}
		ms, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (exam.Member, error) { return scanMember(r) })
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: list members: %w", err)
	}
	return ms, total, nil
}

// SetExamPassword stores a new exam password generation and hash for the
// member, bumps the content revision and returns the updated member.
func (s *Store) SetExamPassword(ctx context.Context, memberID string, gen int, hash string) (exam.Member, error) {
	var m exam.Member
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		m, err = scanMember(tx.QueryRow(ctx, `UPDATE members SET exam_password_gen = $2, exam_password_hash = $3
			WHERE id = $1 RETURNING `+memberColumns, memberID, gen, hash))
		if err != nil {
			return notFound(err)
		}
		return bumpRevision(ctx, tx)
	})
	if err != nil {
		return exam.Member{}, fmt.Errorf("postgres: set exam password: %w", err)
	}
	return m, nil
}
