package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/pkg/labwire"
)

// The fuzz targets of this file send any body to every route of the three
// APIs that decodes one (JSON, CSV or an answer export file), with a valid
// credential, through the real router over a real bbolt store. The
// property: a refusal is a 4xx in the API's own error envelope, never a 500
// or another shape; a success is JSON in the success envelope. Seeds are a
// valid body of each route and edge cases; the route is chosen by a byte.

// newFuzzHarness is httpapitest.New for fuzzing: over a bbolt store without
// fsync, logging warnings and errors only. A fuzz function hands each input's
// t to Harness.Use, so that the OpenAPI validator reports to it.
func newFuzzHarness(f *testing.F, options ...httpapitest.Option) *httpapitest.Harness {
	f.Helper()
	return httpapitest.New(f, httpapitest.OpenBoltNoSync, append(options, httpapitest.WithQuietLogs())...)
}

// fuzzRoute is a route with a body.
type fuzzRoute struct {
	method, path, contentType string
	cred                      string // "" none, "op" operator, "lab" lab server, "link" link user, "owner" ordering owner, "customer"
	seeds                     []string
}

// checkExamEnvelope fails unless r is below 500 and, when a refusal, the
// {"success": false, "error", "code"} envelope; a success is JSON.
func checkExamEnvelope(t *testing.T, rt fuzzRoute, body []byte, r *httpapitest.Response) {
	t.Helper()
	if r.Status >= 500 {
		t.Fatalf("%s %s answered %d to %q: %s", rt.method, rt.path, r.Status, body, r.Body)
	}
	if r.Status < 400 {
		if !json.Valid(r.Body) {
			t.Fatalf("%s %s: success %d is not JSON: %s", rt.method, rt.path, r.Status, r.Body)
		}
		return
	}
	var e struct {
		Success *bool   `json:"success"`
		Error   *string `json:"error"`
		Code    string  `json:"code"`
	}
	if err := json.Unmarshal(r.Body, &e); err != nil || e.Success == nil || *e.Success || e.Error == nil || *e.Error == "" || e.Code == "" {
		t.Fatalf("%s %s: refusal %d is not the envelope: %s", rt.method, rt.path, r.Status, r.Body)
	}
	if e.Code == "INVALID_JSON" && r.Status != 400 {
		t.Fatalf("%s %s: INVALID_JSON with status %d", rt.method, rt.path, r.Status)
	}
}

// checkLinkEnvelope fails unless r is below 500 and, when a refusal, the
// link API's {"error": 1, "message"} envelope; a success carries error 0
// (or "0" on lists).
func checkLinkEnvelope(t *testing.T, rt fuzzRoute, body []byte, r *httpapitest.Response) {
	t.Helper()
	if r.Status >= 500 {
		t.Fatalf("%s %s answered %d to %q: %s", rt.method, rt.path, r.Status, body, r.Body)
	}
	if strings.HasPrefix(rt.path, "/api/v1/") { // the operator's routes of the link API use the exam envelope
		checkExamEnvelope(t, rt, body, r)
		return
	}
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if err := json.Unmarshal(r.Body, &e); err != nil {
		t.Fatalf("%s %s: %d is not JSON: %s", rt.method, rt.path, r.Status, r.Body)
	}
	switch {
	case r.Status >= 400 && (string(e.Error) != "1" || e.Message == ""):
		t.Fatalf("%s %s: refusal %d is not the envelope: %s", rt.method, rt.path, r.Status, r.Body)
	case r.Status < 400 && string(e.Error) != "0" && string(e.Error) != `"0"`:
		t.Fatalf("%s %s: success %d without error 0: %s", rt.method, rt.path, r.Status, r.Body)
	}
}

