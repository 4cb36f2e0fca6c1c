package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/links"
	"github.com/seedhq/portal/internal/links/visits"
)

func init() {
	linksSuite = append(linksSuite,
		linksTest{"Visits", testLinkVisits},
		linksTest{"VisitsFailuresWriteNothing", testLinkVisitsFailures},
		linksTest{"VisitsGoWithTheirTarget", testLinkVisitsDeleted},
		linksTest{"VisitRollupsMatchRawVisits", testVisitRollups},
		linksTest{"PruneVisitsKeepsStatistics", testPruneVisits},
		linksTest{"VisitsConcurrentWriters", testVisitsConcurrent},
	)
}

// visit returns a non-bot visit of the target.
func visit(kind string, id int64, at time.Time, visitor, country, ref, browser, os, social string) visits.Visit {
	return visits.Visit{Kind: kind, ID: id, At: at, Visitor: visitor, Country: country, Referrer: ref,
		Browser: browser, OS: os, Social: social}
}

// botVisit returns a bot visit of the target.
func botVisit(kind string, id int64, at time.Time, visitor string) visits.Visit {
	v := visit(kind, id, at, visitor, "US", "", "Googlebot", "", "")
	v.Bot = true
	return v
}

// checkVisitStats fails unless the statistics of the owner's target are
// those visits.Aggregate computes over want, and, when golden is not empty,
// marshal to golden.
func checkVisitStats(t *testing.T, s links.Store, owner int64, kind string, id int64, want []visits.Visit, golden string) visits.Stats {
	t.Helper()
	got, err := s.VisitStats(t.Context(), owner, kind, id)
	mustOK(t, fmt.Sprintf("VisitStats %s %d", kind, id), err)
	exp := visits.Aggregate(want, links.VisitStatsTop)
	check(t, fmt.Sprintf("VisitStats %s %d", kind, id), got, exp)
	gb, _ := json.Marshal(got)
	eb, _ := json.Marshal(exp)
	if string(gb) != string(eb) {
		t.Fatalf("VisitStats %s %d JSON\n got %s\nwant %s", kind, id, gb, eb)
	}
	if golden != "" && string(gb) != golden {
		t.Fatalf("VisitStats %s %d JSON\n got %s\nwant %s", kind, id, gb, golden)
	}
	return got
}

