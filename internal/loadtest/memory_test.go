//go:build loadtest

package loadtest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/seedhq/portal/pkg/client"
)

// ---- 3. peak memory of the portal binary under 20 concurrent pulls ----

const adminPassword = "loadtest-admin-password"

// buildPortal builds the real binary once into a temporary directory.
func buildPortal(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "portal")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "github.com/seedhq/portal/cmd/portal")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/portal: %v\n%s", err, out)
	}
	return bin
}

// startPortal runs "portal serve" on a free port of 127.0.0.1 and returns
// its process and base URL, read from its "listening" log line.
func startPortal(t *testing.T, bin, dbURL, dataDir string) (*exec.Cmd, string) {
	t.Helper()
	return startPortalWith(t, bin, dbURL, dataDir, nil, nil)
}

// startPortalWith is startPortal with more flags of "portal serve" and more
// environment variables.
func startPortalWith(t *testing.T, bin, dbURL, dataDir string, extraArgs, extraEnv []string) (*exec.Cmd, string) {
	t.Helper()
	args := []string{"serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir}
	if dbURL != "" {
		args = append(args, "--database-url", dbURL)
	}
	args = append(args, extraArgs...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), "PORTAL_ADMIN_PASSWORD="+adminPassword), extraEnv...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		found := false
		for sc.Scan() {
			line := sc.Text()
			if !found && strings.Contains(line, "msg=listening") {
				for _, f := range strings.Fields(line) {
					if a, ok := strings.CutPrefix(f, "addr="); ok {
						addr <- a
						found = true
					}
				}
			}
			if strings.Contains(line, "level=ERROR") || strings.Contains(line, "level=WARN") {
				fmt.Fprintln(os.Stderr, "portal:", line)
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	select {
	case a := <-addr:
		return cmd, "http://" + a
	case <-time.After(60 * time.Second):
		t.Fatal("portal did not log its listening address within 60 s")
	}
	return nil, ""
}

// procStatus returns a field of /proc/<pid>/status in kB.
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return -1
}

func randomText(r *rand.ChaCha8, n int) string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "
	b := make([]byte, n)
	r.Read(b)
	for i := range b {
		b[i] = letters[int(b[i])%len(letters)]
	}
	b[0], b[n-1] = 'S', '.'
	return string(b)
}

