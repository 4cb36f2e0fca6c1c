package linkctl

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/internal/cmdutil"
	"github.com/seedhq/portal/pkg/client"
)

func newQRCmd(g *Globals) *cobra.Command {
	cmd := &cobra.Command{Use: "qr", Short: "Manage QR codes"}
	cmd.AddCommand(
		&cobra.Command{
			Use:   "list",
			Short: "List your QR codes (--all for every page)",
			Args:  cobra.NoArgs,
			RunE: g.apiRun(func(ctx context.Context, c *client.Client, _ []string) error {
				return runQRList(ctx, g, c)
			}),
		},
		&cobra.Command{
			Use:   "get ID",
			Short: "Show a QR code and its scan statistics",
			Args:  exactArgs("ID"),
			RunE: g.apiRun(func(ctx context.Context, c *client.Client, args []string) error {
				id, err := parseID("QR code id", args[0])
				if err != nil {
					return err
				}
				return runQRGet(ctx, g, c, id)
			}),
		},
		newQRAddCmd(g),
		newQRUpdateCmd(g),
		&cobra.Command{
			Use:   "delete ID",
			Short: "Delete a QR code",
			Args:  exactArgs("ID"),
			RunE: g.apiRun(func(ctx context.Context, c *client.Client, args []string) error {
				id, err := parseID("QR code id", args[0])
				if err != nil {
					return err
				}
				if _, err := c.Links.QR.Delete(ctx, id); err != nil {
					return err
				}
				return g.printer().Done(okResult{ID: id, Message: "QR has been deleted successfully."}, "QR code %d deleted", id)
			}),
		},
		newQRDownloadCmd(g),
	)
	return cmd
}

// runQRList prints the caller's QR codes.
func runQRList(ctx context.Context, g *Globals, c *client.Client) error {
	qs, err := fetchList(ctx, g, c.Links.QR.List, c.Links.QR.All)
	if err != nil {
		return err
	}
	return g.printer().Print(qs, func(t *table) {
		t.Row("ID", "NAME", "SCANS", "IMAGE", "DATE")
		for _, q := range qs {
			t.Row(q.ID, q.Name, q.Scans, q.Link, q.Date)
		}
	})
}

// qrWithStats is a QR code and its statistics, as "qr get" prints it in
// JSON.
type qrWithStats struct {
	*client.LinkQRCode
	Stats *client.LinkStats `json:"stats"`
}

// runQRGet prints one QR code.
func runQRGet(ctx context.Context, g *Globals, c *client.Client, id int64) error {
	q, _, err := c.Links.QR.Get(ctx, id)
	if err != nil {
		return err
	}
	return g.printer().Print(qrWithStats{q, q.Stats}, func(t *table) {
		t.Row("ID", q.ID)
		t.Row("NAME", q.Name)
		t.Row("TYPE", q.Type)
		t.Row("DATA", string(q.Data))
		t.Row("COLORS", q.Foreground+" on "+q.Background)
		t.Row("IMAGE", q.Link)
		t.Row("SCANS", q.Scans)
		t.Row("DATE", q.Date)
	})
}

// qrData returns the data flag as the API wants it: JSON objects and
// arrays as they are, anything else as a string.
func qrData(s string) any {
	t := strings.TrimSpace(s)
	if (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t)) {
		return json.RawMessage(t)
	}
	return s
}

// qrAddOptions are the options of "qr add".
type qrAddOptions struct {
	*Globals
	Type, Data, Name                      string
	Background, Foreground, Logo          string
	SetBackground, SetForeground, SetLogo bool
}

func newQRAddCmd(g *Globals) *cobra.Command {
	o := &qrAddOptions{Globals: g}
	cmd := &cobra.Command{
		Use:   "add --type TYPE --data DATA [--name NAME]",
		Short: "Create a QR code",
		Long: `Create a QR code of --type text, vcard, link, email, phone, sms or wifi. --data
is a string for text, link, email and phone, and a JSON object (or a string)
for vcard, sms and wifi (docs/api/links.md).`,
		Example: `  linkctl qr add --type link --data https://example.org --name poster
  linkctl qr add --type wifi --data '{"ssid":"Lab","password":"secret-pass","encryption":"WPA"}'`,
		Args: cobra.NoArgs,
		RunE: g.apiRun(func(ctx context.Context, c *client.Client, _ []string) error {
			return runQRAdd(ctx, o, c)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.Type, "type", "", "text, vcard, link, email, phone, sms or wifi (required)")
	f.StringVar(&o.Data, "data", "", "what the code encodes (required)")
	f.StringVar(&o.Name, "name", "", "name (default: the type)")
	f.StringVar(&o.Background, "background", "", `background colour, "rgb(r,g,b)"`)
	f.StringVar(&o.Foreground, "foreground", "", `foreground colour, "rgb(r,g,b)"`)
	f.StringVar(&o.Logo, "logo", "", "logo URL")
	_ = cmd.MarkFlagRequired("type")
	_ = cmd.MarkFlagRequired("data")
	_ = cmd.RegisterFlagCompletionFunc("type", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"text", "vcard", "link", "email", "phone", "sms", "wifi"}, cobra.ShellCompDirectiveNoFileComp
	})
	cmd.PreRun = func(cmd *cobra.Command, _ []string) {
		ch := cmd.Flags().Changed
		o.SetBackground, o.SetForeground, o.SetLogo = ch("background"), ch("foreground"), ch("logo")
	}
	return cmd
}

