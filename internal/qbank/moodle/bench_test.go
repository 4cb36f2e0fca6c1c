package moodle

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/qbank"
	"github.com/seedhq/portal/internal/store/bolt"
)

// BenchmarkImportLargeBank imports a Moodle XML file of 300 questions with
// 50 MiB of embedded PNG images (one distinct image of about 170 KiB per
// question) into a real exam service on bbolt, and reports the heap's peak
// during the import (docs/benchmarks.md, "Question banks").
func BenchmarkImportLargeBank(b *testing.B) {
	// The same images, a third of them: the heap's peak stays where it is.
	b.Run("100q-17MiB", func(b *testing.B) { benchImport(b, 100, 50<<20/3) })
	b.Run("300q-50MiB", func(b *testing.B) { benchImport(b, 300, 50<<20) })
}

func benchImport(b *testing.B, questions, mediaBytes int) {
	name := filepath.Join(b.TempDir(), "bank.xml")
	size := writeLargeBank(b, name, questions, mediaBytes)
	b.SetBytes(size)
	var peak uint64
	for b.Loop() {
		b.StopTimer()
		// A new store each time (media already stored would not be written
		// again), syncing each commit as the portal's does.
		svc := mustService(b, []bolt.Option{}...)
		f, err := os.Open(name)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		stop := watchHeap(&peak)
		b.StartTimer()
		bank, err := Import(context.Background(), bufio.NewReaderSize(f, 64<<10), svc)
		b.StopTimer()
		stop()
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		if i, c, r := bank.Counts(); i != questions || c != 0 || r != 0 {
			b.Fatalf("imported %d, changed %d, refused %d", i, c, r)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}

// watchHeap samples the heap in use every 10 ms into peak until stopped.
func watchHeap(peak *uint64) (stop func()) {
	var done atomic.Bool
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var ms runtime.MemStats
		for !done.Load() {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > *peak {
				*peak = ms.HeapInuse
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	return func() { done.Store(true); <-finished }
}

// writeLargeBank writes a Moodle XML file of n multichoice questions, each
// with a distinct PNG of random pixels, mediaBytes in all; it returns the
// file's size.
func writeLargeBank(tb testing.TB, name string, n int, mediaBytes int) int64 {
	f, err := os.Create(name)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(3, 4))
	side := 1
	for 3*side*side+side < mediaBytes/n {
		side++
	}
	enc := png.Encoder{CompressionLevel: png.NoCompression}
	fmt.Fprintf(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<quiz>\n<question type=\"category\"><category><text>$course$/top/Besar</text></category></question>\n")
	img := image.NewRGBA(image.Rect(0, 0, side, side))
	for i := range n {
		for p := range img.Pix {
			if p%4 == 3 {
				img.Pix[p] = 255
			} else {
				img.Pix[p] = byte(r.Uint32())
			}
		}
		fmt.Fprintf(w, `<question type="multichoice"><name><text>Soal %d</text></name>
<questiontext format="html"><text><![CDATA[<p>Soal nomor %d: perhatikan grafik \(y = x^2\).</p><p><img src="@@PLUGINFILE@@/grafik%d.png" alt="Grafik %d"></p>]]></text>
<file name="grafik%d.png" path="/" encoding="base64">`, i+1, i+1, i, i, i)
		b64 := base64.NewEncoder(base64.StdEncoding, w)
		if err := enc.Encode(b64, img); err != nil {
			tb.Fatal(err)
		}
		b64.Close()
		fmt.Fprintf(w, "</file></questiontext>\n<defaultgrade>1</defaultgrade><single>true</single>\n")
		for j, f := range []int{100, 0, 0, 0} {
			fmt.Fprintf(w, "<answer fraction=\"%d\" format=\"html\"><text>Pilihan %d</text></answer>\n", f, j+1)
		}
		fmt.Fprintf(w, "</question>\n")
	}
	fmt.Fprintf(w, "</quiz>\n")
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	st, _ := f.Stat()
	f.Close()
	if st.Size() > qbank.MaxFileSize {
		tb.Fatalf("the bank is %d bytes", st.Size())
	}
	return st.Size()
}
