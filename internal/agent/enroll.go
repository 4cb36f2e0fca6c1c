// Package agent is labagent, the daemon on a school's lab server: it enrols
// with the portal, keeps the school's exam package, serves exams on the LAN
// and pushes answers back. It talks to the portal only through pkg/client.
package agent

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"

	"github.com/seedhq/portal/pkg/client"
)

// ConfigFile is the name of labagent's configuration in its data directory.
const ConfigFile = "labagent.json"

// Config is what enrolment writes and the daemon reads.
type Config struct {
	PortalURL    string    `json:"portal_url"`
	ServerCode   string    `json:"server_code"`
	NPSN         string    `json:"npsn"`
	HardwareID   string    `json:"hardware_id"`
	LicenseToken string    `json:"license_token"`
	LicenseID    string    `json:"license_id"`
	LicenseEnds  time.Time `json:"license_expires_at"`
	MaxStudents  int       `json:"max_students"`
	SchoolName   string    `json:"school_name"`
	// PublicKey is the portal's licence key (base64), pinned at enrolment so
	// that the licence can be checked offline later.
	PublicKey  string    `json:"public_key"`
	EnrolledAt time.Time `json:"enrolled_at"`
}

// EnrollOptions are the inputs of "labagent enroll".
type EnrollOptions struct {
	PortalURL    string
	ServerCode   string
	NPSN         string
	LicenseToken string
	HardwareID   string // empty: derived from the machine (see MachineHardwareID)
	DataDir      string
	HTTPClient   *http.Client     // nil: a retrying client
	Now          func() time.Time // nil: time.Now
}

