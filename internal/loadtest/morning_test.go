//go:build loadtest

package loadtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/store/postgres"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/s3server"
	"github.com/seedhq/portal/pkg/client"
)

// The exam morning (docs/benchmarks.md, "Exam morning: 10,000 schools
// through a cache"): one exam with 60 MiB of media and 40 questions,
// assigned to every school; every school's lab server hands shakes, fetches
// its envelope (package format 3) from one of three portals, then every
// blob the envelope names through an nginx cache in front of the object
// store, checking each as labagent does. Beside it, fewer schools whose
// labagents read only format 2 fetch the same exam with its media encrypted
// for each school by the portals.
const (
	morningMediaFiles = 30
	morningQuestions  = 40
	morningBucket     = "exam-blobs"
	morningPrefix     = "portal"
	npsnMorningBase   = 50_000_000 // NPSNs of the morning's schools: 5xxxxxxx
)

// morningEnv reads an integer setting of the morning run.
func morningEnv(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a whole number", name, v)
	}
	return n
}

// morningConfig are the sizes of a run.
type morningConfig struct {
	schools     int // format 3 (MORNING_SCHOOLS)
	format2     int // format 2 (MORNING_FORMAT2_SCHOOLS)
	mediaMiB    int // MORNING_MEDIA_MIB, in morningMediaFiles files
	students    int // per school (MORNING_STUDENTS)
	concurrency int // lab servers at once (MORNING_CONCURRENCY)
	// decryptAll: every school decrypts and checks every media file
	// (MORNING_MEDIA_DECRYPT=all). By default (=one) every school checks
	// the SHA-256 of every blob's bytes against its name, and decrypts and
	// checks its question blobs, but decrypts and checks the plaintext of
	// one media file only, school i the file i mod 30 of its envelope (so
	// each file by a thirtieth of the schools): on two cores shared by
	// everything, decrypting and hashing 600 GB a second time would add
	// a quarter of an hour to the run (docs/benchmarks.md).
	decryptAll bool
}

// TestExamMorning is the national exam morning at scale (make
// loadtest-morning). Sizes: MORNING_SCHOOLS (10,000), MORNING_FORMAT2_SCHOOLS
// (200), MORNING_MEDIA_MIB (60), MORNING_STUDENTS (100 per school),
// MORNING_CONCURRENCY (250 lab servers at once), MORNING_MEDIA_DECRYPT
// (one, or all), MORNING_ORIGIN (bucket, or portals: the cache's origin).
func TestExamMorning(t *testing.T) {
	defer printSummary()
	cfg := morningConfig{
		schools:     morningEnv(t, "MORNING_SCHOOLS", 10_000),
		format2:     morningEnv(t, "MORNING_FORMAT2_SCHOOLS", 200),
		mediaMiB:    morningEnv(t, "MORNING_MEDIA_MIB", 60),
		students:    morningEnv(t, "MORNING_STUDENTS", 100),
		concurrency: max(1, morningEnv(t, "MORNING_CONCURRENCY", 250)),
		decryptAll:  os.Getenv("MORNING_MEDIA_DECRYPT") == "all",
	}
	if v := os.Getenv("MORNING_MEDIA_DECRYPT"); v != "" && v != "one" && v != "all" {
		t.Fatalf("MORNING_MEDIA_DECRYPT=%q: want all or one", v)
	}
	runMorning(t, cfg)
}

// morningSchool is one simulated lab server.
type morningSchool struct {
	npsn, code, hw, licence string
	format                  int // the newest package format its labagent reads: 2 or 3
	decrypt                 int // the media file it decrypts when not all (-1: all)
}

// morningResult is what one lab server measured.
type morningResult struct {
	took        time.Duration // handshake to a complete, verified package
	envelope    int64         // encrypted package bytes
	blobs       int           // blobs fetched and verified (format 3)
	media       int           // media files verified
	mediaBytes  int64         // their encrypted bytes
	questions   int
	packageForm int
}