func testLinkVisits(t *testing.T, s links.Store) {
	ctx := t.Context()
	ana, budi := mustLinkUser(t, s, "ana"), mustLinkUser(t, s, "budi")
	l1 := mustLink(t, s, links.ShortLink{UserID: ana.ID, Alias: "one"})
	l2 := mustLink(t, s, links.ShortLink{UserID: ana.ID, Alias: "two"})
	fresh := mustLink(t, s, links.ShortLink{UserID: ana.ID, Alias: "fresh"})
	q1, err := s.CreateQR(ctx, links.QRCode{UserID: ana.ID, Name: "q", Type: links.QRLink, Data: []byte(`"https://x.org"`),
		CreatedAt: at(0), UpdatedAt: at(0)})
	mustOK(t, "CreateQR", err)
	c1, err := s.CreateCampaign(ctx, links.Campaign{UserID: ana.ID, Name: "Summer", CreatedAt: at(0)})
	mustOK(t, "CreateCampaign", err)
	mustOK(t, "DeleteLink two", s.DeleteLink(ctx, ana.ID, l2.ID))

	// Day 1 ends at 23:59:59 UTC; times are given in WIB, so the stores must
	// count days in UTC.
	d1 := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC).In(wib)
	d2 := d1.Add(14 * time.Hour) // 00:00 UTC of the next day, 07:00 WIB
	link := visits.KindLink
	var l1Visits, q1Visits []visits.Visit
	batch1 := []visits.Visit{
		visit(link, l1.ID, d1, "a", "US", "", "Chrome", "Windows", ""),
		visit(link, l1.ID, d1.Add(time.Hour), "a", "US", "", "Chrome", "Windows", ""), // same visitor, same day
		visit(link, l1.ID, d1, "c", "GB", "l.facebook.com", "Facebook App", "iOS", visits.SocialFacebook),
		botVisit(link, l1.ID, d1, "b"),
		visit(link, l1.ID, d1, "", "", "t.co", "Safari", "iOS", visits.SocialTwitter), // no visitor: unique
		visit(link, l2.ID, d1, "a", "US", "", "Chrome", "Windows", ""),                // deleted target
		visit(link, 999999, d1, "a", "US", "", "Chrome", "Windows", ""),               // missing target
		visit(visits.KindCampaign, c1.ID, d1, "a", "ID", "", "Chrome", "Android", visits.SocialInstagram),
		visit(visits.KindQR, q1.ID, d1, "a", "US", "", "Chrome", "Windows", ""),
		visit(visits.KindQR, q1.ID, d1, "a", "US", "", "Chrome", "Windows", ""),
		botVisit(visits.KindQR, q1.ID, d1, "z"),
		visit(visits.KindQR, 999999, d1, "a", "US", "", "Chrome", "Windows", ""),
	}
	// Twelve countries on the QR code, so that its top list is cut.
	for i := range 12 {
		batch1 = append(batch1, visit(visits.KindQR, q1.ID, d1, fmt.Sprintf("q%d", i),
			string([]byte{'A', 'A' + byte(i)}), "", "Firefox", "Linux", ""))
	}
	for _, v := range batch1 {
		switch {
		case v.Kind == link && v.ID == l1.ID:
			l1Visits = append(l1Visits, v)
		case v.Kind == visits.KindQR && v.ID == q1.ID:
			q1Visits = append(q1Visits, v)
		}
	}
	mustOK(t, "SaveVisits day 1", s.SaveVisits(ctx, batch1))
	clear(batch1) // the store must not keep the slice

	batch2 := []visits.Visit{
		botVisit(link, l1.ID, d2, "f"),                                           // a bot does not make "f" seen
		visit(link, l1.ID, d2, "a", "US", "google.com", "Chrome", "Windows", ""), // same value, next day: unique
		visit(link, l1.ID, d2, "f", "de", "google.com", "Firefox", "", ""),
	}
	l1Visits = append(l1Visits, batch2...)
	mustOK(t, "SaveVisits day 2", s.SaveVisits(ctx, batch2))
	mustOK(t, "SaveVisits of nothing", s.SaveVisits(ctx, nil))

	got, err := s.GetLink(ctx, ana.ID, l1.ID)
	mustOK(t, "GetLink", err)
	check(t, "link Clicks, UniqueClicks", [2]int64{got.Clicks, got.UniqueClicks}, [2]int64{6, 5})
	gotQR, err := s.GetQR(ctx, ana.ID, q1.ID)
	mustOK(t, "GetQR", err)
	check(t, "QR Scans", gotQR.Scans, int64(14))
	got, err = s.GetLink(ctx, ana.ID, fresh.ID)
	mustOK(t, "GetLink fresh", err)
	check(t, "fresh link counters", [2]int64{got.Clicks, got.UniqueClicks}, [2]int64{0, 0})

	st := checkVisitStats(t, s, ana.ID, link, l1.ID, l1Visits, `{"clicks":6,"uniqueClicks":5,`+
		`"topCountries":{"US":"3","GB":"1","Unknown":"1","de":"1"},`+
		`"topReferrers":{"Direct":"2","google.com":"2","l.facebook.com":"1","t.co":"1"},`+
		`"topBrowsers":{"Chrome":"3","Facebook App":"1","Firefox":"1","Safari":"1"},`+
		`"topOs":{"Windows":"3","iOS":"2","Unknown":"1"},`+
		`"socialCount":{"facebook":1,"twitter":1,"instagram":0}}`)
	check(t, "link bots", st.Bots, 2)
	st = checkVisitStats(t, s, ana.ID, visits.KindQR, q1.ID, q1Visits, "")
	check(t, "QR clicks, uniques, bots, countries", [4]int{st.Clicks, st.UniqueClicks, st.Bots, len(st.TopCountries)},
		[4]int{14, 13, 1, links.VisitStatsTop})
	checkVisitStats(t, s, ana.ID, visits.KindCampaign, c1.ID, []visits.Visit{
		visit(visits.KindCampaign, c1.ID, d1, "a", "ID", "", "Chrome", "Android", visits.SocialInstagram)}, "")
	checkVisitStats(t, s, ana.ID, link, fresh.ID, nil, `{"clicks":0,"uniqueClicks":0,"topCountries":{},`+
		`"topReferrers":{},"topBrowsers":{},"topOs":{},"socialCount":{"facebook":0,"twitter":0,"instagram":0}}`)

	_, err = s.VisitStats(ctx, budi.ID, link, l1.ID)
	wantErr(t, "VisitStats of another user's link", err, links.ErrNotFound)
	_, err = s.VisitStats(ctx, budi.ID, visits.KindQR, q1.ID)
	wantErr(t, "VisitStats of another user's QR code", err, links.ErrNotFound)
	_, err = s.VisitStats(ctx, budi.ID, visits.KindCampaign, c1.ID)
	wantErr(t, "VisitStats of another user's campaign", err, links.ErrNotFound)
	_, err = s.VisitStats(ctx, ana.ID, link, l2.ID)
	wantErr(t, "VisitStats of a deleted link", err, links.ErrNotFound)
	_, err = s.VisitStats(ctx, ana.ID, visits.KindQR, l1.ID+q1.ID+999)
	wantErr(t, "VisitStats of a missing QR code", err, links.ErrNotFound)
	if _, err := s.VisitStats(ctx, ana.ID, "bogus", l1.ID); err == nil {
		t.Fatal("VisitStats of an unknown kind succeeded")
	}

	// UpdateLink keeps the counters.
	up, err := s.UpdateLink(ctx, ana.ID, l1.ID, func(l *links.ShortLink) error { l.Title = "t"; l.Clicks = 0; return nil })
	mustOK(t, "UpdateLink", err)
	check(t, "counters after UpdateLink", [2]int64{up.Clicks, up.UniqueClicks}, [2]int64{6, 5})
}

