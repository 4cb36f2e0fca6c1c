package bolt

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.etcd.io/bbolt"

	"github.com/seedhq/portal/internal/exam"
)

type memberRecord struct {
	ID               string    `json:"id"`
	NPSN             string    `json:"npsn"`
	Nama             string    `json:"nama"`
	Role             string    `json:"role"`
	DapodikID        string    `json:"dapodik_id,omitempty"`
	NISN             string    `json:"nisn,omitempty"`
	NIP              string    `json:"nip,omitempty"`
	NIK              string    `json:"nik,omitempty"`
	Username         string    `json:"username"`
	Email            string    `json:"email,omitempty"`
	Kelas            string    `json:"kelas,omitempty"`
	AcademicYearName string    `json:"academic_year_name,omitempty"`
	GoogleEmail      string    `json:"google_email,omitempty"`
	IsClaimed        bool      `json:"is_claimed,omitempty"`
	ExamPasswordGen  int       `json:"exam_password_gen"`
	ExamPasswordHash string    `json:"exam_password_hash"`
	CreatedAt        time.Time `json:"created_at"`
	UpdatedAt        time.Time `json:"updated_at"`
}

func memberRecordOf(m exam.Member) memberRecord {
	return memberRecord{ID: m.ID, NPSN: m.NPSN, Nama: m.Nama, Role: m.Role, DapodikID: m.DapodikID, NISN: m.NISN,
		NIP: m.NIP, NIK: m.NIK, Username: m.Username, Email: m.Email, Kelas: m.Kelas,
		AcademicYearName: m.AcademicYearName, GoogleEmail: m.GoogleEmail, IsClaimed: m.IsClaimed,
		ExamPasswordGen: m.ExamPasswordGen, ExamPasswordHash: m.ExamPasswordHash, CreatedAt: ts(m.CreatedAt),
		UpdatedAt: ts(m.UpdatedAt)}
}

func (r memberRecord) member() exam.Member {
	return exam.Member{ID: r.ID, NPSN: r.NPSN, Nama: r.Nama, Role: r.Role, DapodikID: r.DapodikID, NISN: r.NISN,
		NIP: r.NIP, NIK: r.NIK, Username: r.Username, Email: r.Email, Kelas: r.Kelas,
		AcademicYearName: r.AcademicYearName, GoogleEmail: r.GoogleEmail, IsClaimed: r.IsClaimed,
		ExamPasswordGen: r.ExamPasswordGen, ExamPasswordHash: r.ExamPasswordHash, CreatedAt: utc(r.CreatedAt),
		UpdatedAt: utc(r.UpdatedAt)}
}

// uniqueField is a member field that is unique among members when not
// empty, with its index bucket (index key -> member id).
type uniqueField struct {
	name   string // as the API names it
	lookup exam.LookupField
	bucket []byte
	value  func(r *memberRecord) string
	fold   bool // compared case-insensitively: the index key is lower-case
}

// key returns the index key of the field of r, or nil when the field is empty.
func (f uniqueField) key(r *memberRecord) []byte {
	return f.keyOf(f.value(r))
}

func (f uniqueField) keyOf(v string) []byte {
	if v == "" {
		return nil
	}
	if f.fold {
		v = strings.ToLower(v)
	}
	return []byte(v)
}

// uniqueMemberFields lists the unique member fields, username first.
var uniqueMemberFields = []uniqueField{
	{"username", exam.LookupUsername, []byte("members_by_username"), func(r *memberRecord) string { return r.Username }, true},
	{"email", exam.LookupEmail, []byte("members_by_email"), func(r *memberRecord) string { return r.Email }, true},
	{"dapodik_id", exam.LookupDapodikID, []byte("members_by_dapodik_id"), func(r *memberRecord) string { return r.DapodikID }, false},
	{"nisn", exam.LookupNISN, []byte("members_by_nisn"), func(r *memberRecord) string { return r.NISN }, false},
	{"nip", exam.LookupNIP, []byte("members_by_nip"), func(r *memberRecord) string { return r.NIP }, false},
	{"nik", exam.LookupNIK, []byte("members_by_nik"), func(r *memberRecord) string { return r.NIK }, false},
}

// memberTx holds the member buckets of one transaction.
type memberTx struct {
	members, byName, bySchool *bbolt.Bucket
	unique                    []*bbolt.Bucket // parallel to uniqueMemberFields
}