func runMorning(t *testing.T, cfg morningConfig) {
	ctx := t.Context()
	bin := buildPortal(t)
	nginxBin := nginxBinary(t)
	publicURLFlag := portalHasFlag(t, bin, "blob-public-url")

	// The object store: versitygw, its bucket's exam objects readable by
	// anyone (what the cache fetches), nothing else.
	s3 := s3server.Start(t)
	s3.CreateBucket(t, morningBucket)
	policy := fmt.Sprintf(`{"Version":"2012-10-17","Statement":[{"Sid":"PublicExamBlobs","Effect":"Allow","Principal":"*",`+
		`"Action":["s3:GetObject"],"Resource":["arn:aws:s3:::%s/%s/exam/*"]}]}`, morningBucket, morningPrefix)
	if err := s3.Client(t).SetBucketPolicy(ctx, morningBucket, policy); err != nil {
		t.Fatalf("bucket policy: %v", err)
	}
	checkAnonymousReads(t, s3)

	// The cache: nginx, in front of a counting proxy in front of the origin.
	// The origin is the object store (MORNING_ORIGIN=bucket, the default)
	// or the portals' blob route (MORNING_ORIGIN=portals, and for a portal
	// without blob-public-url, whose envelopes' relative URLs are then
	// resolved against the cache's), the two topologies of
	// docs/operations.md, "Exam blobs through a CDN".
	switch os.Getenv("MORNING_ORIGIN") {
	case "", "bucket", "portals":
	default:
		t.Fatalf("MORNING_ORIGIN=%q: want bucket or portals", os.Getenv("MORNING_ORIGIN"))
	}
	fromBucket := publicURLFlag && os.Getenv("MORNING_ORIGIN") != "portals"
	originCount := &originCounter{}
	var origin *httptest.Server
	var f *fleet
	nginxAddr := testkit.FreeAddr(t)
	cacheBase := "http://" + nginxAddr + "/"
	var topology string
	if fromBucket {
		target, _ := url.Parse("http://" + s3.Addr)
		origin = httptest.NewServer(originCount.proxy(func() *url.URL { return target }))
		topology = "nginx → versitygw (anonymous GET of " + morningPrefix + "/exam/*)"
	} else {
		// The portals' addresses are known once they run: the proxy asks.
		var fp atomic.Pointer[fleet]
		origin = httptest.NewServer(originCount.proxy(func() *url.URL {
			u, _ := url.Parse(fp.Load().base())
			return u
		}))
		args := []string{"--blob-store", s3.URL(morningBucket, morningPrefix)}
		topology = "nginx → the portals' /api/v1/blobs/"
		if publicURLFlag {
			args = append(args, "--blob-public-url", cacheBase+"api/v1/blobs")
		} else {
			topology += " (this portal has no blob-public-url)"
		}
		f = startFleetWith(t, bin, 3, args, s3.Env())
		fp.Store(f)
	}
	t.Cleanup(origin.Close)
	originPath := "/" + morningBucket + "/" + morningPrefix + "/exam/"
	if !fromBucket {
		originPath = "/api/v1/blobs/"
	}
	ngx := startNginx(t, nginxBin, nginxAddr, strings.TrimPrefix(origin.URL, "http://"), originPath)
	if fromBucket {
		f = startFleetWith(t, bin, 3, []string{"--blob-store", s3.URL(morningBucket, morningPrefix),
			"--blob-public-url", cacheBase + "blobs"}, s3.Env())
	}
	t.Logf("topology: %s; nginx on %s, portals %v", topology, nginxAddr, f.bases)

	// The exam, through the portal's API: media uploaded, then the exam
	// assigned to every school.
	schools := make([]*morningSchool, 0, cfg.schools+cfg.format2)
	for i := range cfg.schools + cfg.format2 {
		form := 3
		if i >= cfg.schools {
			form = 2
		}
		npsn := fmt.Sprintf("%08d", npsnMorningBase+i)
		decrypt := -1
		if !cfg.decryptAll {
			decrypt = i % morningMediaFiles
		}
		schools = append(schools, &morningSchool{npsn: npsn, code: "MORNING-" + npsn, hw: "HW-MORNING-" + npsn, format: form, decrypt: decrypt})
	}
	seedStart := time.Now()
	op := mustClient(t, f.bases[0])
	login, _, err := op.Exam.Auth.Login(ctx, "admin", adminPassword)
	if err != nil {
		t.Fatal(err)
	}
	op.SetToken(login.Token)
	side := int(math.Sqrt(float64(cfg.mediaMiB<<20) / morningMediaFiles / 4))
	var refs []string
	var mediaTotal int64
	for i := range morningMediaFiles {
		m, _, err := op.Exam.Admin.UploadMedia(ctx, fmt.Sprintf("morning-%02d.png", i), bytes.NewReader(noisePNGOf(uint64(1000+i), side)))
		if err != nil {
			t.Fatalf("upload media %d: %v", i, err)
		}
		mediaTotal += m.Size
		refs = append(refs, m.Reference)
	}
	npsns := make([]string, len(schools))
	for i, s := range schools {
		npsns[i] = s.npsn
	}
	opts := []client.QuestionOption{{ID: "a", Text: "$x^2$"}, {ID: "b", Text: "$\\frac{1}{2}$"}, {ID: "c", Text: "C"}, {ID: "d", Text: "D"}}
	req := &client.ExamRequest{Title: "Ujian Nasional: Matematika", Subject: "MTK", NPSN: npsns,
		StartsAt: time.Now().Add(-time.Hour), EndsAt: time.Now().Add(24 * time.Hour), DurationMinutes: 120}
	for i := range morningQuestions {
		text := fmt.Sprintf("Soal %d: hitung $\\int_0^%d x^2\\,dx$.", i+1, i+1)
		if i < len(refs) {
			text = fmt.Sprintf("![Gambar %d](%s)\n\n%s", i+1, refs[i], text)
		}
		req.Questions = append(req.Questions, client.Question{ID: fmt.Sprintf("q%02d", i), Type: "single_choice", Format: "markdown",
			Text: text, Options: opts, Answer: []string{"a"}, Points: 1})
	}
	if _, _, err := op.Exam.Admin.CreateExam(ctx, req); err != nil {
		t.Fatalf("create the exam: %v", err)
	}

	// Licences and students through the service on the same database (the
	// portals share its secrets), 8 workers.
	pg, err := postgres.Open(ctx, f.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	svc, err := exam.NewService(ctx, pg, exam.Config{TempDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	parallel(t, len(schools), 8, func(i int) error {
		s := schools[i]
		lic, err := svc.GenerateLicense(ctx, exam.LicenseInput{NPSN: s.npsn, SchoolName: "SMA Negeri " + s.npsn,
			HardwareID: s.hw, MaxStudents: 1000, DurationDays: 30, OperatingMode: "SEMI_OFFLINE"})
		if err != nil {
			return fmt.Errorf("licence %s: %w", s.npsn, err)
		}
		s.licence = lic.License.Token
		return nil
	})
	if cfg.students > 0 {
		// Students straight into the store, all with one password hash
		// (the service's import derives and hashes each student's exam
		// password, a slow hash: minutes of CPU for a million students,
		// and no part of the morning).
		hash, err := exam.HashExamPassword("morning")
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		per := max(1, 20_000/cfg.students) // schools per import
		parallel(t, (len(schools)+per-1)/per, 4, func(b int) error {
			var ms []exam.Member
			for _, s := range schools[b*per : min(len(schools), (b+1)*per)] {
				for k := range cfg.students {
					ms = append(ms, exam.Member{ID: exam.NewID(), NPSN: s.npsn, Nama: fmt.Sprintf("Siswa %d Sekolah %s", k+1, s.npsn),
						Role: exam.RoleStudent, Username: fmt.Sprintf("s%s%03d", s.npsn, k), NISN: fmt.Sprintf("%02d%s", k%100, s.npsn),
						Kelas: "XII IPA " + strconv.Itoa(k%4+1), ExamPasswordHash: hash, CreatedAt: now, UpdatedAt: now})
				}
			}
			res, err := pg.ImportMembers(ctx, ms)
			if err != nil {
				return err
			}
			for _, r := range res {
				if r.Action != exam.ImportCreated {
					return fmt.Errorf("student import: row %d: %s %s", r.Row, r.Code, r.Message)
				}
			}
			return nil
		})
	}
	if t.Failed() {
		return
	}
	check := "every school decrypts and checks every media file"
	if !cfg.decryptAll {
		check = "every school checks every blob's SHA-256, decrypts and checks one media file (school i: file i mod 30)"
	}
	report("exam morning: set-up", "postgres, 3 instances", fmt.Sprintf("%d schools, %d students each, %d media (%.1f MiB), %d questions, in %s; %s; %s",
		len(schools), cfg.students, morningMediaFiles, float64(mediaTotal)/(1<<20), morningQuestions, time.Since(seedStart).Round(time.Second), topology, check), "-", nil)

	lab := newMorningLab(f, cacheBase, cfg.concurrency)
	format3 := schools[:cfg.schools]
	format2 := schools[cfg.schools:]
	var rows []morningRow
	if len(format3) > 0 {
		rows = append(rows, runMorningPhase(t, "format 3", lab, f, ngx, originCount, format3, cfg))
		checkCacheRanges(t, lab, format3[0])
		if fromBucket {
			reportOriginETag(t, s3, lab)
		}
	}
	if len(format2) > 0 {
		rows = append(rows, runMorningPhase(t, "format 2", lab, f, ngx, originCount, format2, cfg))
	}
	printMorningTable(t, rows)
}

// morningRow is one column of the side-by-side table: a phase's figures.
type morningRow struct {
	name                                      string
	schools                                   int
	wall                                      time.Duration
	portalBytes, cacheBytes                   int64
	portalCPU, pgCPU, nginxCPU, labCPU, s3CPU float64
	originGets                                int64
	originBytes                               int64
	distinctBlobs                             int
	p50, p95, max                             time.Duration
	envelopeMax                               int64
	cacheStatus                               map[string]int
}

// runMorningPhase runs every school of schools (bounded by
// cfg.concurrency), checks that every one verified its whole package, and
// reports the phase's figures.
func runMorningPhase(t *testing.T, name string, lab *morningLab, f *fleet, ngx *nginxProc, origin *originCounter, schools []*morningSchool, cfg morningConfig) morningRow {
	ctx := t.Context()
	label := fmt.Sprintf("%s, %d schools", name, len(schools))
	dbName := databaseName(f.dbURL)
	portal0, _ := f.cpuSeconds()
	pg0 := pgBackendCPU(dbName)
	nginx0, lab0, s30 := ngx.cpuSeconds(), selfCPU(), commCPU("versitygw")
	pb0, cb0 := lab.portalBytes.Load(), lab.cacheBytes.Load()
	og0, ob0 := origin.gets.Load(), origin.bytes.Load()
	ngx.rotateLog(t)

	results := make([]morningResult, len(schools))
	var failed atomic.Int64
	var firstErr atomic.Value
	var next atomic.Int64
	var wg sync.WaitGroup
	var done atomic.Int64
	start := time.Now()
	stopProgress := make(chan struct{})
	go func() {
		tick := time.NewTicker(30 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stopProgress:
				return
			case <-tick.C:
				fmt.Fprintf(os.Stderr, "exam morning %s: %d of %d schools verified after %s (%d failed)\n",
					name, done.Load(), len(schools), time.Since(start).Round(time.Second), failed.Load())
			}
		}
	}()
	for range min(cfg.concurrency, len(schools)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(schools) && ctx.Err() == nil; i = int(next.Add(1)) - 1 {
				sctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
				r, err := lab.morning(sctx, schools[i])
				cancel()
				if err != nil {
					if failed.Add(1) == 1 {
						firstErr.Store(fmt.Errorf("school %s: %w", schools[i].npsn, err))
					}
					continue
				}
				results[i] = r
				done.Add(1)
			}
		})
	}
	wg.Wait()
	close(stopProgress)
	wall := time.Since(start)
	portal1, _ := f.cpuSeconds()
	pg1 := pgBackendCPU(dbName)
	row := morningRow{name: name, schools: len(schools), wall: wall,
		portalBytes: lab.portalBytes.Load() - pb0, cacheBytes: lab.cacheBytes.Load() - cb0,
		portalCPU: portal1 - portal0, pgCPU: pg1 - pg0, nginxCPU: ngx.cpuSeconds() - nginx0, labCPU: selfCPU() - lab0,
		s3CPU: commCPU("versitygw") - s30, originGets: origin.gets.Load() - og0, originBytes: origin.bytes.Load() - ob0,
		cacheStatus: ngx.cacheStatus(t)}

	verified := int(done.Load())
	ok := verified == len(schools)
	report("exam morning: packages verified", label, fmt.Sprintf("%d of %d", verified, len(schools)), "all", ptr(ok))
	if !ok {
		t.Errorf("%s: %d of %d schools failed; the first: %v", name, failed.Load(), len(schools), firstErr.Load())
		return row
	}
	var took []time.Duration
	blobs := map[string]bool{}
	for _, r := range results {
		took = append(took, r.took)
		row.envelopeMax = max(row.envelopeMax, r.envelope)
	}
	for _, b := range lab.blobNames() {
		blobs[b] = true
	}
	row.distinctBlobs = len(blobs)
	slices.Sort(took)
	pct := func(p float64) time.Duration { return took[int(float64(len(took)-1)*p)] }
	row.p50, row.p95, row.max = pct(0.5), pct(0.95), took[len(took)-1]
	n := float64(len(schools))
	perSchool := float64(row.portalBytes) / n
	report("exam morning: wall time", label, fmt.Sprintf("%s (%.0f schools/s, %d at once)", wall.Round(time.Second), n/wall.Seconds(),
		min(cfg.concurrency, len(schools))), "-", nil)
	report("exam morning: time to a verified package", label, fmt.Sprintf("p50 %s, p95 %s, max %s", row.p50.Round(time.Millisecond),
		row.p95.Round(time.Millisecond), row.max.Round(time.Millisecond)), "-", nil)
	if name == "format 3" {
		report("exam morning: portal bytes out per school", label, fmt.Sprintf("%.1f KiB (envelope at most %.1f KiB)", perSchool/1024,
			float64(row.envelopeMax)/1024), "< 1 MiB", ptr(perSchool < 1<<20))
		report("exam morning: cache misses reaching the origin (GETs)", label,
			fmt.Sprintf("%d for %d distinct blobs (%.1f MiB)", row.originGets, row.distinctBlobs, float64(row.originBytes)/(1<<20)),
			"≈ one per blob", ptr(row.originGets <= int64(row.distinctBlobs)))
	} else {
		report("exam morning: portal bytes out per school", label, fmt.Sprintf("%.1f MiB", perSchool/(1<<20)), "-", nil)
	}
	report("exam morning: cache bytes per school", label, fmt.Sprintf("%.1f MiB", float64(row.cacheBytes)/n/(1<<20)), "-", nil)
	report("exam morning: CPU per school", label, fmt.Sprintf("portals %.1f ms, PostgreSQL %.1f ms, nginx %.1f ms, versitygw %.2f ms, lab servers (test process) %.1f ms",
		1000*row.portalCPU/n, 1000*row.pgCPU/n, 1000*row.nginxCPU/n, 1000*row.s3CPU/n, 1000*row.labCPU/n), "-", nil)
	if len(row.cacheStatus) > 0 {
		report("exam morning: nginx cache status of the blob requests", label, fmt.Sprint(row.cacheStatus), "-", nil)
	}
	return row
}

