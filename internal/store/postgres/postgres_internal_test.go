package postgres

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/identity"
	"github.com/seedhq/portal/internal/store/pgtest"
)

// mustOpen opens a migrated store on a fresh database.
func mustOpen(t testing.TB) *Store {
	t.Helper()
	return mustOpenURL(t, pgtest.NewDatabase(t))
}

// mustOpenURL opens a migrated store on the database at url.
func mustOpenURL(t testing.TB, url string) *Store {
	t.Helper()
	st, err := Open(context.Background(), url)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(context.Background()); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	return st
}

func mustOK(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

var wib = time.FixedZone("WIB", 7*60*60)

var t0 = time.Date(2025, time.July, 14, 8, 30, 0, 123456000, wib)

func TestMigrateIdempotent(t *testing.T) {
	st := mustOpen(t)
	ctx := t.Context()
	for range 2 {
		mustOK(t, "Migrate again", st.Migrate(ctx))
	}
	ms, err := migrations()
	mustOK(t, "migrations", err)
	var n int
	mustOK(t, "count", st.pool.QueryRow(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n))
	if n != len(ms) {
		t.Fatalf("schema_migrations has %d rows, want %d", n, len(ms))
	}
	rev, err := st.ContentRevision(ctx)
	mustOK(t, "ContentRevision", err)
	if rev != 0 {
		t.Fatalf("ContentRevision = %d after migrations, want 0", rev)
	}
}

func TestMigrateConcurrent(t *testing.T) {
	url := pgtest.NewDatabase(t)
	const instances = 8
	stores := make([]*Store, instances)
	for i := range stores {
		st, err := Open(t.Context(), url)
		mustOK(t, "Open", err)
		t.Cleanup(func() { st.Close() })
		stores[i] = st
	}
	var wg sync.WaitGroup
	errs := make([]error, instances)
	for i, st := range stores {
		wg.Go(func() { errs[i] = st.Migrate(t.Context()) })
	}
	wg.Wait()
	for i, err := range errs {
		mustOK(t, fmt.Sprintf("Migrate of instance %d", i), err)
	}
	var n int
	mustOK(t, "count", stores[0].pool.QueryRow(t.Context(), `SELECT count(*) FROM schema_migrations`).Scan(&n))
	ms, _ := migrations()
	if n != len(ms) {
		t.Fatalf("schema_migrations has %d rows, want %d", n, len(ms))
	}
	// The schema works.
	mustOK(t, "CreateUser", stores[3].CreateUser(t.Context(), identity.User{ID: "u1", Username: "admin",
		Role: identity.RoleSuperAdmin, CreatedAt: t0}))
}

func TestTimesInUTC(t *testing.T) {
	st := mustOpen(t)
	u := identity.User{ID: "u1", Username: "Admin", Name: "A", Role: identity.RoleSuperAdmin, PasswordHash: "x",
		CreatedAt: t0.Add(789 * time.Nanosecond)}
	mustOK(t, "CreateUser", st.CreateUser(t.Context(), u))
	got, err := st.GetUserByUsername(t.Context(), "ADMIN")
	mustOK(t, "GetUserByUsername", err)
	if !got.CreatedAt.Equal(t0) || got.CreatedAt.Location() != time.UTC {
		t.Fatalf("CreatedAt = %v, want %v in UTC", got.CreatedAt, t0)
	}
	err = st.CreateUser(t.Context(), identity.User{ID: "u2", Username: "admin", Role: identity.RoleOperator, CreatedAt: t0})
	if !errors.Is(err, identity.ErrUsernameTaken) {
		t.Fatalf("CreateUser with a taken username: err = %v", err)
	}
}

// answers returns n answers of exam e, spread over members and questions.
func answers(e string, n int, at time.Time, value string) []exam.Answer {
	as := make([]exam.Answer, n)
	for i := range as {
		as[i] = exam.Answer{ExamID: e, MemberID: fmt.Sprintf("m%04d", i/40), QuestionID: fmt.Sprintf("q%02d", i%40),
			Answer: value, AnsweredAt: at, ServerCode: "LAB-A"}
	}
	return as
}

func TestSaveAnswersRaceSameKey(t *testing.T) {
	st := mustOpen(t)
	const pushes = 16
	as := answers("e1", 500, t0, "a")
	var wg sync.WaitGroup
	receipts := make([]exam.Receipt, pushes)
	errs := make([]error, pushes)
	for i := range pushes {
		wg.Go(func() {
			receipts[i], errs[i] = st.SaveAnswers(t.Context(), exam.AnswerBatch{
				SyncID: fmt.Sprintf("sync-%02d", i), ServerCode: "LAB-A", NPSN: "20100001",
				Checksum: "c1", IdempotencyKey: "k1", Answers: as, ReceivedAt: t0})
		})
	}
	wg.Wait()
	winner := ""
	for i := range pushes {
		mustOK(t, "SaveAnswers", errs[i])
		if !receipts[i].Duplicate {
			if winner != "" {
				t.Fatalf("two pushes accepted: %s and %s", winner, receipts[i].SyncID)
			}
			winner = receipts[i].SyncID
		}
	}
	if winner == "" {
		t.Fatal("no push accepted")
	}
	for i := range pushes {
		if receipts[i].SyncID != winner || receipts[i].RecordCount != len(as) {
			t.Fatalf("receipt %d = %+v, want sync id %s and %d records", i, receipts[i], winner, len(as))
		}
	}
	logs, err := st.ListSyncLogs(t.Context(), exam.SyncLogFilter{})
	mustOK(t, "ListSyncLogs", err)
	if len(logs) != 1 || logs[0].ID != winner || logs[0].Outcome != exam.OutcomeAccepted {
		t.Fatalf("sync logs = %+v, want one accepted record of %s", logs, winner)
	}
	n, err := st.CountAnswers(t.Context(), exam.AnswerQuery{ExamID: "e1"})
	mustOK(t, "CountAnswers", err)
	if n != len(as) {
		t.Fatalf("CountAnswers = %d, want %d", n, len(as))
	}
}

func TestSaveAnswersRaceSameKeyOtherPayload(t *testing.T) {
	st := mustOpen(t)
	const pushes = 12
	var wg sync.WaitGroup
	errs := make([]error, pushes)
	receipts := make([]exam.Receipt, pushes)
	for i := range pushes {
		wg.Go(func() {
			receipts[i], errs[i] = st.SaveAnswers(t.Context(), exam.AnswerBatch{
				SyncID: fmt.Sprintf("sync-%02d", i), ServerCode: "LAB-A", NPSN: "20100001",
				Checksum: fmt.Sprintf("c%02d", i), IdempotencyKey: "k1",
				Answers: answers("e1", 50, t0.Add(time.Duration(i)*time.Second), fmt.Sprint(i)), ReceivedAt: t0})
		})
	}
	wg.Wait()
	accepted := 0
	for i := range pushes {
		switch {
		case errs[i] == nil && !receipts[i].Duplicate:
			accepted++
		case errors.Is(errs[i], exam.ErrIdempotencyConflict):
		default:
			t.Fatalf("push %d: receipt %+v, err %v", i, receipts[i], errs[i])
		}
	}
	if accepted != 1 {
		t.Fatalf("%d pushes accepted, want 1", accepted)
	}
}

func TestSaveAnswersRules(t *testing.T) {
	st := mustOpen(t)
	ctx := t.Context()
	b := func(sync, checksum, key string, as ...exam.Answer) exam.AnswerBatch {
		return exam.AnswerBatch{SyncID: sync, ServerCode: "LAB-A", NPSN: "20100001", Checksum: checksum,
			IdempotencyKey: key, Answers: as, ReceivedAt: t0}
	}
	a := func(q, v string, at time.Time) exam.Answer {
		return exam.Answer{ExamID: "e1", MemberID: "m1", QuestionID: q, Answer: v, AnsweredAt: at, ServerCode: "LAB-A"}
	}
	r, err := st.SaveAnswers(ctx, b("s1", "c1", "", a("q1", "a", t0), a("q1", "b", t0), a("q2", "x", t0.Add(time.Second)), a("q2", "y", t0)))
	mustOK(t, "SaveAnswers s1", err)
	if r != (exam.Receipt{SyncID: "s1", RecordCount: 4}) {
		t.Fatalf("receipt = %+v", r)
	}
	r, err = st.SaveAnswers(ctx, b("s2", "c1", "k9"))
	mustOK(t, "SaveAnswers s2", err)
	if r != (exam.Receipt{SyncID: "s1", RecordCount: 4, Duplicate: true}) {
		t.Fatalf("receipt of a checksum duplicate = %+v", r)
	}
	// Older answer loses, equal time wins.
	_, err = st.SaveAnswers(ctx, b("s3", "c3", "k3", a("q1", "old", t0.Add(-time.Second)), a("q2", "tie", t0.Add(time.Second))))
	mustOK(t, "SaveAnswers s3", err)
	got, err := st.ListAnswers(ctx, exam.AnswerQuery{ExamID: "e1"})
	mustOK(t, "ListAnswers", err)
	if len(got) != 2 || got[0].Answer != "b" || got[0].SyncID != "s1" || got[1].Answer != "tie" || got[1].SyncID != "s3" {
		t.Fatalf("answers = %+v", got)
	}
	if _, err := st.SaveAnswers(ctx, b("s4", "c4", "k3")); !errors.Is(err, exam.ErrIdempotencyConflict) {
		t.Fatalf("reused key: err = %v", err)
	}
	r, err = st.SaveAnswers(ctx, b("s5", "c3", "k3"))
	mustOK(t, "SaveAnswers s5", err)
	if r != (exam.Receipt{SyncID: "s3", RecordCount: 2, Duplicate: true}) {
		t.Fatalf("receipt of a key duplicate = %+v", r)
	}
	if err := st.DeleteExam(ctx, "e1"); !errors.Is(err, exam.ErrNotFound) {
		t.Fatalf("DeleteExam of a missing exam: err = %v", err)
	}
	mustOK(t, "CreateExam", st.CreateExam(ctx, exam.Exam{ID: "e1", Title: "T", StartsAt: t0, EndsAt: t0, CreatedAt: t0}))
	if err := st.DeleteExam(ctx, "e1"); !errors.Is(err, exam.ErrExamHasAnswers) {
		t.Fatalf("DeleteExam with answers: err = %v", err)
	}
}

func TestImportMembers(t *testing.T) {
	st := mustOpen(t)
	ctx := t.Context()
	m := func(id, username, email, nisn string) exam.Member {
		return exam.Member{ID: id, NPSN: "20100001", Nama: "N " + id, Role: exam.RoleStudent, Username: username,
			Email: email, NISN: nisn, ExamPasswordHash: "h" + id, CreatedAt: t0, UpdatedAt: t0}
	}
	res, err := st.ImportMembers(ctx, []exam.Member{
		m("a", "alice", "alice@x.id", "0000000001"),
		m("b", "bob", "bob@x.id", "0000000002"),
		m("c", "carol", "ALICE@x.id", ""),           // email clash within the call
		m("d", "bob", "", ""),                       // username written by an earlier row
		m("e", "erin", "", "0000000002"),            // nisn clash within the call
		m("f", "frank", "frank@x.id", "0000000006"), // fine
	})
	mustOK(t, "ImportMembers", err)
	actions := func(res []exam.ImportResult) string {
		var s []string
		for _, r := range res {
			s = append(s, string(r.Action))
		}
		return strings.Join(s, ",")
	}
	if got := actions(res); got != "created,created,rejected,rejected,rejected,created" {
		t.Fatalf("actions = %s (%+v)", got, res)
	}
	rev1, _ := st.ContentRevision(ctx)

	// Update alice, moving her email to frank's old one after frank moves.
	res, err = st.ImportMembers(ctx, []exam.Member{
		m("x1", "frank", "frank2@x.id", "0000000006"),
		m("x2", "ALICE", "frank@x.id", "0000000001"),
		m("x3", "gina", "alice@x.id", ""),
	})
	mustOK(t, "ImportMembers 2", err)
	if got := actions(res); got != "updated,updated,created" {
		t.Fatalf("actions = %s (%+v)", got, res)
	}
	if res[0].MemberID != "f" || res[1].MemberID != "a" || res[2].MemberID != "x3" {
		t.Fatalf("member ids = %+v", res)
	}
	alice, err := st.LookupMember(ctx, exam.LookupEmail, "FRANK@x.id")
	mustOK(t, "LookupMember", err)
	if alice.ID != "a" || alice.ExamPasswordHash != "ha" || alice.Username != "ALICE" {
		t.Fatalf("alice = %+v", alice)
	}
	rev2, _ := st.ContentRevision(ctx)
	if rev2 != rev1+1 {
		t.Fatalf("revision %d -> %d", rev1, rev2)
	}
	ms, total, err := st.ListMembers(ctx, exam.MemberFilter{Search: "X.ID", Limit: 2, Offset: 1})
	mustOK(t, "ListMembers", err)
	if total != 4 || len(ms) != 2 || ms[0].ID != "f" || ms[1].ID != "a" {
		t.Fatalf("ListMembers = %d %+v", total, ms)
	}
}

func TestImportMembersLarge(t *testing.T) {
	st := mustOpen(t)
	const n = 10_000
	ms := make([]exam.Member, n)
	for i := range ms {
		ms[i] = exam.Member{ID: fmt.Sprintf("id%05d", i), NPSN: "20100001", Nama: fmt.Sprintf("Siswa %05d", i),
			Role: exam.RoleStudent, Username: fmt.Sprintf("user%05d", i), Email: fmt.Sprintf("u%05d@x.id", i),
			NISN: fmt.Sprintf("%010d", i), CreatedAt: t0, UpdatedAt: t0}
	}
	start := time.Now()
	res, err := st.ImportMembers(t.Context(), ms)
	mustOK(t, "ImportMembers", err)
	t.Logf("create %d members: %s", n, time.Since(start))
	for _, r := range res {
		if r.Action != exam.ImportCreated {
			t.Fatalf("row %+v", r)
		}
	}
	for i := range ms {
		ms[i].ID = "other"
		ms[i].Kelas = "XII"
	}
	start = time.Now()
	res, err = st.ImportMembers(t.Context(), ms)
	mustOK(t, "ImportMembers", err)
	t.Logf("update %d members: %s", n, time.Since(start))
	for i, r := range res {
		if r.Action != exam.ImportUpdated || r.MemberID != fmt.Sprintf("id%05d", i) {
			t.Fatalf("row %+v", r)
		}
	}
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{1, 2, 3})
	r.Read(b)
	return b
}

