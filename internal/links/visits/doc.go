// Package visits records every visit of a short link and every scan of a QR
// code off the request path, and turns the records into the statistics block
// of the link-management API (GET /api/qr/:id: clicks, uniqueClicks,
// topCountries, topReferrers, topBrowsers, topOs, socialCount).
//
// # Flow
//
// The redirect handler captures a [Hit] (cheap: a few header reads, no parsing
// and no I/O) and hands it to [Recorder.Record], which never blocks. One
// background goroutine, [Recorder.Run], enriches hits into [Visit] records
// (user-agent parsing, referrer host, country, bot flag, visitor hash) and
// writes them to a [Sink] (the store) in batches.
//
// # Decisions
//
//   - Dropping: Record puts the hit on a bounded queue and, when the queue is
//     full (the store is slow or down), drops it and counts it ([Recorder.Dropped])
//     instead of waiting. A redirect must never wait for statistics: a visitor
//     who is not redirected is worse than a click that is not counted.
//     The queue holds Options.QueueSize hits (about 128 bytes each; 8 MB at
//     the default 65536, under a second of peak traffic). Under load the worker
//     empties it in rounds a few milliseconds apart rather than waiting on it,
//     so that Record is a plain buffered send (tens of nanoseconds, no
//     allocation) and never pays for waking the worker.
//   - Sink failures: a failed batch is retried a few times with exponential
//     backoff, then dropped and counted ([Recorder.Failed]); the worker keeps
//     going. While it retries, the queue absorbs new hits up to its size.
//   - Bots: a visit is flagged as a bot when the user-agent library says so,
//     when the user agent is empty, or when it carries a common automation
//     marker ("bot", "crawl", "spider", "curl/", "wget/", "python-requests",
//     "Go-http-client", "HeadlessChrome", link-preview fetchers such as
//     facebookexternalhit and WhatsApp, ...). curl, wget and HTTP libraries
//     count as bots: they are not people following a link. Bot visits are
//     stored (so they can be audited) but are left out of every number of the
//     statistics block: clicks, uniqueClicks, the top lists and socialCount.
//     [Stats.Bots] carries their count for Go callers; it is not in the JSON.
//   - Unique visitors: the raw IP address is never stored. [Visit.Visitor] is
//     an HMAC-SHA256 over (IP, user agent) keyed with a key derived from the
//     configured secret and the UTC day of the visit, so the salt rotates
//     daily: the same browser on the same address gets the same value all day
//     and an unrelated value the next day. A visit is unique when no earlier
//     visit of the same target on the same UTC day has the same Visitor, so
//     uniqueClicks over a period counts each visitor once per target per day.
//     The daily key is derived, not stored or random, so every portal instance
//     computes the same value without coordination; without the secret, the
//     hashes cannot be linked across days nor turned back into addresses.
//   - Social: [Visit.Social] is "facebook", "twitter" or "instagram" when the
//     referrer host belongs to the network (facebook.com, fb.com, fb.me,
//     messenger.com; twitter.com, x.com, t.co; instagram.com; and their
//     android-app:// package names), otherwise when the user agent is the
//     network's in-app browser (FBAN/FBAV/FB_IAB, Instagram, Twitter).
//   - Country: the configured trusted header (for example CF-IPCountry) wins
//     when it holds two letters other than XX or ZZ; otherwise the optional
//     GeoLite2/GeoIP2 Country or City database is looked up; otherwise "".
//     Hit.Country is ignored unless Options.CountryHeader is set, so a
//     header a client sends is never trusted by accident.
//   - Labels: the top lists use the ISO country code, the referrer host, the
//     browser and OS names, with [LabelDirect] for an empty referrer and
//     [LabelUnknown] for any other empty value.
package visits
