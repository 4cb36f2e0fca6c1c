package exam

import (
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/mail"
	"slices"
	"strings"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/identity"
	"github.com/seedhq/portal/internal/sortid"
	"github.com/seedhq/portal/pkg/labwire"
)

// MaxImportRows bounds the rows of one member import.
const MaxImportRows = 50_000

// MemberInput is one row of a member import.
type MemberInput struct {
	NPSN             string `json:"npsn"`
	Nama             string `json:"nama"`
	Role             string `json:"role"`
	DapodikID        string `json:"dapodik_id"`
	NISN             string `json:"nisn"`
	NIP              string `json:"nip"`
	NIK              string `json:"nik"`
	Username         string `json:"username"`
	Email            string `json:"email"`
	Kelas            string `json:"kelas"`
	AcademicYearName string `json:"academic_year_name"`
	GoogleEmail      string `json:"google_email"`
}

// ImportReport is the outcome of a member import, row by row.
type ImportReport struct {
	Created, Updated, Rejected int
	Rows                       []ImportResult // Row is 1-based here
}

// ImportMembers validates rows and upserts the valid ones in one transaction.
// Invalid rows are reported, not written. defaultNPSN fills rows without npsn.
func (s *Service) ImportMembers(ctx context.Context, rows []MemberInput, defaultNPSN string) (ImportReport, error) {
	if len(rows) == 0 {
		return ImportReport{}, invalid("no members to import")
	}
	if len(rows) > MaxImportRows {
		return ImportReport{}, apperr.Errorf(apperr.TooLarge, "TOO_MANY_ROWS", "at most %d members per import", MaxImportRows)
	}
	report := ImportReport{Rows: make([]ImportResult, len(rows))}
	var valid []Member
	var index []int // index[i] is the input row of valid[i]
	now := s.now()
	for i, in := range rows {
		if in.NPSN == "" {
			in.NPSN = defaultNPSN
		}
		m, err := normaliseMember(in)
		if err != nil {
			report.Rows[i] = ImportResult{Row: i + 1, Action: ImportRejected, Code: "VALIDATION_FAILED", Message: err.Error()}
			continue
		}
		m.ID, m.CreatedAt, m.UpdatedAt = sortid.New(), now, now
		if m.ExamPasswordHash, err = labwire.HashExamPassword(labwire.ExamPassword(s.pwSecret, m.ID, 0)); err != nil {
			return ImportReport{}, err
		}
		valid = append(valid, m)
		index = append(index, i)
	}
	if len(valid) > 0 {
		res, err := s.store.ImportMembers(ctx, valid)
		if err != nil {
			return ImportReport{}, fmt.Errorf("import members: %w", err)
		}
		for _, r := range res {
			r.Row = index[r.Row] + 1
			report.Rows[r.Row-1] = r
		}
	}
	for _, r := range report.Rows {
		switch r.Action {
		case ImportCreated:
			report.Created++
		case ImportUpdated:
			report.Updated++
		default:
			report.Rejected++
		}
	}
	return report, nil
}

