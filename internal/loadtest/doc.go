// Package loadtest holds the portal's load measurements: push-answers
// throughput through the HTTP API against a plain PostgreSQL COPY,
// heartbeat rate and latency from 1,000 simulated lab servers, and the peak
// memory of the portal binary while 20 servers pull a 200 MB package, and
// the link redirector's rate (click recording on) beside a bare net/http 302
// handler over 60 s with the share of clicks recorded, and the link lists'
// latency. They run on PostgreSQL and on bbolt.
// TestLabagentLoad measures the labagent binary: save latency for a class
// of 400 (an open loop), saves per second back to back, the catch-up of
// 1,000,000 queued answers and its memory. TestVisitStatsLoad times a
// link's statistics at 1,000,000 and 10,000,000 clicks saved through the
// store, and the storage per click before and after the retention prunes.
// TestOrderingLoad measures the ordering API: complete messenger logins
// per second, orders from 50 concurrent customers for 60 s with their
// latency (every order stored checked) and provider webhooks per second.
// TestExamDay and TestCampaignBurst ("make loadtest") drive real portal
// binaries on one PostgreSQL database, one and three instances: an exam day
// of 1,000 simulated lab servers at ten times a real server's cadence
// (handshake, pull, heartbeats, pushes, package checks; every acknowledged
// answer counted in the database afterwards; the CPU used gives the sizing
// of docs/operations.md), and a burst of redirects over a campaign's 100
// links (every redirect counted as a click afterwards).
// TestExamMorning ("make loadtest-morning") is the national exam morning:
// 10,000 simulated lab servers, each with its own handshake, fetching
// their envelopes (package format 3) from three portals and every blob of
// a 60 MiB exam through an nginx cache in front of the object store
// (versitygw), each package checked as labagent checks it; beside it 200
// lab servers of format 2 fetching the media encrypted for their school
// from the portals; per school the portals' bytes and CPU, PostgreSQL's
// CPU, the object store's reads and the time to a verified package.
//
// The tests carry the build tag loadtest, so "make test" never runs them;
// "make bench" does:
//
//	go test -tags loadtest -run '^(TestLoad|TestLabagentLoad|TestRedirectLoad|TestLinkListLoad|TestVisitStatsLoad|TestOrderingLoad)$' -count=1 -v -timeout 60m ./internal/loadtest
//
// See docs/benchmarks.md for the figures.
package loadtest
