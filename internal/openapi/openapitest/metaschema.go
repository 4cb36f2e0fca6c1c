package openapitest

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// oas31Schema is the OpenAPI Initiative's JSON Schema of OpenAPI 3.1
// documents, version 2022-10-07 (https://spec.openapis.org/oas/3.1/schema/2022-10-07,
// from github.com/OAI/OpenAPI-Specification, Apache License 2.0), unchanged.
//
//go:embed oas-3.1-schema-2022-10-07.json
var oas31Schema []byte

// oas31SchemaID is the $id of oas31Schema.
const oas31SchemaID = "https://spec.openapis.org/oas/3.1/schema/2022-10-07"

var compileMetaSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(oas31Schema))
	if err != nil {
		return nil, fmt.Errorf("read the OpenAPI 3.1 schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(oas31SchemaID, doc); err != nil {
		return nil, fmt.Errorf("add the OpenAPI 3.1 schema: %w", err)
	}
	return c.Compile(oas31SchemaID)
})

// validateAgainstMetaSchema checks a document, as JSON, against the
// OpenAPI 3.1 schema: the structure that kin-openapi's own Validate does not
// check field by field (an unknown field, a misplaced keyword).
func validateAgainstMetaSchema(docJSON []byte) error {
	sch, err := compileMetaSchema()
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(docJSON))
	if err != nil {
		return fmt.Errorf("read the document: %w", err)
	}
	return sch.Validate(inst)
}
