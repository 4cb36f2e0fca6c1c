// Package loadtest holds the portal's load measurements: push-answers
// throughput through the HTTP API against a plain PostgreSQL COPY,
// heartbeat rate and latency from 1,000 simulated lab servers, and the peak
// memory of the portal binary while 20 servers pull a 200 MB package, and
// the link redirector's rate (click recording on) beside a bare net/http 302
// handler. They run on PostgreSQL and on bbolt.
//
// The tests carry the build tag loadtest, so "make test" never runs them;
// "make bench" does:
//
//	go test -tags loadtest -run '^(TestLoad|TestLabagentLoad|TestRedirectLoad)$' -v -timeout 30m ./internal/loadtest
//
// See docs/benchmarks.md for the figures.
package loadtest
