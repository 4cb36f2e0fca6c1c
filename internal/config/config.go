// Package config loads the configuration of the portal's binaries (portal,
// labagent, linkctl) with viper, one instance per binary, in one order of
// precedence:
//
//	command-line flags > environment (PREFIX_KEY) > config file > defaults
//
// Keys are the long flag names ("log-level"). In the environment a key is
// upper-cased, '-' and '.' become '_' and the binary's prefix is put in front
// (PORTAL_LOG_LEVEL). A config file (--config, or PREFIX_CONFIG) may be YAML,
// TOML or JSON, told by its extension, and uses the same key names; a key that
// no command of the binary knows is an error, so typos do not pass silently.
//
// Loading never interprets values: commands read them through a Reader, which
// validates each key once and names the key (with its flag and environment
// variable) in every error.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// FlagConfig is the name of the flag (and key) that names the config file.
const FlagConfig = "config"

// keyAnnotation is the pflag annotation that holds a flag's key when it
// differs from the flag's name (see SetKey).
const keyAnnotation = "config_key"

// SetKey makes the flag named flag of fs set the key key instead of a key
// named after the flag, so that for example --username sets admin-username
// (PORTAL_ADMIN_USERNAME in the environment, admin-username in files).
func SetKey(fs *pflag.FlagSet, flag, key string) error {
	return fs.SetAnnotation(flag, keyAnnotation, []string{key})
}

// keyOf returns the key a flag sets.
func keyOf(f *pflag.Flag) string {
	if k := f.Annotations[keyAnnotation]; len(k) > 0 {
		return strings.ToLower(k[0])
	}
	return strings.ToLower(f.Name)
}

// Load returns a viper instance for cmd: its flags (including inherited
// persistent flags) are bound, the environment is read with prefix (e.g.
// "PORTAL"), the config file is read when file is not empty (or, when it is,
// from the environment variable PREFIX_CONFIG), and defaults are set.
//
// Flags only win over the environment and the file when they were given on the
// command line; an unset flag's default is the value of last resort, below
// defaults.
func Load(cmd *cobra.Command, prefix, file string, defaults map[string]any) (*viper.Viper, error) {
	v := viper.New()
	prefix = strings.ToUpper(strings.TrimSuffix(prefix, "_"))
	v.SetEnvPrefix(prefix)
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_", ".", "_"))
	v.AutomaticEnv()

	for k, val := range defaults {
		v.SetDefault(k, val)
	}

	var bindErr error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Name == FlagConfig || f.Name == "help" || bindErr != nil {
			return
		}
		bindErr = v.BindPFlag(keyOf(f), f)
	})
	if bindErr != nil {
		return nil, fmt.Errorf("config: bind flags: %w", bindErr)
	}

	if file == "" {
		file = os.Getenv(prefix + "_CONFIG")
	}
	if file != "" {
		if err := readFile(v, file); err != nil {
			return nil, err
		}
		known := knownKeys(cmd.Root(), defaults)
		for _, k := range v.AllKeys() {
			if v.InConfig(k) && !known[k] {
				return nil, fmt.Errorf("config file %s: unknown key %q", file, k)
			}
		}
	}
	return v, nil
}

// readFile reads a YAML, TOML or JSON file into v.
func readFile(v *viper.Viper, file string) error {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(file), "."))
	switch ext {
	case "yaml", "yml":
		v.SetConfigType("yaml")
	case "toml", "json":
		v.SetConfigType(ext)
	default:
		return fmt.Errorf("config file %s: unsupported extension %q (use .yaml, .yml, .toml or .json)", file, filepath.Ext(file))
	}
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	defer f.Close()
	if err := v.ReadConfig(f); err != nil {
		return fmt.Errorf("config file %s: %w", file, err)
	}
	return nil
}

// knownKeys returns the names of every flag of every command of the tree
// under root, and the keys of defaults.
func knownKeys(root *cobra.Command, defaults map[string]any) map[string]bool {
	known := map[string]bool{}
	for k := range defaults {
		known[strings.ToLower(k)] = true
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		add := func(f *pflag.Flag) { known[keyOf(f)] = true }
		c.LocalFlags().VisitAll(add)
		c.PersistentFlags().VisitAll(add)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return known
}

// KeyError is a configuration value that failed validation.
type KeyError struct {
	Key    string // the key, e.g. "log-level"
	Env    string // its environment variable, e.g. "PORTAL_LOG_LEVEL"
	Reason string
}

// Error names the key, its flag and its environment variable.
func (e *KeyError) Error() string {
	return fmt.Sprintf("config: %s (--%s, %s): %s", e.Key, e.Key, e.Env, e.Reason)
}

// EnvName returns the environment variable that sets key under prefix.
func EnvName(prefix, key string) string {
	r := strings.NewReplacer("-", "_", ".", "_")
	return strings.ToUpper(strings.TrimSuffix(prefix, "_") + "_" + r.Replace(key))
}

// AsKeyError returns the first *KeyError in err, or nil.
func AsKeyError(err error) *KeyError {
	var ke *KeyError
	if errors.As(err, &ke) {
		return ke
	}
	return nil
}
