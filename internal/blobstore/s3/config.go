package s3

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/minio/minio-go/v7/pkg/s3utils"
)

// Defaults of Config.
const (
	// DefaultEndpoint is AWS S3's.
	DefaultEndpoint = "s3.amazonaws.com"
	// DefaultPartSize is the part size of multipart uploads: a blob larger
	// than this goes in parts of this size, one part in memory at a time.
	DefaultPartSize = 16 << 20
	// MinPartSize is the smallest part size S3 accepts (every part but the
	// last).
	MinPartSize = 5 << 20
	// DefaultMaxRetries is how many times a request is tried when the
	// server is unreachable or answers 5xx, with a backoff of up to a
	// second between tries.
	DefaultMaxRetries = 3
	// DefaultConnectTimeout bounds connecting, and the TLS handshake, to
	// the server.
	DefaultConnectTimeout = 10 * time.Second
	// DefaultResponseTimeout bounds the wait for a response's headers once
	// a request is sent (a multipart upload's completion may take a while
	// on a large blob).
	DefaultResponseTimeout = 2 * time.Minute
)

// Config says where a Store keeps its blobs and how it reaches them. ParseURL
// fills it from a URL; New completes what is left empty from the
// environment and the defaults.
type Config struct {
	// Bucket holds the blobs; it must exist.
	Bucket string
	// Prefix is put before every key ("portal/" keeps the blobs in
	// "portal/..."); empty, or ending in "/".
	Prefix string
	// Endpoint is the server's host[:port]; default DefaultEndpoint.
	Endpoint string
	// Region is the bucket's region; empty lets the client ask the server
	// (one request, cached).
	Region string
	// PlainHTTP talks HTTP instead of HTTPS (a server on localhost or a
	// private network).
	PlainHTTP bool
	// PathStyle addresses the bucket as endpoint/bucket instead of
	// bucket.endpoint; without it the client chooses (virtual-host style
	// for AWS and Google, path style for every other endpoint).
	PathStyle bool
	// CAFile is a PEM file of the certificates that sign the server's
	// (a private CA); empty trusts the system's.
	CAFile string

	// AccessKey and SecretKey (and SessionToken for temporary
	// credentials) sign the requests. When AccessKey is empty New reads
	// them from CredentialsFile if set, else from the environment
	// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN).
	AccessKey, SecretKey, SessionToken string
	// CredentialsFile is an AWS shared credentials file (the format of
	// ~/.aws/credentials), read for Profile (default "default", or
	// AWS_PROFILE).
	CredentialsFile string
	// Profile is the CredentialsFile's section.
	Profile string

	// PartSize is the multipart upload's part size; default
	// DefaultPartSize, at least MinPartSize.
	PartSize int64
	// MaxRetries is how many times a request is tried (1: no retry);
	// default DefaultMaxRetries. A Put whose reader cannot be read again
	// (every Put of a blob up to PartSize) is tried once; a multipart
	// upload retries each part.
	MaxRetries int
	// ConnectTimeout and ResponseTimeout: default DefaultConnectTimeout
	// and DefaultResponseTimeout. Reading a blob has no timeout of its
	// own: the reader reads with the context given to Open.
	ConnectTimeout, ResponseTimeout time.Duration
}

// ParseURL reads a Config from a URL of the form
//
//	s3://BUCKET[/PREFIX][?OPTION=VALUE&...]
//
// with the options:
//
//	endpoint=HOST[:PORT]     the server; default s3.amazonaws.com
//	region=REGION            the bucket's region; default: asked of the server
//	insecure=1               plain HTTP instead of HTTPS
//	path_style=1             endpoint/bucket addressing instead of bucket.endpoint
//	ca_file=PATH             PEM certificates of a private CA
//	credentials_file=PATH    an AWS shared credentials file (instead of the environment)
//	profile=NAME             its section; default "default" (or AWS_PROFILE)
//	part_size=BYTES          multipart part size, at least 5MiB; default 16MiB
//	max_retries=N            tries of a request; default 3
//
// BYTES is an integer, or one with the suffix KiB, MiB or GiB. Credentials
// never go in the URL.
func ParseURL(raw string) (Config, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Config{}, fmt.Errorf("blobstore s3: parse URL: %w", err)
	}
	if u.Scheme != "s3" {
		return Config{}, fmt.Errorf("blobstore s3: URL %q: scheme %q, want s3://bucket/prefix", redact(u), u.Scheme)
	}
	if u.User != nil {
		return Config{}, fmt.Errorf("blobstore s3: URL %q: credentials do not go in the URL (use the environment or credentials_file)", redact(u))
	}
	c := Config{Bucket: u.Host, Prefix: strings.TrimPrefix(u.Path, "/")}
	if c.Prefix != "" && !strings.HasSuffix(c.Prefix, "/") {
		c.Prefix += "/"
	}
	for name, vals := range u.Query() {
		v := vals[len(vals)-1]
		switch name {
		case "endpoint":
			c.Endpoint = v
		case "region":
			c.Region = v
		case "insecure", "path_style":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return Config{}, fmt.Errorf("blobstore s3: URL option %s=%q: want 1 or 0", name, v)
			}
			if name == "insecure" {
				c.PlainHTTP = b
			} else {
				c.PathStyle = b
			}
		case "ca_file":
			c.CAFile = v
		case "credentials_file":
			c.CredentialsFile = v
		case "profile":
			c.Profile = v
		case "part_size":
			n, err := parseBytes(v)
			if err != nil {
				return Config{}, fmt.Errorf("blobstore s3: URL option part_size=%q: %w", v, err)
			}
			c.PartSize = n
		case "max_retries":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return Config{}, fmt.Errorf("blobstore s3: URL option max_retries=%q: want a number of at least 1", v)
			}
			c.MaxRetries = n
		default:
			return Config{}, fmt.Errorf("blobstore s3: URL %q: unknown option %q", redact(u), name)
		}
	}
	return c, c.validate()
}

