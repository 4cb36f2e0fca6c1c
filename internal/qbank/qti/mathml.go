package qti

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// mathTeX returns the TeX of a MathML <math> element: its TeX annotation
// (application/x-tex, TeX, LaTeX) when it has one, else its presentation
// MathML converted. An element it does not know is an error.
func mathTeX(m *node) (tex string, display bool, err error) {
	display = m.attr("display") == "block"
	if ann := texAnnotation(m); ann != "" {
		return ann, display, nil
	}
	tex, err = mathChildren(m)
	return strings.TrimSpace(tex), display, err
}

// texAnnotation is the TeX an annotation of m's semantics carries.
func texAnnotation(m *node) string {
	for _, sem := range m.find(func(n *node) bool { return n.Name == "semantics" }) {
		for _, a := range sem.children("annotation") {
			switch strings.ToLower(strings.TrimSpace(a.attr("encoding"))) {
			case "application/x-tex", "tex", "latex", "application/x-latex", "text/x-tex":
				if s := strings.TrimSpace(a.textContent()); s != "" {
					return s
				}
			}
		}
	}
	return ""
}

func mathChildren(n *node) (string, error) {
	var parts []string
	for _, k := range n.Kids {
		if k.Name == "" {
			continue // whitespace between elements; a token's text is read by its element
		}
		s, err := mathNodeTeX(k)
		if err != nil {
			return "", err
		}
		parts = append(parts, s)
	}
	return joinTeX(parts), nil
}

// joinTeX joins parts, with a space where a control word would run into
// a letter.
func joinTeX(parts []string) string {
	var b strings.Builder
	last := ""
	for _, p := range parts {
		if p == "" {
			continue
		}
		if last != "" && endsWithControlWord(last) && startsWithLetter(p) {
			b.WriteByte(' ')
		}
		b.WriteString(p)
		last = p
	}
	return b.String()
}

func endsWithControlWord(s string) bool {
	i := len(s)
	for i > 0 && isASCIILetter(s[i-1]) {
		i--
	}
	return i < len(s) && i > 0 && s[i-1] == '\\'
}

func startsWithLetter(s string) bool { return s != "" && isASCIILetter(s[0]) }

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// arg is s as one TeX argument: a single character or control word as is,
// anything else in braces.
func arg(s string) string {
	if utf8.RuneCountInString(s) == 1 {
		return s
	}
	if strings.HasPrefix(s, "\\") && len(s) > 1 {
		rest := s[1:]
		word := true
		for i := 0; i < len(rest); i++ {
			if !isASCIILetter(rest[i]) {
				word = false
				break
			}
		}
		if word {
			return s
		}
	}
	return "{" + s + "}"
}

// kidElems are n's child elements.
func kidElems(n *node) []*node {
	var out []*node
	for _, k := range n.Kids {
		if k.Name != "" {
			out = append(out, k)
		}
	}
	return out
}