func testLinkVisitsFailures(t *testing.T, s links.Store) {
	ctx := t.Context()
	ana := mustLinkUser(t, s, "ana")
	l := mustLink(t, s, links.ShortLink{UserID: ana.ID, Alias: "one"})
	q, err := s.CreateQR(ctx, links.QRCode{UserID: ana.ID, Name: "q", Type: links.QRText, Data: []byte(`"x"`),
		CreatedAt: at(0), UpdatedAt: at(0)})
	mustOK(t, "CreateQR", err)
	d1 := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC)
	first := []visits.Visit{visit(visits.KindLink, l.ID, d1, "a", "US", "", "Chrome", "Windows", "")}
	mustOK(t, "SaveVisits", s.SaveVisits(ctx, first))

	state := func() (links.ShortLink, links.QRCode, visits.Stats, visits.Stats) {
		t.Helper()
		gl, err := s.GetLink(ctx, ana.ID, l.ID)
		mustOK(t, "GetLink", err)
		gq, err := s.GetQR(ctx, ana.ID, q.ID)
		mustOK(t, "GetQR", err)
		ls, err := s.VisitStats(ctx, ana.ID, visits.KindLink, l.ID)
		mustOK(t, "VisitStats link", err)
		qs, err := s.VisitStats(ctx, ana.ID, visits.KindQR, q.ID)
		mustOK(t, "VisitStats QR", err)
		return gl, gq, ls, qs
	}
	bl, bq, bls, bqs := state()

	bad := []visits.Visit{
		visit(visits.KindLink, l.ID, d1, "b", "GB", "", "Safari", "iOS", ""),
		visit(visits.KindQR, q.ID, d1, "b", "GB", "", "Safari", "iOS", ""),
		{Kind: "bogus", ID: l.ID, At: d1},
	}
	if err := s.SaveVisits(ctx, bad); err == nil {
		t.Fatal("SaveVisits with an unknown kind succeeded")
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.SaveVisits(canceled, bad[:2]); err == nil {
		t.Fatal("SaveVisits with a canceled context succeeded")
	}
	al, aq, als, aqs := state()
	check(t, "link after failed saves", al, bl)
	check(t, "QR after failed saves", aq, bq)
	check(t, "link statistics after failed saves", als, bls)
	check(t, "QR statistics after failed saves", aqs, bqs)
	check(t, "link counters", [2]int64{al.Clicks, al.UniqueClicks}, [2]int64{1, 1})

	// The visitor "b" was not marked as seen by the failed batches.
	mustOK(t, "SaveVisits", s.SaveVisits(ctx, bad[:1]))
	al, _, _, _ = state()
	check(t, "link counters after a good save", [2]int64{al.Clicks, al.UniqueClicks}, [2]int64{2, 2})
}

// VisitTarget names the target of visits: a kind of internal/links/visits
// (KindLink, KindQR, KindCampaign) and the target's id.
type VisitTarget struct {
	Kind string
	ID   int64
}

