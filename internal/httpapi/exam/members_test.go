package exam_test

import (
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
)

func TestMemberImportJSON(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		body := map[string]any{"members": []map[string]string{
			{"npsn": httpapitest.NPSNA, "nama": "Ani Lestari", "username": "ani", "nisn": "0012345678", "kelas": "XII IPA 1",
				"email": "ani@example.sch.id", "academic_year_name": "2025/2026", "google_email": "ani@gmail.com", "dapodik_id": "pd-1"},
			{"nama": "Budi Santoso", "nisn": "0012345679", "kelas": "XII IPA 2"},                         // npsn from the query, username from nisn
			{"npsn": httpapitest.NPSNA, "nama": "", "username": "nameless"},                              // rejected: nama
			{"npsn": httpapitest.NPSNA, "nama": "Ani Kembar", "username": "ani-2", "nisn": "0012345678"}, // rejected: nisn taken
			{"npsn": httpapitest.NPSNA, "nama": "Guru Satu", "role": "guru", "nip": "198001012005011001", "username": "guru1"},
		}}
		var rep httpapitest.ImportJSON
		h.Op("POST", "/api/v1/admin/members/import?npsn="+httpapitest.NPSNA, body).Expect(200).Decode(&rep)
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
		h.Op("POST", "/api/v1/admin/members/import", map[string]any{"members": []map[string]string{
			{"npsn": httpapitest.NPSNA, "nama": "Ani Lestari Putri", "username": "ani", "nisn": "0012345678", "kelas": "XII IPA 3"},
		}}).Expect(200).Decode(&rep)
		if rep.Updated != 1 || rep.Rows[0].MemberID == "" || rep.Rows[0].Action != "updated" {
			t.Fatalf("re-import = %+v", rep)
		}

		h.Op("POST", "/api/v1/admin/members/import", map[string]any{"members": []any{}}).ExpectError(400, "VALIDATION_FAILED")
		h.Op("POST", "/api/v1/admin/members/import", `{"members":[{"nama":"X","shoe_size":42}]}`,
			"Content-Type", "application/json").ExpectError(400, "INVALID_JSON")
		h.Op("POST", "/api/v1/admin/members/import", "nama\nX\n", "Content-Type", "text/plain").
			ExpectError(415, "UNSUPPORTED_MEDIA_TYPE")
	})
}

func TestMemberImportCSV(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		// A spreadsheet export: BOM, semicolons, alias headers, an unknown column.
		csvBody := "\ufeffNama Lengkap;NISN;Rombel;Catatan\n" +
			"Citra Dewi;0098765432;X-1;ok\n" +
			"Dedi;12;X-1;nisn too short\n" +
			"Eka Putra;0098765433;X-2;\n"
		var rep httpapitest.ImportJSON
		h.Op("POST", "/api/v1/admin/members/import?npsn="+httpapitest.NPSNB, csvBody, "Content-Type", "text/csv; charset=utf-8").
			Expect(200).Decode(&rep)
		if rep.Created != 2 || rep.Rejected != 1 || rep.Rows[1].Row != 2 || rep.Rows[1].Action != "rejected" ||
			rep.Rows[1].Code != "VALIDATION_FAILED" || rep.Rows[1].Message == "" {
			t.Fatalf("csv import = %+v", rep)
		}
		h.Op("POST", "/api/v1/admin/members/import?npsn="+httpapitest.NPSNB, "nisn\n0098765434\n", "Content-Type", "text/csv").
			ExpectError(400, "VALIDATION_FAILED")

		cards := h.LoginCardsCSV(httpapitest.NPSNB)
		if len(cards) != 3 || cards[1][2] != "Citra Dewi" || cards[1][1] != "X-1" || cards[2][2] != "Eka Putra" {
			t.Fatalf("cards = %v", cards)
		}
	})
}

func TestLoginCardsAndPasswordReset(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		ids := h.ImportStudents(httpapitest.NPSNA, "Budi Santoso", "Ani Lestari")
		h.ImportStudents(httpapitest.NPSNB, "Citra Dewi")

		rows := h.LoginCardsCSV(httpapitest.NPSNA)
		if len(rows) != 3 {
			t.Fatalf("cards = %v", rows)
		}
		ani := rows[1]
		if ani[0] != httpapitest.NPSNA || ani[1] != "XII IPA 1" || ani[2] != "Ani Lestari" || ani[3] != "ani.lestari" || len(ani[4]) != 10 || ani[5] == "" {
			t.Fatalf("ani's card = %v", ani)
		}
		// Default format is CSV too.
		if res := h.Op("GET", "/api/v1/admin/login-cards?npsn="+httpapitest.NPSNA, nil).Expect(200); !strings.HasPrefix(string(res.Body), "npsn,kelas") {
			t.Fatalf("default format: %s", res.Body)
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
		h.Op("GET", "/api/v1/admin/login-cards?npsn="+httpapitest.NPSNA+"&format=json", nil).Expect(200).Decode(&js)
		if len(js.Data) != 2 || js.Data[0].MemberID != ids["ani.lestari"] || js.Data[0].ExamPassword != ani[5] {
			t.Fatalf("json cards = %+v", js.Data)
		}
		h.Op("GET", "/api/v1/admin/login-cards?npsn="+httpapitest.NPSNA+"&format=pdf", nil).ExpectError(400, "INVALID_QUERY")
		h.Op("GET", "/api/v1/admin/login-cards?npsn=123", nil).ExpectError(400, "VALIDATION_FAILED")

		var reset struct {
			Success bool `json:"success"`
			Data    struct {
				MemberID     string `json:"member_id"`
				Username     string `json:"username"`
				ExamPassword string `json:"exam_password"`
			} `json:"data"`
		}
		h.Op("POST", "/api/v1/admin/members/"+ids["ani.lestari"]+"/reset-exam-password", nil).Expect(200).Decode(&reset)
		if reset.Data.MemberID != ids["ani.lestari"] || reset.Data.Username != "ani.lestari" || reset.Data.ExamPassword == ani[5] {
			t.Fatalf("reset = %+v (old password %s)", reset.Data, ani[5])
		}
		after := h.LoginCardsCSV(httpapitest.NPSNA)
		if after[1][5] != reset.Data.ExamPassword || after[2][5] != rows[2][5] {
			t.Fatalf("cards after reset = %v, want ani's new password %s and budi's unchanged", after, reset.Data.ExamPassword)
		}
		h.Op("POST", "/api/v1/admin/members/nobody/reset-exam-password", nil).ExpectError(404, "NOT_FOUND")
	})
}
