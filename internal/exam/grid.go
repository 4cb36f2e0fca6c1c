package exam

// Limits of a statement grid.
const (
	maxStatements = 26
	maxColumns    = 5
)

// defaultColumns are a statement grid's columns when it names none.
var defaultColumns = []Option{{ID: "true", Text: "Benar"}, {ID: "false", Text: "Salah"}}

// validateStatementGrid checks a statement grid and normalises its key to
// one "statement=column" per statement, in the statements' order.
func validateStatementGrid(q *Question) error {
	if len(q.Columns) == 0 {
		q.Columns = append([]Option(nil), defaultColumns...)
	}
	ps := pairsOf(*q)
	if err := ps.validateParts(*q, maxStatements, 2, maxColumns); err != nil {
		return err
	}
	return ps.validateKey(q)
}

// gridColumns are q's columns, or the default ones.
func gridColumns(q Question) []Option {
	if len(q.Columns) == 0 {
		return defaultColumns
	}
	return q.Columns
}
