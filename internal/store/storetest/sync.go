package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
)

func testSaveAnswers(t *testing.T, s Store) {
	a1 := answer("exam-1", "m-1", "q1", "b", at(time.Minute))
	a2 := answer("exam-1", "m-1", "q2", "a,c", at(2*time.Minute))
	b := batch("sync-1", sum("p1"), "key-1", at(10*time.Minute), a2, a1)
	r := MustSaveAnswers(t, s, b)
	check(t, "SaveAnswers receipt", r, exam.Receipt{SyncID: "sync-1", RecordCount: 2, Duplicate: false})
	check(t, "ListAnswers", MustListAnswers(t, s, "exam-1"), stored("sync-1", a1, a2))
	check(t, "ListSyncLogs (the push in the same transaction)", MustListSyncLogs(t, s, exam.SyncLogFilter{}), []exam.SyncLog{acceptedLog(b)})
	if n := MustCountAnswers(t, s, "exam-1"); n != 2 {
		t.Fatalf("CountAnswers = %d, want 2", n)
	}
}

func testSaveAnswersIdempotency(t *testing.T, s Store) {
	ctx := t.Context()
	a1 := answer("exam-1", "m-1", "q1", "b", at(time.Minute))
	a2 := answer("exam-1", "m-1", "q2", "a", at(time.Minute))
	first := batch("sync-1", sum("p1"), "key-1", at(10*time.Minute), a1, a2)
	MustSaveAnswers(t, s, first)
	wantAnswers := stored("sync-1", a1, a2)
	wantLogs := []exam.SyncLog{acceptedLog(first)}
	unchanged := func(what string) {
		t.Helper()
		check(t, "answers after "+what, MustListAnswers(t, s, "exam-1"), wantAnswers)
		check(t, "sync log after "+what, MustListSyncLogs(t, s, exam.SyncLogFilter{}), wantLogs)
	}
	// Newer answers that would win an upsert: a duplicate must not write them.
	newer := []exam.Answer{answer("exam-1", "m-1", "q1", "a", at(time.Hour)), answer("exam-1", "m-2", "q1", "a", at(time.Hour)),
		answer("exam-1", "m-3", "q1", "a", at(time.Hour))}
	firstReceipt := exam.Receipt{SyncID: "sync-1", RecordCount: 2, Duplicate: true}

	r := MustSaveAnswers(t, s, batch("sync-2", sum("p1"), "key-1", at(11*time.Minute), newer...))
	check(t, "receipt of the same key and checksum", r, firstReceipt)
	unchanged("a duplicate by key")

	_, err := s.SaveAnswers(ctx, batch("sync-3", sum("p2"), "key-1", at(12*time.Minute), newer...))
	wantErr(t, "SaveAnswers with a used key and another checksum", err, exam.ErrIdempotencyConflict)
	unchanged("an idempotency conflict")

	r = MustSaveAnswers(t, s, batch("sync-4", sum("p1"), "", at(13*time.Minute), newer...))
	check(t, "receipt of the same checksum without a key", r, firstReceipt)
	unchanged("a duplicate by checksum")

	r = MustSaveAnswers(t, s, batch("sync-5", sum("p1"), "key-2", at(14*time.Minute), newer...))
	check(t, "receipt of the same checksum with a new key", r, firstReceipt)
	unchanged("a duplicate by checksum with a new key")

	// Keys and checksums are per server.
	other := batch("sync-6", sum("p1"), "key-1", at(15*time.Minute), answer("exam-2", "m-9", "q1", "a", at(time.Minute)))
	other.ServerCode = "LAB-B"
	other.Answers[0].ServerCode = "LAB-B"
	r = MustSaveAnswers(t, s, other)
	check(t, "receipt of the same key and checksum from another server", r, exam.Receipt{SyncID: "sync-6", RecordCount: 1})
	check(t, "answers of the other server", MustListAnswers(t, s, "exam-2"), stored("sync-6", other.Answers...))

	// A push without a key after keyed ones.
	third := batch("sync-7", sum("p3"), "", at(16*time.Minute), answer("exam-1", "m-1", "q3", "true", at(3*time.Minute)))
	r = MustSaveAnswers(t, s, third)
	check(t, "receipt of a new checksum", r, exam.Receipt{SyncID: "sync-7", RecordCount: 1})
	r = MustSaveAnswers(t, s, batch("sync-8", sum("p3"), "", at(17*time.Minute), newer...))
	check(t, "receipt of a repeated push without a key", r, exam.Receipt{SyncID: "sync-7", RecordCount: 1, Duplicate: true})
	r = MustSaveAnswers(t, s, batch("sync-9", sum("p3"), "key-3", at(18*time.Minute), newer...))
	check(t, "receipt of a repeated push with a new key", r, exam.Receipt{SyncID: "sync-7", RecordCount: 1, Duplicate: true})

	wantAnswers = append(wantAnswers, stored("sync-7", third.Answers...)...)
	wantLogs = []exam.SyncLog{acceptedLog(third), acceptedLog(other), acceptedLog(first)}
	unchanged("every push")
}

