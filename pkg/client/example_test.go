package client_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/seedhq/portal/pkg/client"
)

// An operator signs in and lists the exams of a school.
func Example() {
	ctx := context.Background()
	c, err := client.NewClient("https://portal.example.org")
	if err != nil {
		log.Fatal(err)
	}
	login, _, err := c.Exam.Auth.Login(ctx, "admin", os.Getenv("PORTAL_PASSWORD"))
	if err != nil {
		log.Fatal(err)
	}
	c.SetToken(login.Token)

	exams, _, err := c.Exam.Admin.ListExams(ctx, &client.ExamListOptions{NPSN: "20100001"})
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range exams {
		fmt.Println(e.ID, e.Title, e.StartsAt.Format(time.RFC3339))
	}
}

// Build a client with your own *http.Client (labagent passes the
// StandardClient of hashicorp/go-retryablehttp) and credentials.
func ExampleNewClient() {
	hc := &http.Client{Timeout: 30 * time.Second}
	c, err := client.NewClient("https://portal.example.org",
		client.WithHTTPClient(hc),
		client.WithUserAgent("labagent/1.4.0"),
		client.WithAPIKey(os.Getenv("PORTAL_API_KEY")),
	)
	if err != nil {
		log.Fatal(err)
	}
	year, resp, err := c.Exam.Directory.ActiveAcademicYear(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.AppName, year.Name)
}

// Errors answered by the portal match sentinels by status and codes by
// errors.Is with an *Error that has only a Code.
func ExampleError() {
	c, _ := client.NewClient("https://portal.example.org")
	_, _, err := c.Exam.Auth.Login(context.Background(), "admin", "wrong")
	var e *client.Error
	switch {
	case err == nil:
		fmt.Println("signed in")
	case errors.Is(err, client.ErrRateLimited) && errors.As(err, &e):
		fmt.Println("locked out; retry in", e.RetryAfter)
	case errors.Is(err, &client.Error{Code: client.CodeInvalidCredentials}):
		fmt.Println("wrong username or password")
	default:
		fmt.Println("portal unreachable or failing:", err)
	}
}

// A lab server's cycle: handshake, resumable package download, decryption,
// heartbeat and answer push.
func ExampleExamSyncService() {
	ctx := context.Background()
	c, err := client.NewClient("https://portal.example.org")
	if err != nil {
		log.Fatal(err)
	}
	v, _, err := c.Exam.Sync.VerifyServer(ctx, &client.VerifyServerRequest{
		ServerCode: "LAB-1", NPSN: "20100001", HardwareID: "HW-1", LicenseToken: os.Getenv("LICENSE_TOKEN"),
	})
	if err != nil {
		log.Fatal(err)
	}
	c.SetToken(v.AccessToken)

	// Download into a file, resuming after a cut.
	f, err := os.OpenFile("package.bin", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	opts := &client.DownloadOptions{}
	for {
		if _, err := f.Seek(opts.Offset, io.SeekStart); err != nil {
			log.Fatal(err)
		}
		d, _, err := c.Exam.Sync.DownloadPackage(ctx, "LAB-1", f, opts)
		switch {
		case errors.Is(err, client.ErrPackageChanged):
			opts = &client.DownloadOptions{} // start again from 0
			continue
		case err != nil && d != nil && d.Written > 0:
			opts = &client.DownloadOptions{Offset: d.Offset + d.Written, IfRange: d.ETag}
			continue // resume (back off in real code)
		case err != nil:
			log.Fatal(err)
		}
		if err := f.Truncate(d.Size); err != nil {
			log.Fatal(err)
		}
		if !d.Verified { // a resumed download: check the assembled file
			h := sha256.New()
			f.Seek(0, io.SeekStart)
			io.Copy(h, f)
			if hex.EncodeToString(h.Sum(nil)) != d.ChecksumSHA256 {
				log.Fatal("package checksum mismatch")
			}
		}
		break
	}

	f.Seek(0, io.SeekStart)
	pkg, err := client.DecodePackage(f, v.PackageKey)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(pkg.Students), "students,", len(pkg.Exams), "exams")

	if _, _, err := c.Exam.Sync.Heartbeat(ctx, &client.HeartbeatRequest{
		ServerCode: "LAB-1", ConnectedStudents: 31, ActiveExamsCount: 1, ClientVersion: "1.4.0", Status: client.MonitorOnline,
	}); err != nil {
		log.Print(err)
	}

	receipt, _, err := c.Exam.Sync.PushAnswers(ctx, &client.PushAnswersRequest{
		ServerCode: "LAB-1", NPSN: "20100001", IdempotencyKey: "LAB-1-batch-42",
		Answers: []client.Answer{{ExamID: "e1", MemberID: "m1", QuestionID: "q1", Answer: "a", AnsweredAt: time.Now()}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(receipt.SyncID, receipt.Duplicate)
}

// Walk every page of the member directory.
func ExampleExamDirectoryService_AllMembers() {
	c, _ := client.NewClient("https://portal.example.org", client.WithAPIKey(os.Getenv("PORTAL_API_KEY")))
	opts := &client.MemberListOptions{ListOptions: client.ListOptions{PerPage: 100}, Role: "siswa"}
	for m, err := range c.Exam.Directory.AllMembers(context.Background(), opts) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(m.ID, m.Nama, m.Kelas)
	}
}

// Look a member up by exactly one key.
func ExampleExamDirectoryService_LookupMember() {
	c, _ := client.NewClient("https://portal.example.org", client.WithAPIKey(os.Getenv("PORTAL_API_KEY")))
	res, _, err := c.Exam.Directory.LookupMember(context.Background(), client.MemberLookup{NISN: "0051234567"})
	if err != nil {
		log.Fatal(err)
	}
	if !res.Found {
		fmt.Println("no such member")
		return
	}
	fmt.Println(res.Member.Nama, res.Member.Kelas)
}

// Verify a licence token offline with the portal's public key.
func ExampleVerifyLicenseToken() {
	// The portal's key pair; a lab server only has the public half, from
	// c.Exam.Licenses.PublicKey or its configuration.
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	pub := priv.Public().(ed25519.PublicKey)
	payload := `{"v":1,"license_id":"L1","npsn":"20100001","school_name":"SMA 1","hardware_id":"HW-1",` +
		`"max_students":300,"operating_mode":"OFFLINE","issued_at":"2026-11-23T08:00:00Z","expires_at":"2027-11-23T08:00:00Z"}`
	token := base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." +
		base64.RawURLEncoding.EncodeToString(ed25519.Sign(priv, []byte(payload)))

	lic, err := client.VerifyLicenseToken(token, pub)
	if err != nil {
		fmt.Println("invalid:", err)
		return
	}
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	fmt.Println(lic.LicenseID, lic.NPSN, lic.HardwareID, lic.MaxStudents, "expired:", lic.Expired(now))

	_, err = client.VerifyLicenseToken(token+"A", pub)
	fmt.Println(errors.Is(err, client.ErrInvalidLicense))
	// Output:
	// L1 20100001 HW-1 300 expired: false
	// true
}

// Stream the plaintext of a downloaded package.
func ExampleNewPackageDecrypter() {
	var key []byte // Verification.PackageKey from the handshake
	f, err := os.Open("package.bin")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	r, err := client.NewPackageDecrypter(key, f)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := io.Copy(os.Stdout, r); err != nil {
		// ErrPackageCorrupt, ErrPackageTruncated or ErrPackageFormat
		log.Fatal(err)
	}
}
