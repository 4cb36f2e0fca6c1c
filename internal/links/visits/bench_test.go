package visits

import (
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"
)

// consume empties r's queue the way Run does (rounds separated by
// pollInterval under load, a blocking receive when idle) without the cost of
// enrichment, so that Record never finds the queue full. It returns a stop
// function.
func consume(r *Recorder) func() {
	done := make(chan struct{})
	go func() {
		poll := time.NewTimer(pollInterval)
		for {
			n := len(r.q)
			for range n {
				<-r.q
			}
			var recvQ <-chan Hit
			var wake <-chan time.Time
			if n == 0 {
				recvQ = r.q
			} else {
				poll.Reset(pollInterval)
				wake = poll.C
			}
			select {
			case <-recvQ:
			case <-wake:
			case <-done:
				return
			}
		}
	}()
	return func() { close(done) }
}

// BenchmarkRecord measures the request-path cost: one Hit copied into the
// queue while a consumer empties it as Run does.
func BenchmarkRecord(b *testing.B) {
	r := MustRecorder(b, nopSink{}, Options{})
	defer consume(r)()
	h := hit(1)
	b.ReportAllocs()
	for b.Loop() {
		r.Record(h)
	}
}

// BenchmarkRecordParallel is BenchmarkRecord from every P at once.
func BenchmarkRecordParallel(b *testing.B) {
	r := MustRecorder(b, nopSink{}, Options{})
	defer consume(r)()
	h := hit(1)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r.Record(h)
		}
	})
}

// BenchmarkRecordFull measures the drop path (queue full).
func BenchmarkRecordFull(b *testing.B) {
	r := MustRecorder(b, nopSink{}, Options{QueueSize: 1})
	h := hit(1)
	r.Record(h)
	b.ReportAllocs()
	for b.Loop() {
		r.Record(h)
	}
}

// BenchmarkCapture measures reading a Hit from a request.
func BenchmarkCapture(b *testing.B) {
	r := MustRecorder(b, nopSink{}, Options{CountryHeader: "CF-IPCountry"})
	req := httptest.NewRequest("GET", "/abc", nil)
	req.RemoteAddr = "198.51.100.7:54321"
	req.Header.Set("User-Agent", uaChromeWindows)
	req.Header.Set("Referer", "https://www.example.com/")
	req.Header.Set("CF-IPCountry", "US")
	b.ReportAllocs()
	for b.Loop() {
		r.Capture(req, KindLink, 1, 2)
	}
}

// BenchmarkEnrich measures the worker's cost per hit (off the request path),
// with a GeoIP database and user agents found in the cache.
func BenchmarkEnrich(b *testing.B) {
	geo := MustWriteMMDB(b, "GeoLite2-Country", testGeoNetworks)
	r := MustRecorder(b, nopSink{}, Options{GeoIPPath: geo})
	uas := []string{uaChromeWindows, uaSafariIOS, uaChromeAndroid, uaFacebookApp, uaGooglebot}
	h := hit(1)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		h.UserAgent = uas[i%len(uas)]
		h.IP = netip.AddrFrom4([4]byte{81, 2, 69, byte(i)})
		r.enrich(h)
		i++
	}
}

// BenchmarkParseUA measures the user-agent library on a cache miss.
func BenchmarkParseUA(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		parseUA(uaChromeAndroid)
	}
}
