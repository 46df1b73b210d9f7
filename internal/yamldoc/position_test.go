package yamldoc

import (
	"os"
	"path/filepath"
	"testing"
)

// TestByteOrderMarkTrimmedOnce: ReadFile drops a leading byte order mark,
// and the position helpers find the same positions with or without one,
// so no caller trims it itself.
func TestByteOrderMarkTrimmedOnce(t *testing.T) {
	plain := "name: a\nsub:\n  rates: {x: 1}\n"
	path := filepath.Join(t.TempDir(), "bom.yaml")
	if err := os.WriteFile(path, []byte("\ufeff"+plain), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := ReadFile(path)
	if err != nil || string(data) != plain {
		t.Fatalf("ReadFile = %q, %v; want %q", data, err, plain)
	}
	for _, in := range []string{plain, "\ufeff" + plain} {
		if got := Position([]byte(in), "sub.rates.x"); got != "3:14:" {
			t.Errorf("Position(sub.rates.x) = %q, want 3:14:", got)
		}
		if got := ParseDoc([]byte(in)).NearestPosition("sub.missing"); got != "2:1:" {
			t.Errorf("NearestPosition(sub.missing) = %q, want the key of sub, 2:1:", got)
		}
		var d doc
		err := Decode([]byte(in+"zeta: 1\n"), &d)
		if got := FieldMessage([]byte(in+"zeta: 1\n"), err); got != `4:1: zeta: unknown field "zeta": use one of name, steps, sub` {
			t.Errorf("FieldMessage = %q", got)
		}
		if got := Message(err); got != `4:1: unknown field "zeta": use one of name, steps, sub` {
			t.Errorf("Message = %q", got)
		}
	}
}
