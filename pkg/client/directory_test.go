package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/seedhq/portal/pkg/client"
)

func TestLookupMember(t *testing.T) {
	f := newFakePortal(t)
	f.handle("GET /api/v1/members/lookup", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if len(q) != 1 {
			writeJSON(w, 400, map[string]any{"success": false, "error": "give exactly one key", "code": "INVALID_QUERY"})
			return
		}
		if q.Get("nisn") == "001" || q.Get("dapodik_id") == "d-1" {
			writeJSON(w, 200, map[string]any{"success": true, "found": true, "meta": map[string]any{"app_name": "Portal"},
				"data": map[string]any{"id": "m1", "nama": "Ani", "role": "siswa", "dapodik_id": "d-1", "nisn": "001", "kelas": "XII-1",
					"academic_year_name": "2025/2026", "google_email": "ani@g.id", "is_claimed": true}})
			return
		}
		writeJSON(w, 200, map[string]any{"success": true, "found": false, "data": nil, "meta": map[string]any{"app_name": "Portal"}})
	})
	c := f.client(client.WithAPIKey("key"), client.WithToken("jwt"))
	ctx := context.Background()

	res, resp, err := c.Exam.Directory.LookupMember(ctx, client.MemberLookup{NISN: "001"})
	if err != nil {
		t.Fatal(err)
	}
	want := client.Member{ID: "m1", Nama: "Ani", Role: "siswa", DapodikID: "d-1", NISN: "001", Kelas: "XII-1",
		AcademicYearName: "2025/2026", GoogleEmail: "ani@g.id", IsClaimed: true}
	if !res.Found || res.Member == nil || *res.Member != want || resp.AppName != "Portal" {
		t.Errorf("found: %+v %+v app %q", res, res.Member, resp.AppName)
	}
	r := f.last()
	if r.RawQuery != "nisn=001" || r.Header.Get("X-API-Key") != "key" || r.Header.Get("Authorization") != "" {
		t.Errorf("request %q %v", r.RawQuery, r.Header)
	}

	for _, l := range []client.MemberLookup{
		{ID: "x"}, {Username: "x"}, {Email: "x@y"}, {DapodikID: "x"}, {NISN: "x"}, {NIP: "x"}, {NIK: "x"},
	} {
		res, _, err := c.Exam.Directory.LookupMember(ctx, l)
		if err != nil || res.Found || res.Member != nil {
			t.Errorf("%+v: %+v, %v", l, res, err)
		}
		q, _ := url.ParseQuery(f.last().RawQuery)
		if len(q) != 1 {
			t.Errorf("%+v: query %v", l, q)
		}
	}

	n := len(f.requests())
	for _, l := range []client.MemberLookup{{}, {NISN: "1", NIK: "2"}, {ID: "a", Email: "b", NIP: "c"}} {
		if _, _, err := c.Exam.Directory.LookupMember(ctx, l); err == nil {
			t.Errorf("%+v: nil error", l)
		}
	}
	if len(f.requests()) != n {
		t.Error("an invalid lookup was sent")
	}
}

func TestActiveAcademicYearNone(t *testing.T) {
	f := newFakePortal(t)
	f.json("GET /api/v1/academic-year/active", 404, map[string]any{"success": false, "error": "no academic year is active", "code": "NO_ACTIVE_ACADEMIC_YEAR"})
	_, _, err := f.client().Exam.Directory.ActiveAcademicYear(context.Background())
	if !errors.Is(err, client.ErrNotFound) || !errors.Is(err, &client.Error{Code: client.CodeNoActiveAcademicYear}) {
		t.Fatalf("err = %v", err)
	}
}

// memberDirectory emulates GET /api/v1/members over n members.
func memberDirectory(f *fakePortal, n int, failPage int) {
	f.handle("GET /api/v1/members", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		page, perPage := 1, 20
		if v := q.Get("page"); v != "" {
			page, _ = strconv.Atoi(v)
		}
		if v := q.Get("per_page"); v != "" {
			perPage, _ = strconv.Atoi(v)
		}
		if perPage < 1 || perPage > 100 || page < 1 {
			writeJSON(w, 400, map[string]any{"success": false, "error": "per_page must be 1..100", "code": "INVALID_QUERY"})
			return
		}
		if page == failPage {
			writeJSON(w, 500, map[string]any{"success": false, "error": "internal error", "code": "INTERNAL"})
			return
		}
		data := []map[string]any{}
		for i := (page - 1) * perPage; i < n && i < page*perPage; i++ {
			data = append(data, map[string]any{"id": fmt.Sprintf("m%d", i), "nama": "N", "role": "siswa", "nisn": "", "kelas": "X"})
		}
		writeJSON(w, 200, map[string]any{"success": true, "data": data,
			"meta": map[string]any{"total": n, "page": page, "per_page": perPage, "total_pages": (n + perPage - 1) / perPage}})
	})
}