// DeleteVisitedTargets records visits (with unique visitors and a bot) of a
// short link, a QR code and a campaign of one user and of a further link of
// that user, deletes the first three with DeleteLink, DeleteQR and
// DeleteCampaign, and saves visits of the deleted targets again (which the
// store drops). It fails the test unless the deleted targets' statistics
// answer links.ErrNotFound and the kept link's statistics, counters and
// seen visitors are untouched.
//
// It returns the deleted targets and the kept link, so that a store's own
// test can check at the storage level that nothing of the deleted targets'
// visits remains while the kept link's do: the links.Store methods cannot
// see visits of a target that no longer exists, and ids are never reused.
func DeleteVisitedTargets(t *testing.T, s links.Store) (deleted []VisitTarget, kept VisitTarget) {
	t.Helper()
	ctx := t.Context()
	ana := mustLinkUser(t, s, "ana")
	// The kept link is created first, so that on stores numbering each kind
	// from 1 it shares its id with the deleted QR code and campaign: deleting
	// their visits must match the kind, not only the id.
	keep := mustLink(t, s, links.ShortLink{UserID: ana.ID, Alias: "keep"})
	l := mustLink(t, s, links.ShortLink{UserID: ana.ID, Alias: "gone"})
	q, err := s.CreateQR(ctx, links.QRCode{UserID: ana.ID, Name: "q", Type: links.QRText, Data: []byte(`"x"`),
		CreatedAt: at(0), UpdatedAt: at(0)})
	mustOK(t, "CreateQR", err)
	c, err := s.CreateCampaign(ctx, links.Campaign{UserID: ana.ID, Name: "Summer", CreatedAt: at(0)})
	mustOK(t, "CreateCampaign", err)
	deleted = []VisitTarget{{visits.KindLink, l.ID}, {visits.KindQR, q.ID}, {visits.KindCampaign, c.ID}}
	kept = VisitTarget{visits.KindLink, keep.ID}

	d1 := time.Date(2026, 3, 14, 10, 0, 0, 0, time.UTC).In(wib)
	d2 := d1.Add(24 * time.Hour)
	// Every target gets the same visits, so that the kept link shares each
	// day and visitor of its unique visitors with the deleted targets.
	of := func(tg VisitTarget) []visits.Visit {
		return []visits.Visit{
			visit(tg.Kind, tg.ID, d1, "a", "US", "", "Chrome", "Windows", ""),
			visit(tg.Kind, tg.ID, d1.Add(time.Minute), "a", "US", "", "Chrome", "Windows", ""),
			visit(tg.Kind, tg.ID, d1, "b", "GB", "t.co", "Safari", "iOS", visits.SocialTwitter),
			visit(tg.Kind, tg.ID, d2, "a", "ID", "google.com", "Firefox", "Linux", ""),
			visit(tg.Kind, tg.ID, d1, "", "", "", "", "", ""),
			botVisit(tg.Kind, tg.ID, d1, "z"),
		}
	}
	keepVisits := of(kept)
	batch := slices.Clone(keepVisits)
	for _, tg := range deleted {
		batch = append(batch, of(tg)...)
	}
	mustOK(t, "SaveVisits", s.SaveVisits(ctx, batch))
	for _, tg := range deleted {
		_, err := s.VisitStats(ctx, ana.ID, tg.Kind, tg.ID)
		mustOK(t, fmt.Sprintf("VisitStats %s %d before the delete", tg.Kind, tg.ID), err)
	}
	before, err := s.GetLink(ctx, ana.ID, keep.ID)
	mustOK(t, "GetLink kept", err)
	check(t, "kept link Clicks, UniqueClicks", [2]int64{before.Clicks, before.UniqueClicks}, [2]int64{5, 4})
	stats := checkVisitStats(t, s, ana.ID, kept.Kind, kept.ID, keepVisits, "")

	mustOK(t, "DeleteLink", s.DeleteLink(ctx, ana.ID, l.ID))
	mustOK(t, "DeleteQR", s.DeleteQR(ctx, ana.ID, q.ID))
	mustOK(t, "DeleteCampaign", s.DeleteCampaign(ctx, ana.ID, c.ID))
	var late []visits.Visit
	for _, tg := range deleted {
		_, err := s.VisitStats(ctx, ana.ID, tg.Kind, tg.ID)
		wantErr(t, fmt.Sprintf("VisitStats %s %d after the delete", tg.Kind, tg.ID), err, links.ErrNotFound)
		late = append(late, of(tg)...)
	}
	mustOK(t, "SaveVisits of deleted targets", s.SaveVisits(ctx, late))

	after, err := s.GetLink(ctx, ana.ID, keep.ID)
	mustOK(t, "GetLink kept after the deletes", err)
	check(t, "kept link after the deletes", after, before)
	check(t, "kept link statistics after the deletes",
		checkVisitStats(t, s, ana.ID, kept.Kind, kept.ID, keepVisits, ""), stats)

	// The kept link's seen visitors are kept too: "a" on d1 is no new unique.
	again := visit(kept.Kind, kept.ID, d1.Add(time.Hour), "a", "US", "", "Chrome", "Windows", "")
	mustOK(t, "SaveVisits kept", s.SaveVisits(ctx, []visits.Visit{again}))
	after, err = s.GetLink(ctx, ana.ID, keep.ID)
	mustOK(t, "GetLink kept after a repeated visitor", err)
	check(t, "kept link Clicks, UniqueClicks after a repeated visitor",
		[2]int64{after.Clicks, after.UniqueClicks}, [2]int64{6, 4})
	checkVisitStats(t, s, ana.ID, kept.Kind, kept.ID, append(keepVisits, again), "")
	return deleted, kept
}

