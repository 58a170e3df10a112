// Package cnpa holds what the binary carries of the repository's top
// level: the labs/ tree, every lab cnpa ships as data (labs/<name>/lab.yaml
// and its files) and the JSON Schema of a lab file. It lives here because
// go:embed reaches only below its own package, and labs/ holds no Go.
package cnpa

import "embed"

// Labs is the labs/ tree: labs/lab.schema.json and labs/<name>/.
//
//go:embed labs
var Labs embed.FS