// fuzzRoutes fuzzes routes through h: every route's seeds and a few edge
// cases for each, then any body to the route a byte chooses, sent with the
// headers of its credential (creds, by fuzzRoute.cred), its answer checked
// by check.
func fuzzRoutes(f *testing.F, h *httpapitest.Harness, routes []fuzzRoute, creds map[string]func() []string,
	check func(t *testing.T, rt fuzzRoute, body []byte, r *httpapitest.Response)) {
	for i, rt := range routes {
		if _, ok := creds[rt.cred]; !ok && rt.cred != "" {
			f.Fatalf("%s %s: no credential %q", rt.method, rt.path, rt.cred)
		}
		for _, s := range rt.seeds {
			f.Add(uint8(i), []byte(s))
		}
		for _, s := range []string{``, `{}`, `null`, `[]`, `{"x":1}`, `{`, "\xff\xfe", `"` + strings.Repeat("a", 300) + `"`} {
			f.Add(uint8(i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		h.Use(t)
		rt := routes[int(route)%len(routes)]
		hdr := []string{"Content-Type", rt.contentType}
		if cred := creds[rt.cred]; cred != nil {
			hdr = append(hdr, cred()...)
		}
		check(t, rt, body, h.Req(rt.method, rt.path, body, hdr...))
	})
}

// FuzzExamAPI: every body-decoding route of the exam synchronisation API,
// including the member import (JSON and CSV) and the answer import file.
func FuzzExamAPI(f *testing.F) {
	h := newFuzzHarness(f)
	ctx := context.Background()
	examID := h.CreateExam(httpapitest.NPSNA)
	lab := h.NewLabServer("LAB-FZ", httpapitest.NPSNA)
	students := h.ImportStudents(httpapitest.NPSNA, "Budi Santoso")
	var member string
	for _, id := range students {
		member = id
	}
	answers := fmt.Sprintf(`[{"exam_id":%q,"member_id":%q,"question_id":"q1","answer":"b","answered_at":"2026-12-01T08:00:00Z"}]`, examID, member)
	push := httpapitest.EncodePush(httpapitest.PushBody{ServerCode: lab.Code, NPSN: lab.NPSN, Checksum: labwire.ChecksumSHA256([]byte(answers)), TotalRecords: 1,
		Answers: json.RawMessage(answers)})
	key, err := h.Exam.PackageKey(ctx, httpapitest.NPSNA)
	if err != nil {
		f.Fatal(err)
	}
	var file bytes.Buffer
	if _, err := labwire.WriteAnswerExport(&file, key, labwire.AnswerExport{ServerCode: lab.Code, NPSN: httpapitest.NPSNA, LicenseID: "x",
		ExportedAt: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC), Batches: []labwire.AnswerExportBatch{
			{IdempotencyKey: "fuzz-batch-1", SealedAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), Answers: json.RawMessage(answers)}}}); err != nil {
		f.Fatal(err)
	}
	fixture, _ := json.Marshal(httpapitest.ExamFixture(httpapitest.NPSNA))
	licence, _ := json.Marshal(httpapitest.ValidLicenseReq("20100009", "HW-9"))
	routes := []fuzzRoute{
		{"POST", "/api/v1/auth/login", "application/json", "", []string{`{"username":"admin","password":"wrong"}`, `{"username":1}`}},
		{"POST", "/api/v1/sync/verify-server", "application/json", "", []string{
			`{"server_code":"LAB-X","npsn":"20100001","hardware_id":"HW-X","license_token":"e30.AAAA"}`}},
		{"POST", "/api/v1/licenses/generate", "application/json", "op", []string{string(licence),
			`{"npsn":"20100009","school_name":"S","hardware_id":"H","max_students":-1,"duration_days":100000,"operating_mode":"X"}`}},
		{"POST", "/api/v1/admin/exams", "application/json", "op", []string{string(fixture),
			`{"title":"t","npsn":["20100001"],"starts_at":"2026-12-01T07:00:00Z","ends_at":"2026-12-01T06:00:00Z","duration_minutes":0,"questions":[]}`}},
		{"PUT", "/api/v1/admin/exams/" + examID, "application/json", "op", []string{string(fixture),
			`{"title":"t","questions":[{"id":"q1","type":"bogus","points":-1e308}]}`}},
		{"POST", "/api/v1/admin/members/import", "application/json", "op", []string{
			`{"members":[{"npsn":"20100001","nama":"Siti","nisn":"0099999999","kelas":"X"}]}`,
			`{"members":[{"npsn":"2010","nama":"","email":"not-an-email","role":"king"}]}`}},
		{"POST", "/api/v1/admin/members/import?npsn=20100001", "text/csv", "op", []string{"nama,nisn,kelas\nAni,0088888888,X\n",
			"nama;email\nA;a@b\n", "nisn\n1\n", "nama\n\"open\n"}},
		{"POST", "/api/v1/admin/academic-years", "application/json", "op", []string{`{"npsn":"20100001","name":"2026/2027","active":true}`,
			`{"npsn":"x","name":""}`}},
		{"POST", "/api/v1/admin/api-keys", "application/json", "op", []string{`{"name":"dapodik","npsn":"20100001"}`, `{"name":""}`}},
		{"POST", "/api/v1/admin/answers/import", "application/octet-stream", "op", []string{file.String(), file.String()[:file.Len()/2],
			strings.SplitAfter(file.String(), "\n")[0]}},
		{"POST", "/api/v1/sync/push-answers", "application/json", "lab", []string{push,
			strings.Replace(push, `"total_records":1`, `"total_records":2`, 1)}},
		{"POST", "/api/v1/sync/heartbeat", "application/json", "lab", []string{
			fmt.Sprintf(`{"server_code":%q,"npsn":%q,"status":"online","active_students":3}`, lab.Code, lab.NPSN)}},
	}
	fuzzRoutes(f, h, routes, map[string]func() []string{
		"op":  func() []string { return httpapitest.Bearer(h.Operator()) },
		"lab": func() []string { return httpapitest.Bearer(lab.Token) },
	}, checkExamEnvelope)
}