func normaliseMember(in MemberInput) (Member, error) {
	t := strings.TrimSpace
	m := Member{
		NPSN: t(in.NPSN), Nama: t(in.Nama), Role: strings.ToLower(t(in.Role)), DapodikID: t(in.DapodikID),
		NISN: t(in.NISN), NIP: t(in.NIP), NIK: t(in.NIK), Username: strings.ToLower(t(in.Username)),
		Email: strings.ToLower(t(in.Email)), Kelas: t(in.Kelas), AcademicYearName: t(in.AcademicYearName),
		GoogleEmail: strings.ToLower(t(in.GoogleEmail)),
	}
	if m.Role == "" {
		m.Role = RoleStudent
	}
	if m.Username == "" {
		m.Username = strings.ToLower(firstNonEmpty(m.NISN, m.NIP, m.NIK, m.Email))
	}
	switch {
	case m.Nama == "" || len(m.Nama) > 200:
		return Member{}, errors.New("nama is required (at most 200 characters)")
	case !labwire.ValidNPSN(m.NPSN):
		return Member{}, errors.New("npsn must be 8 digits")
	case m.Username == "":
		return Member{}, errors.New("one of username, nisn, nip, nik or email is required")
	case !identity.ValidUsername(m.Username):
		return Member{}, errors.New("username must be 3 to 64 letters, digits, dots, dashes, underscores or @")
	case len(m.Role) > 32 || len(m.Kelas) > 64 || len(m.AcademicYearName) > 16:
		return Member{}, errors.New("role (32), kelas (64) or academic_year_name (16) too long")
	case m.NISN != "" && !digits(m.NISN, 10):
		return Member{}, errors.New("nisn must be 10 digits")
	case m.NIK != "" && !digits(m.NIK, 16):
		return Member{}, errors.New("nik must be 16 digits")
	case m.NIP != "" && !digits(m.NIP, 18):
		return Member{}, errors.New("nip must be 18 digits")
	case len(m.DapodikID) > 64:
		return Member{}, errors.New("dapodik_id must be at most 64 characters")
	}
	for _, e := range []string{m.Email, m.GoogleEmail} {
		if e == "" {
			continue
		}
		if a, err := mail.ParseAddress(e); err != nil || a.Address != e {
			return Member{}, fmt.Errorf("%q is not an email address", e)
		}
	}
	if m.AcademicYearName != "" && !validYearName(m.AcademicYearName) {
		return Member{}, errors.New("academic_year_name must look like 2025/2026")
	}
	return m, nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func digits(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// csvAliases maps header names found in school exports to MemberInput fields.
var csvAliases = map[string]string{
	"nama": "nama", "name": "nama", "nama_lengkap": "nama", "nama lengkap": "nama",
	"npsn": "npsn", "role": "role", "peran": "role",
	"dapodik_id": "dapodik_id", "peserta_didik_id": "dapodik_id", "ptk_id": "dapodik_id",
	"nisn": "nisn", "nip": "nip", "nik": "nik", "username": "username", "email": "email",
	"kelas": "kelas", "rombel": "kelas", "rombongan belajar": "kelas",
	"academic_year_name": "academic_year_name", "tahun_ajaran": "academic_year_name",
	"google_email": "google_email",
}

// ParseMembersCSV reads a member CSV with a header row (comma or semicolon
// separated, as spreadsheet exports are). Column names are matched
// case-insensitively against the JSON field names and common export names
// (nama_lengkap, rombel, peserta_didik_id, ...); unknown columns are ignored.
func ParseMembersCSV(r io.Reader) ([]MemberInput, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read csv: %w", err)
	}
	text := strings.TrimPrefix(string(data), "\ufeff")
	firstLine, _, _ := strings.Cut(text, "\n")
	cr := csv.NewReader(strings.NewReader(text))
	if strings.Count(firstLine, ";") > strings.Count(firstLine, ",") {
		cr.Comma = ';'
	}
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, invalid("csv needs a header row: %v", err)
	}
	cols := make([]string, len(header))
	hasNama := false
	for i, h := range header {
		cols[i] = csvAliases[strings.ToLower(strings.TrimSpace(h))]
		hasNama = hasNama || cols[i] == "nama"
	}
	if !hasNama {
		return nil, invalid("csv header must have a nama column")
	}
	var rows []MemberInput
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, invalid("csv line %d: %v", line, err)
		}
		if len(rows) >= MaxImportRows {
			return nil, apperr.Errorf(apperr.TooLarge, "TOO_MANY_ROWS", "at most %d members per import", MaxImportRows)
		}
		var in MemberInput
		for i, v := range rec {
			if i >= len(cols) {
				break
			}
			setMemberField(&in, cols[i], v)
		}
		rows = append(rows, in)
	}
	return rows, nil
}

