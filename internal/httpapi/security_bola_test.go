package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
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
		a := h.newLinkUser("alice", 1000)
		b := h.newLinkUser("bob", 1000)
		const mark = "ALICEPRIVATE"
		did := num(h.as(a, "POST", "/api/domain/add", map[string]string{"domain": "https://aliceprivate.example.com"}).expectOK()["id"])
		cid := num(h.as(a, "POST", "/api/campaign/add", map[string]any{"name": mark + " campaign", "slug": "aliceprivate"}).expectOK()["id"])
		chid := num(h.as(a, "POST", "/api/channel/add", map[string]any{"name": mark + " channel"}).expectOK()["id"])
		pid := num(h.as(a, "POST", "/api/pixel/add", map[string]string{"type": "bing", "name": mark + " pixel", "tag": "12345"}).expectOK()["id"])
		qid := num(h.as(a, "POST", "/api/qr/add", map[string]any{"type": "text", "data": mark + " qr", "name": mark + " qr"}).expectOK()["id"])
		lid, _ := h.addLink(a, map[string]any{"url": "https://example.com/" + mark, "custom": "aliceprivate"})
		h.as(a, "POST", fmt.Sprintf("/api/campaign/%d/assign/%d", cid, lid), nil).expectOK()
		h.as(a, "POST", fmt.Sprintf("/api/channel/%d/assign/links/%d", chid, lid), nil).expectOK()
		bl, _ := h.addLink(b, map[string]any{"url": "https://example.com/bob", "custom": "bobslink"})
		bc := num(h.as(b, "POST", "/api/campaign/add", map[string]any{"name": "bob"}).expectOK()["id"])
		bch := num(h.as(b, "POST", "/api/channel/add", map[string]any{"name": "bob"}).expectOK()["id"])
		bq := num(h.as(b, "POST", "/api/qr/add", map[string]any{"type": "text", "data": "bob"}).expectOK()["id"])

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
			r := h.as(b, rq.method, rq.path, rq.body)
			if r.status != 404 {
				t.Errorf("bob: %s %s = %d %.200s, want 404", rq.method, rq.path, r.status, r.body)
				continue
			}
			r.expectLinkError(404)
		}
		for _, l := range []struct{ path, name string }{
			{"/api/urls", "urls"}, {"/api/domains", "domains"}, {"/api/campaigns", "campaigns"},
			{"/api/channels", "channels"}, {"/api/pixels", "pixels"}, {"/api/qr", "qrs"},
		} {
			// The scanner fails the test if alice's marker is in the list.
			h.as(b, "GET", l.path+"?limit=1000", nil).expectList(l.name)
		}
		h.scan.allow()

		// Alice's records are as she left them.
		d := h.as(a, "GET", fmt.Sprintf("/api/url/%d", lid), nil).expectOK()["details"].(map[string]any)
		if d["longurl"] != "https://example.com/"+mark || num(d["campaign"]) != cid {
			t.Fatalf("alice's link after bob's attempts = %v", d)
		}
		for _, l := range []struct {
			path, name string
			want       int
		}{{"/api/domains", "domains", 1}, {"/api/campaigns", "campaigns", 1}, {"/api/channels", "channels", 1},
			{"/api/pixels", "pixels", 1}, {"/api/urls", "urls", 1}} {
			if n := len(items(h.as(a, "GET", l.path, nil).expectList(l.name), l.name)); n != l.want {
				t.Errorf("alice has %d %s after bob's attempts, want %d", n, l.name, l.want)
			}
		}
		if got := h.as(a, "GET", fmt.Sprintf("/api/qr/%d", qid), nil).expect(200); !strings.Contains(string(got.body), mark) {
			t.Errorf("alice's QR code after bob's attempts: %s", got.body)
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
		studentsA := h.importStudents(npsnA, "Ani Lestari")
		studentsB := h.importStudents(npsnB, "Citra Dewi")
		examA := h.createExam(npsnA)
		examB := h.createExam(npsnB)
		labA := h.newLabServer("LAB-A", npsnA)
		labB := h.newLabServer("LAB-B", npsnB)
		at := h.examClock.Now().Add(-time.Minute).Format(time.RFC3339)
		citra := studentsB["citra.dewi"]
		recB := answersJSON(answerRec{examB, citra, "q1", "a", at})

		h.harness.as(labA, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-B", nil).expectError(403, "SERVER_MISMATCH")
		h.harness.as(labA, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-B&format=binary", nil).expectError(403, "SERVER_MISMATCH")
		h.harness.as(labA, "POST", "/api/v1/sync/heartbeat", map[string]any{"server_code": "LAB-B", "status": "offline"}).expectError(403, "SERVER_MISMATCH")
		h.harness.as(labA, "POST", "/api/v1/sync/heartbeat", map[string]any{"server_code": "LAB-B", "connected_students": 99}).expectError(403, "SERVER_MISMATCH")
		h.harness.as(labA, "POST", "/api/v1/sync/push-answers", encodePush(newPush(labB, recB, 1))).expectError(403, "SERVER_MISMATCH")
		own := newPush(labA, recB, 1)
		own.NPSN = npsnB
		h.harness.as(labA, "POST", "/api/v1/sync/push-answers", encodePush(own)).expectError(403, "SERVER_MISMATCH")
		h.harness.as(labA, "POST", "/api/v1/sync/push-answers", encodePush(newPush(labA, recB, 1))).expectError(422, "UNKNOWN_EXAM")

		// A's own pull is A's package; B's results hold no answer.
		var p pullJSON
		h.harness.as(labA, "GET", "/api/v1/sync/pull-questions?serverCode=LAB-A", nil).expect(200).decode(&p)
		if p.NPSN != npsnA || p.ServerCode != "LAB-A" {
			t.Fatalf("lab A pulled %s of %s", p.ServerCode, p.NPSN)
		}
		if res := h.results(examB); res.AnswerRows != 0 {
			t.Fatalf("school B's exam has %d answers after lab A's attempts", res.AnswerRows)
		}
		// B itself is served.
		h.harness.as(labB, "POST", "/api/v1/sync/push-answers", encodePush(newPush(labB, recB, 1))).expect(200)
		if res := h.results(examB); res.AnswerRows != 1 {
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
		owner := h.orderingLogin("08110000001", secOwnerNumber)
		alice := h.orderingLogin("6281234567891", "6281234567891")
		bob := h.orderingLogin("6281234567892", "6281234567892")
		id, invoice, _ := h.secOrder(owner, alice)
		h.uploadProof(alice, id, tinyPNG).expect(200)

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
			r := h.req(rq.method, rq.path, rq.body, bearer(bob)...)
			switch {
			case rq.status != 0:
				if r.status != rq.status {
					t.Errorf("bob: %s %s = %d %s, want %d", rq.method, rq.path, r.status, r.body, rq.status)
					continue
				}
				r.expectError(rq.status, rq.code)
			case r.status != 403 && r.status != 404:
				t.Errorf("bob: %s %s = %d %s, want 403 or 404", rq.method, rq.path, r.status, r.body)
			}
		}
		h.uploadProof(bob, id, tinyPNG).expectError(404, "ORDER_NOT_FOUND")
		var list struct{ Orders []struct{ ID string } }
		h.req("GET", "/api/orders", nil, bearer(bob)...).expect(200).decode(&list)
		if len(list.Orders) != 0 {
			t.Fatalf("bob lists %+v", list.Orders)
		}
		h.scan.allow()

		var got struct{ Order struct{ Status string } }
		h.req("GET", "/api/orders/"+id, nil, bearer(alice)...).expect(200).decode(&got)
		if got.Order.Status != "WAITING_VERIFICATION" {
			t.Fatalf("alice's order is %s after bob's attempts, want WAITING_VERIFICATION", got.Order.Status)
		}
		h.req("GET", "/api/payments/"+id+"/proof", nil, bearer(owner)...).expect(200)
	})
}