// printMorningTable prints the phases side by side, per school.
func printMorningTable(t *testing.T, rows []morningRow) {
	if len(rows) == 0 {
		return
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "\n==== exam morning, per school ====\nper school")
	for _, r := range rows {
		fmt.Fprintf(tw, "\t%s (%d schools)", r.name, r.schools)
	}
	if len(rows) == 2 {
		fmt.Fprint(tw, "\tformat 2 / format 3")
	}
	fmt.Fprintln(tw)
	line := func(what string, v func(morningRow) float64, format string) {
		fmt.Fprint(tw, what)
		for _, r := range rows {
			fmt.Fprintf(tw, "\t"+format, v(r))
		}
		if len(rows) == 2 && v(rows[0]) > 0 {
			fmt.Fprintf(tw, "\t%.1f×", v(rows[1])/v(rows[0]))
		}
		fmt.Fprintln(tw)
	}
	per := func(x float64, r morningRow) float64 { return x / float64(r.schools) }
	line("portal bytes out (KiB)", func(r morningRow) float64 { return per(float64(r.portalBytes), r) / 1024 }, "%.1f")
	line("cache bytes out (MiB)", func(r morningRow) float64 { return per(float64(r.cacheBytes), r) / (1 << 20) }, "%.1f")
	line("portal CPU (ms)", func(r morningRow) float64 { return 1000 * per(r.portalCPU, r) }, "%.1f")
	line("PostgreSQL CPU (ms)", func(r morningRow) float64 { return 1000 * per(r.pgCPU, r) }, "%.1f")
	line("nginx CPU (ms)", func(r morningRow) float64 { return 1000 * per(r.nginxCPU, r) }, "%.1f")
	line("versitygw CPU (ms)", func(r morningRow) float64 { return 1000 * per(r.s3CPU, r) }, "%.2f")
	line("lab servers' CPU, test process (ms)", func(r morningRow) float64 { return 1000 * per(r.labCPU, r) }, "%.1f")
	fmt.Fprint(tw, "origin GETs, cache misses (in all)")
	for _, r := range rows {
		fmt.Fprintf(tw, "\t%d", r.originGets)
	}
	fmt.Fprintln(tw)
	for _, p := range []struct {
		name string
		v    func(morningRow) time.Duration
	}{{"time to verified package p50", func(r morningRow) time.Duration { return r.p50 }},
		{"p95", func(r morningRow) time.Duration { return r.p95 }},
		{"max", func(r morningRow) time.Duration { return r.max }},
		{"wall time of the phase", func(r morningRow) time.Duration { return r.wall }}} {
		fmt.Fprint(tw, p.name)
		for _, r := range rows {
			fmt.Fprintf(tw, "\t%s", p.v(r).Round(time.Millisecond))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	fmt.Print(b.String())
}

// parallel runs do(0..n-1) on workers goroutines, failing the test with
// the first error.
func parallel(t *testing.T, n, workers int, do func(i int) error) {
	t.Helper()
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				if err := do(i); err != nil {
					once.Do(func() { first = err })
					return
				}
			}
		})
	}
	wg.Wait()
	if first != nil {
		t.Fatal(first)
	}
}

