package storetest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
)

// ani and guru are members with every unique field set between them.
func ani() exam.Member {
	m := member("m-ani", "ani", "Ani Lestari")
	m.Email = "ani@example.sch.id"
	m.DapodikID = "pd-ani"
	m.NISN = "0012345678"
	m.GoogleEmail = "ani.lestari@gmail.com"
	m.IsClaimed = true
	m.ExamPasswordGen = 2
	return m
}

func guru() exam.Member {
	m := member("m-guru", "guru1", "Guru Satu")
	m.Role = "guru"
	m.Kelas = ""
	m.Email = "guru1@example.sch.id"
	m.NIP = "198001012005011001"
	m.NIK = "3201010101800001"
	m.CreatedAt, m.UpdatedAt = at(time.Hour), at(2*time.Hour)
	return m
}

func testImportMembersCreate(t *testing.T, s Store) {
	a, g := ani(), guru()
	res := MustImportMembers(t, s, a, g)
	check(t, "ImportMembers results", res, []exam.ImportResult{
		{Row: 0, MemberID: a.ID, Action: exam.ImportCreated},
		{Row: 1, MemberID: g.ID, Action: exam.ImportCreated},
	})
	for _, want := range []exam.Member{a, g} {
		check(t, "LookupMember by id", MustLookupMember(t, s, exam.LookupID, want.ID), want)
	}
	ms, total := MustListMembers(t, s, exam.MemberFilter{})
	if total != 2 {
		t.Fatalf("ListMembers total = %d, want 2", total)
	}
	check(t, "ListMembers", ms, []exam.Member{a, g})
}

func testImportMembersUpdate(t *testing.T, s Store) {
	ctx := t.Context()
	a := ani()
	MustImportMembers(t, s, a)
	_, err := s.SetExamPassword(ctx, a.ID, 3, "pbkdf2-sha256$reset")
	mustOK(t, "SetExamPassword", err)

	row := exam.Member{ID: "m-ignored", NPSN: npsnB, Nama: "Ani Lestari Putri", Role: exam.RoleStudent,
		DapodikID: a.DapodikID, NISN: "0012345679", Username: "ani", Email: "", Kelas: "XI-2",
		AcademicYearName: "2026/2027", GoogleEmail: "ani.putri@gmail.com", IsClaimed: false,
		ExamPasswordGen: 0, ExamPasswordHash: "pbkdf2-sha256$ignored", CreatedAt: at(5 * time.Hour), UpdatedAt: at(5 * time.Hour)}
	res := MustImportMembers(t, s, row)
	check(t, "ImportMembers results", res, []exam.ImportResult{{Row: 0, MemberID: a.ID, Action: exam.ImportUpdated}})

	want := row
	want.ID, want.CreatedAt, want.ExamPasswordGen, want.ExamPasswordHash = a.ID, a.CreatedAt, 3, "pbkdf2-sha256$reset"
	check(t, "member after update", MustLookupMember(t, s, exam.LookupID, a.ID), want)
	_, err = s.LookupMember(ctx, exam.LookupID, row.ID)
	wantErr(t, "LookupMember by the id of an update row", err, exam.ErrNotFound)
	_, err = s.LookupMember(ctx, exam.LookupEmail, a.Email)
	wantErr(t, "LookupMember by the email the update cleared", err, exam.ErrNotFound)
	_, err = s.LookupMember(ctx, exam.LookupNISN, a.NISN)
	wantErr(t, "LookupMember by the nisn the update replaced", err, exam.ErrNotFound)
	check(t, "LookupMember by the new nisn", MustLookupMember(t, s, exam.LookupNISN, row.NISN), want)
	ms, total := MustListMembers(t, s, exam.MemberFilter{})
	if total != 1 || len(ms) != 1 {
		t.Fatalf("ListMembers after update = %d members (total %d), want 1", len(ms), total)
	}

	// The values the update let go are free for other members.
	budi := member("m-budi", "budi", "Budi Santoso")
	budi.Email, budi.NISN = a.Email, a.NISN
	res = MustImportMembers(t, s, budi)
	check(t, "ImportMembers of freed values", res, []exam.ImportResult{{Row: 0, MemberID: budi.ID, Action: exam.ImportCreated}})
	check(t, "LookupMember by a freed email", MustLookupMember(t, s, exam.LookupEmail, a.Email), budi)

	// Usernames match case-insensitively.
	res = MustImportMembers(t, s, func() exam.Member { m := row; m.Username = "ANI"; m.Kelas = "XI-3"; return m }())
	check(t, "ImportMembers by username in other case", res, []exam.ImportResult{{Row: 0, MemberID: a.ID, Action: exam.ImportUpdated}})
	if m := MustLookupMember(t, s, exam.LookupUsername, "ani"); m.ID != a.ID || m.Kelas != "XI-3" {
		t.Fatalf("member after update by username in other case = %+v", m)
	}
	if _, total := MustListMembers(t, s, exam.MemberFilter{}); total != 2 {
		t.Fatalf("ListMembers total = %d, want 2", total)
	}
}

