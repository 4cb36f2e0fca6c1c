package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// newAPIKey creates a directory API key and returns it and its id.
func (h *harness) newAPIKey(name string) (key, id string) {
	h.t.Helper()
	var res struct {
		Success bool `json:"success"`
		Data    struct {
			ID         string     `json:"id"`
			Name       string     `json:"name"`
			Prefix     string     `json:"prefix"`
			CreatedAt  time.Time  `json:"created_at"`
			RevokedAt  *time.Time `json:"revoked_at"`
			LastUsedAt *time.Time `json:"last_used_at"`
		} `json:"data"`
		Key string `json:"key"`
	}
	h.op("POST", "/api/v1/admin/api-keys", map[string]string{"name": name}).expect(201).decode(&res)
	if res.Key == "" || res.Data.ID == "" || res.Data.Name != name || !strings.HasPrefix(res.Key, res.Data.Prefix) {
		h.t.Fatalf("api key = %+v", res)
	}
	return res.Key, res.Data.ID
}

func TestAPIKeys(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		key, id := h.newAPIKey("sis-sekolah")
		h.op("POST", "/api/v1/admin/api-keys", map[string]string{"name": ""}).expectError(400, "VALIDATION_FAILED")

		res := h.op("GET", "/api/v1/admin/api-keys", nil).expect(200)
		if strings.Contains(string(res.body), key) {
			t.Fatal("the key is listed after creation")
		}
		list := res.m()["data"].([]any)
		if len(list) != 1 || list[0].(map[string]any)["id"] != id {
			t.Fatalf("keys = %v", list)
		}
		hasFields(t, list[0], "id", "name", "prefix", "created_at")

		h.req("GET", "/api/v1/academic-year/active", nil).expectError(401, "INVALID_API_KEY")
		h.req("GET", "/api/v1/academic-year/active", nil, "X-API-Key", "pk_wrong").expectError(401, "INVALID_API_KEY")
		h.req("GET", "/api/v1/academic-year/active", nil, "X-API-Key", key).expectError(404, "NO_ACTIVE_ACADEMIC_YEAR")
		// An operator token is not an API key.
		h.req("GET", "/api/v1/members", nil, bearer(h.operator())...).expectError(401, "INVALID_API_KEY")

		h.op("DELETE", "/api/v1/admin/api-keys/"+id, nil).expect(200)
		h.req("GET", "/api/v1/members", nil, "X-API-Key", key).expectError(401, "INVALID_API_KEY")
		h.op("DELETE", "/api/v1/admin/api-keys/nope", nil).expectError(404, "NOT_FOUND")
	})
}

func TestAcademicYears(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		key, _ := h.newAPIKey("app")
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
		h.op("POST", "/api/v1/admin/academic-years", map[string]any{"name": "2025/2026", "is_active": true}).expect(201).decode(&y1)
		h.op("POST", "/api/v1/admin/academic-years", map[string]any{"name": "2026/2027"}).expect(201).decode(&y2)
		if !y1.Data.IsActive || y2.Data.IsActive || y1.Data.Name != "2025/2026" {
			t.Fatalf("years = %+v %+v", y1.Data, y2.Data)
		}
		h.op("POST", "/api/v1/admin/academic-years", map[string]any{"name": "2025/2026"}).expectError(409, "ACADEMIC_YEAR_EXISTS")
		h.op("POST", "/api/v1/admin/academic-years", map[string]any{"name": "2025-2026"}).expectError(400, "VALIDATION_FAILED")

		var active struct {
			Success bool     `json:"success"`
			Data    yearJSON `json:"data"`
			Meta    struct {
				AppName string `json:"app_name"`
			} `json:"meta"`
		}
		h.req("GET", "/api/v1/academic-year/active", nil, "X-API-Key", key).expect(200).decode(&active)
		if active.Data.ID != y1.Data.ID || active.Meta.AppName != "Exam Portal" {
			t.Fatalf("active = %+v", active)
		}
		h.op("POST", "/api/v1/admin/academic-years/"+y2.Data.ID+"/activate", nil).expect(200)
		h.req("GET", "/api/v1/academic-year/active", nil, "X-API-Key", key).expect(200).decode(&active)
		if active.Data.ID != y2.Data.ID || !active.Data.IsActive {
			t.Fatalf("active after activate = %+v", active)
		}
		var list struct {
			Success bool       `json:"success"`
			Data    []yearJSON `json:"data"`
		}
		h.op("GET", "/api/v1/admin/academic-years", nil).expect(200).decode(&list)
		if len(list.Data) != 2 || list.Data[0].Name != "2026/2027" || list.Data[1].IsActive {
			t.Fatalf("years = %+v", list.Data)
		}
		h.op("POST", "/api/v1/admin/academic-years/nope/activate", nil).expectError(404, "NOT_FOUND")
	})
}