// noisePNGOf is a side×side PNG of random pixels: 4·side² bytes that do not
// compress, like a photograph.
func noisePNGOf(seed uint64, side int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, side, side))
	r := rand.New(rand.NewPCG(seed, 11))
	for i := 0; i+8 <= len(img.Pix); i += 8 {
		v := r.Uint64()
		for k := range 8 {
			img.Pix[i+k] = byte(v >> (8 * k))
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

// ---- the simulated lab servers ----

// morningLab is the lab servers' side: HTTP transports that count the
// bytes read from the portals and from the cache (on the TCP connections:
// headers included), and the check of each package.
type morningLab struct {
	f           *fleet
	cacheBase   string
	portal      *http.Client // format 3 labagents: X-Package-Formats "1, 2, 3" (pkg/client's)
	portalOld   *http.Client // format 2 labagents: "1, 2"
	cache       *http.Client
	portalBytes atomic.Int64
	cacheBytes  atomic.Int64
	mu          sync.Mutex
	blobs       map[string]bool
}

func newMorningLab(f *fleet, cacheBase string, conns int) *morningLab {
	l := &morningLab{f: f, cacheBase: cacheBase, blobs: map[string]bool{}}
	transport := func(n *atomic.Int64) *http.Transport {
		d := &net.Dialer{Timeout: 10 * time.Second}
		return &http.Transport{
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				c, err := d.DialContext(ctx, network, addr)
				if err != nil {
					return nil, err
				}
				return &countingConn{Conn: c, n: n}, nil
			},
			MaxIdleConns: 2 * conns, MaxIdleConnsPerHost: conns, IdleConnTimeout: time.Minute,
			DisableCompression: true, ReadBufferSize: 64 << 10, WriteBufferSize: 16 << 10,
		}
	}
	pt := transport(&l.portalBytes)
	l.portal = &http.Client{Transport: pt}
	l.portalOld = &http.Client{Transport: formatsTransport{base: pt, formats: "1, 2"}}
	l.cache = &http.Client{Transport: transport(&l.cacheBytes)}
	return l
}

// countingConn counts the bytes read from a connection.
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// formatsTransport names older package formats, as a labagent of the
// release before format 3 does.
type formatsTransport struct {
	base    http.RoundTripper
	formats string
}

func (t formatsTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get(exam.PackageFormatsHeader) != "" {
		r = r.Clone(r.Context())
		r.Header.Set(exam.PackageFormatsHeader, t.formats)
	}
	return t.base.RoundTrip(r)
}

// client is a pkg/client Client on the next portal in turn (a round-robin
// balancer), for a labagent reading up to format.
func (l *morningLab) client(format int, token string) *client.Client {
	hc := l.portal
	if format < exam.BlobsPackageFormat {
		hc = l.portalOld
	}
	c, err := client.NewClient(l.f.base(), client.WithHTTPClient(hc))
	if err != nil {
		panic(err)
	}
	if token != "" {
		c.SetToken(token)
	}
	return c
}

func (l *morningLab) blobNames() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for b := range l.blobs {
		out = append(out, b)
	}
	return out
}

