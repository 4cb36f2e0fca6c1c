package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/seedhq/portal/pkg/client"
)

func newExamMediaCmd(o *adminOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "media FILE...",
		Short: "Upload images and audio for exams; print the reference a question's text writes",
		Long: `Upload images (PNG, JPEG, WebP, up to 5 MiB) and audio (MP3, Ogg, M4A, AAC, up to 30 MiB)
for exams. The portal reads each file's type from its bytes; the same file uploaded again is
stored once. A question written in Markdown shows a file as

  ![what it shows, for students who cannot see it](media:SHA256)

with the REFERENCE printed here (docs/exam-content.md, "Media").`,
		Args: cobra.MinimumNArgs(1),
		RunE: o.adminRun(func(ctx context.Context, c *client.Client, args []string) error {
			var out []*client.Media
			for _, name := range args {
				m, err := uploadMediaFile(ctx, c, name)
				if err != nil {
					return err
				}
				out = append(out, m)
			}
			return o.printer().Print(out, func(t *table) {
				t.Row("NAME", "TYPE", "SIZE", "REFERENCE")
				for _, m := range out {
					t.Row(m.Name, m.Type, m.Size, m.Reference)
				}
			})
		}),
	}
}

// uploadMediaFile uploads the file name, streamed from disk.
func uploadMediaFile(ctx context.Context, c *client.Client, name string) (*client.Media, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, _, err := c.Exam.Admin.UploadMedia(ctx, filepath.Base(name), f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}