// runQRAdd creates a QR code.
func runQRAdd(ctx context.Context, o *qrAddOptions, c *client.Client) error {
	req := &client.LinkQRRequest{Type: o.Type, Data: qrData(o.Data), Name: o.Name}
	if o.SetBackground {
		req.Background = &o.Background
	}
	if o.SetForeground {
		req.Foreground = &o.Foreground
	}
	if o.SetLogo {
		req.Logo = &o.Logo
	}
	q, _, err := c.Links.QR.Add(ctx, req)
	if err != nil {
		return err
	}
	return o.printer().Done(q, "QR code %d: %s", q.ID, q.Link)
}

// qrUpdateOptions are the options of "qr update".
type qrUpdateOptions struct {
	*Globals
	ID     int64
	Data   string
	Update client.LinkQRUpdate
}

func newQRUpdateCmd(g *Globals) *cobra.Command {
	o := &qrUpdateOptions{Globals: g}
	var bg, fg, logo string
	cmd := &cobra.Command{
		Use:   "update ID --data DATA [--background C] [--foreground C] [--logo URL]",
		Short: "Change a QR code (--data is required, of the code's type)",
		Args:  exactArgs("ID"),
		RunE: g.apiRun(func(ctx context.Context, c *client.Client, args []string) error {
			id, err := parseID("QR code id", args[0])
			if err != nil {
				return err
			}
			o.ID = id
			return runQRUpdate(ctx, o, c)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&o.Data, "data", "", "what the code encodes (required)")
	f.StringVar(&bg, "background", "", `background colour, "rgb(r,g,b)"`)
	f.StringVar(&fg, "foreground", "", `foreground colour, "rgb(r,g,b)"`)
	f.StringVar(&logo, "logo", "", "logo URL")
	_ = cmd.MarkFlagRequired("data")
	cmd.PreRun = func(cmd *cobra.Command, _ []string) {
		ch := cmd.Flags().Changed
		if ch("background") {
			o.Update.Background = &bg
		}
		if ch("foreground") {
			o.Update.Foreground = &fg
		}
		if ch("logo") {
			o.Update.Logo = &logo
		}
	}
	return cmd
}

// runQRUpdate changes a QR code.
func runQRUpdate(ctx context.Context, o *qrUpdateOptions, c *client.Client) error {
	o.Update.Data = qrData(o.Data)
	if _, err := c.Links.QR.Update(ctx, o.ID, &o.Update); err != nil {
		return err
	}
	return o.printer().Done(okResult{ID: o.ID, Message: "QR has been updated successfully."}, "QR code %d updated", o.ID)
}

// qrDownloadOptions are the options of "qr download".
type qrDownloadOptions struct {
	*Globals
	ID     int64
	Format string // png or svg
	File   string // "" for qr-<id>.<format>, "-" for stdout
	// HTTPClient fetches the image; nil: http.DefaultClient.
	HTTPClient *http.Client
}

func newQRDownloadCmd(g *Globals) *cobra.Command {
	o := &qrDownloadOptions{Globals: g}
	cmd := &cobra.Command{
		Use:   "download ID [--format png|svg] [-f FILE]",
		Short: "Save a QR code's image (from its link) as PNG or SVG",
		Long: `Fetch the image of a QR code from the address the API gives as its "link"
(<short base>/qr/<id>) and write it to --file (default qr-ID.png or
qr-ID.svg; "-" for stdout).`,
		Args: exactArgs("ID"),
		RunE: g.apiRun(func(ctx context.Context, c *client.Client, args []string) error {
			id, err := parseID("QR code id", args[0])
			if err != nil {
				return err
			}
			o.ID = id
			return runQRDownload(ctx, o, c)
		}),
	}
	cmd.Flags().StringVar(&o.Format, "format", "png", "png or svg")
	cmd.Flags().StringVarP(&o.File, "file", "f", "", `file to write (default qr-ID.FORMAT; "-": stdout)`)
	return cmd
}

// runQRDownload fetches the image of a QR code and writes it.
func runQRDownload(ctx context.Context, o *qrDownloadOptions, c *client.Client) error {
	if o.Format != "png" && o.Format != "svg" {
		return cmdutil.Usagef("--format %q is not png or svg", o.Format)
	}
	q, _, err := c.Links.QR.Get(ctx, o.ID)
	if err != nil {
		return err
	}
	if q.Link == "" {
		return fmt.Errorf("QR code %d has no image link", o.ID)
	}
	// The link serves the PNG; the same address with .svg the SVG.
	link := q.Link
	if o.Format == "svg" {
		link += ".svg"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link, nil)
	if err != nil {
		return fmt.Errorf("QR code %d: image link %q: %w", o.ID, link, err)
	}
	want := map[string]string{"png": "image/png", "svg": "image/svg+xml"}[o.Format]
	req.Header.Set("Accept", want)
	req.Header.Set("User-Agent", "linkctl/"+Version)
	hc := o.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return &client.Error{Status: resp.StatusCode, Message: strings.TrimSpace(string(msg)), Method: req.Method, URL: q.Link}
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "" && mt != want {
		return fmt.Errorf("QR code %d: the image link answered %s, not %s", o.ID, mt, want)
	}
	if o.File == "-" {
		_, err := io.Copy(o.Out, resp.Body)
		return err
	}
	file := o.File
	if file == "" {
		file = fmt.Sprintf("qr-%d.%s", o.ID, o.Format)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	n, err := io.Copy(f, resp.Body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	return o.printer().Done(map[string]any{"id": o.ID, "file": file, "bytes": n, "content_type": want},
		"QR code %d saved to %s (%d bytes)", o.ID, file, n)
}
