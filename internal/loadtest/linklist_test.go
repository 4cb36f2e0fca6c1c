//go:build loadtest

package loadtest

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/store/pgtest"
	"github.com/seedhq/portal/pkg/client"
)

// Sizes of the link list run.
const (
	listRecords   = 1000            // short links, QR codes and pixels of the one user
	listConns     = 8               // keep-alive connections of the load generator
	listRun       = 5 * time.Second // timed requests per endpoint and store
	listSeeders   = 8               // concurrent API clients creating the records
	listRateLimit = 100_000_000     // requests per minute of the bench user: never throttled
	listTarget    = 10 * time.Millisecond
)

// TestLinkListLoad measures the latency of the link API's list endpoints
// for one user holding 1,000 short links, 1,000 QR codes and 1,000 pixels,
// on the real portal binary (bbolt and PostgreSQL), each endpoint for 5 s
// on 1 keep-alive connection, on listConns back to back (saturated, for
// throughput) and on listConns at half the saturated rate. Target: p99
// under 10 ms, for a request alone and at half the saturated rate. Each
// request passes the full API path: key look-up, the per-user rate-limit
// counter (a store write) and the list query.
func TestLinkListLoad(t *testing.T) {
	if os.Getenv("PORTAL_LOADTEST") == "0" {
		t.Skip("PORTAL_LOADTEST=0")
	}
	defer printSummary()
	bin := buildPortal(t)
	t.Run("bolt", func(t *testing.T) { runLinkLists(t, bin, "") })
	t.Run("postgres", func(t *testing.T) { runLinkLists(t, bin, pgtest.NewDatabase(t)) })
}

func runLinkLists(t *testing.T, bin, dbURL string) {
	ctx := t.Context()
	kind, base, key, c := startLinkPortal(t, bin, dbURL, &client.LinkUserRequest{Email: "lists@example.com", Username: "lists",
		RateLimit: listRateLimit})

	// Seed through the API, listSeeders at a time.
	start := time.Now()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range listSeeders {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= listRecords || t.Failed() {
					return
				}
				if _, _, err := c.Links.URLs.Add(ctx, &client.LinkURLRequest{
					URL: fmt.Sprintf("https://example.org/articles/%d?utm_source=bench", i), Title: fmt.Sprintf("Article %d", i),
				}); err != nil {
					t.Errorf("add link %d: %v", i, err)
					return
				}
				if _, _, err := c.Links.QR.Add(ctx, &client.LinkQRRequest{Type: client.LinkQRText,
					Data: fmt.Sprintf("bench code %d", i), Name: fmt.Sprintf("code %d", i)}); err != nil {
					t.Errorf("add QR %d: %v", i, err)
					return
				}
				if _, _, err := c.Links.Pixels.Add(ctx, &client.LinkPixelRequest{Type: "fbpixel",
					Name: fmt.Sprintf("pixel %d", i), Tag: fmt.Sprintf("%015d", 100000000000000+i)}); err != nil {
					t.Errorf("add pixel %d: %v", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	seed := time.Since(start)
	report(fmt.Sprintf("seeding %d links + %d QR codes + %d pixels via the API", listRecords, listRecords, listRecords), kind,
		fmt.Sprintf("%.1f s (%.0f creates/s, %d clients)", seed.Seconds(), 3*listRecords/seed.Seconds(), listSeeders), "-", nil)

	addr := strings.TrimPrefix(base, "http://")
	request := func(path string) []byte {
		return fmt.Appendf(nil, "GET %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nAccept: application/json\r\n\r\n",
			path, addr, key)
	}
	paged := func(list string) [][]byte {
		reqs := make([][]byte, listRecords/10)
		for k := range reqs {
			reqs[k] = request(fmt.Sprintf("/api/%s?limit=10&page=%d", list, k+1))
		}
		return reqs
	}
	for _, ep := range []struct {
		name string
		reqs [][]byte
	}{
		{"GET /api/urls?limit=10&page=1..100", paged("urls")},
		{"GET /api/urls?limit=1000", [][]byte{request("/api/urls?limit=1000")}},
		{"GET /api/qr?limit=10&page=1..100", paged("qr")},
		{"GET /api/pixels?limit=10&page=1..100", paged("pixels")},
	} {
		// Three runs: one connection (the latency of a request alone);
		// listConns connections back to back (a closed loop that saturates
		// both CPUs, so latency there is mostly queueing: throughput, for
		// information); then listConns connections at half that throughput,
		// an open loop (the latency under a heavy but sustainable load).
		ms := float64(listTarget.Microseconds()) / 1000
		target := fmt.Sprintf("p99 < %.0f ms", ms)
		drive := func(n int, pace time.Duration) loadResult {
			conns := make([]loadConn, n)
			for i := range conns {
				conns[i] = loadConn{addr: addr, reqs: ep.reqs}
			}
			return driveHTTP(t, conns, http.StatusOK, pace, listRun)
		}
		one := drive(1, 0)
		report(ep.name, kind, one.String()+" (1 conn)", target, ptr(one.P99 < ms))
		sat := drive(listConns, 0)
		report(ep.name, kind, fmt.Sprintf("%s (%d conns, saturated)", sat, listConns), "- (throughput)", nil)
		offered := sat.PerSec / 2
		half := drive(listConns, time.Duration(float64(listConns)/offered*float64(time.Second)))
		report(ep.name, kind, fmt.Sprintf("%s, offered %.0f/s (%d conns, half the saturated rate)", half, offered, listConns),
			target, ptr(half.P99 < ms))
	}
}
