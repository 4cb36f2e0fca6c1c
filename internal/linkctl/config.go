package linkctl

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/seedhq/portal/internal/cmdutil"
)

func newConfigCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Manage the profiles of the config file",
		Long: `The config file (--config, default $XDG_CONFIG_HOME/linkctl/config.yaml) holds
named profiles:

  default_profile: work
  profiles:
    work:
      api_url: https://portal.example.org
      api_key: lk_...

--profile (or LINKCTL_PROFILE) picks a profile, else default_profile does.
Flags and LINKCTL_API_URL / LINKCTL_API_KEY override the profile's values.`,
	}
	cmd.AddCommand(newConfigSetProfileCmd(g), newConfigListCmd(g))
	return cmd
}

// setProfileOptions are the options of "config set-profile".
type setProfileOptions struct {
	*Globals
	Name        string
	APIURL      string
	APIKey      string
	SetURL      bool
	SetKey      bool
	MakeDefault bool
}

func newConfigSetProfileCmd(g *Globals) *cobra.Command {
	o := &setProfileOptions{Globals: g}
	cmd := &cobra.Command{
		Use:   "set-profile NAME --api-url URL --api-key KEY",
		Short: "Create or change a profile of the config file (written with mode 0600)",
		Long: `Create or change the profile NAME of the config file with the given
--api-url and --api-key (flags not given keep the profile's values). The
first profile becomes the default_profile, as does any with --default.
The file is written with mode 0600: it holds API keys.`,
		Args: exactArgs("NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			o.APIURL, _ = cmd.Flags().GetString("api-url")
			o.APIKey, _ = cmd.Flags().GetString("api-key")
			o.SetURL = cmd.Flags().Changed("api-url")
			o.SetKey = cmd.Flags().Changed("api-key")
			return runSetProfile(o)
		},
	}
	cmd.Flags().BoolVar(&o.MakeDefault, "default", false, "make it the default_profile")
	return cmd
}

// runSetProfile writes the profile into the config file.
func runSetProfile(o *setProfileOptions) error {
	if o.Name == "" {
		return cmdutil.Usagef("the profile name is empty")
	}
	if !o.SetURL && !o.SetKey && !o.MakeDefault {
		return cmdutil.Usagef("nothing to set: give --api-url, --api-key or --default")
	}
	if o.ConfigFile == "" {
		return cmdutil.Usagef("no config file: set --config")
	}
	cf, err := readConfigFile(o.ConfigFile)
	if err != nil {
		return err
	}
	p := cf.Profiles[o.Name]
	if o.SetURL {
		p.APIURL = o.APIURL
	}
	if o.SetKey {
		p.APIKey = o.APIKey
	}
	cf.Profiles[o.Name] = p
	if cf.DefaultProfile == "" || o.MakeDefault {
		cf.DefaultProfile = o.Name
	}
	b, err := yaml.Marshal(cf)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(o.ConfigFile), 0o700); err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	tmp := o.ConfigFile + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	if err := os.Rename(tmp, o.ConfigFile); err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	return o.printer().Done(map[string]any{"file": o.ConfigFile, "profile": o.Name, "default": cf.DefaultProfile == o.Name},
		"profile %q saved in %s", o.Name, o.ConfigFile)
}

// profileRow is a profile as "config list" shows it; keys are never shown.
type profileRow struct {
	Name    string `json:"name"`
	APIURL  string `json:"api_url"`
	HasKey  bool   `json:"has_key"`
	Default bool   `json:"default"`
}

func newConfigListCmd(g *Globals) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the profiles of the config file (keys are not shown)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			cf, err := readConfigFile(g.ConfigFile)
			if err != nil {
				return err
			}
			rows := []profileRow{}
			for name, p := range cf.Profiles {
				rows = append(rows, profileRow{Name: name, APIURL: p.APIURL, HasKey: p.APIKey != "", Default: name == cf.DefaultProfile})
			}
			sort.Slice(rows, func(i, j int) bool { return rows[i].Name < rows[j].Name })
			return g.printer().Print(rows, func(t *table) {
				t.Row("NAME", "API URL", "KEY", "DEFAULT")
				for _, r := range rows {
					t.Row(r.Name, r.APIURL, r.HasKey, r.Default)
				}
			})
		},
	}
}
