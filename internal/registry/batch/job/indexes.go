package job

import (
	"fmt"
	"strconv"
	"strings"
)

// indexesTotal parses an index list ("1,3-5") below completions and
// returns how many indexes it names (upstream's validateIndexesFormat).
func indexesTotal(s string, completions int32) (int32, error) {
	if s == "" {
		return 0, nil
	}
	var last *int32
	var total int32
	for _, part := range strings.Split(s, ",") {
		x, y, err := parseInterval(part, completions)
		if err != nil {
			return 0, err
		}
		if last != nil && *last >= x {
			return 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", *last, x)
		}
		total += y - x + 1
		last = &y
	}
	return total, nil
}

// parseInterval parses "x" or "x-y" (upstream's parseIndexInterval).
func parseInterval(s string, completions int32) (int32, int32, error) {
	limits := strings.Split(s, "-")
	if len(limits) > 2 {
		return 0, 0, fmt.Errorf("the fragment %q violates the requirement that an index interval can have at most two parts separated by '-'", s)
	}
	x, err := strconv.Atoi(limits[0])
	if err != nil {
		return 0, 0, fmt.Errorf("cannot convert string to integer for index: %q", limits[0])
	}
	if x >= int(completions) {
		return 0, 0, fmt.Errorf("too large index: %q", limits[0])
	}
	if len(limits) == 1 {
		return int32(x), int32(x), nil
	}
	y, err := strconv.Atoi(limits[1])
	if err != nil {
		return 0, 0, fmt.Errorf("cannot convert string to integer for index: %q", limits[1])
	}
	if y >= int(completions) {
		return 0, 0, fmt.Errorf("too large index: %q", limits[1])
	}
	if x >= y {
		return 0, 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", x, y)
	}
	return int32(x), int32(y), nil
}

// indexesOverlap reports the first index in both lists (upstream's
// validateFailedIndexesNotOverlapCompleted; malformed intervals skipped).
func indexesOverlap(completed, failed string, completions int32) error {
	if completed == "" || failed == "" {
		return nil
	}
	cs, fs := strings.Split(completed, ","), strings.Split(failed, ",")
	ci, fi := 0, 0
	cx, cy, cerr := parseInterval(cs[ci], completions)
	fx, fy, ferr := parseInterval(fs[fi], completions)
	for ci < len(cs) && fi < len(fs) {
		switch {
		case cerr != nil:
			ci++
			if ci < len(cs) {
				cx, cy, cerr = parseInterval(cs[ci], completions)
			}
		case ferr != nil:
			fi++
			if fi < len(fs) {
				fx, fy, ferr = parseInterval(fs[fi], completions)
			}
		case cx <= fy && fx <= cy:
			return fmt.Errorf("failedIndexes and completedIndexes overlap at index: %d", max(cx, fx))
		case cx <= fx:
			ci++
			if ci < len(cs) {
				cx, cy, cerr = parseInterval(cs[ci], completions)
			}
		default:
			fi++
			if fi < len(fs) {
				fx, fy, ferr = parseInterval(fs[fi], completions)
			}
		}
	}
	return nil
}
