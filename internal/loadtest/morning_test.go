//go:build loadtest

package loadtest

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/sortid"
	"github.com/seedhq/portal/internal/store/postgres"
	"github.com/seedhq/portal/internal/testkit"
	"github.com/seedhq/portal/internal/testkit/s3server"
	"github.com/seedhq/portal/pkg/client"
	"github.com/seedhq/portal/pkg/labwire"
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
		hash, err := labwire.HashExamPassword("morning")
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		per := max(1, 20_000/cfg.students) // schools per import
		parallel(t, (len(schools)+per-1)/per, 4, func(b int) error {
			var ms []exam.Member
			for _, s := range schools[b*per : min(len(schools), (b+1)*per)] {
				for k := range cfg.students {
					ms = append(ms, exam.Member{ID: sortid.New(), NPSN: s.npsn, Nama: fmt.Sprintf("Siswa %d Sekolah %s", k+1, s.npsn),
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