func testSaveAnswersIgnoresLoggedPushes(t *testing.T, s Store) {
	// Rejected and duplicate pushes are logged with AppendSyncLog; they are
	// not pushes that SaveAnswers compares with.
	rejected := exam.SyncLog{ID: "log-1", Action: exam.ActionPushResults, ServerCode: "LAB-A", NPSN: npsnA, RecordCount: 1,
		Checksum: sum("p1"), IdempotencyKey: "key-1", Outcome: exam.OutcomeRejected, ErrorCode: "UNKNOWN_EXAM", ReceivedAt: at(0)}
	duplicate := exam.SyncLog{ID: "log-2", Action: exam.ActionPushResults, ServerCode: "LAB-A", NPSN: npsnA, RecordCount: 1,
		Checksum: sum("p2"), IdempotencyKey: "key-2", Outcome: exam.OutcomeDuplicate, ReceivedAt: at(time.Minute)}
	MustAppendSyncLog(t, s, rejected)
	MustAppendSyncLog(t, s, duplicate)

	b1 := batch("sync-1", sum("p9"), "key-1", at(time.Hour), answer("exam-1", "m-1", "q1", "a", at(0)))
	check(t, "receipt of a key only a rejected push used", MustSaveAnswers(t, s, b1), exam.Receipt{SyncID: "sync-1", RecordCount: 1})
	b2 := batch("sync-2", sum("p1"), "", at(2*time.Hour), answer("exam-1", "m-1", "q2", "a", at(0)))
	check(t, "receipt of a checksum only a rejected push had", MustSaveAnswers(t, s, b2), exam.Receipt{SyncID: "sync-2", RecordCount: 1})
	b3 := batch("sync-3", sum("p2"), "key-2", at(3*time.Hour), answer("exam-1", "m-1", "q3", "a", at(0)))
	check(t, "receipt of a key and checksum only logged as duplicate", MustSaveAnswers(t, s, b3), exam.Receipt{SyncID: "sync-3", RecordCount: 1})
	if n := MustCountAnswers(t, s, "exam-1"); n != 3 {
		t.Fatalf("CountAnswers = %d, want 3", n)
	}
	check(t, "sync log", MustListSyncLogs(t, s, exam.SyncLogFilter{}),
		[]exam.SyncLog{acceptedLog(b3), acceptedLog(b2), acceptedLog(b1), duplicate, rejected})
}

func testSaveAnswersEmpty(t *testing.T, s Store) {
	b := batch("sync-1", sum("[]"), "", at(0))
	check(t, "receipt of an empty push", MustSaveAnswers(t, s, b), exam.Receipt{SyncID: "sync-1", RecordCount: 0})
	check(t, "receipt of an empty push again", MustSaveAnswers(t, s, batch("sync-2", sum("[]"), "", at(time.Minute))),
		exam.Receipt{SyncID: "sync-1", RecordCount: 0, Duplicate: true})
	check(t, "sync log", MustListSyncLogs(t, s, exam.SyncLogFilter{}), []exam.SyncLog{acceptedLog(b)})
}