// FuzzLinkAPI: every body-decoding route of the link-management API (and
// the operator's routes that manage its users).
func FuzzLinkAPI(f *testing.F) {
	clk := testkit.NewClock(time.Now().UTC().Truncate(time.Second))
	var svc *links.Service
	lh := &httpapitest.LinksHarness{Harness: newFuzzHarness(f, httpapitest.WithLinks(clk, &svc))}
	lh.Links = svc
	u := lh.NewLinkUser("fuzzer", 1<<30)
	linkID, _ := lh.AddLink(u, map[string]any{"url": "https://example.com/a"})
	one := func(path, body, field string) int64 {
		var res map[string]any
		json.Unmarshal(lh.As(u, "POST", path, body).Body, &res)
		if id, ok := res[field].(float64); ok {
			return int64(id)
		}
		f.Fatalf("%s: no %s in %v", path, field, res)
		return 0
	}
	domain := one("/api/domain/add", `{"domain":"https://go.example.com"}`, "id")
	campaign := one("/api/campaign/add", `{"name":"Promo","slug":"promo","public":true}`, "id")
	channel := one("/api/channel/add", `{"name":"Social","description":"d","color":"#112233","starred":true}`, "id")
	pixel := one("/api/pixel/add", `{"type":"gtmpixel","name":"GTM","tag":"GTM-ABC123"}`, "id")
	qrID := one("/api/qr/add", `{"type":"text","data":"hello","background":"rgb(255,255,255)","foreground":"rgb(0,0,0)"}`, "id")
	id := func(n int64) string { return fmt.Sprint(n) }
	routes := []fuzzRoute{
		{"PUT", "/api/account/update", "application/json", "link", []string{`{"email":"new@example.com","password":"a-long-password"}`,
			`{"email":"bad"}`}},
		{"POST", "/api/domain/add", "application/json", "link", []string{`{"domain":"https://go2.example.com","redirectroot":"https://example.com","redirect404":"https://example.com/404"}`,
			`{"domain":"ftp://x"}`}},
		{"PUT", "/api/domain/" + id(domain) + "/update", "application/json", "link", []string{`{"redirectroot":"https://example.com/r"}`}},
		{"POST", "/api/campaign/add", "application/json", "link", []string{`{"name":"C2","slug":"c-2","public":false}`, `{"slug":"admin"}`}},
		{"PUT", "/api/campaign/" + id(campaign) + "/update", "application/json", "link", []string{`{"name":"C3"}`}},
		{"POST", "/api/channel/add", "application/json", "link", []string{`{"name":"Ch","color":"#ABCDEF"}`, `{"name":"x","color":"red"}`}},
		{"PUT", "/api/channel/" + id(channel) + "/update", "application/json", "link", []string{`{"starred":false}`}},
		{"POST", "/api/pixel/add", "application/json", "link", []string{`{"type":"facebook","name":"FB","tag":"1234567890"}`,
			`{"type":"bogus","name":"x","tag":"<script>"}`}},
		{"PUT", "/api/pixel/" + id(pixel) + "/update", "application/json", "link", []string{`{"name":"GTM 2","tag":"GTM-XYZ999"}`}},
		{"POST", "/api/qr/add", "application/json", "link", []string{
			`{"type":"wifi","data":{"ssid":"net","password":"pw","encryption":"WPA"},"background":"rgb(255,255,255)","foreground":"rgb(10,10,10)"}`,
			`{"type":"vcard","data":{"first_name":"A","phone":"+62 812"}}`, `{"type":"link","data":"https://example.com"}`,
			`{"type":"sms","data":["+62812","hi"],"foreground":"rgb(255,255,255)","background":"rgb(0,0,0)"}`,
			`{"type":"text","data":"x","logo":"data:image/png;base64,iVBORw0KGgo="}`, `{"type":"email","data":"a@example.com","foreground":"rgb(300,0,0)"}`}},
		{"PUT", "/api/qr/" + id(qrID) + "/update", "application/json", "link", []string{`{"data":"updated","foreground":"rgb(0,0,128)"}`}},
		{"POST", "/api/url/add", "application/json", "link", []string{
			fmt.Sprintf(`{"url":"https://example.com/x","custom":"promo-x","domain":%d,"campaign":%d,"pixels":[%d],"channel":%d,"expiry":"2030-01-01 00:00:00","password":"pw","description":"d"}`,
				domain, campaign, pixel, channel),
			`{"url":"https://example.com","geotarget":[{"location":"Indonesia","link":"https://example.com/id"}],"devicetarget":[{"device":"iPhone","link":"https://example.com/i"}]}`,
			`{"url":"javascript:alert(1)"}`, `{"url":"https://example.com","pixels":"1,2","custom":"a"}`}},
		{"PUT", "/api/url/" + id(linkID) + "/update", "application/json", "link", []string{`{"url":"https://example.com/b","custom":"renamed"}`}},
		{"POST", "/api/v1/admin/link-users", "application/json", "op", []string{`{"email":"u2@example.com","username":"u2","plan":"free","rate_limit":10}`}},
		{"PUT", fmt.Sprintf("/api/v1/admin/link-users/%d/password", u.ID), "application/json", "op", []string{`{"password":"another-long-password"}`}},
		{"POST", "/api/v1/admin/link-overlays", "application/json", "op", []string{`{"user_id":1,"name":"O","message":"m","button_text":"b","button_url":"https://example.com"}`}},
		{"POST", "/api/v1/admin/link-splashes", "application/json", "op", []string{`{"user_id":1,"name":"S","title":"t","redirect_seconds":5}`}},
	}
	fuzzRoutes(f, lh.Harness, routes, map[string]func() []string{
		"op":   func() []string { return httpapitest.Bearer(lh.Operator()) },
		"link": func() []string { return httpapitest.Bearer(u.Key) },
	}, checkLinkEnvelope)
}