// wantRejected fails the test unless r rejects row as a duplicate of field value.
func wantRejected(t *testing.T, r exam.ImportResult, row int, field, value string) {
	t.Helper()
	if r.Row != row || r.Action != exam.ImportRejected || r.MemberID != "" || r.Code != exam.ErrDuplicateMemberField.Code {
		t.Fatalf("result of row %d = %+v, want rejected %s with no member id", row, r, exam.ErrDuplicateMemberField.Code)
	}
	msg := strings.ToLower(r.Message)
	if !strings.Contains(msg, field) || !strings.Contains(msg, strings.ToLower(value)) {
		t.Fatalf("rejection message of row %d = %q, want it to name %s and %q", row, r.Message, field, value)
	}
}

func testImportMembersRejectsExisting(t *testing.T, s Store) {
	ctx := t.Context()
	a, g := ani(), guru()
	MustImportMembers(t, s, a, g)
	rev := MustContentRevision(t, s)

	cases := []struct {
		field, value string
		set          func(m *exam.Member, v string)
	}{
		{"email", a.Email, func(m *exam.Member, v string) { m.Email = v }},
		{"email", strings.ToUpper(a.Email), func(m *exam.Member, v string) { m.Email = v }},
		{"dapodik_id", a.DapodikID, func(m *exam.Member, v string) { m.DapodikID = v }},
		{"nisn", a.NISN, func(m *exam.Member, v string) { m.NISN = v }},
		{"nip", g.NIP, func(m *exam.Member, v string) { m.NIP = v }},
		{"nik", g.NIK, func(m *exam.Member, v string) { m.NIK = v }},
	}
	for i, c := range cases {
		row := member(fmt.Sprintf("m-new-%d", i), fmt.Sprintf("baru%d", i), "Siswa Baru")
		row.NIK = fmt.Sprintf("99000000000000%02d", i) // a fresh value that must not be written either
		c.set(&row, c.value)
		res, err := s.ImportMembers(ctx, []exam.Member{row})
		mustOK(t, "ImportMembers", err)
		if len(res) != 1 {
			t.Fatalf("ImportMembers of one row returned %d results", len(res))
		}
		wantRejected(t, res[0], 0, c.field, c.value)
		_, err = s.LookupMember(ctx, exam.LookupID, row.ID)
		wantErr(t, "LookupMember of a rejected row", err, exam.ErrNotFound)
		_, err = s.LookupMember(ctx, exam.LookupUsername, row.Username)
		wantErr(t, "LookupMember by the username of a rejected row", err, exam.ErrNotFound)
		if c.field != "nik" {
			_, err = s.LookupMember(ctx, exam.LookupNIK, row.NIK)
			wantErr(t, "LookupMember by the nik of a rejected row", err, exam.ErrNotFound)
		}
	}

	// An update row whose other field belongs to another member is rejected
	// and leaves its member as it was.
	upd := a
	upd.Nama = "Ani Diubah"
	upd.NIP = g.NIP
	res, err := s.ImportMembers(ctx, []exam.Member{upd})
	mustOK(t, "ImportMembers", err)
	wantRejected(t, res[0], 0, "nip", g.NIP)

	check(t, "ani after rejected rows", MustLookupMember(t, s, exam.LookupID, a.ID), a)
	check(t, "guru after rejected rows", MustLookupMember(t, s, exam.LookupID, g.ID), g)
	if _, total := MustListMembers(t, s, exam.MemberFilter{}); total != 2 {
		t.Fatalf("ListMembers total after rejected rows = %d, want 2", total)
	}
	if r := MustContentRevision(t, s); r != rev {
		t.Fatalf("content revision moved from %d to %d on imports whose rows were all rejected", rev, r)
	}
}

