package linkctl

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestProgressDraw(t *testing.T) {
	bar := func(hashes int) string {
		return "[" + strings.Repeat("#", hashes) + strings.Repeat(" ", 30-hashes) + "]"
	}
	var buf bytes.Buffer
	// As newProgress builds it on a terminal: drawn at once, empty.
	p := &progress{w: &buf, total: 4}
	p.draw()
	p.add(false)
	p.add(true)
	p.add(false)
	p.add(true)
	p.finish()
	want := "\r" + bar(0) + " 0/4" +
		"\r" + bar(7) + " 1/4" +
		"\r" + bar(15) + " 2/4 (1 failed)" +
		"\r" + bar(22) + " 3/4 (1 failed)" +
		"\r" + bar(30) + " 4/4 (2 failed)" +
		"\n"
	if got := buf.String(); got != want {
		t.Errorf("drawn:\n%q\nwant\n%q", got, want)
	}
}

func TestProgressNotOnATerminal(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	for _, w := range []struct {
		name string
		w    io.Writer
	}{{"buffer", &buf}, {"regular file", f}} {
		p := newProgress(w.w, 5)
		if p != nil {
			t.Errorf("%s: newProgress = %+v, want nil", w.name, p)
		}
		// The nil bar's methods do nothing.
		p.add(false)
		p.add(true)
		p.finish()
	}
	if buf.Len() != 0 {
		t.Errorf("drawn on a buffer: %q", buf.String())
	}
	if st, err := f.Stat(); err != nil || st.Size() != 0 {
		t.Errorf("drawn on a regular file: %v, %d bytes", err, st.Size())
	}
}
