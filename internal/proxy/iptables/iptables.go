package iptables

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/iptables/iptext"
)

// Interface is everything the backend does to the kernel's tables.
// The real implementation runs the iptables tools of one variant; Fake
// keeps tables in memory and enforces the same rules.
type Interface interface {
	// Restore feeds restore text to iptables-restore --noflush: declared
	// chains are created or flushed, other chains are left alone.
	Restore(ctx context.Context, data []byte) error
	// Save returns iptables-save output for one table.
	Save(ctx context.Context, table Table) ([]byte, error)
	// EnsureChain creates a chain if it does not exist.
	EnsureChain(ctx context.Context, table Table, chain string) error
	// ChainExists reports whether a chain exists.
	ChainExists(ctx context.Context, table Table, chain string) (bool, error)
	// EnsureRule inserts rule (text after "-A CHAIN") at the top of chain
	// unless an identical rule exists.
	EnsureRule(ctx context.Context, table Table, chain, rule string) error
	// Variant names the tool family ("nft" or "legacy").
	Variant() string
}

// Variant picks the iptables binaries.
type Variant string

// The variants. Default runs "iptables", whatever the system links it to.
const (
	VariantDefault Variant = ""
	VariantNFT     Variant = "nft"
	VariantLegacy  Variant = "legacy"
)

// runner runs the iptables tools of one variant and family.
type runner struct {
	cmd, restore, save string
	variant            string
}

// New returns the real Interface for a family and variant.
func New(family proxy.IPFamily, v Variant) (Interface, error) {
	base := "iptables"
	if family == proxy.IPv6 {
		base = "ip6tables"
	}
	if v != VariantDefault {
		base += "-" + string(v)
	}
	r := &runner{cmd: base, restore: base + "-restore", save: base + "-save"}
	for _, bin := range []string{r.cmd, r.restore, r.save} {
		if _, err := exec.LookPath(bin); err != nil {
			return nil, fmt.Errorf("iptables mode needs %s: %w", bin, err)
		}
	}
	out, err := exec.Command(r.cmd, "--version").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s --version: %v: %s", r.cmd, err, out)
	}
	r.variant = "legacy"
	if strings.Contains(string(out), "nf_tables") {
		r.variant = "nft"
	}
	return r, nil
}

func (r *runner) Variant() string { return r.variant }

func (r *runner) run(ctx context.Context, stdin []byte, bin string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, &ExecError{Cmd: bin + " " + strings.Join(args, " "), Err: err, Stderr: stderr.String()}
	}
	return out, nil
}

// ExecError is a failed iptables tool run.
type ExecError struct {
	Cmd    string
	Err    error
	Stderr string
}

func (e *ExecError) Error() string {
	return fmt.Sprintf("%s: %v: %s", e.Cmd, e.Err, strings.TrimSpace(e.Stderr))
}

// exitCode returns the tool's exit status, or -1.
func exitCode(err error) int {
	var ee *ExecError
	var xe *exec.ExitError
	if errors.As(err, &ee) && errors.As(ee.Err, &xe) {
		return xe.ExitCode()
	}
	return -1
}

func (r *runner) Restore(ctx context.Context, data []byte) error {
	_, err := r.run(ctx, data, r.restore, "-w", "5", "--noflush")
	return err
}

func (r *runner) Save(ctx context.Context, table Table) ([]byte, error) {
	return r.run(ctx, nil, r.save, "-t", string(table))
}

func (r *runner) ChainExists(ctx context.Context, table Table, chain string) (bool, error) {
	_, err := r.run(ctx, nil, r.cmd, "-w", "5", "-t", string(table), "-S", chain, "1")
	if err == nil {
		return true, nil
	}
	if exitCode(err) == 1 {
		return false, nil
	}
	return false, err
}

func (r *runner) EnsureChain(ctx context.Context, table Table, chain string) error {
	if ok, err := r.ChainExists(ctx, table, chain); ok || err != nil {
		return err
	}
	_, err := r.run(ctx, nil, r.cmd, "-w", "5", "-t", string(table), "-N", chain)
	return err
}

func (r *runner) EnsureRule(ctx context.Context, table Table, chain, rule string) error {
	args := append([]string{"-w", "5", "-t", string(table), "-C", chain}, iptext.Split(rule)...)
	_, err := r.run(ctx, nil, r.cmd, args...)
	if err == nil {
		return nil
	}
	if exitCode(err) != 1 {
		return err
	}
	args[4] = "-I"
	_, err = r.run(ctx, nil, r.cmd, args...)
	return err
}