func testImportMembersRejectsWithinCall(t *testing.T, s Store) {
	ctx := t.Context()
	a := ani()
	MustImportMembers(t, s, a)

	citra := member("m-0", "citra", "Citra Dewi")
	citra.Email, citra.DapodikID, citra.NISN = "citra@example.sch.id", "pd-citra", "0000000001"
	citra.NIP, citra.NIK = "199001012015011001", "3201010101900001"
	row := func(id, username string, set func(m *exam.Member)) exam.Member {
		m := member(id, username, "Siswa "+id)
		set(&m)
		return m
	}
	aniUpd := a
	aniUpd.Kelas = "XII-1"
	aniAgain := a
	aniAgain.Kelas = "XII-9"
	eka := member("m-9", "eka", "Eka Putra")
	rows := []exam.Member{
		citra,
		row("m-1", "citra2", func(m *exam.Member) { m.Email = "CITRA@example.sch.id" }),
		row("m-2", "citra3", func(m *exam.Member) { m.DapodikID = citra.DapodikID }),
		row("m-3", "citra4", func(m *exam.Member) { m.NISN = citra.NISN }),
		row("m-4", "citra5", func(m *exam.Member) { m.NIP = citra.NIP }),
		row("m-5", "citra6", func(m *exam.Member) { m.NIK = citra.NIK }),
		row("m-6", "citra", func(m *exam.Member) {}), // username written by row 0
		aniUpd,   // updates ani
		aniAgain, // username written by row 7
		eka,
	}
	res, err := s.ImportMembers(ctx, rows)
	mustOK(t, "ImportMembers", err)
	if len(res) != len(rows) {
		t.Fatalf("ImportMembers of %d rows returned %d results", len(rows), len(res))
	}
	check(t, "result of row 0", res[0], exam.ImportResult{Row: 0, MemberID: citra.ID, Action: exam.ImportCreated})
	wantRejected(t, res[1], 1, "email", citra.Email)
	wantRejected(t, res[2], 2, "dapodik_id", citra.DapodikID)
	wantRejected(t, res[3], 3, "nisn", citra.NISN)
	wantRejected(t, res[4], 4, "nip", citra.NIP)
	wantRejected(t, res[5], 5, "nik", citra.NIK)
	wantRejected(t, res[6], 6, "username", citra.Username)
	check(t, "result of row 7", res[7], exam.ImportResult{Row: 7, MemberID: a.ID, Action: exam.ImportUpdated})
	wantRejected(t, res[8], 8, "username", a.Username)
	check(t, "result of row 9", res[9], exam.ImportResult{Row: 9, MemberID: eka.ID, Action: exam.ImportCreated})

	check(t, "member of row 0", MustLookupMember(t, s, exam.LookupID, citra.ID), citra)
	check(t, "member of rows 7 and 8", MustLookupMember(t, s, exam.LookupID, a.ID), aniUpd)
	for _, id := range []string{"m-1", "m-2", "m-3", "m-4", "m-5", "m-6"} {
		_, err := s.LookupMember(ctx, exam.LookupID, id)
		wantErr(t, "LookupMember of a rejected row", err, exam.ErrNotFound)
	}
	ms, total := MustListMembers(t, s, exam.MemberFilter{})
	if total != 3 {
		t.Fatalf("ListMembers total = %d, want 3", total)
	}
	checkIDs(t, "ListMembers", ms, aniUpd.ID, citra.ID, eka.ID)
}