// Enroll checks the licence offline with the portal's public key, performs
// one handshake, and writes the configuration into the data directory. Every
// refusal is an error that says what is wrong and what to do.
func Enroll(ctx context.Context, o EnrollOptions) (*Config, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	o.PortalURL = strings.TrimRight(strings.TrimSpace(o.PortalURL), "/")
	o.LicenseToken = strings.TrimSpace(o.LicenseToken)
	switch {
	case o.PortalURL == "":
		return nil, errors.New("the portal URL is required (--portal-url)")
	case o.ServerCode == "":
		return nil, errors.New("the server code is required (--server-code)")
	case o.NPSN == "":
		return nil, errors.New("the school's npsn is required (--npsn)")
	case o.LicenseToken == "":
		return nil, errors.New("the licence token is required (--license-token or --license-file)")
	case o.DataDir == "":
		return nil, errors.New("the data directory is required (--data-dir)")
	}
	if o.HardwareID == "" {
		id, err := MachineHardwareID()
		if err != nil {
			return nil, err
		}
		o.HardwareID = id
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = NewHTTPClient(nil)
	}
	c, err := client.NewClient(o.PortalURL, client.WithHTTPClient(hc), client.WithUserAgent("labagent"))
	if err != nil {
		return nil, fmt.Errorf("portal URL: %w", err)
	}
	pub, _, err := c.Exam.Licenses.PublicKey(ctx)
	if err != nil {
		return nil, fmt.Errorf("fetch the portal's public key from %s: %w", o.PortalURL, err)
	}
	lic, err := client.VerifyLicenseToken(o.LicenseToken, pub)
	if err != nil {
		return nil, fmt.Errorf("the licence token is not valid for this portal (copy it again, whole): %w", err)
	}
	switch {
	case lic.NPSN != o.NPSN:
		return nil, fmt.Errorf("the licence was issued to school %s, not %s", lic.NPSN, o.NPSN)
	case lic.HardwareID != o.HardwareID:
		return nil, fmt.Errorf("the licence is for another machine: it names hardware_id %q, this machine is %q (ask the operator for a licence for this machine, or pass --hardware-id)", lic.HardwareID, o.HardwareID)
	case lic.Expired(o.Now()):
		return nil, fmt.Errorf("the licence expired on %s; ask the operator for a new one", lic.ExpiresAt.Format(time.DateOnly))
	}
	v, _, err := c.Exam.Sync.VerifyServer(ctx, &client.VerifyServerRequest{
		ServerCode: o.ServerCode, NPSN: o.NPSN, HardwareID: o.HardwareID, LicenseToken: o.LicenseToken,
	})
	if err != nil {
		return nil, fmt.Errorf("handshake with the portal refused: %w", err)
	}
	cfg := &Config{
		PortalURL: o.PortalURL, ServerCode: o.ServerCode, NPSN: o.NPSN, HardwareID: o.HardwareID,
		LicenseToken: o.LicenseToken, LicenseID: lic.LicenseID, LicenseEnds: lic.ExpiresAt,
		MaxStudents: lic.MaxStudents, SchoolName: v.ServerName,
		PublicKey: base64.StdEncoding.EncodeToString(pub), EnrolledAt: o.Now().UTC(),
	}
	if err := WriteConfig(o.DataDir, cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

// responseHeaderTimeout bounds the wait for the headers of an answer: far
// above what the portal takes for the largest push (50,000 answers), far
// below the 5-minute limit of a whole call.
const responseHeaderTimeout = 2 * time.Minute

// NewHTTPClient returns an *http.Client that retries with exponential
// backoff on connection errors, 429 and 5xx, honouring Retry-After, as a
// lab server on a bad line needs.
//
// When its retries run out, the caller gets the portal's last answer (a
// 429 with its Retry-After, a 500 with its message), not a bare "giving
// up": the daemon's loops read Retry-After from it. A 429 or 503 asking
// for a longer wait than the client's own (RetryWaitMax) is returned at
// once, so that no call sits out an hour-long Retry-After holding the
// push (and "labagent push --now"): the daemon's loop waits instead.
func NewHTTPClient(logger *slog.Logger) *http.Client {
	rc := retryablehttp.NewClient()
	// Few quick retries: the daemon's own loops back off for longer (and
	// report "offline" meanwhile), so a dead line shows within seconds.
	rc.RetryMax = 2
	rc.RetryWaitMin = 500 * time.Millisecond
	rc.RetryWaitMax = 5 * time.Second
	// A portal that takes the connection and never answers is given up on
	// after responseHeaderTimeout (then retried), not the call's whole limit.
	if tr, ok := rc.HTTPClient.Transport.(*http.Transport); ok {
		tr.ResponseHeaderTimeout = responseHeaderTimeout
	}
	rc.Logger = nil
	if logger != nil {
		rc.Logger = logger
	}
	rc.CheckRetry = func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if err == nil && resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) &&
			parseRetryAfter(resp.Header.Get("Retry-After"), time.Now()) > rc.RetryWaitMax {
			return false, nil
		}
		return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	}
	rc.ErrorHandler = func(resp *http.Response, err error, tries int) (*http.Response, error) {
		if resp != nil {
			return resp, nil // the body is unread: the caller decodes the portal's error
		}
		if err == nil {
			err = errors.New("no answer")
		}
		return nil, fmt.Errorf("giving up after %d attempt(s): %w", tries, err)
	}
	return rc.StandardClient()
}

// parseRetryAfter reads a Retry-After value sent at now: delay seconds or an
// HTTP date; 0 when there is none.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if sec, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Duration(max(sec, 0)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

// MachineHardwareID derives a stable identifier of this machine from its
// machine id (systemd's /etc/machine-id or D-Bus's; on Windows the
// registry's MachineGuid), hashed so that the raw id never leaves the
// machine.
func MachineHardwareID() (string, error) {
	id := rawMachineID()
	if id == "" {
		return "", errors.New("cannot derive this machine's hardware id (no machine id found); pass --hardware-id")
	}
	sum := sha256.Sum256([]byte("labagent-hardware-id:" + id))
	return "HW-" + strings.ToUpper(hex.EncodeToString(sum[:8])), nil
}

// WriteConfig writes cfg to <dir>/labagent.json with mode 0600, atomically:
// a power cut leaves either the old file or the new one.
func WriteConfig(dir string, cfg *Config) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create data directory: %w", err)
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ConfigFile+".*.tmp")
	if err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("write config: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write config: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, ConfigFile)); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
