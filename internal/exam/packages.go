package exam

import (
	"bufio"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/seedhq/portal/internal/apperr"
	"github.com/seedhq/portal/internal/sortid"
	"github.com/seedhq/portal/pkg/labwire"
)

// PackageFormat is the format of a package plaintext with rich content, for
// labagents that do not read format 3 (BlobsPackageFormat). A package is
// format 1 while all its questions are plain text, so that labagents that
// know only format 1 keep working; format 2 adds each question's format and
// the rendered HTML of its texts, which only labagents that send
// PackageFormatsHeader can show.
const PackageFormat = 2

// TypesPackageFormat is the format of a package that has a numeric or a
// cloze question: format 3 (BlobsPackageFormat) with those question types,
// which only labagents that name 4 in PackageFormatsHeader can show. The
// package a labagent of an older format pulls is then refused
// (ErrLabagentTooOld), whatever its form, rather than shown without them.
const TypesPackageFormat = 4

// PackageFormatsHeader is the request header in which a lab server names
// the package formats it reads ("1, 2"); a labagent without it reads only
// format 1.
const PackageFormatsHeader = "X-Package-Formats"

// blobsPackageKey is the key under which the store keeps a school's
// package of format 3 (PackageStore), beside its package of format 1 or 2
// under its npsn, which labagents that do not read format 3 still pull.
func blobsPackageKey(npsn string) string { return npsn + "#3" }

// Package returns the meta of a school's current package, building a new one
// first when exams, members or passwords changed since it was built. The
// encryption is deterministic for a given plaintext and key, so every portal
// instance builds byte-identical packages and the ETag stays stable.
//
// With blobs, it is the school's package of format 3, whose media are blobs
// encrypted once (BlobsPackageFormat); else the package of format 1 or 2,
// whose media each lab server fetches encrypted for its school.
func (s *Service) Package(ctx context.Context, npsn string, blobs bool) (PackageMeta, error) {
	key := npsn
	if blobs {
		key = blobsPackageKey(npsn)
	}
	meta, err := s.storedPackage(ctx, npsn, key, blobs)
	if err != nil {
		return PackageMeta{}, fmt.Errorf("build package for %s: %w", npsn, err)
	}
	meta.NPSN = npsn
	return meta, nil
}