func testImportMembersLarge(t *testing.T, s Store) {
	ctx := t.Context()
	const n = 10_000
	rows := make([]exam.Member, n)
	for i := range rows {
		m := member(fmt.Sprintf("m-%05d", i), fmt.Sprintf("siswa%05d", i), fmt.Sprintf("Siswa %05d", i))
		m.NISN = fmt.Sprintf("%010d", i)
		m.Email = fmt.Sprintf("siswa%05d@example.sch.id", i)
		m.Kelas = fmt.Sprintf("X-%d", i%10)
		rows[i] = m
	}
	res, err := s.ImportMembers(ctx, rows)
	mustOK(t, "ImportMembers", err)
	for i, r := range res {
		if r.Row != i || r.Action != exam.ImportCreated || r.MemberID != rows[i].ID {
			t.Fatalf("result %d = %+v, want row %d created", i, r, i)
		}
	}
	page, total := MustListMembers(t, s, exam.MemberFilter{Offset: 5000, Limit: 3})
	if total != n {
		t.Fatalf("ListMembers total = %d, want %d", total, n)
	}
	checkIDs(t, "ListMembers page", page, "m-05000", "m-05001", "m-05002")
	_, total = MustListMembers(t, s, exam.MemberFilter{Kelas: "X-3", Limit: 1})
	if total != n/10 {
		t.Fatalf("ListMembers total of one kelas = %d, want %d", total, n/10)
	}

	for i := range rows {
		rows[i].ID = fmt.Sprintf("m-ignored-%05d", i)
		rows[i].Kelas = "XI-1"
	}
	res, err = s.ImportMembers(ctx, rows)
	mustOK(t, "ImportMembers again", err)
	for i, r := range res {
		if r.Row != i || r.Action != exam.ImportUpdated || r.MemberID != fmt.Sprintf("m-%05d", i) {
			t.Fatalf("result %d of the second import = %+v, want row %d updated", i, r, i)
		}
	}
	if m := MustLookupMember(t, s, exam.LookupNISN, fmt.Sprintf("%010d", n-1)); m.ID != fmt.Sprintf("m-%05d", n-1) || m.Kelas != "XI-1" {
		t.Fatalf("LookupMember after the second import = %+v", m)
	}
	if _, total := MustListMembers(t, s, exam.MemberFilter{}); total != n {
		t.Fatalf("ListMembers total after the second import = %d, want %d", total, n)
	}
}

func testLookupMember(t *testing.T, s Store) {
	ctx := t.Context()
	a, g := ani(), guru()
	budi := member("m-budi", "budi", "Budi Santoso") // no email, nisn, nip, nik or dapodik_id
	MustImportMembers(t, s, a, g, budi)
	for _, c := range []struct {
		field exam.LookupField
		value string
		want  exam.Member
	}{
		{exam.LookupID, a.ID, a},
		{exam.LookupID, budi.ID, budi},
		{exam.LookupUsername, "ani", a},
		{exam.LookupUsername, "ANI", a},
		{exam.LookupUsername, "Guru1", g},
		{exam.LookupEmail, "ani@example.sch.id", a},
		{exam.LookupEmail, "Ani@Example.SCH.ID", a},
		{exam.LookupDapodikID, "pd-ani", a},
		{exam.LookupNISN, "0012345678", a},
		{exam.LookupNIP, "198001012005011001", g},
		{exam.LookupNIK, "3201010101800001", g},
	} {
		got, err := s.LookupMember(ctx, c.field, c.value)
		mustOK(t, fmt.Sprintf("LookupMember %s=%q", c.field, c.value), err)
		check(t, fmt.Sprintf("LookupMember %s=%q", c.field, c.value), got, c.want)
	}
	for _, c := range []struct {
		field exam.LookupField
		value string
	}{
		{exam.LookupID, "m-404"},
		{exam.LookupID, "M-ANI"},
		{exam.LookupUsername, "an"},
		{exam.LookupUsername, ""},
		{exam.LookupEmail, ""}, // budi has no email: empty values match nobody
		{exam.LookupEmail, "ani@example"},
		{exam.LookupDapodikID, ""},
		{exam.LookupDapodikID, "PD-ANI"}, // exact
		{exam.LookupNISN, ""},
		{exam.LookupNISN, "001234567"},
		{exam.LookupNIP, ""},
		{exam.LookupNIK, ""},
		{exam.LookupNIK, a.NISN}, // a value of another field
		{exam.LookupNISN, "ani"},
	} {
		_, err := s.LookupMember(ctx, c.field, c.value)
		wantErr(t, fmt.Sprintf("LookupMember %s=%q", c.field, c.value), err, exam.ErrNotFound)
	}
}