func testAnswerUpsert(t *testing.T, s Store) {
	list := func() []exam.Answer { t.Helper(); return MustListAnswers(t, s, "exam-1") }
	first := answer("exam-1", "m-1", "q1", "a", at(5*time.Minute))
	MustSaveAnswers(t, s, batch("sync-1", sum("p1"), "", at(time.Hour), first))

	older := answer("exam-1", "m-1", "q1", "b", at(4*time.Minute))
	r := MustSaveAnswers(t, s, batch("sync-2", sum("p2"), "", at(time.Hour), older))
	check(t, "receipt of a push of an older answer", r, exam.Receipt{SyncID: "sync-2", RecordCount: 1})
	check(t, "answers after an older answer", list(), stored("sync-1", first))

	tie := answer("exam-1", "m-1", "q1", "c", at(5*time.Minute))
	MustSaveAnswers(t, s, batch("sync-3", sum("p3"), "", at(time.Hour), tie))
	check(t, "answers after an answer as old (the incoming wins)", list(), stored("sync-3", tie))

	newer := answer("exam-1", "m-1", "q1", "d", at(6*time.Minute))
	MustSaveAnswers(t, s, batch("sync-4", sum("p4"), "", at(time.Hour), newer))
	check(t, "answers after a newer answer", list(), stored("sync-4", newer))

	// Several answers to one question in one push: the newest wins, the later on a tie.
	x := answer("exam-1", "m-1", "q2", "x", at(2*time.Minute))
	y := answer("exam-1", "m-1", "q2", "y", at(time.Minute))
	p := answer("exam-1", "m-2", "q2", "p", at(time.Minute))
	q := answer("exam-1", "m-2", "q2", "q", at(time.Minute))
	r = MustSaveAnswers(t, s, batch("sync-5", sum("p5"), "", at(time.Hour), x, y, p, q))
	check(t, "receipt of a push with repeated answers", r, exam.Receipt{SyncID: "sync-5", RecordCount: 4})
	want := append(stored("sync-4", newer), stored("sync-5", x, q)...)
	check(t, "answers after a push with repeated answers", list(), want)
	if n := MustCountAnswers(t, s, "exam-1"); n != 3 {
		t.Fatalf("CountAnswers = %d, want 3", n)
	}
}

func testListAnswers(t *testing.T, s Store) {
	// Ids chosen so that a prefix scan or a numeric sort would go wrong:
	// "exam-1" is a prefix of "exam-10", and "m1" < "m10" < "m2" byte-wise.
	var e1, e10, e2 []exam.Answer
	for _, m := range []string{"m2", "m10", "m1"} {
		for _, q := range []string{"q2", "q10", "q1"} {
			e1 = append(e1, answer("exam-1", m, q, m+q, at(time.Minute)))
			e10 = append(e10, answer("exam-10", m, q, m+q, at(time.Minute)))
		}
	}
	e2 = append(e2, answer("exam-2", "m1", "q1", "a", at(time.Minute)))
	var mixed []exam.Answer
	for i := range e1 {
		mixed = append(mixed, e10[i], e1[i])
	}
	MustSaveAnswers(t, s, batch("sync-1", sum("p1"), "", at(time.Hour), mixed...))
	MustSaveAnswers(t, s, batch("sync-2", sum("p2"), "", at(time.Hour), e2...))

	sorted := func(as []exam.Answer) []exam.Answer {
		order := map[string]int{"m1": 0, "m10": 1, "m2": 2, "q1": 0, "q10": 1, "q2": 2}
		out := make([]exam.Answer, len(as))
		for _, a := range as {
			out[order[a.MemberID]*3+order[a.QuestionID]] = a
		}
		return out
	}
	check(t, "ListAnswers of exam-1 (by member then question)", MustListAnswers(t, s, "exam-1"), stored("sync-1", sorted(e1)...))
	check(t, "ListAnswers of exam-10", MustListAnswers(t, s, "exam-10"), stored("sync-1", sorted(e10)...))
	check(t, "ListAnswers of exam-2", MustListAnswers(t, s, "exam-2"), stored("sync-2", e2...))
	check(t, "ListAnswers of an exam without answers", MustListAnswers(t, s, "exam-404"), []exam.Answer{})
	check(t, "ListAnswers of a prefix of an exam id", MustListAnswers(t, s, "exam"), []exam.Answer{})
	for id, want := range map[string]int{"exam-1": 9, "exam-10": 9, "exam-2": 1, "exam-404": 0, "exam": 0} {
		if n := MustCountAnswers(t, s, id); n != want {
			t.Fatalf("CountAnswers %s = %d, want %d", id, n, want)
		}
	}
}

