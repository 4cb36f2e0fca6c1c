package testkit

// XSSVectors are script-injection vectors (after OWASP's cheat sheet) that
// set window.__xss if they ever run: the browser tests put them in every
// kind of exam content (question texts, options, premises, responses,
// stimuli) and check that none runs on the student page or in the
// console's preview.
var XSSVectors = []string{
	`<img src=x onerror="window.__xss=1">`, `<svg onload="window.__xss=1"></svg>`, `<script>window.__xss=1</script>`,
	`<a href="javascript:window.__xss=1">x</a>`, `<math><mtext><img src=x onerror="window.__xss=1"></mtext></math>`,
	`<iframe src="javascript:window.__xss=1"></iframe>`, `<p style="background:url(javascript:window.__xss=1)">x</p>`,
}
