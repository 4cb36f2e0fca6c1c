//go:build loadtest

package loadtest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// loadConn is one keep-alive connection of driveHTTP: the address it dials
// and the raw HTTP/1.1 requests it sends in turn, formatted once.
type loadConn struct {
	addr string
	reqs [][]byte
}

// loadResult is what driveHTTP measured: the requests answered with the
// wanted status, their rate, and latency percentiles in milliseconds.
type loadResult struct {
	N                   int
	PerSec              float64
	P50, P99, P999, Max float64
}

// String formats the rate and latencies for the summary.
func (r loadResult) String() string {
	return fmt.Sprintf("%.0f/s, p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms", r.PerSec, r.P50, r.P99, r.P999, r.Max)
}

// driveHTTP has every connection send its requests for dur, back to back
// (pace 0) or one every pace (starting at spread offsets; an open loop whose
// latency runs from each request's scheduled time), reading each
// response and failing the test unless its status is want. Like wrk,
// it speaks HTTP/1.1 on raw keep-alive connections with requests formatted
// once: the load generator shares the CPUs with the server under test and
// should take as little of them as it can.
func driveHTTP(t *testing.T, conns []loadConn, want int, pace, dur time.Duration) loadResult {
	t.Helper()
	var stop atomic.Bool
	lat := make([][]time.Duration, len(conns))
	var wg sync.WaitGroup
	start := time.Now()
	for i, c := range conns {
		conn, err := net.Dial("tcp", c.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		wg.Go(func() {
			br := bufio.NewReaderSize(conn, 16<<10)
			next := time.Now()
			if pace > 0 {
				next = next.Add(time.Duration(i) * pace / time.Duration(len(conns)))
			}
			lat[i] = make([]time.Duration, 0, 1<<14)
			for n := i; !stop.Load(); n++ {
				t0 := time.Now()
				if pace > 0 {
					// Latency counts from the scheduled send time, so that
					// a slow answer that delays the next request is not
					// hidden (no coordinated omission).
					t0 = next
					time.Sleep(time.Until(next))
					next = next.Add(pace)
				}
				if _, err := conn.Write(c.reqs[n%len(c.reqs)]); err != nil {
					t.Error(err)
					return
				}
				if err := readStatus(br, want); err != nil {
					t.Error(err)
					return
				}
				lat[i] = append(lat[i], time.Since(t0))
			}
		})
	}
	time.Sleep(dur)
	stop.Store(true)
	wg.Wait()
	return summarize(t, lat, time.Since(start))
}

// summarize returns the rate and latency percentiles of lat (per worker)
// over elapsed.
func summarize(t *testing.T, lat [][]time.Duration, elapsed time.Duration) loadResult {
	t.Helper()
	all := slices.Concat(lat...)
	slices.Sort(all)
	if len(all) == 0 {
		t.Fatal("no request succeeded")
	}
	ms := func(p float64) float64 { return float64(all[int(float64(len(all)-1)*p)].Microseconds()) / 1000 }
	return loadResult{N: len(all), PerSec: float64(len(all)) / elapsed.Seconds(), P50: ms(0.50), P99: ms(0.99), P999: ms(0.999), Max: ms(1)}
}

// readStatus reads one HTTP/1.1 response with a Content-Length or a chunked
// body and fails unless its status code is want.
func readStatus(br *bufio.Reader, want int) error {
	status, err := br.ReadSlice('\n')
	if err != nil {
		return err
	}
	code := 0
	if len(status) >= 12 && string(status[:9]) == "HTTP/1.1 " {
		code, _ = strconv.Atoi(string(status[9:12]))
	}
	length, chunked := -1, false
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(line) == 2 && line[0] == '\r' {
			break
		}
		if len(line) > 15 && strings.EqualFold(string(line[:15]), "content-length:") {
			length, _ = strconv.Atoi(strings.TrimSpace(string(line[15:])))
		}
		if len(line) > 18 && strings.EqualFold(string(line[:18]), "transfer-encoding:") &&
			strings.EqualFold(strings.TrimSpace(string(line[18:])), "chunked") {
			chunked = true
		}
	}
	if chunked {
		// Large bodies (JSON lists) come chunked: read every chunk.
		var body []byte
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				return err
			}
			size, err := strconv.ParseInt(strings.TrimSpace(strings.SplitN(string(line), ";", 2)[0]), 16, 64)
			if err != nil {
				return fmt.Errorf("bad chunk size %q", line)
			}
			if size == 0 {
				for { // trailers, then the final CRLF
					line, err := br.ReadSlice('\n')
					if err != nil {
						return err
					}
					if len(line) == 2 && line[0] == '\r' {
						break
					}
				}
				break
			}
			if code == want {
				if _, err := br.Discard(int(size) + 2); err != nil {
					return err
				}
				continue
			}
			chunk := make([]byte, size+2)
			if _, err := io.ReadFull(br, chunk); err != nil {
				return err
			}
			body = append(body, chunk[:size]...)
		}
		if code == want {
			return nil
		}
		return fmt.Errorf("status %d, want %d: %s", code, want, body)
	}
	if length < 0 {
		return fmt.Errorf("status %d response without Content-Length", code)
	}
	if code == want {
		_, err := br.Discard(length)
		return err
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(br, body); err != nil {
		return err
	}
	return fmt.Errorf("status %d, want %d: %s", code, want, body)
}