func testSaveAnswersLarge(t *testing.T, s Store) {
	const members, questions = 100, 10
	mk := func(value string, answered time.Time) []exam.Answer {
		var as []exam.Answer
		for q := questions - 1; q >= 0; q-- {
			for m := range members {
				as = append(as, answer("exam-1", fmt.Sprintf("m-%04d", m), fmt.Sprintf("q-%02d", q), value, answered))
			}
		}
		return as
	}
	first := mk("a", at(time.Minute))
	r := MustSaveAnswers(t, s, batch("sync-1", sum("p1"), "key-1", at(time.Hour), first...))
	check(t, "receipt", r, exam.Receipt{SyncID: "sync-1", RecordCount: members * questions})
	got := MustListAnswers(t, s, "exam-1")
	if len(got) != members*questions {
		t.Fatalf("ListAnswers returned %d answers, want %d", len(got), members*questions)
	}
	for i := 1; i < len(got); i++ {
		p, c := got[i-1], got[i]
		if p.MemberID > c.MemberID || (p.MemberID == c.MemberID && p.QuestionID >= c.QuestionID) {
			t.Fatalf("ListAnswers out of order at %d: %s/%s then %s/%s", i, p.MemberID, p.QuestionID, c.MemberID, c.QuestionID)
		}
	}
	second := mk("b", at(2*time.Minute))
	MustSaveAnswers(t, s, batch("sync-2", sum("p2"), "key-2", at(2*time.Hour), second...))
	if n := MustCountAnswers(t, s, "exam-1"); n != members*questions {
		t.Fatalf("CountAnswers = %d, want %d", n, members*questions)
	}
	for _, a := range MustListAnswers(t, s, "exam-1") {
		if a.Answer != "b" || a.SyncID != "sync-2" {
			t.Fatalf("answer after the second push = %+v, want b from sync-2", a)
		}
	}
}