func savePackage(t testing.TB, st *Store, npsn string, data []byte) exam.PackageMeta {
	t.Helper()
	meta := exam.PackageMeta{NPSN: npsn, Version: "v-" + npsn, Checksum: sum(data), Size: int64(len(data)),
		Revision: 1, GeneratedAt: t0}
	mustOK(t, "SavePackage", st.SavePackage(t.Context(), meta, bytes.NewReader(data)))
	return meta
}

func TestPackageReader(t *testing.T) {
	st := mustOpen(t)
	for _, size := range []int{0, 1, chunkSize - 1, chunkSize, chunkSize + 1, 3*chunkSize + 12345} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			data := randomBytes(size)
			meta := savePackage(t, st, "20100001", data)
			got, err := st.GetPackage(t.Context(), "20100001")
			mustOK(t, "GetPackage", err)
			if got.Checksum != meta.Checksum || got.Size != meta.Size || got.GeneratedAt.Location() != time.UTC {
				t.Fatalf("GetPackage = %+v", got)
			}
			r, err := st.OpenPackage(t.Context(), meta)
			mustOK(t, "OpenPackage", err)
			defer r.Close()
			all, err := io.ReadAll(r)
			mustOK(t, "ReadAll", err)
			if !bytes.Equal(all, data) {
				t.Fatalf("read %d bytes, differ from the %d saved", len(all), len(data))
			}
			end, err := r.Seek(0, io.SeekEnd)
			mustOK(t, "Seek end", err)
			if end != int64(size) {
				t.Fatalf("Seek(0, SeekEnd) = %d, want %d", end, size)
			}
			want := bytes.NewReader(data)
			if _, err := r.Seek(0, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(uint64(size), 7))
			buf1, buf2 := make([]byte, 3*chunkSize), make([]byte, 3*chunkSize)
			for range 200 {
				off := rng.Int64N(int64(size) + 10)
				whence := rng.IntN(3)
				var arg int64
				switch whence {
				case io.SeekStart:
					arg = off
				case io.SeekCurrent:
					cur, _ := want.Seek(0, io.SeekCurrent)
					arg = off - cur
				case io.SeekEnd:
					arg = off - int64(size)
				}
				p1, err1 := r.Seek(arg, whence)
				p2, err2 := want.Seek(arg, whence)
				if p1 != p2 || (err1 == nil) != (err2 == nil) {
					t.Fatalf("Seek(%d, %d) = %d, %v; want %d, %v", arg, whence, p1, err1, p2, err2)
				}
				n := rng.IntN(len(buf1))
				// io.ReadFull smooths over short reads at chunk edges.
				n1, err1 := io.ReadFull(r, buf1[:n])
				n2, err2 := io.ReadFull(want, buf2[:n])
				if n1 != n2 || !errors.Is(err1, err2) && !(err1 == nil && err2 == nil) || !bytes.Equal(buf1[:n1], buf2[:n2]) {
					t.Fatalf("read %d at %d: got %d, %v; want %d, %v", n, p2, n1, err1, n2, err2)
				}
			}
			if _, err := r.Seek(-1, io.SeekStart); err == nil {
				t.Fatal("Seek to -1 succeeded")
			}
		})
	}
}

