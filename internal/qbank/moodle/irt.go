package moodle

import (
	"slices"
	"strings"

	"github.com/seedhq/portal/internal/exam"
)

// tagIRT starts the tags that carry a question's kept item parameters
// (exam.ItemParameters), one field of their one-line form each
// ("portal-irt:2pl", "portal-irt:b=-0.7512", ...): a Moodle tag is short.
const tagIRT = "portal-irt:"

// irtTags returns the tags of q's item parameters, none without.
func irtTags(q exam.Question) []string {
	if q.Calibrated == nil {
		return nil
	}
	var tags []string
	for _, f := range strings.Fields(q.Calibrated.String()) {
		tags = append(tags, tagIRT+f)
	}
	return tags
}

// irtParameters sets q's item parameters from the item's tags; tags that
// do not read as parameters are dropped with a note.
func (it *item) irtParameters(q *exam.Question) {
	var fields []string
	for tag := range it.tags {
		if f, ok := strings.CutPrefix(tag, tagIRT); ok {
			fields = append(fields, f)
		}
	}
	if len(fields) == 0 {
		return
	}
	slices.Sort(fields)
	p, err := exam.ParseItemParameters(strings.Join(fields, " "))
	if err != nil {
		it.change("dropped the calibration tags (%s): %v", tagIRT+"...", err)
		return
	}
	q.Calibrated = p
}