func testListMembers(t *testing.T, s Store) {
	mk := func(id, username, nama, npsn, role, kelas string) exam.Member {
		m := member(id, username, nama)
		m.NPSN, m.Role, m.Kelas = npsn, role, kelas
		return m
	}
	aniL := mk("id-03", "ani", "Ani Lestari", npsnA, exam.RoleStudent, "X-1")
	aniL.Email, aniL.NISN = "ani@example.sch.id", "0012345678"
	budiA := mk("id-02", "budi", "Budi Santoso", npsnA, exam.RoleStudent, "X-2")
	budiA.NISN = "0012345679"
	citra := mk("id-04", "citra.dewi", "Citra Dewi", npsnB, exam.RoleStudent, "X-1")
	guru := mk("id-05", "guru1", "Guru Satu", npsnA, "guru", "")
	guru.Email, guru.NIK = "guru1@example.sch.id", "3201010101800001"
	budiB := mk("id-01", "budi.b", "Budi Santoso", npsnB, exam.RoleStudent, "X-1") // same nama: ordered by id
	aniR := mk("id-06", "ani.rahma", "ani rahma", npsnB, exam.RoleStudent, "X-2")  // byte order: after every capital
	zul := mk("id-07", "zul_01", "Zulkifli", npsnA, exam.RoleStudent, "X-1")
	// aniL and citra keep member's 2025/2026.
	zul.AcademicYearName = "2024/2025"
	budiA.AcademicYearName, guru.AcademicYearName, budiB.AcademicYearName, aniR.AcademicYearName = "2026/2027", "2026/2027", "2026/2027", "2026/2027"
	MustImportMembers(t, s, zul, aniL, budiA, guru)
	MustImportMembers(t, s, citra, budiB, aniR)

	all := []exam.Member{aniL, budiB, budiA, citra, guru, zul, aniR}
	for _, c := range []struct {
		name  string
		f     exam.MemberFilter
		want  []string
		total int
	}{
		{"all", exam.MemberFilter{}, ids(all), 7},
		{"search nama/username/email", exam.MemberFilter{Search: "ani"}, []string{"id-03", "id-06"}, 2},
		{"search case-insensitive", exam.MemberFilter{Search: "SANTOSO"}, []string{"id-01", "id-02"}, 2},
		{"search username", exam.MemberFilter{Search: "citra.d"}, []string{"id-04"}, 1},
		{"search nisn", exam.MemberFilter{Search: "2345679"}, []string{"id-02"}, 1},
		{"search email", exam.MemberFilter{Search: "GURU1@"}, []string{"id-05"}, 1},
		{"search ignores nik", exam.MemberFilter{Search: "3201010101"}, nil, 0},
		{"search ignores kelas", exam.MemberFilter{Search: "X-1"}, nil, 0},
		{"search percent is literal", exam.MemberFilter{Search: "%"}, nil, 0},
		{"search underscore is literal", exam.MemberFilter{Search: "_"}, []string{"id-07"}, 1},
		{"role", exam.MemberFilter{Role: "guru"}, []string{"id-05"}, 1},
		{"kelas", exam.MemberFilter{Kelas: "X-1"}, []string{"id-03", "id-01", "id-04", "id-07"}, 4},
		{"npsn", exam.MemberFilter{NPSN: npsnB}, []string{"id-01", "id-04", "id-06"}, 3},
		{"npsn role kelas", exam.MemberFilter{NPSN: npsnA, Role: exam.RoleStudent, Kelas: "X-1"}, []string{"id-03", "id-07"}, 2},
		{"npsn search", exam.MemberFilter{NPSN: npsnA, Search: "budi"}, []string{"id-02"}, 1},
		{"academic year", exam.MemberFilter{AcademicYear: "2025/2026"}, []string{"id-03", "id-04"}, 2},
		{"npsn kelas academic year", exam.MemberFilter{NPSN: npsnA, Kelas: "X-1", AcademicYear: "2024/2025"}, []string{"id-07"}, 1},
		{"academic year without members", exam.MemberFilter{AcademicYear: "2023/2024"}, nil, 0},
		{"first page", exam.MemberFilter{Limit: 3}, []string{"id-03", "id-01", "id-02"}, 7},
		{"second page", exam.MemberFilter{Offset: 3, Limit: 3}, []string{"id-04", "id-05", "id-07"}, 7},
		{"last page", exam.MemberFilter{Offset: 6, Limit: 3}, []string{"id-06"}, 7},
		{"past the end", exam.MemberFilter{Offset: 10, Limit: 3}, nil, 7},
		{"offset without limit", exam.MemberFilter{Offset: 5}, []string{"id-07", "id-06"}, 7},
		{"filtered page", exam.MemberFilter{NPSN: npsnA, Offset: 1, Limit: 2}, []string{"id-02", "id-05"}, 4},
		{"no match", exam.MemberFilter{NPSN: "29999999"}, nil, 0},
	} {
		got, total := MustListMembers(t, s, c.f)
		if total != c.total {
			t.Fatalf("ListMembers %s: total = %d, want %d", c.name, total, c.total)
		}
		checkIDs(t, "ListMembers "+c.name, got, c.want...)
	}
	got, _ := MustListMembers(t, s, exam.MemberFilter{})
	check(t, "ListMembers (every field)", got, all)
}

