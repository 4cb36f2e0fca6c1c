package exam_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
)

func TestAPIKeys(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		key, id := h.NewAPIKey("sis-sekolah")
		h.Op("POST", "/api/v1/admin/api-keys", map[string]string{"name": ""}).ExpectError(400, "VALIDATION_FAILED")

		res := h.Op("GET", "/api/v1/admin/api-keys", nil).Expect(200)
		if strings.Contains(string(res.Body), key) {
			t.Fatal("the key is listed after creation")
		}
		list := res.M()["data"].([]any)
		if len(list) != 1 || list[0].(map[string]any)["id"] != id {
			t.Fatalf("keys = %v", list)
		}
		httpapitest.HasFields(t, list[0], "id", "name", "prefix", "created_at")

		h.Req("GET", "/api/v1/academic-year/active", nil).ExpectError(401, "INVALID_API_KEY")
		h.Req("GET", "/api/v1/academic-year/active", nil, "X-API-Key", "pk_wrong").ExpectError(401, "INVALID_API_KEY")
		h.Req("GET", "/api/v1/academic-year/active", nil, "X-API-Key", key).ExpectError(404, "NO_ACTIVE_ACADEMIC_YEAR")
		// An operator token is not an API key.
		h.Req("GET", "/api/v1/members", nil, httpapitest.Bearer(h.Operator())...).ExpectError(401, "INVALID_API_KEY")

		h.Op("DELETE", "/api/v1/admin/api-keys/"+id, nil).Expect(200)
		h.Req("GET", "/api/v1/members", nil, "X-API-Key", key).ExpectError(401, "INVALID_API_KEY")
		h.Op("DELETE", "/api/v1/admin/api-keys/nope", nil).ExpectError(404, "NOT_FOUND")
	})
}

func TestAcademicYears(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		key, _ := h.NewAPIKey("app")
		type yearJSON struct {
			ID        string    `json:"id"`
			Name      string    `json:"name"`
			IsActive  bool      `json:"is_active"`
			CreatedAt time.Time `json:"created_at"`
		}
		var y1, y2 struct {
			Success bool     `json:"success"`
			Data    yearJSON `json:"data"`
		}
		h.Op("POST", "/api/v1/admin/academic-years", map[string]any{"name": "2025/2026", "is_active": true}).Expect(201).Decode(&y1)
		h.Op("POST", "/api/v1/admin/academic-years", map[string]any{"name": "2026/2027"}).Expect(201).Decode(&y2)
		if !y1.Data.IsActive || y2.Data.IsActive || y1.Data.Name != "2025/2026" {
			t.Fatalf("years = %+v %+v", y1.Data, y2.Data)
		}
		h.Op("POST", "/api/v1/admin/academic-years", map[string]any{"name": "2025/2026"}).ExpectError(409, "ACADEMIC_YEAR_EXISTS")
		h.Op("POST", "/api/v1/admin/academic-years", map[string]any{"name": "2025-2026"}).ExpectError(400, "VALIDATION_FAILED")

		var active struct {
			Success bool     `json:"success"`
			Data    yearJSON `json:"data"`
			Meta    struct {
				AppName string `json:"app_name"`
			} `json:"meta"`
		}
		h.Req("GET", "/api/v1/academic-year/active", nil, "X-API-Key", key).Expect(200).Decode(&active)
		if active.Data.ID != y1.Data.ID || active.Meta.AppName != "Exam Portal" {
			t.Fatalf("active = %+v", active)
		}
		h.Op("POST", "/api/v1/admin/academic-years/"+y2.Data.ID+"/activate", nil).Expect(200)
		h.Req("GET", "/api/v1/academic-year/active", nil, "X-API-Key", key).Expect(200).Decode(&active)
		if active.Data.ID != y2.Data.ID || !active.Data.IsActive {
			t.Fatalf("active after activate = %+v", active)
		}
		var list struct {
			Success bool       `json:"success"`
			Data    []yearJSON `json:"data"`
		}
		h.Op("GET", "/api/v1/admin/academic-years", nil).Expect(200).Decode(&list)
		if len(list.Data) != 2 || list.Data[0].Name != "2026/2027" || list.Data[1].IsActive {
			t.Fatalf("years = %+v", list.Data)
		}
		h.Op("POST", "/api/v1/admin/academic-years/nope/activate", nil).ExpectError(404, "NOT_FOUND")
	})
}

