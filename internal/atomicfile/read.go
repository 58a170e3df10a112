package atomicfile

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
)

// ReadJSON reads the JSON file at path into v, the read twin of WriteJSON
// for the records cnpa keeps for itself. A missing file is found false
// and no error. A file that cannot be read is its error as os.ReadFile
// gives it; one that is not v's JSON is a *DecodeError, so that the caller
// can say what to do about it (rewrite it, remove it).
func ReadJSON(path string, v any) (found bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return true, &DecodeError{Path: path, Err: err}
	}
	return true, nil
}

// DecodeError is a file whose content is not the JSON its reader expects.
type DecodeError struct {
	Path string
	Err  error
}

func (e *DecodeError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *DecodeError) Unwrap() error { return e.Err }
