package main

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/seedhq/portal/internal/links/visits"
)

// registerClickMetrics exposes the visit recorder's counters in reg, read
// from the recorder when scraped.
func registerClickMetrics(reg prometheus.Registerer, rec *visits.Recorder) {
	counter := func(name, help string, v func() uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, func() float64 { return float64(v()) })
	}
	reg.MustRegister(
		counter("portal_link_clicks_recorded_total", "Clicks (short-link and QR visits) saved in the store.", rec.Saved),
		counter("portal_link_clicks_dropped_total",
			"Clicks dropped before they were queued: the queue was full (the store slower than the traffic, or down) or the portal was stopping.", rec.Dropped),
		counter("portal_link_clicks_failed_total", "Clicks lost after they were queued: their batch failed every retry, or the shutdown budget ran out.", rec.Failed),
		counter("portal_link_click_batch_failures_total", "Failed saves of a batch of clicks (each retry counts).", rec.BatchFailures),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "portal_link_click_queue_length", Help: "Clicks waiting to be saved."},
			func() float64 { return float64(rec.Queued()) }),
	)
}

// countRedirects wraps the redirector so that every answer it gives counts
// in portal_link_redirect_responses_total by status code (302 redirect,
// 200 interstitial or password page, 404, ...): the redirector serves
// outside the API router, whose request metrics do not see it.
func countRedirects(reg prometheus.Registerer, next http.Handler) http.Handler {
	responses := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "portal_link_redirect_responses_total",
		Help: "Answers of the short-link redirector (short links, QR scans, campaign and rotator links), by status code.",
	}, []string{"code"})
	reg.MustRegister(responses)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &codeWriter{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(sw, r)
		responses.WithLabelValues(strconv.Itoa(sw.code)).Inc()
	})
}

// codeWriter remembers the status code written.
type codeWriter struct {
	http.ResponseWriter
	code int
}

// WriteHeader records code and writes it.
func (w *codeWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *codeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