func testLinkVisitsDeleted(t *testing.T, s links.Store) { DeleteVisitedTargets(t, s) }

// RandomVisits are the visits SaveRandomVisits saved, by target.
type RandomVisits struct {
	Owner   int64
	Targets []VisitTarget
	Visits  [][]visits.Visit // Visits[i] are those of Targets[i]
}

// SaveRandomVisits saves at least 3,000 random visits of two links and a QR code of a
// new user "ana", in batches of every size from 1 to 400, spread over 50
// hours across UTC midnights, with visitors coming back on the same and
// later days, visits without a visitor and bots.
func SaveRandomVisits(t *testing.T, s links.Store) RandomVisits {
	t.Helper()
	ctx := t.Context()
	ana := mustLinkUser(t, s, "ana")
	l1 := mustLink(t, s, links.ShortLink{UserID: ana.ID, Alias: "one"})
	l2 := mustLink(t, s, links.ShortLink{UserID: ana.ID, Alias: "two"})
	q1, err := s.CreateQR(ctx, links.QRCode{UserID: ana.ID, Name: "q", Type: links.QRLink, Data: []byte(`"https://x.org"`),
		CreatedAt: at(0), UpdatedAt: at(0)})
	mustOK(t, "CreateQR", err)
	rv := RandomVisits{Owner: ana.ID, Targets: []VisitTarget{
		{visits.KindLink, l1.ID}, {visits.KindLink, l2.ID}, {visits.KindQR, q1.ID}}}
	rv.Visits = make([][]visits.Visit, len(rv.Targets))
	rng := rand.New(rand.NewPCG(3, 4))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	for saved := 0; saved < 3000; {
		batch := make([]visits.Visit, 1+rng.IntN(400))
		for i := range batch {
			ti := rng.IntN(len(rv.Targets))
			tg := rv.Targets[ti]
			v := visit(tg.Kind, tg.ID, RandomVisitsStart.Add(time.Duration(rng.IntN(50*60))*time.Minute),
				pick("", "v1", "v2", fmt.Sprint(rng.IntN(40))), pick("", "ID", "US"), pick("", "t.co", "www.google.com"),
				pick("", "Chrome", "Safari"), pick("", "Android", "iOS"), pick("", "", visits.SocialTwitter, visits.SocialFacebook))
			v.Bot = rng.IntN(12) == 0
			batch[i] = v
			rv.Visits[ti] = append(rv.Visits[ti], v)
		}
		mustOK(t, "SaveVisits", s.SaveVisits(ctx, batch))
		saved += len(batch)
	}
	return rv
}

// RandomVisitsStart is the time of SaveRandomVisits' first possible visit.
var RandomVisitsStart = time.Date(2026, 3, 14, 22, 0, 0, 0, time.UTC)

// Check fails unless the statistics of every target are those computed over
// its raw visits (visits.Aggregate).
func (rv RandomVisits) Check(t *testing.T, s links.Store) {
	t.Helper()
	for i, tg := range rv.Targets {
		checkVisitStats(t, s, rv.Owner, tg.Kind, tg.ID, rv.Visits[i], "")
	}
}

// testVisitRollups: statistics read from the roll-ups kept as visits are
// saved equal those computed over the raw visits.
func testVisitRollups(t *testing.T, s links.Store) { SaveRandomVisits(t, s).Check(t, s) }