// FuzzOrderingAPI: every body-decoding route of the ordering API not
// covered by FuzzOrderingLogin, FuzzOrderingOrder and FuzzGatewayWebhook,
// as the owner, and the operator's menu CSV import and role change.
func FuzzOrderingAPI(f *testing.F) {
	h := httpapitest.OrderingHarness(f, httpapitest.OpenBoltNoSync, "628110000001", httpapitest.WithQuietLogs())
	owner := h.OrderingLogin("08110000001", "628110000001")
	customer := h.OrderingLogin("081234567891", "6281234567891")
	var me struct{ User struct{ ID string } }
	h.Req("GET", "/api/auth/me", nil, httpapitest.Bearer(customer)...).Expect(200).Decode(&me)
	var cat struct {
		Category struct{ ID string } `json:"category"`
	}
	r := h.Req("POST", "/api/menu/categories", map[string]any{"name": "Makanan"}, httpapitest.Bearer(owner)...).Expect(201)
	json.Unmarshal(r.Body, &cat)
	var item struct {
		Item struct{ ID string } `json:"item"`
	}
	r = h.Req("POST", "/api/menu/items", map[string]any{"categoryId": cat.Category.ID, "name": "Nasi", "price": 15000, "available": true},
		httpapitest.Bearer(owner)...).Expect(201)
	json.Unmarshal(r.Body, &item)
	var ord struct {
		Order struct{ ID string } `json:"order"`
	}
	r = h.Req("POST", "/api/orders", map[string]any{"shippingType": "PICKUP", "items": []any{map[string]any{"menuId": item.Item.ID, "quantity": 1}}},
		httpapitest.Bearer(customer)...).Expect(201)
	json.Unmarshal(r.Body, &ord)
	if cat.Category.ID == "" || item.Item.ID == "" || ord.Order.ID == "" {
		f.Fatalf("fixtures: category %q, item %q, order %q", cat.Category.ID, item.Item.ID, ord.Order.ID)
	}
	routes := []fuzzRoute{
		{"POST", "/api/menu/categories", "application/json", "owner", []string{`{"name":"Minuman","position":2}`, `{"name":""}`}},
		{"PUT", "/api/menu/categories/" + cat.Category.ID, "application/json", "owner", []string{`{"name":"Makanan Berat","position":1}`}},
		{"POST", "/api/menu/items", "application/json", "owner", []string{
			fmt.Sprintf(`{"categoryId":%q,"name":"Teh","description":"manis","price":5000,"available":true,"imageUrl":"https://example.com/t.png"}`, cat.Category.ID),
			fmt.Sprintf(`{"categoryId":%q,"name":"x","price":-1}`, cat.Category.ID)}},
		{"PUT", "/api/menu/items/" + item.Item.ID, "application/json", "owner", []string{
			fmt.Sprintf(`{"categoryId":%q,"name":"Nasi Goreng","price":20000,"available":false}`, cat.Category.ID)}},
		{"PUT", "/api/settings", "application/json", "owner", []string{
			`{"shopName":"Warung","deliveryFee":5000,"freeDeliveryMin":100000,"shopLat":-6.2,"shopLng":106.8,"maxDeliveryKm":10}`,
			`{"deliveryFee":-1,"shopLat":1000}`}},
		{"PUT", "/api/users/" + me.User.ID + "/role", "application/json", "owner", []string{`{"role":"CUSTOMER"}`, `{"role":"STAFF","menus":["POS"]}`,
			`{"role":"GOD"}`}},
		{"POST", "/api/gateway/consent", "application/json", "owner", []string{`{"number":"6281234567891","consent":true}`}},
		{"POST", "/api/orders/" + ord.Order.ID + "/status", "application/json", "owner", []string{`{"status":"CONFIRMED"}`, `{"status":"EATEN"}`}},
		{"POST", "/api/orders/" + ord.Order.ID + "/cancel", "application/json", "customer", []string{`{"reason":"changed my mind"}`}},
		{"POST", "/api/payments/" + ord.Order.ID + "/verify", "application/json", "owner", []string{`{"decision":"REJECT","reason":"blurry"}`,
			`{"decision":"APPROVE"}`}},
		{"POST", "/api/pos/orders", "application/json", "owner", []string{
			fmt.Sprintf(`{"items":[{"menuId":%q,"quantity":2}],"paymentMethod":"CASH","cashReceived":50000}`, item.Item.ID)}},
		{"POST", "/api/v1/admin/ordering/menu/import", "text/csv", "op", []string{
			"category,name,description,price,available,image_url\nMakanan,Soto,kuah,18000,yes,\nMinuman,Es Teh,,4000,no,https://example.com/e.png\n",
			"name,price\nx,1\n", "category,name,price\nA,B,abc\nA,,1\n,,\n", "category,name,price\n\"open\n", "\ufeffCategory,Name,Price\nA,B,1\n"}},
		{"PUT", "/api/v1/admin/ordering/users/" + me.User.ID + "/role", "application/json", "op", []string{`{"role":"CUSTOMER"}`}},
	}
	fuzzRoutes(f, h, routes, map[string]func() []string{
		"op":       func() []string { return httpapitest.Bearer(h.Operator()) },
		"owner":    func() []string { return httpapitest.Bearer(owner) },
		"customer": func() []string { return httpapitest.Bearer(customer) },
	}, checkExamEnvelope)
}