func setMemberField(in *MemberInput, field, v string) {
	switch field {
	case "nama":
		in.Nama = v
	case "npsn":
		in.NPSN = v
	case "role":
		in.Role = v
	case "dapodik_id":
		in.DapodikID = v
	case "nisn":
		in.NISN = v
	case "nip":
		in.NIP = v
	case "nik":
		in.NIK = v
	case "username":
		in.Username = v
	case "email":
		in.Email = v
	case "kelas":
		in.Kelas = v
	case "academic_year_name":
		in.AcademicYearName = v
	case "google_email":
		in.GoogleEmail = v
	}
}

// LookupMember finds the member whose field equals value; found is false when none does.
func (s *Service) LookupMember(ctx context.Context, field LookupField, value string) (m Member, found bool, err error) {
	value = strings.TrimSpace(value)
	if field == LookupEmail || field == LookupUsername {
		value = strings.ToLower(value)
	}
	m, err = s.store.LookupMember(ctx, field, value)
	if errors.Is(err, ErrNotFound) {
		return Member{}, false, nil
	}
	if err != nil {
		return Member{}, false, fmt.Errorf("lookup member: %w", err)
	}
	return m, true, nil
}

// ListMembers returns one page of members and the total count.
func (s *Service) ListMembers(ctx context.Context, f MemberFilter) ([]Member, int, error) {
	ms, total, err := s.store.ListMembers(ctx, f)
	if err != nil {
		return nil, 0, fmt.Errorf("list members: %w", err)
	}
	return ms, total, nil
}

// LoginCard is what a student needs to sign in to the lab server.
type LoginCard struct {
	MemberID     string
	NPSN         string
	Kelas        string
	Nama         string
	Username     string
	NISN         string
	ExamPassword string
}

// LoginCards returns the login cards of a school's students, ordered by kelas then nama.
func (s *Service) LoginCards(ctx context.Context, npsn string) ([]LoginCard, error) {
	if !labwire.ValidNPSN(npsn) {
		return nil, invalid("npsn must be 8 digits")
	}
	ms, _, err := s.store.ListMembers(ctx, MemberFilter{NPSN: npsn, Role: RoleStudent})
	if err != nil {
		return nil, fmt.Errorf("login cards: %w", err)
	}
	cards := make([]LoginCard, len(ms))
	for i, m := range ms {
		cards[i] = s.loginCard(m)
	}
	sortCards(cards)
	return cards, nil
}

func (s *Service) loginCard(m Member) LoginCard {
	return LoginCard{MemberID: m.ID, NPSN: m.NPSN, Kelas: m.Kelas, Nama: m.Nama, Username: m.Username,
		NISN: m.NISN, ExamPassword: labwire.ExamPassword(s.pwSecret, m.ID, m.ExamPasswordGen)}
}

func sortCards(cards []LoginCard) {
	slices.SortFunc(cards, func(a, b LoginCard) int {
		return cmp.Or(cmp.Compare(a.Kelas, b.Kelas), cmp.Compare(a.Nama, b.Nama), cmp.Compare(a.MemberID, b.MemberID))
	})
}

// ResetExamPassword gives a student a new exam password (the next package
// carries its hash) and returns the new login card.
func (s *Service) ResetExamPassword(ctx context.Context, memberID string) (LoginCard, error) {
	m, err := s.store.LookupMember(ctx, LookupID, memberID)
	if err != nil {
		return LoginCard{}, fmt.Errorf("reset exam password: %w", err)
	}
	gen := m.ExamPasswordGen + 1
	hash, err := labwire.HashExamPassword(labwire.ExamPassword(s.pwSecret, m.ID, gen))
	if err != nil {
		return LoginCard{}, err
	}
	if m, err = s.store.SetExamPassword(ctx, m.ID, gen, hash); err != nil {
		return LoginCard{}, fmt.Errorf("reset exam password: %w", err)
	}
	return s.loginCard(m), nil
}
