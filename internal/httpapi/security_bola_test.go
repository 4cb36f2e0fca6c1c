package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/httpapi/httpapitest"
)

// TestSecurityLinkObjectLevel (OWASP API1, broken object-level
// authorisation): another link user's short links, campaigns, channels,
// pixels, QR codes and domains answer 404 NOT_FOUND on every id route (read,
// update, delete, assign, and as references in a body), exactly as ids that
// do not exist; nothing of the owner's changes; and no response to the
// other user carries the owner's records (their marker is forbidden in
// every body the other user receives).
func TestSecurityLinkObjectLevel(t *testing.T) {
	forEachSecStore(t, func(t *testing.T, h *secHarness) {
		a := h.NewLinkUser("alice", 1000)
		b := h.NewLinkUser("bob", 1000)
		const mark = "ALICEPRIVATE"
		did := httpapitest.Num(h.As(a, "POST", "/api/domain/add", map[string]string{"domain": "https://aliceprivate.example.com"}).ExpectOK()["id"])
		cid := httpapitest.Num(h.As(a, "POST", "/api/campaign/add", map[string]any{"name": mark + " campaign", "slug": "aliceprivate"}).ExpectOK()["id"])
		chid := httpapitest.Num(h.As(a, "POST", "/api/channel/add", map[string]any{"name": mark + " channel"}).ExpectOK()["id"])
		pid := httpapitest.Num(h.As(a, "POST", "/api/pixel/add", map[string]string{"type": "bing", "name": mark + " pixel", "tag": "12345"}).ExpectOK()["id"])
		qid := httpapitest.Num(h.As(a, "POST", "/api/qr/add", map[string]any{"type": "text", "data": mark + " qr", "name": mark + " qr"}).ExpectOK()["id"])
		lid, _ := h.AddLink(a, map[string]any{"url": "https://example.com/" + mark, "custom": "aliceprivate"})
		h.As(a, "POST", fmt.Sprintf("/api/campaign/%d/assign/%d", cid, lid), nil).ExpectOK()
		h.As(a, "POST", fmt.Sprintf("/api/channel/%d/assign/links/%d", chid, lid), nil).ExpectOK()
		bl, _ := h.AddLink(b, map[string]any{"url": "https://example.com/bob", "custom": "bobslink"})
		bc := httpapitest.Num(h.As(b, "POST", "/api/campaign/add", map[string]any{"name": "bob"}).ExpectOK()["id"])
		bch := httpapitest.Num(h.As(b, "POST", "/api/channel/add", map[string]any{"name": "bob"}).ExpectOK()["id"])
		bq := httpapitest.Num(h.As(b, "POST", "/api/qr/add", map[string]any{"type": "text", "data": "bob"}).ExpectOK()["id"])

		// From here on, no body may carry alice's marker.
		h.scan.forbid(mark, strings.ToLower(mark))
		for _, rq := range []struct {
			method, path string
			body         any
		}{
			{"GET", fmt.Sprintf("/api/url/%d", lid), nil},
			{"PUT", fmt.Sprintf("/api/url/%d/update", lid), map[string]any{"url": "https://evil.example.com"}},
			{"DELETE", fmt.Sprintf("/api/url/%d/delete", lid), nil},
			{"PUT", fmt.Sprintf("/api/domain/%d/update", did), map[string]string{"redirectroot": "https://evil.example.com"}},
			{"DELETE", fmt.Sprintf("/api/domain/%d/delete", did), nil},
			{"PUT", fmt.Sprintf("/api/campaign/%d/update", cid), map[string]any{"name": "x"}},
			{"DELETE", fmt.Sprintf("/api/campaign/%d/delete", cid), nil},
			{"POST", fmt.Sprintf("/api/campaign/%d/assign/%d", cid, bl), nil},
			{"POST", fmt.Sprintf("/api/campaign/%d/assign/%d", bc, lid), nil},
			{"POST", fmt.Sprintf("/api/campaign/%d/assign/%d", cid, lid), nil},
			{"GET", fmt.Sprintf("/api/channel/%d", chid), nil},
			{"PUT", fmt.Sprintf("/api/channel/%d/update", chid), map[string]any{"name": "x"}},
			{"DELETE", fmt.Sprintf("/api/channel/%d/delete", chid), nil},
			{"POST", fmt.Sprintf("/api/channel/%d/assign/links/%d", chid, bl), nil},
			{"POST", fmt.Sprintf("/api/channel/%d/assign/links/%d", bch, lid), nil},
			{"POST", fmt.Sprintf("/api/channel/%d/assign/qr/%d", chid, bq), nil},
			{"POST", fmt.Sprintf("/api/channel/%d/assign/qr/%d", bch, qid), nil},
			{"PUT", fmt.Sprintf("/api/pixel/%d/update", pid), map[string]string{"tag": "54321"}},
			{"DELETE", fmt.Sprintf("/api/pixel/%d/delete", pid), nil},
			{"GET", fmt.Sprintf("/api/qr/%d", qid), nil},
			{"PUT", fmt.Sprintf("/api/qr/%d/update", qid), map[string]any{"data": "b"}},
			{"DELETE", fmt.Sprintf("/api/qr/%d/delete", qid), nil},
			{"POST", "/api/url/add", map[string]any{"url": "https://example.com", "domain": did}},
			{"POST", "/api/url/add", map[string]any{"url": "https://example.com", "campaign": cid}},
			{"POST", "/api/url/add", map[string]any{"url": "https://example.com", "pixels": []int64{pid}}},
			{"POST", "/api/url/add", map[string]any{"url": "https://example.com", "channel": chid}},
			{"PUT", fmt.Sprintf("/api/url/%d/update", bl), map[string]any{"pixels": []int64{pid}}},
			{"PUT", fmt.Sprintf("/api/url/%d/update", bl), map[string]any{"campaign": cid}},
		} {
			r := h.As(b, rq.method, rq.path, rq.body)
			if r.Status != 404 {
				t.Errorf("bob: %s %s = %d %.200s, want 404", rq.method, rq.path, r.Status, r.Body)
				continue
			}
			r.ExpectLinkError(404)
		}
		for _, l := range []struct{ path, name string }{
			{"/api/urls", "urls"}, {"/api/domains", "domains"}, {"/api/campaigns", "campaigns"},
			{"/api/channels", "channels"}, {"/api/pixels", "pixels"}, {"/api/qr", "qrs"},
		} {
			// The scanner fails the test if alice's marker is in the list.
			h.As(b, "GET", l.path+"?limit=1000", nil).ExpectList(l.name)
		}
		h.scan.allow()

		// Alice's records are as she left them.
		d := h.As(a, "GET", fmt.Sprintf("/api/url/%d", lid), nil).ExpectOK()["details"].(map[string]any)
		if d["longurl"] != "https://example.com/"+mark || httpapitest.Num(d["campaign"]) != cid {
			t.Fatalf("alice's link after bob's attempts = %v", d)
		}
		for _, l := range []struct {
			path, name string
			want       int
		}{{"/api/domains", "domains", 1}, {"/api/campaigns", "campaigns", 1}, {"/api/channels", "channels", 1},
			{"/api/pixels", "pixels", 1}, {"/api/urls", "urls", 1}} {
			if n := len(httpapitest.Items(h.As(a, "GET", l.path, nil).ExpectList(l.name), l.name)); n != l.want {
				t.Errorf("alice has %d %s after bob's attempts, want %d", n, l.name, l.want)
			}
		}
		if got := h.As(a, "GET", fmt.Sprintf("/api/qr/%d", qid), nil).Expect(200); !strings.Contains(string(got.Body), mark) {
			t.Errorf("alice's QR code after bob's attempts: %s", got.Body)
		}
	})
}

