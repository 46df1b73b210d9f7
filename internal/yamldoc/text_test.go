package yamldoc

import "testing"

func TestPrintable(t *testing.T) {
	for _, c := range []struct {
		in, want, wantKept string
	}{
		{"cartpole-ppo: PPO on CartPole, é ✓", "cartpole-ppo: PPO on CartPole, é ✓", "cartpole-ppo: PPO on CartPole, é ✓"},
		{"evil\x1b]0;pwned\aRED", `evil\x1b]0;pwned\x07RED`, `evil\x1b]0;pwned\x07RED`},
		{"ok\x1b[2J\nfake line", `ok\x1b[2J\x0afake line`, "ok\\x1b[2J\nfake line"},
		{"tab\there", `tab\x09here`, `tab\x09here`},
		{"abc\u202edef", `abc\u202edef`, `abc\u202edef`},
		{"csi\x9b31m", `csi\x9b31m`, `csi\x9b31m`}, // not UTF-8: a C1 CSI to some terminals
		{"\u0085next line", `\u0085next line`, `\u0085next line`},
	} {
		if got := Printable(c.in, false); got != c.want {
			t.Errorf("Printable(%q, false) = %q, want %q", c.in, got, c.want)
		}
		if got := Printable(c.in, true); got != c.wantKept {
			t.Errorf("Printable(%q, true) = %q, want %q", c.in, got, c.wantKept)
		}
	}
	if r, found := Unprintable("name\x1b[31m", false); !found || r != `\x1b` {
		t.Errorf("Unprintable = %q, %v", r, found)
	}
	if _, found := Unprintable("two\nlines", true); found {
		t.Error("Unprintable found a newline it was told to allow")
	}
}