func newMemberTx(tx *bbolt.Tx) *memberTx {
	m := &memberTx{members: tx.Bucket(bucketMembers), byName: tx.Bucket(bucketMembersByName),
		bySchool: tx.Bucket(bucketMembersBySchool)}
	for _, f := range uniqueMemberFields {
		m.unique = append(m.unique, tx.Bucket(f.bucket))
	}
	return m
}

func (m *memberTx) get(id string) (memberRecord, bool, error) {
	var rec memberRecord
	found, err := getJSON(m.members, []byte(id), &rec)
	return rec, found, err
}

// put writes rec and its index entries, replacing those of old when not nil.
func (m *memberTx) put(rec memberRecord, old *memberRecord) error {
	if old != nil {
		for i, f := range uniqueMemberFields {
			if k := f.key(old); k != nil && string(m.unique[i].Get(k)) == old.ID {
				if err := m.unique[i].Delete(k); err != nil {
					return err
				}
			}
		}
		if err := m.byName.Delete(tuple(old.Nama, old.ID)); err != nil {
			return err
		}
		if err := m.bySchool.Delete(tuple(old.NPSN, old.Nama, old.ID)); err != nil {
			return err
		}
	}
	if err := putJSON(m.members, []byte(rec.ID), rec); err != nil {
		return err
	}
	for i, f := range uniqueMemberFields {
		if k := f.key(&rec); k != nil {
			if err := m.unique[i].Put(k, []byte(rec.ID)); err != nil {
				return err
			}
		}
	}
	if err := m.byName.Put(tuple(rec.Nama, rec.ID), []byte{}); err != nil {
		return err
	}
	return m.bySchool.Put(tuple(rec.NPSN, rec.Nama, rec.ID), []byte{})
}

