package storetest

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/exam"
)

// blob returns n deterministic pseudo-random bytes.
func blob(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func packageMeta(npsn string, data []byte, rev int64, generated time.Time) exam.PackageMeta {
	return exam.PackageMeta{NPSN: npsn, Version: sum("plaintext of " + checksum(data)), Checksum: checksum(data),
		Size: int64(len(data)), Revision: rev, GeneratedAt: generated, Format: 1}
}

// forbiddenReader fails the test when read.
type forbiddenReader struct{ t *testing.T }

// Read reports a test error: SavePackage must not read r for a stored checksum.
func (r forbiddenReader) Read([]byte) (int, error) {
	r.t.Error("SavePackage read r although a blob with this checksum is stored")
	return 0, errors.New("storetest: this reader must not be read")
}

// wantPackageBytes fails the test unless OpenPackage(meta) reads data,
// seeking back and forth.
func wantPackageBytes(t *testing.T, s Store, meta exam.PackageMeta, data []byte) {
	t.Helper()
	r, err := s.OpenPackage(t.Context(), meta)
	mustOK(t, "OpenPackage", err)
	defer r.Close()
	got, err := io.ReadAll(r)
	mustOK(t, "read package", err)
	if !bytes.Equal(got, data) {
		t.Fatalf("package of %s: read %d bytes (sha256 %s), want %d bytes (sha256 %s)",
			meta.NPSN, len(got), checksum(got), len(data), checksum(data))
	}
	if len(data) < 100 {
		return
	}
	third := int64(len(data) / 3)
	for _, seek := range []struct {
		offset int64
		whence int
		pos    int64 // the position after seeking; each case then reads 40 bytes
	}{
		{third, io.SeekStart, third},
		{-50, io.SeekEnd, int64(len(data) - 50)},
		{10, io.SeekStart, 10},
		{20, io.SeekCurrent, 70},
		{0, io.SeekCurrent, 110},
	} {
		pos, err := r.Seek(seek.offset, seek.whence)
		mustOK(t, "seek package", err)
		if pos != seek.pos {
			t.Fatalf("Seek(%d, %d) = %d, want %d", seek.offset, seek.whence, pos, seek.pos)
		}
		buf := make([]byte, 40)
		_, err = io.ReadFull(r, buf)
		mustOK(t, "read package after seek", err)
		if !bytes.Equal(buf, data[pos:pos+40]) {
			t.Fatalf("read after Seek(%d, %d) differs from the bytes saved", seek.offset, seek.whence)
		}
	}
}

func testPackages(t *testing.T, s Store) {
	ctx := t.Context()
	_, err := s.GetPackage(ctx, npsnA)
	wantErr(t, "GetPackage of a school without a package", err, exam.ErrNotFound)
	d1 := blob(1, 300_000)
	m1 := packageMeta(npsnA, d1, 1, at(0))
	_, err = s.OpenPackage(ctx, m1)
	wantErr(t, "OpenPackage of a package never saved", err, exam.ErrNotFound)

	MustSavePackage(t, s, m1, d1)
	check(t, "GetPackage", MustGetPackage(t, s, npsnA), m1)
	wantPackageBytes(t, s, m1, d1)

	// A new package replaces the current one, its format with it.
	d2 := blob(2, 70_001)
	m2 := packageMeta(npsnA, d2, 2, at(time.Hour))
	m2.Format = 2
	MustSavePackage(t, s, m2, d2)
	check(t, "GetPackage after a new package", MustGetPackage(t, s, npsnA), m2)
	wantPackageBytes(t, s, m2, d2)

	// Same bytes, newer revision (as when content changed back): r is not read.
	m3 := m2
	m3.Revision, m3.GeneratedAt = 3, at(2*time.Hour)
	mustOK(t, "SavePackage of stored bytes", s.SavePackage(ctx, m3, forbiddenReader{t}))
	check(t, "GetPackage after saving stored bytes", MustGetPackage(t, s, npsnA), m3)
	wantPackageBytes(t, s, m3, d2)

	_, err = s.GetPackage(ctx, npsnB)
	wantErr(t, "GetPackage of another school", err, exam.ErrNotFound)
}

func testPackageSharedBlob(t *testing.T, s Store) {
	ctx := t.Context()
	d := blob(7, 100_000)
	mA := packageMeta(npsnA, d, 1, at(0))
	mB := packageMeta(npsnB, d, 1, at(time.Minute))
	MustSavePackage(t, s, mA, d)
	mustOK(t, "SavePackage of bytes another school has", s.SavePackage(ctx, mB, forbiddenReader{t}))
	check(t, "GetPackage of B", MustGetPackage(t, s, npsnB), mB)
	wantPackageBytes(t, s, mB, d)

	// A moves to a new package: B's blob is still referenced and must stay.
	dA := blob(8, 5_000)
	mA2 := packageMeta(npsnA, dA, 2, at(time.Hour))
	MustSavePackage(t, s, mA2, dA)
	wantPackageBytes(t, s, mB, d)
	wantPackageBytes(t, s, mA2, dA)

	// B moves too; then A comes back to the first bytes, passing them again.
	dB := blob(9, 6_000)
	mB2 := packageMeta(npsnB, dB, 3, at(2*time.Hour))
	MustSavePackage(t, s, mB2, dB)
	mA3 := packageMeta(npsnA, d, 4, at(3*time.Hour))
	MustSavePackage(t, s, mA3, d)
	check(t, "GetPackage of A", MustGetPackage(t, s, npsnA), mA3)
	wantPackageBytes(t, s, mA3, d)
	wantPackageBytes(t, s, mB2, dB)
}

func testPackageChecksumMismatch(t *testing.T, s Store) {
	ctx := t.Context()
	d1 := blob(1, 10_000)
	m1 := packageMeta(npsnA, d1, 1, at(0))
	MustSavePackage(t, s, m1, d1)

	d2, d3 := blob(2, 10_000), blob(3, 10_000)
	bad := packageMeta(npsnA, d2, 2, at(time.Hour)) // announces d2 ...
	if err := s.SavePackage(ctx, bad, bytes.NewReader(d3)); err == nil {
		t.Fatal("SavePackage of bytes whose SHA-256 is not meta.Checksum succeeded")
	}
	short := packageMeta(npsnA, d2, 2, at(time.Hour))
	if err := s.SavePackage(ctx, short, bytes.NewReader(d2[:len(d2)-1])); err == nil {
		t.Fatal("SavePackage of fewer bytes than meta.Size succeeded")
	}
	check(t, "GetPackage after refused saves", MustGetPackage(t, s, npsnA), m1)
	wantPackageBytes(t, s, m1, d1)

	// The refused bytes were not kept under d2's checksum.
	MustSavePackage(t, s, bad, d2)
	wantPackageBytes(t, s, bad, d2)
}