// testPruneVisits: pruning raw visits and seen visitors leaves every
// statistic and counter as it was, and a visitor seen on a day whose seen
// visitors are kept is still not counted twice.
func testPruneVisits(t *testing.T, s links.Store) {
	ctx := t.Context()
	rv := SaveRandomVisits(t, s)
	link := rv.Targets[0]
	before, err := s.GetLink(ctx, rv.Owner, link.ID)
	mustOK(t, "GetLink", err)
	var old int64
	cut := RandomVisitsStart.Add(30 * time.Hour) // 2026-03-16 04:00 UTC
	for _, vs := range rv.Visits {
		for _, v := range vs {
			if v.At.Before(cut) {
				old++
			}
		}
	}
	n, err := s.PruneVisits(ctx, cut, cut)
	mustOK(t, "PruneVisits", err)
	if n != old {
		t.Fatalf("PruneVisits removed %d visits, want the %d before %s", n, old, cut)
	}
	rv.Check(t, s)
	n, err = s.PruneVisits(ctx, cut, cut)
	mustOK(t, "PruneVisits again", err)
	if n != 0 {
		t.Fatalf("PruneVisits again removed %d visits, want 0", n)
	}
	after, err := s.GetLink(ctx, rv.Owner, link.ID)
	mustOK(t, "GetLink", err)
	if after.Clicks != before.Clicks || after.UniqueClicks != before.UniqueClicks {
		t.Fatalf("after pruning clicks %d unique %d, want %d %d", after.Clicks, after.UniqueClicks, before.Clicks, before.UniqueClicks)
	}
	// Visitor v1 was seen on 2026-03-16 (the cut's day, kept) and visitor
	// "x" never: v1 again that day is not unique, x is.
	var seen bool
	for _, v := range rv.Visits[0] {
		if v.Visitor == "v1" && !v.Bot && v.At.UTC().Day() == 16 {
			seen = true
		}
	}
	if !seen {
		t.Fatal("the random visits hold no visit of v1 on 2026-03-16: the test cannot check it")
	}
	day := time.Date(2026, 3, 16, 23, 0, 0, 0, time.UTC)
	again := []visits.Visit{visit(link.Kind, link.ID, day, "v1", "", "", "", "", ""), visit(link.Kind, link.ID, day, "x", "", "", "", "", "")}
	mustOK(t, "SaveVisits", s.SaveVisits(ctx, again))
	rv.Visits[0] = append(rv.Visits[0], again...)
	rv.Check(t, s)
	// Pruning everything keeps the statistics.
	_, err = s.PruneVisits(ctx, day.Add(time.Hour), day.Add(48*time.Hour))
	mustOK(t, "PruneVisits everything", err)
	rv.Check(t, s)
	// Zero times prune nothing.
	n, err = s.PruneVisits(ctx, time.Time{}, time.Time{})
	mustOK(t, "PruneVisits zero", err)
	if n != 0 {
		t.Fatalf("PruneVisits with zero times removed %d visits", n)
	}
}

// testVisitsConcurrent: batches saved at once by several writers (the
// recorder's), over the same links and visitors in different orders, all
// commit (no deadlock) and count exactly.
func testVisitsConcurrent(t *testing.T, s links.Store) {
	ctx := t.Context()
	ana := mustLinkUser(t, s, "ana")
	var targets []VisitTarget
	for _, alias := range []string{"one", "two", "three"} {
		l := mustLink(t, s, links.ShortLink{UserID: ana.ID, Alias: alias})
		targets = append(targets, VisitTarget{visits.KindLink, l.ID})
	}
	const writers, batches = 4, 15
	all := make([][]visits.Visit, writers)
	var wg sync.WaitGroup
	for w := range writers {
		rng := rand.New(rand.NewPCG(uint64(w), 9))
		wg.Go(func() {
			for range batches {
				batch := make([]visits.Visit, 200)
				for i := range batch {
					tg := targets[rng.IntN(len(targets))]
					batch[i] = visit(tg.Kind, tg.ID, RandomVisitsStart.Add(time.Duration(rng.IntN(3))*time.Hour),
						fmt.Sprint("v", rng.IntN(50)), "ID", "", "Chrome", "Android", "")
				}
				if err := s.SaveVisits(ctx, batch); err != nil {
					t.Errorf("SaveVisits: %v", err)
					return
				}
				all[w] = append(all[w], batch...)
			}
		})
	}
	wg.Wait()
	byTarget := map[VisitTarget][]visits.Visit{}
	for _, vs := range all {
		for _, v := range vs {
			k := VisitTarget{v.Kind, v.ID}
			byTarget[k] = append(byTarget[k], v)
		}
	}
	for _, tg := range targets {
		checkVisitStats(t, s, ana.ID, tg.Kind, tg.ID, byTarget[tg], "")
	}
}