func testSetExamPassword(t *testing.T, s Store) {
	ctx := t.Context()
	a, g := ani(), guru()
	MustImportMembers(t, s, a, g)
	rev := MustContentRevision(t, s)
	want := a
	want.ExamPasswordGen, want.ExamPasswordHash = 3, "pbkdf2-sha256$third"
	got, err := s.SetExamPassword(ctx, a.ID, 3, "pbkdf2-sha256$third")
	mustOK(t, "SetExamPassword", err)
	// The interface passes no time: whether UpdatedAt moves is the store's choice.
	want.UpdatedAt = got.UpdatedAt
	if got.UpdatedAt.Before(a.UpdatedAt) {
		t.Fatalf("SetExamPassword moved UpdatedAt back from %s to %s", fmtTime(a.UpdatedAt), fmtTime(got.UpdatedAt))
	}
	check(t, "SetExamPassword", got, want)
	check(t, "LookupMember after SetExamPassword", MustLookupMember(t, s, exam.LookupID, a.ID), want)
	check(t, "other member after SetExamPassword", MustLookupMember(t, s, exam.LookupID, g.ID), g)
	if r := MustContentRevision(t, s); r <= rev {
		t.Fatalf("content revision = %d after SetExamPassword, want more than %d", r, rev)
	}
	_, err = s.SetExamPassword(ctx, "m-404", 1, "pbkdf2-sha256$x")
	wantErr(t, "SetExamPassword of an unknown member", err, exam.ErrNotFound)
}
