package config

import (
	"io"
	"log/slog"

	"github.com/spf13/pflag"
)

// AddLogFlags adds --log-level and --log-format, read back by Reader.Log.
func AddLogFlags(f *pflag.FlagSet) {
	f.String("log-level", "info", "log level: debug, info, warn or error")
	f.String("log-format", "text", "log format: text or json")
}

// Log reads the settings of AddLogFlags.
func (r *Reader) Log() (level slog.Level, format string) {
	format = r.OneOf("log-format", "text", "json")
	switch r.OneOf("log-level", "debug", "info", "warn", "error") {
	case "debug":
		level = slog.LevelDebug
	case "warn":
		level = slog.LevelWarn
	case "error":
		level = slog.LevelError
	default:
		level = slog.LevelInfo
	}
	return level, format
}

// NewLogger returns the one logger of a process, writing to w.
func NewLogger(w io.Writer, level slog.Level, format string) *slog.Logger {
	ho := &slog.HandlerOptions{Level: level}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, ho))
	}
	return slog.New(slog.NewTextHandler(w, ho))
}