// morning is one lab server's morning, as labagent's syncer does it: the
// handshake (its own server token and the school's package key), the
// envelope downloaded and checked against its announced SHA-256, decrypted
// and decoded, its plaintext version checked; then, for format 3, every
// question and stimulus blob (pkg/client's FetchContent: each checked
// against its name, decrypted, decoded) and every media blob through the
// cache (DownloadBlob checks the SHA-256 of the sealed bytes against the
// blob's name), decrypted with its content key and checked against the
// media's SHA-256 and size; for format 2, every media file encrypted for the
// school by the portal, decrypted with the package key and checked the
// same way.
func (l *morningLab) morning(ctx context.Context, s *morningSchool) (morningResult, error) {
	var r morningResult
	start := time.Now()
	v, _, err := l.client(s.format, "").Exam.Sync.VerifyServer(ctx, &client.VerifyServerRequest{
		ServerCode: s.code, NPSN: s.npsn, HardwareID: s.hw, LicenseToken: s.licence})
	if err != nil {
		return r, fmt.Errorf("handshake: %w", err)
	}
	var pkg bytes.Buffer
	d, _, err := l.client(s.format, v.AccessToken).Exam.Sync.DownloadPackage(ctx, s.code, &pkg, nil)
	if err != nil {
		return r, fmt.Errorf("package: %w", err)
	}
	if !d.Verified {
		return r, fmt.Errorf("package: not verified (status %d, %d of %d bytes)", d.Status, d.Written, d.Size)
	}
	r.envelope = d.Written
	p, err := client.DecodePackage(bytes.NewReader(pkg.Bytes()), v.PackageKey)
	if err != nil {
		return r, fmt.Errorf("package: %w", err)
	}
	if d.Version != "" && !strings.EqualFold(p.Version, d.Version) {
		return r, fmt.Errorf("package: plaintext version %s, the portal announced %s", p.Version, d.Version)
	}
	r.packageForm = p.Format
	if p.Format != s.format {
		return r, fmt.Errorf("package of format %d, want %d", p.Format, s.format)
	}
	if len(p.Exams) != 1 {
		return r, fmt.Errorf("package with %d exams, want 1", len(p.Exams))
	}
	bc, err := client.NewClient(l.cacheBase, client.WithHTTPClient(l.cache))
	if err != nil {
		return r, err
	}
	if p.Format == exam.BlobsPackageFormat {
		if err := bc.Exam.Sync.FetchContent(ctx, p); err != nil {
			return r, fmt.Errorf("content blobs: %w", err)
		}
		e := p.Exams[0]
		r.blobs = len(e.QuestionBlobs) + len(e.StimulusBlobs)
		l.mu.Lock()
		for _, b := range slices.Concat(e.QuestionBlobs, e.StimulusBlobs) {
			l.blobs[b.Name] = true
		}
		l.mu.Unlock()
	}
	e := p.Exams[0]
	r.questions = len(e.Questions)
	if r.questions != morningQuestions {
		return r, fmt.Errorf("%d questions, want %d", r.questions, morningQuestions)
	}
	if len(e.Media) != morningMediaFiles {
		return r, fmt.Errorf("%d media, want %d", len(e.Media), morningMediaFiles)
	}
	for i, m := range e.Media {
		var n int64
		if p.Format == exam.BlobsPackageFormat {
			if m.Blob == nil {
				return r, fmt.Errorf("media %s: no blob in a package of format 3", m.SHA256[:12])
			}
			check := verifyMedia
			if s.decrypt >= 0 && s.decrypt != i {
				check = verifyBlobOnly
			}
			n, err = check(m, m.Blob.Key, func(w io.Writer) (*client.PackageDownload, error) {
				d, _, err := bc.Exam.Sync.DownloadBlob(ctx, m.Blob, w, nil)
				if err == nil && !d.Verified {
					err = fmt.Errorf("blob not verified (status %d, %d of %d bytes)", d.Status, d.Written, d.Size)
				}
				return d, err
			})
			l.mu.Lock()
			l.blobs[m.Blob.Name] = true
			l.mu.Unlock()
			r.blobs++
		} else {
			c := l.client(s.format, v.AccessToken)
			n, err = verifyMedia(m, v.PackageKey, func(w io.Writer) (*client.PackageDownload, error) {
				d, _, err := c.Exam.Sync.DownloadMedia(ctx, s.code, m.SHA256, w, nil)
				if err == nil && !d.Complete() {
					err = fmt.Errorf("incomplete (status %d, %d of %d bytes)", d.Status, d.Written, d.Size)
				}
				return d, err
			})
		}
		if err != nil {
			return r, fmt.Errorf("media %s: %w", m.SHA256[:12], err)
		}
		r.media++
		r.mediaBytes += n
	}
	r.took = time.Since(start)
	return r, nil
}