func mathArgs(n *node, want int) ([]string, error) {
	ks := kidElems(n)
	if len(ks) != want {
		return nil, fmt.Errorf("<%s> has %d children, not %d", n.Name, len(ks), want)
	}
	out := make([]string, want)
	for i, k := range ks {
		s, err := mathNodeTeX(k)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// functionNames are the multi-letter identifiers TeX has a command for.
var functionNames = map[string]bool{"sin": true, "cos": true, "tan": true, "cot": true, "sec": true, "csc": true,
	"log": true, "ln": true, "lg": true, "exp": true, "lim": true, "max": true, "min": true, "sup": true, "inf": true,
	"det": true, "gcd": true, "arcsin": true, "arccos": true, "arctan": true, "sinh": true, "cosh": true, "tanh": true,
	"deg": true, "dim": true, "ker": true, "arg": true, "Pr": true, "limsup": true, "liminf": true}

// symbols maps characters of MathML tokens to TeX.
var symbols = map[rune]string{
	'α': `\alpha`, 'β': `\beta`, 'γ': `\gamma`, 'δ': `\delta`, 'ε': `\varepsilon`, 'ϵ': `\epsilon`, 'ζ': `\zeta`,
	'η': `\eta`, 'θ': `\theta`, 'ϑ': `\vartheta`, 'ι': `\iota`, 'κ': `\kappa`, 'λ': `\lambda`, 'μ': `\mu`, 'ν': `\nu`,
	'ξ': `\xi`, 'π': `\pi`, 'ρ': `\rho`, 'σ': `\sigma`, 'ς': `\varsigma`, 'τ': `\tau`, 'υ': `\upsilon`, 'φ': `\varphi`,
	'ϕ': `\phi`, 'χ': `\chi`, 'ψ': `\psi`, 'ω': `\omega`, 'Γ': `\Gamma`, 'Δ': `\Delta`, 'Θ': `\Theta`, 'Λ': `\Lambda`,
	'Ξ': `\Xi`, 'Π': `\Pi`, 'Σ': `\Sigma`, 'Φ': `\Phi`, 'Ψ': `\Psi`, 'Ω': `\Omega`,
	'×': `\times`, '÷': `\div`, '·': `\cdot`, '⋅': `\cdot`, '∙': `\cdot`, '±': `\pm`, '∓': `\mp`, '−': `-`,
	'≤': `\le`, '≥': `\ge`, '≠': `\neq`, '≈': `\approx`, '≡': `\equiv`, '∼': `\sim`, '≅': `\cong`, '∝': `\propto`,
	'⩽': `\leqslant`, '⩾': `\geqslant`, '≪': `\ll`, '≫': `\gg`,
	'→': `\to`, '←': `\leftarrow`, '↔': `\leftrightarrow`, '⇒': `\Rightarrow`, '⇐': `\Leftarrow`, '⇔': `\Leftrightarrow`,
	'⟶': `\longrightarrow`, '⇌': `\rightleftharpoons`, '↦': `\mapsto`,
	'∞': `\infty`, '∑': `\sum`, '∏': `\prod`, '∫': `\int`, '∬': `\iint`, '∮': `\oint`, '∂': `\partial`, '∇': `\nabla`,
	'√': `\surd`, '∈': `\in`, '∉': `\notin`, '∋': `\ni`, '⊂': `\subset`, '⊆': `\subseteq`, '⊃': `\supset`, '⊇': `\supseteq`,
	'∪': `\cup`, '∩': `\cap`, '∅': `\emptyset`, '∀': `\forall`, '∃': `\exists`, '¬': `\neg`, '∧': `\wedge`, '∨': `\vee`,
	'°': `^\circ`, '∘': `\circ`, '′': `'`, '″': `''`, '…': `\ldots`, '⋯': `\cdots`, '⋮': `\vdots`, '⋱': `\ddots`,
	'∠': `\angle`, '⊥': `\perp`, '∥': `\parallel`, '△': `\triangle`, 'ℝ': `\mathbb{R}`, 'ℕ': `\mathbb{N}`,
	'ℤ': `\mathbb{Z}`, 'ℚ': `\mathbb{Q}`, 'ℂ': `\mathbb{C}`, '\u2061': ``, '\u2062': ``, '\u2063': ``, '\u2064': ``,
	'\u00a0': `~`, '|': `|`, '‖': `\|`, '⟨': `\langle`, '⟩': `\rangle`, '⌊': `\lfloor`, '⌋': `\rfloor`,
	'⌈': `\lceil`, '⌉': `\rceil`,
}

// tokenTeX is the TeX of a token's text: TeX's special characters
// escaped, known symbols as their commands.
func tokenTeX(s string) string {
	var parts []string
	for _, r := range s {
		switch {
		case symbols[r] != "" || r == '\u2061' || r == '\u2062' || r == '\u2063' || r == '\u2064':
			parts = append(parts, symbols[r])
		case strings.ContainsRune("#$%&_{}", r):
			parts = append(parts, `\`+string(r))
		case r == '~':
			parts = append(parts, `\sim`)
		case r == '^':
			parts = append(parts, `\hat{}`)
		case r == '\\':
			parts = append(parts, `\backslash`)
		default:
			parts = append(parts, string(r))
		}
	}
	return joinTeX(parts)
}

// textTeX is s as the argument of \text: its special characters escaped.
func textTeX(s string) string {
	r := strings.NewReplacer(`\`, `\textbackslash{}`, `{`, `\{`, `}`, `\}`, `$`, `\$`, `&`, `\&`, `#`, `\#`,
		`%`, `\%`, `_`, `\_`, `^`, `\textasciicircum{}`, `~`, `\textasciitilde{}`)
	return `\text{` + r.Replace(s) + `}`
}

// fences are the characters TeX can size with \left and \right.
var fences = map[string]string{"(": "(", ")": ")", "[": "[", "]": "]", "{": `\{`, "}": `\}`, "|": "|",
	"‖": `\|`, "⟨": `\langle`, "⟩": `\rangle`, "": "."}

func mathNodeTeX(n *node) (string, error) {
	switch n.Name {
	case "mrow", "mstyle", "mpadded", "math":
		ks := kidElems(n)
		// ( mtable ) is a matrix in fences.
		if len(ks) == 3 && ks[0].Name == "mo" && ks[2].Name == "mo" && ks[1].Name == "mtable" {
			l, lok := fences[strings.TrimSpace(ks[0].textContent())]
			r, rok := fences[strings.TrimSpace(ks[2].textContent())]
			if lok && rok {
				m, err := mathNodeTeX(ks[1])
				if err != nil {
					return "", err
				}
				return `\left` + l + " " + m + ` \right` + r, nil
			}
		}
		return mathChildren(n)
	case "semantics":
		ks := kidElems(n)
		if len(ks) == 0 {
			return "", nil
		}
		return mathNodeTeX(ks[0])
	case "mi":
		s := strings.TrimSpace(n.textContent())
		switch {
		case s == "":
			return "", nil
		case functionNames[s]:
			return `\` + s, nil
		case utf8.RuneCountInString(s) == 1:
			if n.attr("mathvariant") == "normal" && isASCIILetter(s[0]) {
				return `\mathrm{` + s + `}`, nil
			}
			return tokenTeX(s), nil
		}
		return `\mathrm{` + tokenTeX(s) + `}`, nil
	case "mn":
		return tokenTeX(strings.TrimSpace(n.textContent())), nil
	case "mo":
		s := strings.TrimSpace(n.textContent())
		if functionNames[s] {
			return `\` + s, nil
		}
		return tokenTeX(s), nil
	case "mtext":
		s := n.textContent()
		if strings.TrimSpace(s) == "" {
			return `\ `, nil
		}
		return textTeX(s), nil
	case "ms":
		return textTeX(`"` + n.textContent() + `"`), nil
	case "mspace":
		if w := n.attr("width"); strings.HasSuffix(w, "em") && w >= "1em" && len(w) >= 3 {
			return `\quad `, nil
		}
		return `\,`, nil
	case "mfrac":
		a, err := mathArgs(n, 2)
		if err != nil {
			return "", err
		}
		if lt := n.attr("linethickness"); lt == "0" || lt == "0px" || lt == "0em" {
			return `\genfrac{}{}{0pt}{}{` + a[0] + `}{` + a[1] + `}`, nil
		}
		return `\frac{` + a[0] + `}{` + a[1] + `}`, nil
	case "msqrt":
		s, err := mathChildren(n)
		if err != nil {
			return "", err
		}
		return `\sqrt{` + s + `}`, nil
	case "mroot":
		a, err := mathArgs(n, 2)
		if err != nil {
			return "", err
		}
		return `\sqrt[` + a[1] + `]{` + a[0] + `}`, nil
	case "msup":
		a, err := mathArgs(n, 2)
		if err != nil {
			return "", err
		}
		return arg(a[0]) + "^" + arg(a[1]), nil
	case "msub":
		a, err := mathArgs(n, 2)
		if err != nil {
			return "", err
		}
		return arg(a[0]) + "_" + arg(a[1]), nil
	case "msubsup":
		a, err := mathArgs(n, 3)
		if err != nil {
			return "", err
		}
		return arg(a[0]) + "_" + arg(a[1]) + "^" + arg(a[2]), nil
	case "mover":
		a, err := mathArgs(n, 2)
		if err != nil {
			return "", err
		}
		switch strings.TrimSpace(kidElems(n)[1].textContent()) {
		case "→", "⃗":
			return `\vec{` + a[0] + `}`, nil
		case "^", "ˆ", "\u0302":
			return `\hat{` + a[0] + `}`, nil
		case "¯", "‾", "_", "\u0305", "―", "—":
			return `\overline{` + a[0] + `}`, nil
		case "˙", ".":
			return `\dot{` + a[0] + `}`, nil
		case "¨":
			return `\ddot{` + a[0] + `}`, nil
		case "~", "˜":
			return `\tilde{` + a[0] + `}`, nil
		case "⏞":
			return `\overbrace{` + a[0] + `}`, nil
		}
		if isOperator(kidElems(n)[0]) {
			return a[0] + "^" + arg(a[1]), nil
		}
		return `\overset{` + a[1] + `}{` + a[0] + `}`, nil
	case "munder":
		a, err := mathArgs(n, 2)
		if err != nil {
			return "", err
		}
		switch strings.TrimSpace(kidElems(n)[1].textContent()) {
		case "_", "¯", "‾", "\u0332":
			return `\underline{` + a[0] + `}`, nil
		case "⏟":
			return `\underbrace{` + a[0] + `}`, nil
		}
		if isOperator(kidElems(n)[0]) {
			return a[0] + "_" + arg(a[1]), nil
		}
		return `\underset{` + a[1] + `}{` + a[0] + `}`, nil
	case "munderover":
		a, err := mathArgs(n, 3)
		if err != nil {
			return "", err
		}
		if isOperator(kidElems(n)[0]) {
			return a[0] + "_" + arg(a[1]) + "^" + arg(a[2]), nil
		}
		return `\underset{` + a[1] + `}{\overset{` + a[2] + `}{` + a[0] + `}}`, nil
	case "mtable":
		var rows []string
		for _, tr := range kidElems(n) {
			if tr.Name != "mtr" {
				return "", fmt.Errorf("<%s> in a table", tr.Name)
			}
			var cells []string
			for _, td := range kidElems(tr) {
				if td.Name != "mtd" {
					return "", fmt.Errorf("<%s> in a table row", td.Name)
				}
				s, err := mathChildren(td)
				if err != nil {
					return "", err
				}
				cells = append(cells, s)
			}
			rows = append(rows, strings.Join(cells, " & "))
		}
		return `\begin{matrix}` + strings.Join(rows, ` \\ `) + `\end{matrix}`, nil
	case "mfenced":
		open, close, sep := "(", ")", ","
		if v, ok := n.Attr["open"]; ok {
			open = strings.TrimSpace(v)
		}
		if v, ok := n.Attr["close"]; ok {
			close = strings.TrimSpace(v)
		}
		if v, ok := n.Attr["separators"]; ok {
			sep = strings.TrimSpace(v)
		}
		l, lok := fences[open]
		r, rok := fences[close]
		if !lok || !rok {
			return "", fmt.Errorf("<mfenced> with fences %q %q", open, close)
		}
		var parts []string
		for i, k := range kidElems(n) {
			if i > 0 && sep != "" {
				seps := []rune(sep)
				parts = append(parts, tokenTeX(string(seps[min(i-1, len(seps)-1)])))
			}
			s, err := mathNodeTeX(k)
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
		}
		return `\left` + l + " " + strings.Join(parts, " ") + ` \right` + r, nil
	case "mphantom":
		s, err := mathChildren(n)
		if err != nil {
			return "", err
		}
		return `\phantom{` + s + `}`, nil
	}
	return "", fmt.Errorf("the MathML element <%s> has no TeX here", n.Name)
}

// isOperator reports whether n is a large operator or a function name,
// whose scripts TeX places as limits.
func isOperator(n *node) bool {
	s := strings.TrimSpace(n.textContent())
	switch s {
	case "∑", "∏", "∫", "∮", "⋃", "⋂", "lim", "max", "min", "sup", "inf", "limsup", "liminf":
		return n.Name == "mo" || n.Name == "mi"
	}
	return false
}