// ImportMembers upserts members in one transaction, row by row in order:
//   - a row whose username (compared case-insensitively) belongs to a member
//     that existed before the call updates it, keeping its ID, CreatedAt,
//     ExamPasswordGen and ExamPasswordHash;
//   - a row whose username was written by an earlier row of the call is
//     rejected, so a member is written at most once per call;
//   - a row one of whose other unique fields belongs to another member
//     (including one written by an earlier row) is rejected;
//   - other rows are created as given.
//
// It bumps the content revision when any row was written.
func (s *Store) ImportMembers(ctx context.Context, ms []exam.Member) ([]exam.ImportResult, error) {
	results := make([]exam.ImportResult, len(ms))
	err := s.update(ctx, "import members", func(tx *bbolt.Tx) error {
		mt := newMemberTx(tx)
		written := make(map[string]bool, len(ms)) // member ids written by earlier rows
		reject := func(i int, f uniqueField, value, owner string) {
			msg := fmt.Sprintf("%s %q already belongs to another member", f.name, value)
			if written[owner] {
				msg = fmt.Sprintf("%s %q is used by an earlier row of this import", f.name, value)
			}
			results[i] = exam.ImportResult{Row: i, Action: exam.ImportRejected,
				Code: exam.ErrDuplicateMemberField.Code, Message: msg}
		}
	rows:
		for i, m := range ms {
			rec := memberRecordOf(m)
			var target *memberRecord
			if k := uniqueMemberFields[0].key(&rec); k != nil {
				if owner := mt.unique[0].Get(k); owner != nil {
					if written[string(owner)] {
						reject(i, uniqueMemberFields[0], m.Username, string(owner))
						continue
					}
					old, found, err := mt.get(string(owner))
					if err != nil {
						return err
					}
					if !found {
						return fmt.Errorf("index of username %q names member %q, which does not exist", m.Username, owner)
					}
					target = &old
				}
			}
			for j, f := range uniqueMemberFields[1:] {
				k := f.key(&rec)
				if k == nil {
					continue
				}
				if owner := mt.unique[j+1].Get(k); owner != nil && (target == nil || string(owner) != target.ID) {
					reject(i, f, f.value(&rec), string(owner))
					continue rows
				}
			}
			action := exam.ImportCreated
			if target != nil {
				action = exam.ImportUpdated
				rec.ID, rec.CreatedAt = target.ID, target.CreatedAt
				rec.ExamPasswordGen, rec.ExamPasswordHash = target.ExamPasswordGen, target.ExamPasswordHash
			} else if rec.ID == "" || mt.members.Get([]byte(rec.ID)) != nil {
				return fmt.Errorf("row %d: member id %q is empty or taken", i, rec.ID)
			}
			if err := mt.put(rec, target); err != nil {
				return fmt.Errorf("row %d: %w", i, err)
			}
			written[rec.ID] = true
			results[i] = exam.ImportResult{Row: i, MemberID: rec.ID, Action: action}
		}
		if len(written) > 0 {
			return bumpRevision(tx)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// LookupMember returns the member whose field equals value exactly (email
// and username compared case-insensitively). Empty values match nobody.
func (s *Store) LookupMember(ctx context.Context, field exam.LookupField, value string) (exam.Member, error) {
	var out exam.Member
	err := s.view(ctx, "lookup member", func(tx *bbolt.Tx) error {
		mt := newMemberTx(tx)
		id := ""
		if field == exam.LookupID {
			id = value
		} else {
			i := -1
			for j, f := range uniqueMemberFields {
				if f.lookup == field {
					i = j
				}
			}
			if i < 0 {
				return fmt.Errorf("unknown lookup field %q", field)
			}
			if k := uniqueMemberFields[i].keyOf(value); k != nil {
				id = string(mt.unique[i].Get(k))
			}
		}
		if id == "" {
			return fmt.Errorf("member with %s %q: %w", field, value, exam.ErrNotFound)
		}
		rec, found, err := mt.get(id)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("member with %s %q: %w", field, value, exam.ErrNotFound)
		}
		out = rec.member()
		return nil
	})
	return out, err
}

// ListMembers returns one page of matching members ordered by Nama then ID
// (byte-wise), and the total number of matches. It walks the (npsn, nama, id)
// index when the filter names a school, else the (nama, id) index.
func (s *Store) ListMembers(ctx context.Context, f exam.MemberFilter) ([]exam.Member, int, error) {
	var out []exam.Member
	total := 0
	offset := max(f.Offset, 0)
	search := strings.ToLower(f.Search)
	needRecord := f.Role != "" || f.Kelas != "" || f.AcademicYear != "" || search != ""
	inPage := func(n int) bool { return n >= offset && (f.Limit <= 0 || n < offset+f.Limit) }
	err := s.view(ctx, "list members", func(tx *bbolt.Tx) error {
		mt := newMemberTx(tx)
		index, prefix := mt.byName, []byte(nil)
		if f.NPSN != "" {
			index, prefix = mt.bySchool, tuple(f.NPSN)
		}
		return scanPrefix(index, prefix, func(k, _ []byte) (bool, error) {
			if !needRecord && !inPage(total) {
				total++
				return true, nil
			}
			id, err := lastPart(k)
			if err != nil {
				return false, err
			}
			rec, found, err := mt.get(id)
			if err != nil {
				return false, err
			}
			if !found {
				return false, fmt.Errorf("member index names member %q, which does not exist", id)
			}
			if !memberMatches(&rec, f, search) {
				return true, nil
			}
			if inPage(total) {
				out = append(out, rec.member())
			}
			total++
			return true, nil
		})
	})
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}

func memberMatches(r *memberRecord, f exam.MemberFilter, search string) bool {
	switch {
	case f.NPSN != "" && r.NPSN != f.NPSN,
		f.Role != "" && r.Role != f.Role,
		f.Kelas != "" && r.Kelas != f.Kelas,
		f.AcademicYear != "" && r.AcademicYearName != f.AcademicYear:
		return false
	case search == "":
		return true
	}
	for _, v := range []string{r.Nama, r.Username, r.NISN, r.Email} {
		if strings.Contains(strings.ToLower(v), search) {
			return true
		}
	}
	return false
}

// SetExamPassword stores a new exam password generation and hash for the
// member, bumps the content revision and returns the updated member.
// UpdatedAt is left as it was: the call carries no time.
func (s *Store) SetExamPassword(ctx context.Context, memberID string, gen int, hash string) (exam.Member, error) {
	var out exam.Member
	err := s.update(ctx, "set exam password", func(tx *bbolt.Tx) error {
		mt := newMemberTx(tx)
		rec, found, err := mt.get(memberID)
		if err != nil {
			return err
		}
		if !found {
			return fmt.Errorf("member %q: %w", memberID, exam.ErrNotFound)
		}
		rec.ExamPasswordGen, rec.ExamPasswordHash = gen, hash
		if err := putJSON(mt.members, []byte(rec.ID), rec); err != nil {
			return err
		}
		out = rec.member()
		return bumpRevision(tx)
	})
	return out, err
}
