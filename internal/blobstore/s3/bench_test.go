package s3_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/seedhq/portal/internal/blobstore/blobstoretest"
	"github.com/seedhq/portal/internal/blobstore/s3"
	"github.com/seedhq/portal/internal/testkit/s3server"
)

// benchSize is the benchmarks' blob: an encrypted exam blob's order of size.
const benchSize = 16 << 20

// benchStore is a store on a fresh versitygw with the given part size.
func benchStore(b *testing.B, partSize string) *s3.Store {
	b.Helper()
	srv := s3server.Start(b)
	srv.CreateBucket(b, "bench")
	cfg, err := s3.ParseURL(srv.URL("bench", "") + "&part_size=" + partSize)
	if err != nil {
		b.Fatal(err)
	}
	cfg.AccessKey, cfg.SecretKey = srv.AccessKey, srv.SecretKey
	st, err := s3.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	return st
}

// BenchmarkPut puts a 16 MiB blob (again and again under one key) to
// versitygw on this machine: in one PUT (the default part size, 16 MiB),
// and as a multipart upload of 5 MiB parts.
func BenchmarkPut(b *testing.B) {
	data := blobstoretest.Data(1, benchSize)
	for _, bc := range []struct{ name, partSize string }{
		{"16MiB/OnePUT", "16MiB"},
		{"16MiB/Multipart5MiB", "5MiB"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			st := benchStore(b, bc.partSize)
			b.SetBytes(benchSize)
			for b.Loop() {
				if err := st.Put(ctx, "blob", onlyRead{bytes.NewReader(data)}, benchSize); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGet reads a 16 MiB blob from versitygw on this machine: whole
// with a ranged GET (bytes=0-), and 1 MiB from its middle.
func BenchmarkGet(b *testing.B) {
	st := benchStore(b, "16MiB")
	blobstoretest.MustPut(b, st, "blob", blobstoretest.Data(2, benchSize))
	for _, bc := range []struct {
		name           string
		offset, length int64
	}{
		{"16MiB/RangeWhole", 0, -1},
		{"16MiB/Range1MiB", benchSize / 2, 1 << 20},
	} {
		b.Run(bc.name, func(b *testing.B) {
			n := bc.length
			if n < 0 {
				n = benchSize - bc.offset
			}
			b.SetBytes(n)
			buf := make([]byte, 256<<10)
			for b.Loop() {
				rc, _, err := st.OpenRange(ctx, "blob", bc.offset, bc.length)
				if err != nil {
					b.Fatal(err)
				}
				got, err := io.CopyBuffer(io.Discard, rc, buf)
				rc.Close()
				if err != nil || got != n {
					b.Fatalf("read %d bytes, %v; want %d", got, err, n)
				}
			}
		})
	}
}

// onlyRead hides a bytes.Reader's ReadAt and Seek, as a request body would.
type onlyRead struct{ r io.Reader }

func (o onlyRead) Read(p []byte) (int, error) { return o.r.Read(p) }
