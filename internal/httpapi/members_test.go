package httpapi_test

import (
	"encoding/csv"
	"strings"
	"testing"
)

type importJSON struct {
	Success  bool `json:"success"`
	Created  int  `json:"created"`
	Updated  int  `json:"updated"`
	Rejected int  `json:"rejected"`
	Rows     []struct {
		Row      int    `json:"row"`
		MemberID string `json:"member_id"`
		Action   string `json:"action"`
		Code     string `json:"code"`
		Message  string `json:"message"`
	} `json:"rows"`
}

func TestMemberImportJSON(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		body := map[string]any{"members": []map[string]string{
			{"npsn": npsnA, "nama": "Ani Lestari", "username": "ani", "nisn": "0012345678", "kelas": "XII IPA 1",
				"email": "ani@example.sch.id", "academic_year_name": "2025/2026", "google_email": "ani@gmail.com", "dapodik_id": "pd-1"},
			{"nama": "Budi Santoso", "nisn": "0012345679", "kelas": "XII IPA 2"},             // npsn from the query, username from nisn
			{"npsn": npsnA, "nama": "", "username": "nameless"},                              // rejected: nama
			{"npsn": npsnA, "nama": "Ani Kembar", "username": "ani-2", "nisn": "0012345678"}, // rejected: nisn taken
			{"npsn": npsnA, "nama": "Guru Satu", "role": "guru", "nip": "198001012005011001", "username": "guru1"},
		}}
		var rep importJSON
		h.op("POST", "/api/v1/admin/members/import?npsn="+npsnA, body).expect(200).decode(&rep)
		if !rep.Success || rep.Created != 3 || rep.Updated != 0 || rep.Rejected != 2 || len(rep.Rows) != 5 {
			t.Fatalf("import = %+v", rep)
		}
		for i, want := range []string{"created", "created", "rejected", "rejected", "created"} {
			r := rep.Rows[i]
			if r.Row != i+1 || r.Action != want {
				t.Fatalf("row %d = %+v, want %s", i+1, r, want)
			}
			if (want == "created") != (r.MemberID != "") || (want == "rejected") != (r.Code != "" && r.Message != "") {
				t.Fatalf("row %d = %+v", i+1, r)
			}
		}
		if rep.Rows[2].Code != "VALIDATION_FAILED" || rep.Rows[3].Code != "DUPLICATE_MEMBER" {
			t.Fatalf("rejection codes = %s, %s", rep.Rows[2].Code, rep.Rows[3].Code)
		}

		// Importing again by username updates.
		h.op("POST", "/api/v1/admin/members/import", map[string]any{"members": []map[string]string{
			{"npsn": npsnA, "nama": "Ani Lestari Putri", "username": "ani", "nisn": "0012345678", "kelas": "XII IPA 3"},
		}}).expect(200).decode(&rep)
		if rep.Updated != 1 || rep.Rows[0].MemberID == "" || rep.Rows[0].Action != "updated" {
			t.Fatalf("re-import = %+v", rep)
		}

		h.op("POST", "/api/v1/admin/members/import", map[string]any{"members": []any{}}).expectError(400, "VALIDATION_FAILED")
		h.op("POST", "/api/v1/admin/members/import", `{"members":[{"nama":"X","shoe_size":42}]}`,
			"Content-Type", "application/json").expectError(400, "INVALID_JSON")
		h.op("POST", "/api/v1/admin/members/import", "nama\nX\n", "Content-Type", "text/plain").
			expectError(415, "UNSUPPORTED_MEDIA_TYPE")
	})
}

func TestMemberImportCSV(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		// A spreadsheet export: BOM, semicolons, alias headers, an unknown column.
		csvBody := "\ufeffNama Lengkap;NISN;Rombel;Catatan\n" +
			"Citra Dewi;0098765432;X-1;ok\n" +
			"Dedi;12;X-1;nisn too short\n" +
			"Eka Putra;0098765433;X-2;\n"
		var rep importJSON
		h.op("POST", "/api/v1/admin/members/import?npsn="+npsnB, csvBody, "Content-Type", "text/csv; charset=utf-8").
			expect(200).decode(&rep)
		if rep.Created != 2 || rep.Rejected != 1 || rep.Rows[1].Row != 2 || rep.Rows[1].Action != "rejected" ||
			rep.Rows[1].Code != "VALIDATION_FAILED" || rep.Rows[1].Message == "" {
			t.Fatalf("csv import = %+v", rep)
		}
		h.op("POST", "/api/v1/admin/members/import?npsn="+npsnB, "nisn\n0098765434\n", "Content-Type", "text/csv").
			expectError(400, "VALIDATION_FAILED")

		cards := h.loginCardsCSV(npsnB)
		if len(cards) != 3 || cards[1][2] != "Citra Dewi" || cards[1][1] != "X-1" || cards[2][2] != "Eka Putra" {
			t.Fatalf("cards = %v", cards)
		}
	})
}

