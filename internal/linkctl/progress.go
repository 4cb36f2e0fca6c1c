package linkctl

import (
	"fmt"
	"io"
	"strings"

	"github.com/seedhq/portal/internal/cliout"
)

// progress is a one-line progress bar redrawn with a carriage return; it
// is only used when its writer is a terminal.
type progress struct {
	w      io.Writer
	total  int
	done   int
	failed int
}

// newProgress returns a bar on w when w is a terminal, else nil (whose
// methods do nothing).
func newProgress(w io.Writer, total int) *progress {
	if !cliout.IsTerminal(w) || total <= 0 {
		return nil
	}
	p := &progress{w: w, total: total}
	p.draw()
	return p
}

// add counts one finished row.
func (p *progress) add(failed bool) {
	if p == nil {
		return
	}
	p.done++
	if failed {
		p.failed++
	}
	p.draw()
}

func (p *progress) draw() {
	const width = 30
	n := p.done * width / p.total
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d", strings.Repeat("#", n), strings.Repeat(" ", width-n), p.done, p.total)
	if p.failed > 0 {
		fmt.Fprintf(p.w, " (%d failed)", p.failed)
	}
}

// finish ends the bar's line.
func (p *progress) finish() {
	if p == nil {
		return
	}
	fmt.Fprintln(p.w)
}