func TestListMembers(t *testing.T) {
	f := newFakePortal(t)
	memberDirectory(f, 45, 0)
	c := f.client(client.WithAPIKey("key"))
	ctx := context.Background()

	ms, resp, err := c.Exam.Directory.ListMembers(ctx, &client.MemberListOptions{
		ListOptions: client.ListOptions{Page: 2, PerPage: 20}, Search: "an i", Role: "siswa", Kelas: "XII-1"})
	if err != nil {
		t.Fatal(err)
	}
	if r := f.last(); r.RawQuery != "kelas=XII-1&page=2&per_page=20&role=siswa&search=an+i" || r.Header.Get("X-API-Key") != "key" {
		t.Errorf("request %q", r.RawQuery)
	}
	if len(ms) != 20 || ms[0].ID != "m20" || ms[0].Role != "siswa" {
		t.Errorf("members %d, first %+v", len(ms), ms[0])
	}
	if resp.Page != 2 || resp.PerPage != 20 || resp.Total != 45 || resp.TotalPages != 3 || resp.NextPage != 3 || resp.PrevPage != 1 {
		t.Errorf("paging %+v", resp)
	}

	_, resp, err = c.Exam.Directory.ListMembers(ctx, &client.MemberListOptions{ListOptions: client.ListOptions{Page: 3}})
	if err != nil || resp.NextPage != 0 || resp.PrevPage != 2 {
		t.Errorf("last page: %+v, %v", resp, err)
	}
	_, resp, err = c.Exam.Directory.ListMembers(ctx, nil)
	if err != nil || f.last().RawQuery != "" || resp.Page != 1 || resp.PrevPage != 0 || resp.NextPage != 2 {
		t.Errorf("defaults: %+v, %v", resp, err)
	}
	_, _, err = c.Exam.Directory.ListMembers(ctx, &client.MemberListOptions{ListOptions: client.ListOptions{PerPage: 500}})
	if !errors.Is(err, &client.Error{Code: client.CodeInvalidQuery}) {
		t.Errorf("per_page 500: %v", err)
	}
}

func TestAllMembers(t *testing.T) {
	f := newFakePortal(t)
	memberDirectory(f, 45, 0)
	c := f.client(client.WithAPIKey("key"))
	ctx := context.Background()

	opts := &client.MemberListOptions{ListOptions: client.ListOptions{PerPage: 10}, Role: "siswa"}
	seq := c.Exam.Directory.AllMembers(ctx, opts)
	for run := range 2 { // a sequence can be walked again
		before := len(f.requests())
		var ids []string
		for m, err := range seq {
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, m.ID)
		}
		if len(ids) != 45 || ids[0] != "m0" || ids[44] != "m44" {
			t.Fatalf("run %d: %d members", run, len(ids))
		}
		reqs := f.requests()[before:]
		if len(reqs) != 5 {
			t.Errorf("run %d: %d requests, want 5", run, len(reqs))
		}
		for i, r := range reqs {
			if want := fmt.Sprintf("page=%d&per_page=10&role=siswa", i+1); r.RawQuery != want {
				t.Errorf("run %d request %d: %q, want %q", run, i, r.RawQuery, want)
			}
		}
	}
	if opts.Page != 0 {
		t.Error("AllMembers modified the options")
	}

	// Breaking out stops paging.
	before := len(f.requests())
	n := 0
	for _, err := range c.Exam.Directory.AllMembers(ctx, &client.MemberListOptions{ListOptions: client.ListOptions{PerPage: 10}}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 12 {
			break
		}
	}
	if got := len(f.requests()) - before; got != 2 {
		t.Errorf("break after 12: %d requests", got)
	}

	// Starting page; an empty directory.
	n = 0
	for _, err := range c.Exam.Directory.AllMembers(ctx, &client.MemberListOptions{ListOptions: client.ListOptions{Page: 5, PerPage: 10}}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 5 {
		t.Errorf("from page 5: %d members", n)
	}
	empty := newFakePortal(t)
	memberDirectory(empty, 0, 0)
	for m, err := range empty.client().Exam.Directory.AllMembers(ctx, nil) {
		t.Errorf("empty directory yielded %v, %v", m, err)
	}
}

func TestAllMembersError(t *testing.T) {
	f := newFakePortal(t)
	memberDirectory(f, 45, 2)
	var ids []string
	var errs []error
	for m, err := range f.client().Exam.Directory.AllMembers(context.Background(), nil) {
		if err != nil {
			if m != nil {
				t.Error("member yielded with an error")
			}
			errs = append(errs, err)
			continue
		}
		ids = append(ids, m.ID)
	}
	if len(ids) != 20 || len(errs) != 1 || !errors.Is(errs[0], client.ErrServer) {
		t.Fatalf("%d members, errors %v", len(ids), errs)
	}
}
