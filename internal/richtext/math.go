package richtext

import (
	_ "embed"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"
)

// temmlSource is Temml 0.13.5 (npm temml, dist/temml.cjs; MIT licence in
// temml/LICENSE), a TeX to MathML converter written for MathML Core, which
// current Chromium and Firefox draw natively. It runs here, on the portal,
// in goja: the students' pages receive MathML and run no script for it.
//
//go:embed temml/temml.cjs
var temmlSource string

// Limits of one formula.
const (
	// MaxTeX is the longest TeX source of one formula, in bytes.
	MaxTeX = 4096
	// mathTimeout bounds one conversion: a formula that expands without
	// end (a macro loop) is stopped, not left to hold a converter.
	mathTimeout = 2 * time.Second
)

// MathError is a TeX formula that cannot be converted: the message names
// the problem and where it is, as the author should read it.
type MathError struct {
	TeX     string
	Message string
}

func (e *MathError) Error() string { return "TeX: " + e.Message }

// converter is one JavaScript runtime with Temml loaded; goja runtimes are
// not safe for concurrent use, so each conversion takes one from the pool.
type converter struct {
	vm     *goja.Runtime
	render goja.Callable
}

var converters = struct {
	once sync.Once
	free chan *converter
	err  error
}{}

// newConverter starts a runtime and loads Temml in it (about 50 ms).
func newConverter() (*converter, error) {
	vm := goja.New()
	module, exports := vm.NewObject(), vm.NewObject()
	if err := module.Set("exports", exports); err != nil {
		return nil, err
	}
	if err := vm.Set("module", module); err != nil {
		return nil, err
	}
	if err := vm.Set("exports", exports); err != nil {
		return nil, err
	}
	if _, err := vm.RunScript("temml.cjs", temmlSource); err != nil {
		return nil, fmt.Errorf("richtext: load temml: %w", err)
	}
	render, ok := goja.AssertFunction(module.Get("exports").ToObject(vm).Get("renderToString"))
	if !ok {
		return nil, errors.New("richtext: temml has no renderToString")
	}
	return &converter{vm: vm, render: render}, nil
}

// takeConverter returns a free converter, starting one when fewer than
// GOMAXPROCS exist.
func takeConverter() (*converter, error) {
	converters.once.Do(func() {
		n := runtime.GOMAXPROCS(0)
		converters.free = make(chan *converter, n)
		for range n {
			converters.free <- nil // a place for a converter not started yet
		}
	})
	c := <-converters.free
	if c != nil {
		return c, nil
	}
	c, err := newConverter()
	if err != nil {
		converters.free <- nil
		return nil, err
	}
	return c, nil
}

// MathML converts one TeX formula to MathML, display (a block of its own)
// or inline. A formula Temml refuses, one over MaxTeX or one that takes
// too long is a *MathError.
func MathML(tex string, display bool) (string, error) {
	if len(tex) > MaxTeX {
		return "", &MathError{TeX: tex, Message: fmt.Sprintf("the formula is longer than %d bytes", MaxTeX)}
	}
	if strings.TrimSpace(tex) == "" {
		return "", &MathError{TeX: tex, Message: "the formula is empty"}
	}
	c, err := takeConverter()
	if err != nil {
		return "", err
	}
	defer func() { converters.free <- c }()

	opts := c.vm.NewObject()
	for k, v := range map[string]any{"displayMode": display, "throwOnError": true, "trust": false, "maxExpand": 1000} {
		if err := opts.Set(k, v); err != nil {
			return "", err
		}
	}
	timer := time.AfterFunc(mathTimeout, func() { c.vm.Interrupt("timeout") })
	v, err := c.render(goja.Undefined(), c.vm.ToValue(tex), opts)
	timer.Stop()
	c.vm.ClearInterrupt()
	if err != nil {
		var interrupted *goja.InterruptedError
		if errors.As(err, &interrupted) {
			return "", &MathError{TeX: tex, Message: "the formula takes too long to convert"}
		}
		var ex *goja.Exception
		if errors.As(err, &ex) {
			return "", &MathError{TeX: tex, Message: temmlMessage(ex)}
		}
		return "", fmt.Errorf("richtext: convert TeX: %w", err)
	}
	return v.String(), nil
}

// temmlMessage is the author's part of a Temml ParseError: its message
// without the "ParseError:" prefix and the marked-up copy of the source.
func temmlMessage(ex *goja.Exception) string {
	msg := ex.Value().String()
	if obj, ok := ex.Value().Export().(map[string]any); ok {
		if m, ok := obj["rawMessage"].(string); ok && m != "" {
			msg = m
		}
	}
	msg = strings.TrimSpace(strings.TrimPrefix(msg, "ParseError:"))
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = strings.TrimSpace(msg[:i])
	}
	if msg == "" {
		msg = "the formula cannot be read"
	}
	return msg
}