func runPullMemory(t *testing.T, bin, dbURL string) {
	kind := "bolt"
	if dbURL != "" {
		kind = "postgres"
	}
	ctx := t.Context()
	dataDir := filepath.Join(t.TempDir(), "data")
	cmd, base := startPortal(t, bin, dbURL, dataDir)
	pid := cmd.Process.Pid

	c, err := client.NewClient(base)
	if err != nil {
		t.Fatal(err)
	}
	login, _, err := c.Exam.Auth.Login(ctx, "admin", adminPassword)
	if err != nil {
		t.Fatal(err)
	}
	c.SetToken(login.Token)

	// 20 lab servers of one school.
	tokens := make([]string, pullServers)
	for i := range tokens {
		hw := fmt.Sprintf("HW-PULL-%02d", i)
		lic, _, err := c.Exam.Licenses.Generate(ctx, &client.LicenseRequest{NPSN: npsnPull, SchoolName: "SMA Beban",
			HardwareID: hw, MaxStudents: 500, DurationDays: 30, OperatingMode: "SEMI_OFFLINE"})
		if err != nil {
			t.Fatal(err)
		}
		v, _, err := c.Exam.Sync.VerifyServer(ctx, &client.VerifyServerRequest{ServerCode: fmt.Sprintf("PULL-%02d", i),
			NPSN: npsnPull, HardwareID: hw, LicenseToken: lic.LicenseToken})
		if err != nil {
			t.Fatal(err)
		}
		tokens[i] = v.AccessToken
	}

	// 40 exams x 5 questions x 1 MiB of text = 200 MiB of package.
	start := time.Now()
	rng := rand.NewChaCha8([32]byte{1})
	for e := range pullExams {
		qs := make([]client.Question, pullQuestions)
		for q := range qs {
			qs[q] = client.Question{ID: fmt.Sprintf("q%d", q), Type: "essay", Text: randomText(rng, pullQuestionSize)}
		}
		if _, _, err := c.Exam.Admin.CreateExam(ctx, &client.ExamRequest{Title: fmt.Sprintf("Ujian %02d", e), Subject: "Beban",
			NPSN: []string{npsnPull}, StartsAt: t0, EndsAt: t0.Add(4 * time.Hour), DurationMinutes: 90, Questions: qs}); err != nil {
			t.Fatalf("create exam %d: %v", e, err)
		}
	}
	t.Logf("%s: created %d exams of %d MiB via POST /admin/exams in %s; portal VmHWM so far %d MB",
		kind, pullExams, pullQuestions*pullQuestionSize>>20, time.Since(start).Round(time.Millisecond), procStatus(pid, "VmHWM")>>10)

	hc := &http.Client{Transport: newTransport(pullServers)}
	defer hc.CloseIdleConnections()
	pull := func(ctx context.Context, i int) (int64, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet,
			fmt.Sprintf("%s/api/v1/sync/pull-questions?serverCode=PULL-%02d&format=binary", base, i), nil)
		req.Header.Set("Authorization", "Bearer "+tokens[i])
		resp, err := hc.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
			return 0, fmt.Errorf("pull: %d %s", resp.StatusCode, b)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		if err == nil && resp.ContentLength >= 0 && n != resp.ContentLength {
			err = fmt.Errorf("pull: read %d of %d bytes", n, resp.ContentLength)
		}
		return n, err
	}

	// One pull builds the package.
	start = time.Now()
	size, err := pull(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	buildHWM := procStatus(pid, "VmHWM")
	t.Logf("%s: first pull (builds the package) %d MB in %s; portal VmHWM after the build %d MB, VmRSS %d MB",
		kind, size>>20, time.Since(start).Round(time.Millisecond), buildHWM>>10, procStatus(pid, "VmRSS")>>10)

	// The build reads every exam, and on bbolt those pages of the memory-mapped
	// database file stay resident (reclaimable page cache, but counted in
	// RSS). Pulls are measured on a portal restarted on the same data, as a
	// portal that built its package earlier would be; the server tokens stay
	// valid because the signing secret is in the store.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("portal exit after SIGTERM: %v", err)
	}
	cmd, base = startPortal(t, bin, dbURL, dataDir)
	pid = cmd.Process.Pid
	before := procStatus(pid, "VmRSS")
	t.Logf("%s: portal restarted on the same data; VmRSS before the pulls %d MB", kind, before>>10)

	var peakRSS, peakAnon, peakFile atomic.Int64
	max := func(p *atomic.Int64, v int64) {
		if v > p.Load() {
			p.Store(v)
		}
	}
	done := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		for {
			max(&peakRSS, procStatus(pid, "VmRSS"))
			max(&peakAnon, procStatus(pid, "RssAnon"))
			max(&peakFile, procStatus(pid, "RssFile"))
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	start = time.Now()
	var total atomic.Int64
	var wg sync.WaitGroup
	for i := range pullServers {
		wg.Go(func() {
			n, err := pull(ctx, i)
			if err != nil {
				t.Error(err)
			}
			total.Add(n)
		})
	}
	wg.Wait()
	el := time.Since(start)
	close(done)
	sampler.Wait()
	hwm := procStatus(pid, "VmHWM")
	t.Logf("%s: %d concurrent pulls of %d MB in %s (%.0f MB/s total); portal VmHWM %d MB, sampled peak VmRSS %d MB (RssAnon %d MB, RssFile %d MB), RSS before %d MB",
		kind, pullServers, size>>20, el.Round(time.Millisecond), float64(total.Load())/1e6/el.Seconds(), hwm>>10,
		peakRSS.Load()>>10, peakAnon.Load()>>10, peakFile.Load()>>10, before>>10)
	if total.Load() != int64(pullServers)*size {
		t.Errorf("pulled %d bytes, want %d", total.Load(), int64(pullServers)*size)
	}
	report(fmt.Sprintf("peak RSS (VmHWM), %d pulls of %d MB", pullServers, size>>20), kind,
		fmt.Sprintf("%d MB", hwm>>10), "< 150 MB", ptr(hwm>>10 < 150))
	report("  of which sampled peak RssAnon / RssFile", kind,
		fmt.Sprintf("%d MB / %d MB", peakAnon.Load()>>10, peakFile.Load()>>10), "-", nil)
	report("VmHWM of the process that built the package (info)", kind, fmt.Sprintf("%d MB", buildHWM>>10), "-", nil)
	report(fmt.Sprintf("%d concurrent pulls, wall time", pullServers), kind,
		fmt.Sprintf("%s (%.0f MB/s)", el.Round(100*time.Millisecond), float64(total.Load())/1e6/el.Seconds()), "-", nil)
}