func testListSyncLogs(t *testing.T, s Store) {
	logs := []exam.SyncLog{
		{ID: "log-1", Action: exam.ActionVerifyServer, ServerCode: "LAB-A", NPSN: npsnA, Outcome: exam.OutcomeAccepted, ReceivedAt: at(time.Minute)},
		{ID: "log-2", Action: exam.ActionPullData, ServerCode: "LAB-A", NPSN: npsnA, Checksum: sum("pkg"), Outcome: exam.OutcomeAccepted, ReceivedAt: at(3 * time.Minute)},
		{ID: "log-3", Action: exam.ActionPushResults, ServerCode: "LAB-B", NPSN: npsnB, RecordCount: 5, Checksum: sum("p"), IdempotencyKey: "key-1",
			Outcome: exam.OutcomeRejected, ErrorCode: "CHECKSUM_MISMATCH", ReceivedAt: at(2 * time.Minute)},
		{ID: "log-4", Action: exam.ActionVerifyServer, ServerCode: "LAB-B", NPSN: npsnB, Outcome: exam.OutcomeRejected, ErrorCode: "HARDWARE_MISMATCH", ReceivedAt: at(5 * time.Minute)},
		{ID: "log-5", Action: exam.ActionPushResults, ServerCode: "LAB-A", NPSN: npsnA, RecordCount: 3, Checksum: sum("q"), Outcome: exam.OutcomeDuplicate, ReceivedAt: at(4 * time.Minute)},
		{ID: "log-6", Action: exam.ActionHeartbeat, ServerCode: "LAB-C", NPSN: npsnA, Outcome: exam.OutcomeAccepted, ReceivedAt: at(30 * time.Second)},
	}
	for _, l := range logs {
		MustAppendSyncLog(t, s, l)
	}
	b := batch("sync-1", sum("p1"), "", at(6*time.Minute), answer("exam-1", "m-1", "q1", "a", at(0)))
	MustSaveAnswers(t, s, b)
	byID := map[string]exam.SyncLog{"sync-1": acceptedLog(b)}
	for _, l := range logs {
		byID[l.ID] = l
	}
	pick := func(ids ...string) []exam.SyncLog {
		out := []exam.SyncLog{}
		for _, id := range ids {
			out = append(out, byID[id])
		}
		return out
	}
	for _, c := range []struct {
		name string
		f    exam.SyncLogFilter
		want []exam.SyncLog
	}{
		{"all (newest first)", exam.SyncLogFilter{}, pick("sync-1", "log-4", "log-5", "log-2", "log-3", "log-1", "log-6")},
		{"npsn", exam.SyncLogFilter{NPSN: npsnA}, pick("sync-1", "log-5", "log-2", "log-1", "log-6")},
		{"server", exam.SyncLogFilter{ServerCode: "LAB-B"}, pick("log-4", "log-3")},
		{"outcome", exam.SyncLogFilter{Outcome: exam.OutcomeRejected}, pick("log-4", "log-3")},
		{"outcome and npsn", exam.SyncLogFilter{Outcome: exam.OutcomeAccepted, NPSN: npsnA}, pick("sync-1", "log-2", "log-1", "log-6")},
		{"server and outcome", exam.SyncLogFilter{ServerCode: "LAB-A", Outcome: exam.OutcomeDuplicate}, pick("log-5")},
		{"limit", exam.SyncLogFilter{Limit: 2}, pick("sync-1", "log-4")},
		{"npsn and limit", exam.SyncLogFilter{NPSN: npsnA, Limit: 3}, pick("sync-1", "log-5", "log-2")},
		{"limit above the count", exam.SyncLogFilter{ServerCode: "LAB-B", Limit: 10}, pick("log-4", "log-3")},
		{"no match", exam.SyncLogFilter{ServerCode: "LAB-Z"}, pick()},
	} {
		check(t, "ListSyncLogs "+c.name, MustListSyncLogs(t, s, c.f), c.want)
	}
}