func TestPackageMismatchAndSharing(t *testing.T) {
	st := mustOpen(t)
	ctx := t.Context()
	data := randomBytes(2*chunkSize + 5)
	meta := savePackage(t, st, "20100001", data)

	// Wrong bytes, short and long: nothing changes.
	other := randomBytes(chunkSize)
	bad := []struct {
		name string
		meta exam.PackageMeta
		data []byte
	}{
		{"checksum", exam.PackageMeta{NPSN: "20100001", Checksum: sum(data[:10]), Size: int64(len(other))}, other},
		{"short", exam.PackageMeta{NPSN: "20100001", Checksum: sum(other), Size: int64(len(other)) + 1}, other},
		{"long", exam.PackageMeta{NPSN: "20100001", Checksum: sum(other), Size: int64(len(other)) - 1}, other},
	}
	for _, b := range bad {
		if err := st.SavePackage(ctx, b.meta, bytes.NewReader(b.data)); err == nil {
			t.Fatalf("SavePackage with a bad %s succeeded", b.name)
		}
		got, err := st.GetPackage(ctx, "20100001")
		mustOK(t, "GetPackage", err)
		if got.Checksum != meta.Checksum {
			t.Fatalf("after a bad %s the package is %+v", b.name, got)
		}
	}
	var blobs int
	mustOK(t, "count", st.pool.QueryRow(ctx, `SELECT count(*) FROM package_blobs`).Scan(&blobs))
	if blobs != 1 {
		t.Fatalf("%d blobs, want 1", blobs)
	}

	// A second school with the same bytes: r is not read.
	meta2 := meta
	meta2.NPSN = "20100002"
	mustOK(t, "SavePackage shared", st.SavePackage(ctx, meta2, iotestErrReader{}))

	// Both move on: the old blob is orphaned, and removed once the grace
	// period is over.
	st.blobGrace = 0
	savePackage(t, st, "20100001", other)
	mustOK(t, "count", st.pool.QueryRow(ctx, `SELECT count(*) FROM package_blobs`).Scan(&blobs))
	if blobs != 2 {
		t.Fatalf("%d blobs while one school still uses the first, want 2", blobs)
	}
	r, err := st.OpenPackage(ctx, meta)
	mustOK(t, "OpenPackage", err)
	defer r.Close()
	savePackage(t, st, "20100002", other)
	var orphaned bool
	mustOK(t, "orphaned", st.pool.QueryRow(ctx, `SELECT orphaned_at IS NOT NULL FROM package_blobs WHERE checksum = $1`,
		meta.Checksum).Scan(&orphaned))
	if !orphaned {
		t.Fatal("unreferenced blob not marked orphaned")
	}
	savePackage(t, st, "20100003", randomBytes(10)) // sweeps
	var chunks int
	mustOK(t, "count", st.pool.QueryRow(ctx, `SELECT count(*) FROM package_blobs`).Scan(&blobs))
	mustOK(t, "count", st.pool.QueryRow(ctx, `SELECT count(*) FROM package_chunks`).Scan(&chunks))
	if blobs != 2 || chunks != 2 {
		t.Fatalf("%d blobs and %d chunks after the sweep, want 2 and 2", blobs, chunks)
	}
	if _, err := io.ReadAll(r); err == nil {
		t.Fatal("reading a removed package succeeded")
	}
	if _, err := st.OpenPackage(ctx, meta); !errors.Is(err, exam.ErrNotFound) {
		t.Fatalf("OpenPackage of a removed blob: err = %v", err)
	}
}

