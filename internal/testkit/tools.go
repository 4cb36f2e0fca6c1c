package testkit

import (
	"fmt"
	"os"
	"path/filepath"
)

// CachedTool returns the path of the tool name (a file or a directory)
// in the machine's tool cache, the user's cache directory's
// seedhq-portal/tools, installing it there on first use: one install at a
// time on the machine (test packages run in parallel; the others wait
// and find it done). install puts the tool into the empty directory tmp
// and returns its path there, which is renamed into place, so that the
// cached tool is whole or absent.
func CachedTool(name string, install func(tmp string) (string, error)) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory to install %s into: %w", name, err)
	}
	dir := filepath.Join(cache, "seedhq-portal", "tools")
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("install %s: %w", name, err)
	}
	unlock, err := LockFile(filepath.Join(dir, name+".lock"))
	if err != nil {
		return "", fmt.Errorf("install %s: %w", name, err)
	}
	defer unlock()
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	tmp, err := os.MkdirTemp(dir, "install-"+name+"-")
	if err != nil {
		return "", fmt.Errorf("install %s: %w", name, err)
	}
	defer os.RemoveAll(tmp)
	built, err := install(tmp)
	if err != nil {
		return "", err
	}
	if err := os.Rename(built, p); err != nil {
		return "", fmt.Errorf("install %s: %w", name, err)
	}
	return p, nil
}
