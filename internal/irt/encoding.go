package irt

import (
	"encoding/json"
	"fmt"
	"math"
)

// calibrationFields is Calibration without its methods: what its JSON
// encoding holds.
type calibrationFields Calibration

// MarshalJSON encodes the calibration's exported fields, so that it can
// be kept and read back (UnmarshalJSON). A standard error, infit or
// outfit that is not finite is encoded as null: unknown.
func (c *Calibration) MarshalJSON() ([]byte, error) {
	v := calibrationFields(*c)
	v.MeanSE, v.SDSE = finite(c.MeanSE), finite(c.SDSE)
	v.Items = make([]Item, len(c.Items))
	for j, it := range c.Items {
		it.DifficultySE, it.DiscriminationSE = finite(it.DifficultySE), finite(it.DiscriminationSE)
		it.Infit, it.Outfit = finite(it.Infit), finite(it.Outfit)
		v.Items[j] = it
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("irt: encode calibration: %w", err)
	}
	return b, nil
}

// UnmarshalJSON decodes what MarshalJSON encoded into a calibration that
// scores students and gives probabilities and information as the fitted
// one did.
func (c *Calibration) UnmarshalJSON(b []byte) error {
	var v calibrationFields
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("irt: decode calibration: %w", err)
	}
	if v.Model != Rasch && v.Model != TwoPL {
		return fmt.Errorf("irt: decode calibration: %w %q", ErrUnknownModel, v.Model)
	}
	if !(v.SD > 0) {
		return fmt.Errorf("irt: decode calibration: ability SD %v", v.SD)
	}
	*c = Calibration(v)
	c.slopes, c.intercepts = make([]float64, len(c.Items)), make([]float64, len(c.Items))
	for j, it := range c.Items {
		if it.Calibrated {
			c.slopes[j], c.intercepts[j] = it.Discrimination, -it.Difficulty*it.Discrimination
		}
	}
	c.scoring = hermite(scoringPoints).shifted(c.Mean, c.SD)
	return nil
}

// finite returns v, or nil when *v is not a finite number.
func finite(v *float64) *float64 {
	if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
		return nil
	}
	return v
}