func TestMemberLookup(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		key, _ := h.NewAPIKey("app")
		var rep httpapitest.ImportJSON
		h.Op("POST", "/api/v1/admin/members/import", map[string]any{"members": []map[string]string{
			{"npsn": httpapitest.NPSNA, "nama": "Ani Lestari", "username": "ani", "nisn": "0012345678", "kelas": "XII IPA 1",
				"email": "Ani@Example.sch.id", "academic_year_name": "2025/2026", "google_email": "ani@gmail.com",
				"dapodik_id": "pd-1", "nik": "3201010101010001"},
			{"npsn": httpapitest.NPSNA, "nama": "Guru Satu", "role": "guru", "nip": "198001012005011001", "username": "guru1"},
		}}).Expect(200).Decode(&rep)
		aniID := rep.Rows[0].MemberID
		lookup := func(q string) *httpapitest.Response {
			t.Helper()
			return h.Req("GET", "/api/v1/members/lookup?"+q, nil, "X-API-Key", key)
		}
		for _, q := range []string{"id=" + aniID, "username=ANI", "email=ani@example.sch.id", "dapodik_id=pd-1",
			"nisn=0012345678", "nik=3201010101010001"} {
			res := lookup(q).Expect(200).M()
			if res["found"] != true {
				t.Fatalf("%s: %v", q, res)
			}
			data := res["data"].(map[string]any)
			if httpapitest.Keys(data) != "academic_year_name,dapodik_id,google_email,id,is_claimed,kelas,nama,nisn,role" ||
				data["id"] != aniID || data["nama"] != "Ani Lestari" || data["role"] != "siswa" || data["is_claimed"] != false {
				t.Fatalf("%s: lookup view = %v", q, data)
			}
			if res["meta"].(map[string]any)["app_name"] != "Exam Portal" {
				t.Fatalf("meta = %v", res["meta"])
			}
		}
		if res := lookup("nip=198001012005011001").Expect(200).M(); res["data"].(map[string]any)["role"] != "guru" {
			t.Fatalf("nip lookup = %v", res)
		}
		none := lookup("nisn=9999999999").Expect(200)
		if !strings.Contains(string(none.Body), `"found":false`) || !strings.Contains(string(none.Body), `"data":null`) {
			t.Fatalf("not found = %s", none.Body)
		}
		lookup("").ExpectError(400, "INVALID_QUERY")
		lookup("search=ani").ExpectError(400, "INVALID_QUERY")
		lookup("nisn=0012345678&username=ani").ExpectError(400, "INVALID_QUERY")
		lookup("nisn=").ExpectError(400, "INVALID_QUERY")
	})
}

func TestMemberList(t *testing.T) {
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		key, _ := h.NewAPIKey("app")
		var members []map[string]string
		for i := 0; i < 25; i++ {
			kelas := "X-1"
			if i%2 == 1 {
				kelas = "X-2"
			}
			members = append(members, map[string]string{"npsn": httpapitest.NPSNA, "nama": fmt.Sprintf("Siswa %02d", i),
				"nisn": fmt.Sprintf("00000000%02d", i), "kelas": kelas})
		}
		members = append(members, map[string]string{"npsn": httpapitest.NPSNA, "nama": "Guru Satu", "role": "guru", "username": "guru1"})
		h.Op("POST", "/api/v1/admin/members/import", map[string]any{"members": members}).Expect(200)

		type page struct {
			Success bool `json:"success"`
			Data    []struct {
				ID    string `json:"id"`
				Nama  string `json:"nama"`
				Role  string `json:"role"`
				NISN  string `json:"nisn"`
				Kelas string `json:"kelas"`
			} `json:"data"`
			Meta struct {
				Total      int `json:"total"`
				Page       int `json:"page"`
				PerPage    int `json:"per_page"`
				TotalPages int `json:"total_pages"`
			} `json:"meta"`
		}
		get := func(q string) page {
			t.Helper()
			var p page
			h.Req("GET", "/api/v1/members"+q, nil, "X-API-Key", key).Expect(200).Decode(&p)
			return p
		}
		p := get("")
		if p.Meta.Total != 26 || p.Meta.Page != 1 || p.Meta.PerPage != 20 || p.Meta.TotalPages != 2 || len(p.Data) != 20 {
			t.Fatalf("first page meta = %+v, %d rows", p.Meta, len(p.Data))
		}
		if p.Data[0].Nama != "Guru Satu" || p.Data[1].Nama != "Siswa 00" {
			t.Fatalf("order = %v, %v", p.Data[0], p.Data[1])
		}
		p = get("?page=2")
		if len(p.Data) != 6 || p.Data[5].Nama != "Siswa 24" {
			t.Fatalf("page 2 = %+v", p.Data)
		}
		p = get("?page=3&per_page=10")
		if len(p.Data) != 6 || p.Meta.TotalPages != 3 || p.Meta.PerPage != 10 {
			t.Fatalf("page 3 of 10 = %+v", p.Meta)
		}
		if p = get("?page=9"); len(p.Data) != 0 || p.Meta.Total != 26 {
			t.Fatalf("past the end = %+v", p)
		}
		if p = get("?role=guru"); p.Meta.Total != 1 || p.Data[0].Role != "guru" {
			t.Fatalf("role filter = %+v", p)
		}
		if p = get("?kelas=X-2&per_page=100"); p.Meta.Total != 12 || len(p.Data) != 12 {
			t.Fatalf("kelas filter = %+v", p.Meta)
		}
		if p = get("?search=siswa%2007"); p.Meta.Total != 1 || p.Data[0].NISN != "0000000007" {
			t.Fatalf("search = %+v", p)
		}
		for _, q := range []string{"?page=0", "?page=x", "?per_page=0", "?per_page=101", "?per_page=ten"} {
			h.Req("GET", "/api/v1/members"+q, nil, "X-API-Key", key).ExpectError(400, "INVALID_QUERY")
		}
	})
}
