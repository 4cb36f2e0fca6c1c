// Package orderweb writes what the ordering API (internal/httpapi/ordering)
// and the web console (internal/console) both answer over HTTP from the
// ordering domain: the Server-Sent Events of order changes, the ledger as a
// CSV download and a payment receipt's image. It holds no handler and no
// route.
package orderweb

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/seedhq/portal/internal/ordering"
)

const (
	// pollInterval is how often the stream reads the store again, so that
	// changes made on other portal instances are seen.
	pollInterval = 2 * time.Second
	// keepAliveInterval is how often an idle stream sends a comment, so that
	// proxies keep the connection.
	keepAliveInterval = 15 * time.Second
)

// StreamChanges answers r with Server-Sent Events of the orders of svc: an
// event named event whose data is what load returns, on connection and
// whenever it changes (at once for changes made through this instance,
// within 2 s for the others), until the client goes. A load that fails is
// logged and tried again at the next change. It returns an error, before
// anything is written, only when w cannot stream.
func StreamChanges(w http.ResponseWriter, r *http.Request, svc *ordering.Service, log *slog.Logger, event string,
	load func(context.Context) ([]byte, error)) error {
	flusher, ok := w.(http.Flusher)
	if !ok {
		return fmt.Errorf("%s events: the response cannot be streamed", event)
	}
	changes := svc.Changes()
	defer svc.StopChanges(changes)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	poll := time.NewTicker(pollInterval)
	defer poll.Stop()
	keepAlive := time.NewTicker(keepAliveInterval)
	defer keepAlive.Stop()
	var last []byte
	send := func() bool {
		data, err := load(r.Context())
		if err != nil {
			log.Warn("ordering: "+event+" events", "err", err)
			return r.Context().Err() == nil
		}
		if bytes.Equal(data, last) {
			return true
		}
		last = data
		var b bytes.Buffer
		b.WriteString("event: " + event + "\n")
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			b.WriteString("data: ")
			b.Write(line)
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
		if _, err := w.Write(b.Bytes()); err != nil {
			return false
		}
		flusher.Flush()
		return true
	}
	if !send() {
		return nil
	}
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-changes:
		case <-poll.C:
		case <-keepAlive.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return nil
			}
			flusher.Flush()
			continue
		}
		if !send() {
			return nil
		}
	}
}

// WriteLedgerCSV answers the ledger l as a CSV download named after its
// period (ordering.Ledger.WriteCSV's columns).
func WriteLedgerCSV(w http.ResponseWriter, l ordering.Ledger) error {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="ledger-%s-%s.csv"`, l.From, l.To))
	return l.WriteCSV(w)
}

// WriteProof answers the receipt image p read from f: its stored content
// type (checked on upload), never sniffed, never cached, sandboxed. The
// console serves receipts with it too.
func WriteProof(w http.ResponseWriter, p ordering.Proof, f io.Reader) {
	h := w.Header()
	h.Set("Content-Type", p.ContentType)
	h.Set("Content-Length", strconv.FormatInt(p.Size, 10))
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Content-Disposition", `inline; filename="receipt"`)
	io.Copy(w, f)
}
