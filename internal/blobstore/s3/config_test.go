package s3_test

import (
	"strings"
	"testing"

	"github.com/seedhq/portal/internal/blobstore/s3"
)

func TestParseURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		url  string
		want s3.Config
	}{
		{"s3://blobs", s3.Config{Bucket: "blobs"}},
		{"s3://blobs/", s3.Config{Bucket: "blobs"}},
		{"s3://blobs/portal", s3.Config{Bucket: "blobs", Prefix: "portal/"}},
		{"s3://blobs/a/b/?region=eu-west-1", s3.Config{Bucket: "blobs", Prefix: "a/b/", Region: "eu-west-1"}},
		{"s3://blobs?endpoint=127.0.0.1:9000&insecure=1&path_style=true&part_size=8MiB&max_retries=5",
			s3.Config{Bucket: "blobs", Endpoint: "127.0.0.1:9000", PlainHTTP: true, PathStyle: true, PartSize: 8 << 20, MaxRetries: 5}},
		{"s3://blobs?credentials_file=/etc/portal/s3&profile=portal&ca_file=/etc/ca.pem&part_size=6000000",
			s3.Config{Bucket: "blobs", CredentialsFile: "/etc/portal/s3", Profile: "portal", CAFile: "/etc/ca.pem", PartSize: 6000000}},
	} {
		got, err := s3.ParseURL(tc.url)
		if err != nil {
			t.Errorf("ParseURL(%q): %v", tc.url, err)
			continue
		}
		if got != tc.want {
			t.Errorf("ParseURL(%q) = %+v; want %+v", tc.url, got, tc.want)
		}
	}
	for _, tc := range []struct{ url, want string }{
		{"http://blobs", "scheme"},
		{"s3:///prefix", "no bucket"},
		{"s3://Bad_Bucket", "bucket"},
		{"s3://key:secret@blobs", "credentials do not go in the URL"},
		{"s3://blobs?part_size=1MiB", "at least"},
		{"s3://blobs?part_size=lots", "part_size"},
		{"s3://blobs?insecure=maybe", "insecure"},
		{"s3://blobs?max_retries=0", "max_retries"},
		{"s3://blobs?secret=x", "unknown option"},
	} {
		_, err := s3.ParseURL(tc.url)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseURL(%q) error = %v; want one about %q", tc.url, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret@") {
			t.Errorf("ParseURL(%q) error shows the credentials: %v", tc.url, err)
		}
	}
}

// TestNoCredentials: a store without credentials is refused when opened,
// clearly.
func TestNoCredentials(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	_, err := s3.Open("s3://blobs")
	if err == nil || !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID") {
		t.Fatalf("Open without credentials: %v; want an error naming AWS_ACCESS_KEY_ID", err)
	}
	_, err = s3.Open("s3://blobs?credentials_file=/nonexistent/credentials")
	if err == nil || !strings.Contains(err.Error(), "credentials file") {
		t.Fatalf("Open with a missing credentials file: %v", err)
	}
}
