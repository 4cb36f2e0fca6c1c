package qti

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"

	"github.com/seedhq/portal/internal/qbank"
)

// maxXMLFile is the largest XML file (manifest, item, stimulus) read from a
// package, unpacked.
const maxXMLFile = 8 << 20

// archive is a package's zip, its entries checked: every name clean and
// unique, at most qbank.MaxArchiveEntries of them. Every byte read from it
// counts against qbank.MaxUnpacked, whatever the entries' headers say.
type archive struct {
	files    map[string]*zip.File
	unpacked int64
}

// errUnpacked is the refusal of a package that unpacks to more than
// qbank.MaxUnpacked bytes.
var errUnpacked = qbank.Invalid("the package unpacks to more than %d MiB", qbank.MaxUnpacked>>20)

// maxUnpacked is qbank.MaxUnpacked; tests lower it.
var maxUnpacked int64 = qbank.MaxUnpacked

func openArchive(ra io.ReaderAt, size int64) (*archive, error) {
	if size > qbank.MaxFileSize {
		return nil, qbank.ErrTooLarge
	}
	zr, err := zip.NewReader(ra, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, qbank.Invalid("the file is not a zip: %v", err)
	}
	if zr == nil {
		return nil, qbank.Invalid("the file is not a zip")
	}
	if len(zr.File) > qbank.MaxArchiveEntries {
		return nil, qbank.Invalid("the package has more than %d entries", qbank.MaxArchiveEntries)
	}
	a := &archive{files: make(map[string]*zip.File, len(zr.File))}
	for _, f := range zr.File {
		if !cleanEntryName(f.Name) {
			return nil, qbank.Invalid("the package's entry %q is not a clean relative path", f.Name)
		}
		if strings.HasSuffix(f.Name, "/") {
			continue // a directory
		}
		if a.files[f.Name] != nil {
			return nil, qbank.Invalid("the package has two entries named %q", f.Name)
		}
		a.files[f.Name] = f
	}
	return a, nil
}

// cleanEntryName reports whether a zip entry's name is a clean relative
// path: no backslash, not absolute, no "." or ".." segment, no drive.
func cleanEntryName(name string) bool {
	if name == "" || strings.ContainsAny(name, "\\\x00") || strings.HasPrefix(name, "/") {
		return false
	}
	for i, seg := range strings.Split(strings.TrimSuffix(name, "/"), "/") {
		if seg == "" || seg == "." || seg == ".." || (i == 0 && strings.Contains(seg, ":")) {
			return false
		}
	}
	return true
}

// resolve is the entry an href of the file at base names: relative to
// base's directory, percent-decoded, never outside the package. ok is
// false for an absolute href, a URL, a backslash or a path that climbs out.
func resolve(base, href string) (string, bool) {
	href = strings.TrimSpace(href)
	if i := strings.IndexAny(href, "?#"); i >= 0 {
		href = href[:i]
	}
	if href == "" || strings.ContainsAny(href, "\\\x00") || strings.HasPrefix(href, "/") {
		return "", false
	}
	if i := strings.IndexByte(href, ':'); i >= 0 && !strings.Contains(href[:i], "/") {
		return "", false // a scheme: http:, data:, file:, C:
	}
	dec, err := url.PathUnescape(href)
	if err != nil || strings.ContainsAny(dec, "\\\x00") {
		return "", false
	}
	p := path.Join(path.Dir(base), dec)
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
		return "", false
	}
	return p, true
}

// countingReader counts what it reads against the archive's total.
type countingReader struct {
	r io.Reader
	a *archive
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.a.unpacked += int64(n)
	if c.a.unpacked > maxUnpacked {
		return n, errUnpacked
	}
	return n, err
}

// open opens the entry name for reading, counted.
func (a *archive) open(name string) (io.ReadCloser, error) {
	f := a.files[name]
	if f == nil {
		return nil, fmt.Errorf("%w: %s", errNoEntry, name)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, qbank.Invalid("the package's entry %q cannot be read: %v", name, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{&countingReader{r: rc, a: a}, rc}, nil
}

var errNoEntry = errors.New("no such entry in the package")

// read reads the entry name whole, refusing one over limit bytes.
func (a *archive) read(name string, limit int64) ([]byte, error) {
	rc, err := a.open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(rc, limit+1))
	switch {
	case errors.Is(err, errUnpacked):
		return nil, errUnpacked
	case err != nil:
		return nil, qbank.Invalid("the package's entry %q cannot be read: %v", name, err)
	case n > limit:
		return nil, qbank.Invalid("the package's entry %q is larger than %d MiB", name, limit>>20)
	}
	return buf.Bytes(), nil
}