// iotestErrReader fails every read: SavePackage must not read it.
type iotestErrReader struct{}

func (iotestErrReader) Read([]byte) (int, error) { return 0, errors.New("read when the blob exists") }

func TestSavePackageConcurrent(t *testing.T) {
	st := mustOpen(t)
	ctx := t.Context()
	datas := [][]byte{randomBytes(chunkSize + 1), randomBytes(2 * chunkSize), randomBytes(77)}
	st.blobGrace = 0
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 8 {
		wg.Go(func() {
			for i := range 6 {
				data := datas[(w+i)%len(datas)]
				npsn := fmt.Sprintf("2010000%d", (w+i)%3)
				meta := exam.PackageMeta{NPSN: npsn, Version: "v", Checksum: sum(data), Size: int64(len(data)), GeneratedAt: t0}
				if err := st.SavePackage(ctx, meta, bytes.NewReader(data)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("SavePackage: %v", err)
	}
	for i := range 3 {
		meta, err := st.GetPackage(ctx, fmt.Sprintf("2010000%d", i))
		mustOK(t, "GetPackage", err)
		r, err := st.OpenPackage(ctx, meta)
		mustOK(t, "OpenPackage", err)
		got, err := io.ReadAll(r)
		mustOK(t, "ReadAll", err)
		r.Close()
		if sum(got) != meta.Checksum {
			t.Fatalf("package of %s does not match its checksum", meta.NPSN)
		}
	}
}

func TestSecretsConcurrent(t *testing.T) {
	url := pgtest.NewDatabase(t)
	a, b := mustOpenURL(t, url), mustOpenURL(t, url)
	var wg sync.WaitGroup
	got := make([][]byte, 20)
	for i := range got {
		st := a
		if i%2 == 1 {
			st = b
		}
		wg.Go(func() {
			v, err := st.GetOrCreateSecret(t.Context(), "jwt", []byte(fmt.Sprint(i)))
			if err != nil {
				t.Error(err)
			}
			got[i] = v
		})
	}
	wg.Wait()
	for _, v := range got {
		if !bytes.Equal(v, got[0]) {
			t.Fatalf("secrets differ: %q", got)
		}
	}
}

func TestUpsertMonitorAndBindings(t *testing.T) {
	st := mustOpen(t)
	ctx := t.Context()
	m := exam.Monitor{ID: "id1", ServerCode: "LAB-B", NPSN: "20100001", Status: exam.StatusOnline, LastPingAt: t0, UpdatedAt: t0}
	mustOK(t, "UpsertMonitors", st.UpsertMonitors(ctx, []exam.Monitor{m}))
	m.ID, m.Status, m.ConnectedStudents = "id2", exam.StatusSyncing, 30
	mustOK(t, "UpsertMonitors", st.UpsertMonitors(ctx, []exam.Monitor{m}))
	ms, err := st.ListMonitors(ctx, exam.MonitorFilter{})
	mustOK(t, "ListMonitors", err)
	if len(ms) != 1 || ms[0].ID != "id1" || ms[0].Status != exam.StatusSyncing || ms[0].ConnectedStudents != 30 || ms[0].LastPingAt.Location() != time.UTC {
		t.Fatalf("monitors = %+v", ms)
	}
	b := exam.ServerBinding{ServerCode: "LAB-B", NPSN: "20100001", HardwareID: "hw1", LicenseID: "l1", BoundAt: t0}
	_, err = st.BindServer(ctx, b)
	mustOK(t, "BindServer", err)
	b2 := b
	b2.LicenseID, b2.BoundAt = "l2", t0.Add(time.Hour)
	gotB, err := st.BindServer(ctx, b2)
	mustOK(t, "BindServer again", err)
	if gotB.LicenseID != "l2" || !gotB.BoundAt.Equal(t0) {
		t.Fatalf("binding = %+v", gotB)
	}
	b2.HardwareID, b2.NPSN = "hw2", "20100002"
	if _, err := st.BindServer(ctx, b2); !errors.Is(err, exam.ErrHardwareMismatch) {
		t.Fatalf("err = %v", err)
	}
	b2.HardwareID = "hw1"
	if _, err := st.BindServer(ctx, b2); !errors.Is(err, exam.ErrServerNPSNMismatch) {
		t.Fatalf("err = %v", err)
	}
}

func TestAcademicYears(t *testing.T) {
	st := mustOpen(t)
	ctx := t.Context()
	mustOK(t, "create", st.CreateAcademicYear(ctx, exam.AcademicYear{ID: "y1", Name: "2024/2025", IsActive: true, CreatedAt: t0}))
	mustOK(t, "create", st.CreateAcademicYear(ctx, exam.AcademicYear{ID: "y2", Name: "2025/2026", IsActive: true, CreatedAt: t0}))
	if err := st.CreateAcademicYear(ctx, exam.AcademicYear{ID: "y3", Name: "2025/2026", CreatedAt: t0}); !errors.Is(err, exam.ErrAcademicYearExists) {
		t.Fatalf("err = %v", err)
	}
	ay, err := st.ActivateAcademicYear(ctx, "y1")
	mustOK(t, "activate", err)
	if !ay.IsActive {
		t.Fatal("not active")
	}
	ays, err := st.ListAcademicYears(ctx)
	mustOK(t, "list", err)
	if len(ays) != 2 || ays[0].ID != "y2" || ays[0].IsActive || !ays[1].IsActive {
		t.Fatalf("years = %+v", ays)
	}
	if _, err := st.ActivateAcademicYear(ctx, "nope"); !errors.Is(err, exam.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
}

func TestExamsRoundTrip(t *testing.T) {
	st := mustOpen(t)
	ctx := t.Context()
	e := exam.Exam{ID: "e1", Title: "T", Subject: "S", NPSNs: []string{"20100002", "20100001"}, StartsAt: t0,
		EndsAt: t0.Add(time.Hour), DurationMinutes: 60, CreatedAt: t0,
		Questions: []exam.Question{{ID: "q1", Type: exam.SingleChoice, Text: "a\x00<b>", Options: []exam.Option{{ID: "a", Text: "x"}},
			Answer: []string{"a"}, Points: 2.5}}}
	mustOK(t, "CreateExam", st.CreateExam(ctx, e))
	got, err := st.GetExam(ctx, "e1")
	mustOK(t, "GetExam", err)
	if got.Questions[0].Text != e.Questions[0].Text || got.QuestionCount != 1 || !slices.Equal(got.NPSNs, e.NPSNs) {
		t.Fatalf("exam = %+v", got)
	}
	es, err := st.ListExams(ctx, exam.ExamFilter{NPSN: "20100001"})
	mustOK(t, "ListExams", err)
	if len(es) != 1 || es[0].Questions != nil {
		t.Fatalf("exams = %+v", es)
	}
	es, err = st.ListExams(ctx, exam.ExamFilter{NPSN: "20100009"})
	mustOK(t, "ListExams", err)
	if len(es) != 0 {
		t.Fatalf("exams = %+v", es)
	}
	mustOK(t, "DeleteExam", st.DeleteExam(ctx, "e1"))
	if rev, _ := st.ContentRevision(ctx); rev != 2 {
		t.Fatalf("revision = %d, want 2", rev)
	}
}

// TestLazyCommit: lazy writes go through connections with synchronous_commit
// off (and only they); the write is committed and visible; a failing
// statement reports its error and keeps nothing, and the next writes on a
// one-connection pool work.
func TestLazyCommit(t *testing.T) {
	st := mustOpen(t)
	ctx := t.Context()
	var setting string
	if err := st.lazy.QueryRow(ctx, `SHOW synchronous_commit`).Scan(&setting); err != nil || setting != "off" {
		t.Fatalf("lazy connections: synchronous_commit = %q, %v; want off", setting, err)
	}
	if err := st.pool.QueryRow(ctx, `SHOW synchronous_commit`).Scan(&setting); err != nil || setting != "on" {
		t.Fatalf("other connections: synchronous_commit = %q, %v; want on", setting, err)
	}
	cfg := st.lazy.Config()
	cfg.MaxConns = 1 // one connection: a broken one would fail every next write
	one, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	st.lazy.Close()
	st.lazy = one // closed by mustOpen's cleanup

	if _, err := st.pool.Exec(ctx, `CREATE TABLE lazy (k text PRIMARY KEY, n integer NOT NULL CHECK (n < 10))`); err != nil {
		t.Fatal(err)
	}
	const upsert = `INSERT INTO lazy (k, n) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET n = excluded.n RETURNING n`
	var n int
	scan := func(row pgx.Row) error { return row.Scan(&n) }
	if err := st.lazyCommit(ctx, upsert, []any{"a", 1}, scan); err != nil || n != 1 {
		t.Fatalf("lazyCommit = %d, %v", n, err)
	}
	if err := st.lazyCommit(ctx, upsert, []any{"a", 99}, scan); err == nil {
		t.Fatal("a write breaking the CHECK constraint succeeded")
	}
	for i := 2; i < 5; i++ {
		if err := st.lazyCommit(ctx, upsert, []any{"a", i}, scan); err != nil || n != i {
			t.Fatalf("lazyCommit after a failed one = %d, %v", n, err)
		}
	}
	if err := st.pool.QueryRow(ctx, `SELECT n FROM lazy WHERE k = 'a'`).Scan(&n); err != nil || n != 4 {
		t.Fatalf("stored n = %d, %v; want 4", n, err)
	}
}

// TestSaveAnswersStatements: a push is stored the same way whichever
// statement stores it. A server's first push of answers stored before (by
// another server) fails the first-time insert, which leaves nothing, and
// is stored by the upsert; the server is then remembered, and its next
// push goes straight to the upsert; an older answer never replaces a newer
// one on either path; another server still tries the first-time insert.
func TestSaveAnswersStatements(t *testing.T) {
	st := mustOpen(t)
	ctx := context.Background()
	push := func(server, sync string, answer string, at time.Time, members ...string) {
		t.Helper()
		var as []exam.Answer
		for _, m := range members {
			as = append(as, exam.Answer{ExamID: "e1", MemberID: m, QuestionID: "q1", Answer: answer, AnsweredAt: at, ServerCode: server})
		}
		r, err := st.SaveAnswers(ctx, exam.AnswerBatch{SyncID: sync, ServerCode: server, NPSN: "20100001", Checksum: "c-" + sync,
			Answers: as, ReceivedAt: t0})
		if err != nil || r.Duplicate || r.RecordCount != len(as) {
			t.Fatalf("push %s: %+v %v", sync, r, err)
		}
	}
	stored := func() map[string]string {
		t.Helper()
		as, err := st.ListAnswers(ctx, exam.AnswerQuery{ExamID: "e1"})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, a := range as {
			m[a.MemberID] = a.Answer + "@" + a.ServerCode + "/" + a.SyncID
		}
		return m
	}
	if !st.storedHints.firstTime("LAB-B", time.Now()) {
		t.Fatal("a server never seen does not try the first-time insert")
	}
	push("LAB-A", "s1", "a", t0, "m1", "m2")
	// m2 stored before: the first-time insert fails at it, after m3.
	push("LAB-B", "s2", "b", t0.Add(time.Minute), "m3", "m2")
	if st.storedHints.firstTime("LAB-B", time.Now()) {
		t.Fatal("LAB-B's push held a stored answer, but its next push would try the first-time insert")
	}
	if !st.storedHints.firstTime("LAB-A", time.Now()) {
		t.Fatal("LAB-A is remembered, though its pushes held only new answers")
	}
	// Straight to the upsert: m1 older than stored is kept, m4 is new.
	push("LAB-B", "s3", "c", t0.Add(-time.Minute), "m1", "m4")
	want := map[string]string{"m1": "a@LAB-A/s1", "m2": "b@LAB-B/s2", "m3": "b@LAB-B/s2", "m4": "c@LAB-B/s3"}
	if got := stored(); !maps.Equal(got, want) {
		t.Fatalf("stored %v, want %v", got, want)
	}
	var pushes, logs int
	if err := st.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM pushes), (SELECT count(*) FROM sync_logs)`).Scan(&pushes, &logs); err != nil {
		t.Fatal(err)
	}
	if pushes != 3 || logs != 3 {
		t.Fatalf("%d pushes and %d sync-log records, want 3 each (the failed first attempt left none)", pushes, logs)
	}
}