// storedPackage returns the package stored under key, building it first
// when it is stale.
func (s *Service) storedPackage(ctx context.Context, npsn, key string, blobs bool) (PackageMeta, error) {
	rev, err := s.store.ContentRevision(ctx)
	if err != nil {
		return PackageMeta{}, err
	}
	if meta, err := s.store.GetPackage(ctx, key); err == nil && meta.Revision >= rev {
		return meta, nil
	}
	mu, _ := s.builds.LoadOrStore(key, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()

	old, err := s.store.GetPackage(ctx, key)
	switch {
	case err == nil && old.Revision >= rev:
		return old, nil // built by a concurrent request
	case err != nil && !errors.Is(err, ErrNotFound):
		return PackageMeta{}, err
	}
	return s.buildPackage(ctx, npsn, key, blobs, rev, old)
}

func (s *Service) buildPackage(ctx context.Context, npsn, storeKey string, blobs bool, rev int64, old PackageMeta) (PackageMeta, error) {
	start := time.Now()
	// Pass 1: the plaintext digest is the version, and seeds the nonce.
	h := sha256.New()
	names := map[string]bool{}
	format, err := s.writePackage(ctx, h, npsn, blobs, names)
	if err != nil {
		return PackageMeta{}, err
	}
	digest := h.Sum(nil)
	meta := PackageMeta{NPSN: storeKey, Version: hex.EncodeToString(digest), Revision: rev, GeneratedAt: s.now(), Format: format,
		Blobs: sortedNames(names)}
	if meta.Version == old.Version {
		old.Revision = rev
		old.Blobs = meta.Blobs
		if err := s.store.SavePackage(ctx, old, strings.NewReader("")); err != nil {
			return PackageMeta{}, err
		}
		return old, nil
	}
	key, err := s.PackageKey(ctx, npsn)
	if err != nil {
		return PackageMeta{}, err
	}
	mac := hmac.New(sha256.New, key)
	mac.Write(digest)
	var prefix [8]byte
	copy(prefix[:], mac.Sum(nil))

	// Pass 2: encrypt to a temporary file, hashing the ciphertext.
	f, err := os.CreateTemp(s.cfg.TempDir, "package-*.tmp")
	if err != nil {
		return PackageMeta{}, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	ch := sha256.New()
	counter := &countingWriter{w: io.MultiWriter(f, ch)}
	buf := bufio.NewWriterSize(counter, 256<<10)
	enc, err := labwire.NewPackageEncrypter(buf, key, prefix)
	if err != nil {
		return PackageMeta{}, err
	}
	ph := sha256.New()
	if _, err := s.writePackage(ctx, io.MultiWriter(enc, ph), npsn, blobs, nil); err != nil {
		return PackageMeta{}, err
	}
	if err := enc.Close(); err != nil {
		return PackageMeta{}, err
	}
	if err := buf.Flush(); err != nil {
		return PackageMeta{}, err
	}
	if hex.EncodeToString(ph.Sum(nil)) != meta.Version {
		return PackageMeta{}, errors.New("package content changed while it was being built")
	}
	meta.Checksum = hex.EncodeToString(ch.Sum(nil))
	meta.Size = counter.n
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return PackageMeta{}, err
	}
	if err := s.store.SavePackage(ctx, meta, f); err != nil {
		return PackageMeta{}, err
	}
	s.log.InfoContext(ctx, "package built", "npsn", npsn, "format", meta.Format, "version", meta.Version[:12],
		"size", meta.Size, "duration", time.Since(start))
	return meta, nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writePackage streams the plaintext package JSON of a school to w, one
// student page and one exam at a time, so that memory stays bounded by the
// largest exam, and returns its format. The format is the object's last
// member, known once every exam is written. With blobs, the package is of
// format 3: each media file names its blob and carries its content key,
// and the name of every blob the package names is added to names (when not
// nil).
func (s *Service) writePackage(ctx context.Context, w io.Writer, npsn string, blobs bool, names map[string]bool) (int, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	school := ""
	if ls, err := s.store.ListLicenses(ctx, LicenseFilter{NPSN: npsn}); err == nil && len(ls) > 0 {
		school = ls[0].SchoolName
	} else if err != nil {
		return 0, err
	}
	head, _ := json.Marshal(map[string]any{"npsn": npsn, "school_name": school})
	bw.Write(head[:len(head)-1]) // leave the object open
	bw.WriteString(`,"students":[`)
	const page = 1000
	first := true
	for off := 0; ; off += page {
		ms, _, err := s.store.ListMembers(ctx, MemberFilter{NPSN: npsn, Role: RoleStudent, Offset: off, Limit: page})
		if err != nil {
			return 0, err
		}
		for _, m := range ms {
			if !first {
				bw.WriteByte(',')
			}
			first = false
			if err := enc.Encode(labwire.PackageStudent{ID: m.ID, Username: m.Username, Nama: m.Nama, Kelas: m.Kelas, NISN: m.NISN, PasswordHash: m.ExamPasswordHash}); err != nil {
				return 0, err
			}
		}
		if len(ms) < page {
			break
		}
	}
	bw.WriteString(`],"exams":[`)
	exams, err := s.store.ListExams(ctx, ExamFilter{NPSN: npsn})
	if err != nil {
		return 0, err
	}
	format := 1
	for i, summary := range exams {
		e, err := s.store.GetExam(ctx, summary.ID)
		if err != nil {
			return 0, err
		}
		pe := labwire.PackageExam{ID: e.ID, Title: e.Title, Subject: e.Subject, StartsAt: e.StartsAt, EndsAt: e.EndsAt,
			DurationMinutes: e.DurationMinutes}
		for _, q := range e.Questions {
			pq, err := s.packageQuestion(ctx, q)
			if err != nil {
				return 0, err
			}
			if pq.Format != "" || q.Type == StatementGrid || q.Type == Matching {
				format = max(format, PackageFormat)
			}
			if q.Type == Numeric || q.Type == Cloze {
				format = TypesPackageFormat
			}
			if !blobs {
				pe.Questions = append(pe.Questions, pq)
				continue
			}
			ref, err := s.contentBlob(ctx, "question", pq)
			if err != nil {
				return 0, err
			}
			addName(names, ref.Name)
			pe.QuestionBlobs = append(pe.QuestionBlobs, ref)
		}
		for _, st := range e.Stimuli {
			ps, err := s.packageStimulus(ctx, st)
			if err != nil {
				return 0, err
			}
			format = max(format, PackageFormat)
			if !blobs {
				pe.Stimuli = append(pe.Stimuli, ps)
				continue
			}
			ref, err := s.contentBlob(ctx, "stimulus", ps)
			if err != nil {
				return 0, err
			}
			addName(names, ref.Name)
			pe.StimulusBlobs = append(pe.StimulusBlobs, ref)
		}
		rep, err := s.checkContent(ctx, e.Questions, e.Stimuli)
		if err != nil {
			return 0, err
		}
		for _, m := range rep.Media {
			pm := labwire.PackageMedia{SHA256: m.SHA256, Type: m.Type, Kind: string(m.Kind), Size: m.Size}
			if blobs {
				if pm.Blob, err = s.packageBlob(ctx, m.SHA256); err != nil {
					return 0, err
				}
				addName(names, pm.Blob.Name)
			}
			pe.Media = append(pe.Media, pm)
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		if err := enc.Encode(pe); err != nil {
			return 0, err
		}
	}
	if blobs {
		format = max(format, BlobsPackageFormat)
	}
	fmt.Fprintf(bw, `],"format":%d}`, format)
	return format, bw.Flush()
}

// addName adds name to names, unless names is nil.
func addName(names map[string]bool, name string) {
	if names != nil {
		names[name] = true
	}
}

// sortedNames returns the names of the set, sorted; nil for none.
func sortedNames(names map[string]bool) []string {
	if len(names) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(names))
}

// packageQuestion is q as a package ships it: no answer key, and for a
// rich format the rendered HTML of its texts.
func (s *Service) packageQuestion(ctx context.Context, q Question) (labwire.PackageQuestion, error) {
	pq := labwire.PackageQuestion{ID: q.ID, Type: string(q.Type), Format: q.Format, Text: q.Text, ReuseResponses: q.ReuseResponses,
		Stimulus: q.Stimulus, PlayLimit: q.PlayLimit, Points: q.Points}
	var err error
	if pq.HTML, err = s.packageHTML(ctx, q.Format, q.Text); err != nil {
		return labwire.PackageQuestion{}, err
	}
	type optionPart struct {
		from []Option
		to   *[]labwire.PackageOption
	}
	parts := []optionPart{{q.Options, &pq.Options}, {q.Statements, &pq.Statements}, {q.Columns, &pq.Columns},
		{q.Premises, &pq.Premises}, {q.Responses, &pq.Responses}}
	if len(q.Blanks) > 0 {
		pq.Blanks = make([]labwire.PackageBlank, len(q.Blanks))
	}
	for i, b := range q.Blanks {
		pq.Blanks[i] = labwire.PackageBlank{ID: b.ID, Kind: string(b.Kind), Points: b.Points}
		parts = append(parts, optionPart{b.Options, &pq.Blanks[i].Options})
	}
	for _, part := range parts {
		for _, o := range part.from {
			h, err := s.packageHTML(ctx, q.Format, o.Text)
			if err != nil {
				return labwire.PackageQuestion{}, err
			}
			*part.to = append(*part.to, labwire.PackageOption{ID: o.ID, Text: o.Text, HTML: h})
		}
	}
	return pq, nil
}

// packageHTML is text rendered for a package: "" for plain text (a lab
// server shows the text as text).
func (s *Service) packageHTML(ctx context.Context, format, text string) (string, error) {
	if format == "" {
		return "", nil
	}
	res, err := s.renderText(ctx, format, text)
	return res.HTML, err
}

// ErrLabagentTooOld answers a pull of a package in a format the lab server
// does not name in PackageFormatsHeader.
var ErrLabagentTooOld = apperr.New(apperr.NotAcceptable, "LABAGENT_UPGRADE_REQUIRED",
	"this school's exam package has content (formulas, formatted text, numeric or fill-in-the-blank questions) that this labagent cannot show: upgrade labagent on the lab server, then sync again")

// ReadsPackageFormat reports whether a lab server whose pull named the
// formats header (PackageFormatsHeader; empty for labagents that read only
// format 1) reads a package of format.
func ReadsPackageFormat(header string, format int) bool {
	if format <= 1 {
		return true
	}
	for _, f := range strings.Split(header, ",") {
		if strings.TrimSpace(f) == strconv.Itoa(format) {
			return true
		}
	}
	return false
}

// OpenPackage opens the encrypted bytes of a package returned by Package.
func (s *Service) OpenPackage(ctx context.Context, meta PackageMeta) (PackageReader, error) {
	r, err := s.store.OpenPackage(ctx, meta)
	if err != nil {
		return nil, fmt.Errorf("open package: %w", err)
	}
	return r, nil
}

// LogPull writes a pull_data record to the sync log.
func (s *Service) LogPull(ctx context.Context, id ServerIdentity, meta PackageMeta) {
	s.logSync(ctx, SyncLog{ID: sortid.New(), Action: ActionPullData, ServerCode: id.ServerCode, NPSN: id.NPSN,
		Checksum: meta.Checksum, Outcome: OutcomeAccepted, ReceivedAt: s.now()})
}
