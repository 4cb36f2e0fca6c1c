package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seedhq/portal/internal/testkit/proc"
)

// TestTLS starts the real binary with a self-signed certificate (set in the
// environment) and calls it over HTTPS: /readyz answers with TLS 1.2 or
// later and HTTP/2, the derived base URL is https, TLS 1.1 and plain HTTP
// are refused, and "portal backup" works over HTTPS with the certificate in
// SSL_CERT_FILE.
func TestTLS(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the portal binary; skipped with -short")
	}
	dir := t.TempDir()
	certFile, keyFile, pool := mustSelfSignedCert(t, dir)
	dataDir := filepath.Join(dir, "data")
	const password = "tls-test-Password"
	p := proc.Start(t, bins.Path(t, "portal"), proc.Options{DropEnv: dropEnv, Env: []string{
		"PORTAL_TLS_CERT_FILE=" + certFile, "PORTAL_TLS_KEY_FILE=" + keyFile, "PORTAL_ADMIN_PASSWORD=" + password,
	}}, "serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--log-format", "json")
	addr := p.WaitListening(time.Minute)
	base := "https://" + addr
	if m := p.FindLog("listening"); m == nil || m["base_url"] != base {
		t.Errorf("listening: %v, want base_url %s", m, base)
	}

	hc := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
	var resp *http.Response
	deadline := time.Now().Add(30 * time.Second)
	for {
		var err error
		resp, err = hc.Get(base + "/readyz")
		if err == nil && resp.StatusCode == http.StatusOK {
			break
		}
		if err == nil {
			resp.Body.Close()
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET /readyz over HTTPS: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	resp.Body.Close()
	if resp.TLS == nil || resp.TLS.Version < tls.VersionTLS12 || resp.Proto != "HTTP/2.0" {
		t.Errorf("GET /readyz: %s over %v; want HTTP/2.0 over TLS 1.2 or later", resp.Proto, resp.TLS)
	}

	old := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, MaxVersion: tls.VersionTLS11}}}
	if resp, err := old.Get(base + "/readyz"); err == nil {
		resp.Body.Close()
		t.Error("a TLS 1.1 client was served")
	}
	plain, err := http.Get("http://" + addr + "/readyz")
	if err == nil {
		body, _ := io.ReadAll(plain.Body)
		plain.Body.Close()
		if plain.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "HTTPS") {
			t.Errorf("plain HTTP: %d %q, want 400 naming HTTPS", plain.StatusCode, body)
		}
	}

	// The operator's commands reach it with the certificate trusted.
	out := filepath.Join(dir, "backup.db")
	res := runPortal(t, []string{"SSL_CERT_FILE=" + certFile, "PORTAL_ADMIN_PASSWORD=" + password}, "",
		"backup", "--url", base, "--output", out)
	if res.Code != 0 {
		t.Fatalf("backup over HTTPS: exit %d\n%s", res.Code, res.Stderr)
	}
	checkBackupFile(t, res.Stdout, out)
	p.Stop()
}

// TestTLSConfig checks that a half TLS configuration, or a certificate that
// cannot be loaded, stops "portal serve" with an error naming the key.
func TestTLSConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	certFile, keyFile, _ := mustSelfSignedCert(t, dir)
	conf := filepath.Join(dir, "portal.yaml")
	if err := os.WriteFile(conf, []byte("tls-key-file: "+keyFile+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"flag without key", nil, []string{"--tls-cert-file", certFile}, "tls-key-file (--tls-key-file, PORTAL_TLS_KEY_FILE): is required with tls-cert-file"},
		{"file without cert", nil, []string{"--config", conf}, "tls-cert-file (--tls-cert-file, PORTAL_TLS_CERT_FILE): is required with tls-key-file"},
		{"environment without cert", []string{"PORTAL_TLS_KEY_FILE=" + keyFile}, nil, "is required with tls-key-file"},
		{"key is not a key", nil, []string{"--tls-cert-file", certFile, "--tls-key-file", certFile}, "tls-cert-file (--tls-cert-file, PORTAL_TLS_CERT_FILE): tls: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data-dir", filepath.Join(t.TempDir(), "data")}, tc.args...)
			res := runPortal(t, tc.env, "", args...)
			if res.Code != 1 || !strings.Contains(res.Stderr, tc.want) {
				t.Errorf("exit %d, want 1 with %q\n%s", res.Code, tc.want, res.Stderr)
			}
		})
	}
}

// mustSelfSignedCert writes a self-signed ECDSA certificate for 127.0.0.1
// and localhost, and its key, in dir; it returns their paths and a pool
// that trusts the certificate.
func mustSelfSignedCert(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "portal test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}