// TestSecurityLabServerObjectLevel (API1): the access token of school A's
// lab server cannot pull, push or heartbeat as school B's server (403
// SERVER_MISMATCH), cannot push answers to school B's exam (422
// UNKNOWN_EXAM) and pulls only its own school's package; school B's
// answers and status are unchanged.
func TestSecurityLabServerObjectLevel(t *testing.T) {
	forEachSecStore(t, func(t *testing.T, h *secHarness) {
		studentsA := h.ImportStudents(httpapitest.NPSNA, "Ani Lestari")
		studentsB := h.ImportStudents(httpapitest.NPSNB, "Citra Dewi")
		examA := h.CreateExam(httpapitest.NPSNA)
		examB := h.CreateExam(httpapitest.NPSNB)
		labA := h.NewLabServer("LAB-A", httpapitest.NPSNA)
		labB := h.NewLabServer("LAB-B", httpapitest.NPSNB)
		at := h.examClock.Now().Add(-time.Minute).Format(time.RFC3339)
		citra := studentsB["citra.dewi"]
		recB := httpapitest.AnswersJSON(httpapitest.AnswerRec{ExamID: examB, MemberID: citra, QuestionID: "q1", Answer: "a", AnsweredAt: at})

		h.Harness.As(labA, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-B", nil).ExpectError(403, "SERVER_MISMATCH")
		h.Harness.As(labA, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-B&format=binary", nil).ExpectError(403, "SERVER_MISMATCH")
		h.Harness.As(labA, "POST", "/api/v1/sync/heartbeat", map[string]any{"server_code": "LAB-B", "status": "offline"}).ExpectError(403, "SERVER_MISMATCH")
		h.Harness.As(labA, "POST", "/api/v1/sync/heartbeat", map[string]any{"server_code": "LAB-B", "connected_students": 99}).ExpectError(403, "SERVER_MISMATCH")
		h.Harness.As(labA, "POST", "/api/v1/sync/push-answers", httpapitest.EncodePush(httpapitest.NewPush(labB, recB, 1))).ExpectError(403, "SERVER_MISMATCH")
		own := httpapitest.NewPush(labA, recB, 1)
		own.NPSN = httpapitest.NPSNB
		h.Harness.As(labA, "POST", "/api/v1/sync/push-answers", httpapitest.EncodePush(own)).ExpectError(403, "SERVER_MISMATCH")
		h.Harness.As(labA, "POST", "/api/v1/sync/push-answers", httpapitest.EncodePush(httpapitest.NewPush(labA, recB, 1))).ExpectError(422, "UNKNOWN_EXAM")

		// A's own pull is A's package; B's results hold no answer.
		var p httpapitest.PullJSON
		h.Harness.As(labA, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-A", nil).Expect(200).Decode(&p)
		if p.NPSN != httpapitest.NPSNA || p.ServerCode != "LAB-A" {
			t.Fatalf("lab A pulled %s of %s", p.ServerCode, p.NPSN)
		}
		if res := h.Results(examB); res.AnswerRows != 0 {
			t.Fatalf("school B's exam has %d answers after lab A's attempts", res.AnswerRows)
		}
		// B itself is served.
		h.Harness.As(labB, "POST", "/api/v1/sync/push-answers", httpapitest.EncodePush(httpapitest.NewPush(labB, recB, 1))).Expect(200)
		if res := h.Results(examB); res.AnswerRows != 1 {
			t.Fatalf("school B's own push stored %d answers", res.AnswerRows)
		}
		_ = studentsA
		_ = examA
	})
}

// TestSecurityOrderObjectLevel (API1): another customer's order and its
// payment proof answer 404 ORDER_NOT_FOUND (read, cancel, receipt upload,
// proof download), its status cannot be moved (403 or 404), its payment
// cannot be verified (404), and it never appears in the other customer's list (its notes
// are forbidden in every body the other customer receives).
func TestSecurityOrderObjectLevel(t *testing.T) {
	forEachSecStore(t, func(t *testing.T, h *secHarness) {
		owner := h.OrderingLogin("08110000001", secOwnerNumber)
		alice := h.OrderingLogin("6281234567891", "6281234567891")
		bob := h.OrderingLogin("6281234567892", "6281234567892")
		id, invoice, _ := h.secOrder(owner, alice)
		h.UploadProof(alice, id, httpapitest.TinyPNG).Expect(200)

		h.scan.forbid("SECRET-NOTE-567891", id, invoice)
		for _, rq := range []struct {
			method, path string
			body         any
			status       int
			code         string
		}{
			{"GET", "/api/orders/" + id, nil, 404, "ORDER_NOT_FOUND"},
			{"POST", "/api/orders/" + id + "/cancel", nil, 404, "ORDER_NOT_FOUND"},
			{"GET", "/api/payments/" + id + "/proof", nil, 404, "ORDER_NOT_FOUND"},
			{"POST", "/api/orders/" + id + "/status", map[string]any{"status": "PREPARING"}, 0, ""},
			{"POST", "/api/payments/" + id + "/verify", map[string]any{"approve": true}, 404, "ORDER_NOT_FOUND"},
		} {
			r := h.Req(rq.method, rq.path, rq.body, httpapitest.Bearer(bob)...)
			switch {
			case rq.status != 0:
				if r.Status != rq.status {
					t.Errorf("bob: %s %s = %d %s, want %d", rq.method, rq.path, r.Status, r.Body, rq.status)
					continue
				}
				r.ExpectError(rq.status, rq.code)
			case r.Status != 403 && r.Status != 404:
				t.Errorf("bob: %s %s = %d %s, want 403 or 404", rq.method, rq.path, r.Status, r.Body)
			}
		}
		h.UploadProof(bob, id, httpapitest.TinyPNG).ExpectError(404, "ORDER_NOT_FOUND")
		var list struct{ Orders []struct{ ID string } }
		h.Req("GET", "/api/orders", nil, httpapitest.Bearer(bob)...).Expect(200).Decode(&list)
		if len(list.Orders) != 0 {
			t.Fatalf("bob lists %+v", list.Orders)
		}
		h.scan.allow()

		var got struct{ Order struct{ Status string } }
		h.Req("GET", "/api/orders/"+id, nil, httpapitest.Bearer(alice)...).Expect(200).Decode(&got)
		if got.Order.Status != "WAITING_VERIFICATION" {
			t.Fatalf("alice's order is %s after bob's attempts, want WAITING_VERIFICATION", got.Order.Status)
		}
		h.Req("GET", "/api/payments/"+id+"/proof", nil, httpapitest.Bearer(owner)...).Expect(200)
	})
}
