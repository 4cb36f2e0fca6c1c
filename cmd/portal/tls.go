package main

import (
	"crypto/tls"
	"net"
	"strings"

	"github.com/seedhq/portal/internal/config"
)

// tlsConfigFrom reads tls-cert-file and tls-key-file (both or neither) and
// loads the certificate: nil without them. A half configuration, or a pair
// that does not load, fails the key.
func tlsConfigFrom(r *config.Reader) *tls.Config {
	certFile, keyFile := r.String("tls-cert-file"), r.String("tls-key-file")
	switch {
	case certFile == "" && keyFile == "":
		return nil
	case keyFile == "":
		r.Fail("tls-key-file", "is required with tls-cert-file (set both to serve HTTPS, or neither)")
		return nil
	case certFile == "":
		r.Fail("tls-cert-file", "is required with tls-key-file (set both to serve HTTPS, or neither)")
		return nil
	}
	cfg, err := serverTLSConfig(certFile, keyFile)
	if err != nil {
		r.Fail("tls-cert-file", "%v", err)
		return nil
	}
	return cfg
}

// serverTLSConfig loads the certificate (chain) and key of "portal serve"
// and returns its TLS configuration: TLS 1.2 at least, with forward-secret
// AEAD cipher suites only (TLS 1.3's are always so), HTTP/2 offered.
func serverTLSConfig(certFile, keyFile string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	return &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{cert},
		CipherSuites: []uint16{
			tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
			tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
			tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
			tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
			tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
			tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
		},
		NextProtos: []string{"h2", "http/1.1"},
	}, nil
}

// listenTLS wraps ln in TLS when cfg is not nil; it returns the listener and
// the scheme of the base URL derived from it ("https" or "http").
func listenTLS(ln net.Listener, cfg *tls.Config) (net.Listener, string) {
	if cfg == nil {
		return ln, "http"
	}
	return tls.NewListener(ln, cfg), "https"
}

// withScheme returns the http:// URL u with scheme instead.
func withScheme(u, scheme string) string {
	return scheme + strings.TrimPrefix(u, "http")
}