// verifyMedia streams the encrypted bytes that download writes through
// the package decrypter with key and checks the plaintext against m's
// size and SHA-256: labagent's check (mediastore.Install), in memory
// instead of through a file. It returns the encrypted bytes read.
func verifyMedia(m client.PackageMedia, key []byte, download func(io.Writer) (*client.PackageDownload, error)) (int64, error) {
	pr, pw := io.Pipe()
	checked := make(chan error, 1)
	go func() {
		err := func() error {
			dec, err := client.NewPackageDecrypter(key, pr)
			if err != nil {
				return err
			}
			h := sha256.New()
			n, err := io.Copy(h, io.LimitReader(dec, m.Size+1))
			switch {
			case err != nil:
				return err
			case n != m.Size:
				return fmt.Errorf("%d bytes decrypted, the package says %d", n, m.Size)
			case hex.EncodeToString(h.Sum(nil)) != m.SHA256:
				return errors.New("the decrypted bytes' SHA-256 differs from the package's")
			}
			if rest, _ := io.Copy(io.Discard, pr); rest != 0 {
				return fmt.Errorf("%d bytes after the last chunk", rest)
			}
			return nil
		}()
		pr.CloseWithError(err)
		checked <- err
	}()
	d, err := download(pw)
	pw.CloseWithError(err)
	cerr := <-checked
	var n int64
	if d != nil {
		n = d.Written
	}
	if err != nil {
		return n, err
	}
	return n, cerr
}

// verifyBlobOnly has download write the blob's bytes, checked by
// DownloadBlob against the blob's name, without decrypting them.
func verifyBlobOnly(_ client.PackageMedia, _ []byte, download func(io.Writer) (*client.PackageDownload, error)) (int64, error) {
	d, err := download(io.Discard)
	if d == nil {
		return 0, err
	}
	return d.Written, err
}

// checkCacheRanges checks that the cache answers ranges of a cached blob
// from the cache, byte for byte: a plain Range, and labagent's resume
// (Range with If-Range the blob's name), whose answer it reports.
func checkCacheRanges(t *testing.T, l *morningLab, s *morningSchool) {
	t.Helper()
	names := l.blobNames()
	if len(names) == 0 || t.Failed() {
		return
	}
	// The largest blob: a media file.
	var name string
	var whole []byte
	for _, n := range names {
		b := cacheGet(t, l, n, nil)
		if len(b) > len(whole) {
			name, whole = n, b
		}
	}
	if sum := sha256.Sum256(whole); hex.EncodeToString(sum[:]) != name {
		t.Fatalf("cache: blob %s has SHA-256 %x", name[:12], sum)
	}
	from := int64(len(whole)) / 3
	to := min(from+99_999, int64(len(whole))-1)
	hdr := map[string]string{"Range": fmt.Sprintf("bytes=%d-%d", from, to)}
	resp, body := cacheDo(t, l, name, hdr)
	ok := resp.StatusCode == http.StatusPartialContent && bytes.Equal(body, whole[from:to+1])
	report("exam morning: Range through the cache", "nginx", fmt.Sprintf("%d, %s, %d bytes, X-Cache %s", resp.StatusCode,
		resp.Header.Get("Content-Range"), len(body), resp.Header.Get("X-Cache")), "206, the bytes of the blob", ptr(ok))
	if !ok {
		t.Errorf("Range %s of blob %s through the cache: %d, %d bytes, content matches: %v", hdr["Range"], name[:12],
			resp.StatusCode, len(body), bytes.Equal(body, whole[from:to+1]))
	}
	hdr["If-Range"] = `"` + name + `"`
	resp, body = cacheDo(t, l, name, hdr)
	resumes := resp.StatusCode == http.StatusPartialContent && bytes.Equal(body, whole[from:to+1])
	report("exam morning: labagent's resume through the cache (Range, If-Range: the blob's name)", "nginx",
		fmt.Sprintf("%d, %d bytes, ETag %s", resp.StatusCode, len(body), resp.Header.Get("ETag")), "206", ptr(resumes))
}

