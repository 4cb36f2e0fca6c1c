package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
)

// Member is a person of the member directory. The portal answers views: a
// lookup sets ID, Nama, Role, DapodikID, NISN, Kelas, AcademicYearName,
// GoogleEmail and IsClaimed; a list sets ID, Nama, Role, NISN and Kelas.
// The other fields are left empty.
type Member struct {
	ID               string `json:"id"`
	NPSN             string `json:"npsn,omitempty"`
	Nama             string `json:"nama"`
	Role             string `json:"role"`
	DapodikID        string `json:"dapodik_id,omitempty"`
	NISN             string `json:"nisn"`
	NIP              string `json:"nip,omitempty"`
	NIK              string `json:"nik,omitempty"`
	Username         string `json:"username,omitempty"`
	Email            string `json:"email,omitempty"`
	Kelas            string `json:"kelas"`
	AcademicYearName string `json:"academic_year_name,omitempty"`
	GoogleEmail      string `json:"google_email,omitempty"`
	IsClaimed        bool   `json:"is_claimed,omitempty"`
}

// directoryMeta is the meta object of academic-year and lookup answers.
type directoryMeta struct {
	AppName string `json:"app_name"`
}

// ActiveAcademicYear returns the active academic year (GET
// /api/v1/academic-year/active, X-API-Key); resp.AppName is meta.app_name.
// When none is active: 404 CodeNoActiveAcademicYear.
func (s *ExamDirectoryService) ActiveAcademicYear(ctx context.Context) (*AcademicYear, *Response, error) {
	var out struct {
		Data *AcademicYear `json:"data"`
		Meta directoryMeta `json:"meta"`
	}
	resp, err := s.client.exam(ctx, http.MethodGet, "academic-year/active", nil, nil, &out, credAPIKey)
	if err != nil {
		return nil, resp, err
	}
	resp.AppName = out.Meta.AppName
	return out.Data, resp, nil
}

// MemberLookup names the one key a member is looked up by: set exactly one
// field.
type MemberLookup struct {
	ID        string
	Username  string
	Email     string
	DapodikID string
	NISN      string
	NIP       string
	NIK       string
}

// query returns the lookup's query, or an error when not exactly one field
// is set.
func (l MemberLookup) query() (url.Values, error) {
	q := url.Values{}
	for _, f := range []struct{ name, value string }{
		{"id", l.ID}, {"username", l.Username}, {"email", l.Email}, {"dapodik_id", l.DapodikID},
		{"nisn", l.NISN}, {"nip", l.NIP}, {"nik", l.NIK},
	} {
		if f.value != "" {
			q.Set(f.name, f.value)
		}
	}
	if len(q) != 1 {
		return nil, errorf("member lookup: set exactly one of ID, Username, Email, DapodikID, NISN, NIP, NIK (%d set)", len(q))
	}
	return q, nil
}

// MemberLookupResult is the answer of a lookup.
type MemberLookupResult struct {
	// Found reports whether a member has the key.
	Found bool `json:"found"`
	// Member is the lookup view of the member, nil when not found.
	Member *Member `json:"data"`
}

// LookupMember looks a member up by one key (GET /api/v1/members/lookup,
// X-API-Key); resp.AppName is meta.app_name. A key nobody has is not an
// error: the result has Found false. A lookup without exactly one key set
// fails before any request.
func (s *ExamDirectoryService) LookupMember(ctx context.Context, lookup MemberLookup) (*MemberLookupResult, *Response, error) {
	q, err := lookup.query()
	if err != nil {
		return nil, nil, err
	}
	var out struct {
		MemberLookupResult
		Meta directoryMeta `json:"meta"`
	}
	resp, err := s.client.exam(ctx, http.MethodGet, "members/lookup", q, nil, &out, credAPIKey)
	if err != nil {
		return nil, resp, err
	}
	resp.AppName = out.Meta.AppName
	res := out.MemberLookupResult
	if !res.Found {
		res.Member = nil
	}
	return &res, resp, nil
}

// MemberListOptions selects a page of the member directory.
type MemberListOptions struct {
	ListOptions
	// Search is a free-text search (the portal matches it against nama,
	// username, nisn and email).
	Search string
	// Role keeps one role (such as siswa); Kelas keeps one class.
	Role  string
	Kelas string
}

// ListMembers returns one page of the member directory, in list view (GET
// /api/v1/members, X-API-Key). resp carries the paging: Page, PerPage,
// Total, TotalPages, NextPage (0 on the last page). opts may be nil.
func (s *ExamDirectoryService) ListMembers(ctx context.Context, opts *MemberListOptions) ([]*Member, *Response, error) {
	q := url.Values{}
	if opts != nil {
		setIf(q, "search", opts.Search)
		setIf(q, "role", opts.Role)
		setIf(q, "kelas", opts.Kelas)
		opts.ListOptions.values(q)
	}
	var out struct {
		Data []*Member `json:"data"`
		Meta struct {
			Total      int `json:"total"`
			Page       int `json:"page"`
			PerPage    int `json:"per_page"`
			TotalPages int `json:"total_pages"`
		} `json:"meta"`
	}
	resp, err := s.client.exam(ctx, http.MethodGet, "members", q, nil, &out, credAPIKey)
	if err != nil {
		return nil, resp, err
	}
	resp.setPaging(out.Meta.Page, out.Meta.PerPage, out.Meta.Total, out.Meta.TotalPages)
	return out.Data, resp, nil
}

// AllMembers walks every page of the member directory from opts.Page (the
// first when 0), yielding each member. An error is yielded once, with a nil
// member, and ends the walk; so does breaking out of the loop. opts may be
// nil and is not modified.
//
//	for m, err := range c.Exam.Directory.AllMembers(ctx, &client.MemberListOptions{Role: "siswa"}) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(m.Nama)
//	}
//
// Members added or removed while walking may shift pages, so that one is
// seen twice or missed.
func (s *ExamDirectoryService) AllMembers(ctx context.Context, opts *MemberListOptions) iter.Seq2[*Member, error] {
	var o MemberListOptions
	if opts != nil {
		o = *opts
	}
	return allPages(o.Page, func(page int) ([]*Member, *Response, error) {
		o.Page = page
		return s.ListMembers(ctx, &o)
	})
}