// validate checks what ParseURL and New both need.
func (c Config) validate() error {
	if c.Bucket == "" {
		return errors.New("blobstore s3: no bucket (the URL is s3://bucket/prefix)")
	}
	if err := s3utils.CheckValidBucketNameStrict(c.Bucket); err != nil {
		return fmt.Errorf("blobstore s3: bucket %q: %w", c.Bucket, err)
	}
	if c.Prefix != "" && (!strings.HasSuffix(c.Prefix, "/") || strings.HasPrefix(c.Prefix, "/")) {
		return fmt.Errorf("blobstore s3: prefix %q: want no leading \"/\" and a trailing \"/\"", c.Prefix)
	}
	if c.PartSize != 0 && c.PartSize < MinPartSize {
		return fmt.Errorf("blobstore s3: part size %d: S3 wants at least %d bytes (5MiB)", c.PartSize, MinPartSize)
	}
	return nil
}

// parseBytes reads "123", "5MiB", "1GiB".
func parseBytes(s string) (int64, error) {
	mult := int64(1)
	for suffix, m := range map[string]int64{"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30} {
		if t, ok := strings.CutSuffix(s, suffix); ok {
			s, mult = t, m
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, errors.New("want a number of bytes, with KiB, MiB or GiB or none")
	}
	return n * mult, nil
}

// redact is u without its query's secrets (none are accepted, but a user
// may have tried) and user info.
func redact(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}

// credentials completes c's access key from the credentials file or the
// environment.
func (c *Config) credentials(getenv func(string) string) error {
	if c.AccessKey != "" {
		if c.SecretKey == "" {
			return errors.New("blobstore s3: an access key without a secret key")
		}
		return nil
	}
	if c.CredentialsFile != "" {
		profile := c.Profile
		if profile == "" {
			profile = getenv("AWS_PROFILE")
		}
		if profile == "" {
			profile = "default"
		}
		ak, sk, tok, err := readCredentialsFile(c.CredentialsFile, profile)
		if err != nil {
			return err
		}
		c.AccessKey, c.SecretKey, c.SessionToken = ak, sk, tok
		return nil
	}
	c.AccessKey = getenv("AWS_ACCESS_KEY_ID")
	c.SecretKey = getenv("AWS_SECRET_ACCESS_KEY")
	c.SessionToken = getenv("AWS_SESSION_TOKEN")
	if c.AccessKey == "" || c.SecretKey == "" {
		return errors.New("blobstore s3: no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the URL's credentials_file")
	}
	return nil
}

// readCredentialsFile reads profile's keys from an AWS shared credentials
// file: INI sections "[name]" of "key = value" lines, "#" and ";" comments.
func readCredentialsFile(path, profile string) (accessKey, secretKey, token string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", "", fmt.Errorf("blobstore s3: credentials file: %w", err)
	}
	section, found := "", false
	for line := range strings.Lines(string(b)) {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
			continue
		case line[0] == '[' && line[len(line)-1] == ']':
			section = strings.TrimSpace(line[1 : len(line)-1])
			found = found || section == profile
			continue
		}
		if section != profile {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "aws_access_key_id":
			accessKey = strings.TrimSpace(v)
		case "aws_secret_access_key":
			secretKey = strings.TrimSpace(v)
		case "aws_session_token":
			token = strings.TrimSpace(v)
		}
	}
	if !found {
		return "", "", "", fmt.Errorf("blobstore s3: credentials file %s: no profile [%s]", path, profile)
	}
	if accessKey == "" || secretKey == "" {
		return "", "", "", fmt.Errorf("blobstore s3: credentials file %s: profile [%s] lacks aws_access_key_id or aws_secret_access_key", path, profile)
	}
	return accessKey, secretKey, token, nil
}
