package exam_test

import (
	"bufio"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
	"github.com/seedhq/portal/internal/httpapi/httpapitest"
	"github.com/seedhq/portal/internal/openapi/openapitest"
)

func init() {
	// It measures the heap while streaming 80 MB of CSV.
	openapitest.Unvalidated = append(openapitest.Unvalidated, "TestAnswersCSVMemory")
}

// TestAnswersCSVMemory streams the CSV of an exam with 1,000,000 stored
// answers (seeded into the store in batches) and checks that every row
// arrives and that the heap stays far below the export's size: the answers
// are read a chunk at a time, never all at once. Memory figures are
// distorted by the race detector, so `make test` runs it a second time
// without -race.
func TestAnswersCSVMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("slow, and the race detector inflates memory: run without -race and -short")
	}
	const members, questions, batchSize = 200_000, 5, 50_000 // 1,000,000 answers
	var st exam.Store
	httpapitest.ForEachStore(t, func(t *testing.T, h *httpapitest.Harness) {
		examID := h.CreateExam(httpapitest.NPSNA)
		answered := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
		var batch []exam.Answer
		n := 0
		for m := range members {
			for q := 1; q <= questions; q++ {
				batch = append(batch, exam.Answer{ExamID: examID, MemberID: fmt.Sprintf("m%07d", m), QuestionID: fmt.Sprintf("q%d", q),
					Answer: "b", AnsweredAt: answered, ServerCode: "LAB-01"})
				if len(batch) == batchSize {
					n++
					if _, err := st.SaveAnswers(t.Context(), exam.AnswerBatch{SyncID: fmt.Sprintf("sync-%d", n), ServerCode: "LAB-01",
						NPSN: httpapitest.NPSNA, Checksum: fmt.Sprintf("%064d", n), Answers: batch, ReceivedAt: answered}); err != nil {
						t.Fatal(err)
					}
					batch = batch[:0]
				}
			}
		}
		batch = nil

		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		var peak atomic.Uint64
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			var ms runtime.MemStats
			for {
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
				select {
				case <-done:
					return
				case <-time.After(10 * time.Millisecond):
				}
			}
		})
		req, _ := http.NewRequest("GET", h.Server.URL+"/api/v1/admin/exams/"+examID+"/answers?format=csv", nil)
		req.Header.Set("Authorization", "Bearer "+h.Operator())
		resp, err := h.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		rows, size := 0, 0
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			rows++
			size += len(sc.Bytes()) + 1
			if rows == 2 && !strings.HasSuffix(sc.Text(), ",LAB-01,sync-1,true,2,true,") {
				t.Errorf("first row %q", sc.Text())
			}
		}
		resp.Body.Close()
		close(done)
		wg.Wait()
		if err := sc.Err(); err != nil || resp.StatusCode != 200 {
			t.Fatalf("CSV: status %d, %v", resp.StatusCode, err)
		}
		if rows != members*questions+1 {
			t.Fatalf("CSV has %d rows, want %d answers and a header", rows, members*questions)
		}
		grew := int64(peak.Load()) - int64(base.HeapInuse)
		t.Logf("%d answers, %d MB of CSV; heap in use %d MB before, peak %d MB while streaming (+%d MB)",
			rows-1, size>>20, base.HeapInuse>>20, peak.Load()>>20, grew>>20)
		if grew > 32<<20 { // the decoded answers alone would take hundreds of MB
			t.Errorf("the heap grew by %d MB while streaming %d MB of CSV: the export is not streamed", grew>>20, size>>20)
		}
	}, httpapitest.WithStoreWrapper(func(s exam.Store) exam.Store { st = s; return s }))
}
