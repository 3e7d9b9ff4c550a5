package apiserver

import (
	"errors"
	"strings"
)

func splitComma(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func joinErrors(errs []error) error { return errors.Join(errs...) }