// loginCardsCSV fetches the CSV login cards of a school, header row first.
func (h *harness) loginCardsCSV(npsn string) [][]string {
	h.t.Helper()
	res := h.op("GET", "/api/v1/admin/login-cards?npsn="+npsn+"&format=csv", nil).expect(200)
	if ct := res.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		h.t.Fatalf("Content-Type = %q", ct)
	}
	if cd := res.header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment;") || !strings.Contains(cd, npsn) {
		h.t.Fatalf("Content-Disposition = %q", cd)
	}
	rows, err := csv.NewReader(strings.NewReader(string(res.body))).ReadAll()
	if err != nil {
		h.t.Fatalf("login cards CSV: %v", err)
	}
	if strings.Join(rows[0], ",") != "npsn,kelas,nama,username,nisn,exam_password" {
		h.t.Fatalf("header = %v", rows[0])
	}
	return rows
}

func TestLoginCardsAndPasswordReset(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		ids := h.importStudents(npsnA, "Budi Santoso", "Ani Lestari")
		h.importStudents(npsnB, "Citra Dewi")

		rows := h.loginCardsCSV(npsnA)
		if len(rows) != 3 {
			t.Fatalf("cards = %v", rows)
		}
		ani := rows[1]
		if ani[0] != npsnA || ani[1] != "XII IPA 1" || ani[2] != "Ani Lestari" || ani[3] != "ani.lestari" || len(ani[4]) != 10 || ani[5] == "" {
			t.Fatalf("ani's card = %v", ani)
		}
		// Default format is CSV too.
		if res := h.op("GET", "/api/v1/admin/login-cards?npsn="+npsnA, nil).expect(200); !strings.HasPrefix(string(res.body), "npsn,kelas") {
			t.Fatalf("default format: %s", res.body)
		}

		var js struct {
			Success bool `json:"success"`
			Data    []struct {
				MemberID     string `json:"member_id"`
				NPSN         string `json:"npsn"`
				Kelas        string `json:"kelas"`
				Nama         string `json:"nama"`
				Username     string `json:"username"`
				NISN         string `json:"nisn"`
				ExamPassword string `json:"exam_password"`
			} `json:"data"`
		}
		h.op("GET", "/api/v1/admin/login-cards?npsn="+npsnA+"&format=json", nil).expect(200).decode(&js)
		if len(js.Data) != 2 || js.Data[0].MemberID != ids["ani.lestari"] || js.Data[0].ExamPassword != ani[5] {
			t.Fatalf("json cards = %+v", js.Data)
		}
		h.op("GET", "/api/v1/admin/login-cards?npsn="+npsnA+"&format=pdf", nil).expectError(400, "INVALID_QUERY")
		h.op("GET", "/api/v1/admin/login-cards?npsn=123", nil).expectError(400, "VALIDATION_FAILED")

		var reset struct {
			Success bool `json:"success"`
			Data    struct {
				MemberID     string `json:"member_id"`
				Username     string `json:"username"`
				ExamPassword string `json:"exam_password"`
			} `json:"data"`
		}
		h.op("POST", "/api/v1/admin/members/"+ids["ani.lestari"]+"/reset-exam-password", nil).expect(200).decode(&reset)
		if reset.Data.MemberID != ids["ani.lestari"] || reset.Data.Username != "ani.lestari" || reset.Data.ExamPassword == ani[5] {
			t.Fatalf("reset = %+v (old password %s)", reset.Data, ani[5])
		}
		after := h.loginCardsCSV(npsnA)
		if after[1][5] != reset.Data.ExamPassword || after[2][5] != rows[2][5] {
			t.Fatalf("cards after reset = %v, want ani's new password %s and budi's unchanged", after, reset.Data.ExamPassword)
		}
		h.op("POST", "/api/v1/admin/members/nobody/reset-exam-password", nil).expectError(404, "NOT_FOUND")
	})
}