func TestMemberLookup(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		key, _ := h.newAPIKey("app")
		var rep importJSON
		h.op("POST", "/api/v1/admin/members/import", map[string]any{"members": []map[string]string{
			{"npsn": npsnA, "nama": "Ani Lestari", "username": "ani", "nisn": "0012345678", "kelas": "XII IPA 1",
				"email": "Ani@Example.sch.id", "academic_year_name": "2025/2026", "google_email": "ani@gmail.com",
				"dapodik_id": "pd-1", "nik": "3201010101010001"},
			{"npsn": npsnA, "nama": "Guru Satu", "role": "guru", "nip": "198001012005011001", "username": "guru1"},
		}}).expect(200).decode(&rep)
		aniID := rep.Rows[0].MemberID
		lookup := func(q string) *response {
			t.Helper()
			return h.req("GET", "/api/v1/members/lookup?"+q, nil, "X-API-Key", key)
		}
		for _, q := range []string{"id=" + aniID, "username=ANI", "email=ani@example.sch.id", "dapodik_id=pd-1",
			"nisn=0012345678", "nik=3201010101010001"} {
			res := lookup(q).expect(200).m()
			if res["found"] != true {
				t.Fatalf("%s: %v", q, res)
			}
			data := res["data"].(map[string]any)
			if keys(data) != "academic_year_name,dapodik_id,google_email,id,is_claimed,kelas,nama,nisn,role" ||
				data["id"] != aniID || data["nama"] != "Ani Lestari" || data["role"] != "siswa" || data["is_claimed"] != false {
				t.Fatalf("%s: lookup view = %v", q, data)
			}
			if res["meta"].(map[string]any)["app_name"] != "Exam Portal" {
				t.Fatalf("meta = %v", res["meta"])
			}
		}
		if res := lookup("nip=198001012005011001").expect(200).m(); res["data"].(map[string]any)["role"] != "guru" {
			t.Fatalf("nip lookup = %v", res)
		}
		none := lookup("nisn=9999999999").expect(200)
		if !strings.Contains(string(none.body), `"found":false`) || !strings.Contains(string(none.body), `"data":null`) {
			t.Fatalf("not found = %s", none.body)
		}
		lookup("").expectError(400, "INVALID_QUERY")
		lookup("search=ani").expectError(400, "INVALID_QUERY")
		lookup("nisn=0012345678&username=ani").expectError(400, "INVALID_QUERY")
		lookup("nisn=").expectError(400, "INVALID_QUERY")
	})
}

func TestMemberList(t *testing.T) {
	forEachStore(t, func(t *testing.T, h *harness) {
		key, _ := h.newAPIKey("app")
		var members []map[string]string
		for i := 0; i < 25; i++ {
			kelas := "X-1"
			if i%2 == 1 {
				kelas = "X-2"
			}
			members = append(members, map[string]string{"npsn": npsnA, "nama": fmt.Sprintf("Siswa %02d", i),
				"nisn": fmt.Sprintf("00000000%02d", i), "kelas": kelas})
		}
		members = append(members, map[string]string{"npsn": npsnA, "nama": "Guru Satu", "role": "guru", "username": "guru1"})
		h.op("POST", "/api/v1/admin/members/import", map[string]any{"members": members}).expect(200)

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
			h.req("GET", "/api/v1/members"+q, nil, "X-API-Key", key).expect(200).decode(&p)
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
			h.req("GET", "/api/v1/members"+q, nil, "X-API-Key", key).expectError(400, "INVALID_QUERY")
		}
	})
}