func cacheDo(t *testing.T, l *morningLab, name string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, l.cacheBase+"blobs/"+name, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := l.cache.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func cacheGet(t *testing.T, l *morningLab, name string, hdr map[string]string) []byte {
	t.Helper()
	resp, b := cacheDo(t, l, name, hdr)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s through the cache: %d", name[:12], resp.StatusCode)
	}
	return b
}

// checkAnonymousReads checks the bucket policy on the server: an object
// under the exam prefix is read without credentials, one elsewhere in the
// bucket is refused.
func checkAnonymousReads(t *testing.T, s3 *s3server.Server) {
	t.Helper()
	ctx := t.Context()
	c := s3.Client(t)
	for _, key := range []string{morningPrefix + "/exam/probe", morningPrefix + "/receipts/probe"} {
		if _, err := c.PutObject(ctx, morningBucket, key, strings.NewReader("probe"), 5, minio.PutObjectOptions{}); err != nil {
			t.Fatalf("put %s: %v", key, err)
		}
		resp, err := http.Get("http://" + s3.Addr + "/" + morningBucket + "/" + key)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := http.StatusOK
		if !strings.Contains(key, "/exam/") {
			want = http.StatusForbidden
		}
		if resp.StatusCode != want {
			t.Fatalf("anonymous GET of %s from the object store: %d, want %d", key, resp.StatusCode, want)
		}
		if err := c.RemoveObject(ctx, morningBucket, key, minio.RemoveObjectOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// reportOriginETag reports the ETag the object store gives a blob: not its
// name (S3's is an MD5), hence the cache's own ETag (nginxConf).
func reportOriginETag(t *testing.T, s3 *s3server.Server, l *morningLab) {
	names := l.blobNames()
	if len(names) == 0 {
		return
	}
	resp, err := http.Head("http://" + s3.Addr + "/" + morningBucket + "/" + morningPrefix + "/exam/" + names[0])
	if err != nil {
		t.Error(err)
		return
	}
	resp.Body.Close()
	report("exam morning: the object store's ETag of a blob", "versitygw", fmt.Sprintf("%d, ETag %s for the blob %s…", resp.StatusCode,
		resp.Header.Get("ETag"), names[0][:12]), "-", nil)
}

// ---- the origin counter ----

// originCounter counts the requests that reach the cache's origin (cache
// misses) and the bytes answered.
type originCounter struct {
	gets, other, bytes atomic.Int64
}

func (o *originCounter) proxy(target func() *url.URL) http.Handler {
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target())
			r.Out.Host = r.In.Host
		},
		ModifyResponse: func(resp *http.Response) error {
			resp.Body = &countingBody{ReadCloser: resp.Body, n: new(atomic.Int64), done: func(n int64) { o.bytes.Add(n) }}
			return nil
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			o.gets.Add(1)
		} else {
			o.other.Add(1)
		}
		rp.ServeHTTP(w, r)
	})
}

// ---- nginx ----