// testListAnswersQuery: the filters (member, school), the keyset cursor and
// offset paging of ListAnswers, and CountAnswers with the same filters,
// against what the whole exam's list holds.
func testListAnswersQuery(t *testing.T, s Store) {
	ctx := t.Context()
	a1, a2, b1 := member("m-a1", "ani", "Ani"), member("m-a2", "adi", "Adi"), member("m-b1", "budi", "Budi")
	b1.NPSN = npsnB
	MustImportMembers(t, s, a1, a2, b1)
	var as []exam.Answer
	for _, m := range []string{"m-a1", "m-a2", "m-b1", "m-x"} { // m-x: not in the roster
		for q := range 3 {
			as = append(as, answer("exam-1", m, fmt.Sprintf("q%d", q), "a", at(time.Minute)))
		}
	}
	as = append(as, answer("exam-2", "m-a1", "q0", "b", at(time.Minute)))
	MustSaveAnswers(t, s, batch("sync-1", sum("p1"), "key-1", at(time.Hour), as...))
	all := MustListAnswers(t, s, "exam-1")
	if len(all) != 12 {
		t.Fatalf("exam-1 holds %d answers, want 12", len(all))
	}
	keep := func(f func(exam.Answer) bool) []exam.Answer {
		var out []exam.Answer
		for _, a := range all {
			if f(a) {
				out = append(out, a)
			}
		}
		return out
	}
	list := func(q exam.AnswerQuery) []exam.Answer {
		t.Helper()
		got, err := s.ListAnswers(ctx, q)
		mustOK(t, "ListAnswers", err)
		return got
	}
	count := func(q exam.AnswerQuery) int {
		t.Helper()
		n, err := s.CountAnswers(ctx, q)
		mustOK(t, "CountAnswers", err)
		return n
	}
	for _, c := range []struct {
		name string
		q    exam.AnswerQuery
		want []exam.Answer
	}{
		{"member", exam.AnswerQuery{ExamID: "exam-1", MemberID: "m-a2"}, keep(func(a exam.Answer) bool { return a.MemberID == "m-a2" })},
		{"school", exam.AnswerQuery{ExamID: "exam-1", NPSN: npsnA}, keep(func(a exam.Answer) bool { return a.MemberID == "m-a1" || a.MemberID == "m-a2" })},
		{"school and member of another school", exam.AnswerQuery{ExamID: "exam-1", NPSN: npsnA, MemberID: "m-b1"}, nil},
		{"unknown school", exam.AnswerQuery{ExamID: "exam-1", NPSN: "99999999"}, nil},
		{"schools", exam.AnswerQuery{ExamID: "exam-1", NPSNs: []string{npsnB, "99999999"}}, keep(func(a exam.Answer) bool { return a.MemberID == "m-b1" })},
		{"both schools", exam.AnswerQuery{ExamID: "exam-1", NPSNs: []string{npsnA, npsnB}}, keep(func(a exam.Answer) bool { return a.MemberID != "m-x" })},
		{"no school", exam.AnswerQuery{ExamID: "exam-1", NPSNs: []string{}}, nil},
		{"a school among schools", exam.AnswerQuery{ExamID: "exam-1", NPSN: npsnA, NPSNs: []string{npsnA, npsnB}}, keep(func(a exam.Answer) bool { return a.MemberID == "m-a1" || a.MemberID == "m-a2" })},
		{"a school not among schools", exam.AnswerQuery{ExamID: "exam-1", NPSN: npsnA, NPSNs: []string{npsnB}}, nil},
		{"unknown exam", exam.AnswerQuery{ExamID: "exam-9"}, nil},
	} {
		got := list(c.q)
		check(t, "ListAnswers "+c.name, len(got), len(c.want))
		if len(c.want) > 0 {
			check(t, "ListAnswers "+c.name, got, c.want)
		}
		check(t, "CountAnswers "+c.name, count(c.q), len(c.want))
	}
	// Paging: offset and limit; the cursor resumes after an answer, with
	// the filters; a cursor between keys works too.
	check(t, "ListAnswers offset 4 limit 3", list(exam.AnswerQuery{ExamID: "exam-1", Offset: 4, Limit: 3}), all[4:7])
	check(t, "ListAnswers offset past the end", len(list(exam.AnswerQuery{ExamID: "exam-1", Offset: 20})), 0)
	check(t, "ListAnswers after m-a2/q1", list(exam.AnswerQuery{ExamID: "exam-1", AfterMember: "m-a2", AfterQuestion: "q1", Limit: 4}), all[5:9])
	check(t, "ListAnswers after m-a2 (no question)", list(exam.AnswerQuery{ExamID: "exam-1", AfterMember: "m-a2", Limit: 1}), all[3:4])
	check(t, "ListAnswers school after m-a1/q2", list(exam.AnswerQuery{ExamID: "exam-1", NPSN: npsnA, AfterMember: "m-a1", AfterQuestion: "q2"}), all[3:6])
	check(t, "CountAnswers ignores the cursor and paging", count(exam.AnswerQuery{ExamID: "exam-1", AfterMember: "m-b1", Offset: 3, Limit: 1}), 12)
}
