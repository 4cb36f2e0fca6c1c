package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNotEnrolled means the data directory holds no configuration: labagent
// enroll has not been run with this --data-dir.
var ErrNotEnrolled = errors.New("labagent is not enrolled")

// ReadConfig reads the configuration that enrolment wrote to
// <dir>/labagent.json. Without one it returns an error wrapping
// ErrNotEnrolled that says what to do.
func ReadConfig(dir string) (*Config, error) {
	path := filepath.Join(dir, ConfigFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: there is no %s (run labagent enroll first, or pass the --data-dir it used)", ErrNotEnrolled, path)
	}
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	cfg := new(Config)
	if err := json.Unmarshal(b, cfg); err != nil {
		return nil, fmt.Errorf("config %s is damaged (run labagent enroll again): %w", path, err)
	}
	if cfg.ServerCode == "" || cfg.NPSN == "" || cfg.LicenseToken == "" {
		return nil, fmt.Errorf("%w: config %s lacks server_code, npsn or license_token (run labagent enroll again)", ErrNotEnrolled, path)
	}
	return cfg, nil
}