// nginxBinary finds nginx (Debian's nginx-light or nginx; make
// loadtest-morning installs it). Without it the test is skipped loudly, or
// fails when CI=true.
func nginxBinary(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/sbin/nginx", "/usr/local/sbin/nginx"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	msg := "NGINX IS NOT INSTALLED: the exam morning through a cache was NOT run (apt-get install nginx-light; make loadtest-morning installs it)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// nginxProc is a running nginx.
type nginxProc struct {
	dir string
	cmd *exec.Cmd
}

// nginxConf is the cache in front of the origin: every blob cached whole,
// keyed by its URI, a year (blobs never change under a name); one origin
// read per blob however many ask at once (proxy_cache_lock); ranges
// answered from the cached copy (nginx asks the origin for the whole blob
// on a miss). Blobs are at /blobs/<name> (the portal's blob-public-url) and
// at /api/v1/blobs/<name> (the portal's own path, for envelopes naming
// blobs relative to the portal's URL, resolved against the cache's). The
// blob's ETag is its name, so that labagent's resume
// (If-Range: the name) gets its range whatever ETag the object store gives.
const nginxConf = `worker_processes 2;
pid {{dir}}/nginx.pid;
error_log {{dir}}/error.log warn;
events { worker_connections 8192; }
http {
    client_body_temp_path {{dir}}/tmp/client;
    proxy_temp_path {{dir}}/tmp/proxy;
    fastcgi_temp_path {{dir}}/tmp/fastcgi;
    uwsgi_temp_path {{dir}}/tmp/uwsgi;
    scgi_temp_path {{dir}}/tmp/scgi;
    log_format cache '$upstream_cache_status $status $body_bytes_sent';
    access_log {{dir}}/access.log cache buffer=256k flush=5s;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    keepalive_timeout 120s;
    proxy_cache_path {{dir}}/cache levels=1:2 keys_zone=blobs:16m max_size=20g inactive=7d use_temp_path=off;
    upstream origin {
        server {{origin}};
        keepalive 32;
    }
    server {
        listen {{listen}} backlog=4096;
        location ~ "^/(?:blobs|api/v1/blobs)/(?<blob>[0-9a-f]{64})$" {
            limit_except GET { deny all; }
            proxy_pass http://origin{{originPath}}$blob;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_cache blobs;
            proxy_cache_key $uri;
            proxy_cache_valid 200 365d;
            proxy_cache_lock on;
            proxy_cache_lock_timeout 120s;
            proxy_cache_lock_age 120s;
            proxy_force_ranges on;
            proxy_ignore_headers Set-Cookie Expires;
            proxy_hide_header ETag;
            proxy_hide_header Cache-Control;
            proxy_hide_header Set-Cookie;
            add_header ETag "\"$blob\"" always;
            add_header Cache-Control "public, max-age=31536000, immutable" always;
            add_header X-Cache $upstream_cache_status always;
        }
        location / { return 404; }
    }
}
`

// startNginx runs nginx on listen, caching origin (host:port, blobs under
// originPath), as a process of its own, not as root: its configuration,
// pid, cache, temporary files and logs in a directory of its own.
func startNginx(t *testing.T, bin, listen, origin, originPath string) *nginxProc {
	t.Helper()
	dir, err := os.MkdirTemp("", "morning-nginx-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, d := range []string{"tmp", "cache"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	conf := strings.NewReplacer("{{dir}}", dir, "{{origin}}", origin, "{{listen}}", listen, "{{originPath}}", originPath).Replace(nginxConf)
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", filepath.Join(dir, "nginx.conf"), "-e", filepath.Join(dir, "error.log"), "-g", "daemon off;")
	if os.Geteuid() == 0 {
		// Run as nobody: nginx started by root keeps a root master.
		const nobody = 65534
		if err := chownTree(dir, nobody, nobody); err != nil {
			t.Fatal(err)
		}
		os.Chmod(dir, 0o755)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start nginx: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; {
		if c, err := net.DialTimeout("tcp", listen, time.Second); err == nil {
			c.Close()
			break
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Fatalf("nginx exited before listening on %s: %s\n%s", listen, out.String(), log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginx did not listen on %s within 30 s", listen)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return &nginxProc{dir: dir, cmd: cmd}
}

func chownTree(dir string, uid, gid int) error {
	return filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}

// cpuSeconds is the CPU time of nginx's master and workers so far.
func (n *nginxProc) cpuSeconds() float64 {
	master := n.cmd.Process.Pid
	u, s, _, _ := procCPU(master)
	total := u + s
	for _, pid := range childPIDs(master) {
		u, s, _, _ := procCPU(pid)
		total += u + s
	}
	return total
}

// rotateLog starts a new access log (the cache status of one phase's
// requests).
func (n *nginxProc) rotateLog(t *testing.T) {
	os.Remove(filepath.Join(n.dir, "access.log"))
	n.cmd.Process.Signal(syscall.SIGUSR1) // reopen the log files
	time.Sleep(200 * time.Millisecond)
}

// cacheStatus counts the access log's requests by cache status.
func (n *nginxProc) cacheStatus(t *testing.T) map[string]int {
	n.cmd.Process.Signal(syscall.SIGUSR1) // flush the buffered log
	time.Sleep(500 * time.Millisecond)
	b, err := os.ReadFile(filepath.Join(n.dir, "access.log"))
	if err != nil {
		return nil
	}
	out := map[string]int{}
	for line := range strings.Lines(string(b)) {
		status, _, _ := strings.Cut(line, " ")
		out[status]++
	}
	return out
}

// childPIDs returns the processes whose parent is pid.
func childPIDs(pid int) []int {
	var out []int
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		p, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, p)
		}
	}
	return out
}

// commCPU is the CPU time so far of the processes whose command name
// starts with prefix.
func commCPU(prefix string) float64 {
	var total float64
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if strings.HasPrefix(strings.TrimSpace(string(comm)), prefix) {
			u, s, _, _ := procCPU(pid)
			total += u + s
		}
	}
	return total
}

// databaseName is the database of a PostgreSQL URL.
func databaseName(dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Path, "/")
}

// pgBackendCPU is the CPU time so far of the PostgreSQL backends connected
// to the database db (their process titles name it): this run's share of
// PostgreSQL on a machine where other tests use the same server. The
// server's shared processes (WAL writer, checkpointer) are not counted,
// nor backends that have exited (the portals keep their pools open).
func pgBackendCPU(db string) float64 {
	var total float64
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if !bytes.HasPrefix(cmdline, []byte("postgres: ")) || !bytes.Contains(cmdline, []byte(" "+db+" ")) {
			continue
		}
		u, s, _, _ := procCPU(pid)
		total += u + s
	}
	return total
}

// selfCPU is the CPU time of the test process so far: the simulated lab
// servers.
func selfCPU() float64 {
	u, s, _, _ := procCPU(os.Getpid())
	return u + s
}

// portalHasFlag reports whether "portal serve" takes --flag.
func portalHasFlag(t *testing.T, bin, flag string) bool {
	t.Helper()
	out, _ := exec.Command(bin, "serve", "--help").CombinedOutput()
	return bytes.Contains(out, []byte("--"+flag))
}
