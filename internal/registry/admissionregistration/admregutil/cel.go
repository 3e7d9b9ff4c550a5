package admregutil

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	plugincel "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch"
	policyvalidating "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/klog/v2"
)

// maxMatchConditions bounds a webhook's or policy's match conditions.
const maxMatchConditions = 64

// preexisting holds the expressions the stored object already has: on
// update they compile in the stored-expressions environment (so that a
// library removed since does not invalidate them).
type preexisting struct {
	matchConditions, validations, messageExpressions, auditAnnotations, applyConfigurations, jsonPatches sets.Set[string]
}

func newPreexisting() preexisting {
	return preexisting{sets.New[string](), sets.New[string](), sets.New[string](), sets.New[string](), sets.New[string](), sets.New[string]()}
}

func envFor(stored sets.Set[string], expr string) environment.Type {
	if stored.Has(expr) {
		return environment.StoredExpressions
	}
	return environment.NewExpressions
}

var (
	statelessOnce     sync.Once
	statelessCompiler plugincel.Compiler
)

// stateless is the compiler without variable composition, with strict cost
// enforcement.
func stateless() plugincel.Compiler {
	statelessOnce.Do(func() {
		statelessCompiler = plugincel.NewCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	})
	return statelessCompiler
}

// newCompiler returns the stateless compiler, or a fresh composition
// compiler (variables are compiled into it one after the other) when
// composition is needed.
func newCompiler(composition bool) plugincel.Compiler {
	if !composition {
		return stateless()
	}
	c, err := plugincel.NewCompositedCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	if err != nil {
		klog.ErrorS(err, "CEL composition compiler")
		return plugincel.NewCompiler(environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()))
	}
	return c
}

// celError turns a compile error into upstream's field error.
func celError(p *field.Path, expr plugincel.ExpressionAccessor, err error) *field.Error {
	if e, ok := err.(*cel.Error); ok {
		switch e.Type {
		case cel.ErrorTypeRequired:
			return field.Required(p, e.Detail)
		case cel.ErrorTypeInvalid:
			return field.Invalid(p, expr.GetExpression(), e.Detail)
		case cel.ErrorTypeInternal:
			return field.InternalError(p, e)
		}
	}
	return field.InternalError(p, fmt.Errorf("unsupported error type: %w", err))
}

func compile(c plugincel.Compiler, expr plugincel.ExpressionAccessor, vars plugincel.OptionalVariableDeclarations, env environment.Type, p *field.Path) field.ErrorList {
	if r := c.CompileCELExpression(expr, vars, env); r.Error != nil {
		return field.ErrorList{celError(p, expr, r.Error)}
	}
	return nil
}

// validateMatchConditions checks a webhook's or policy's matchConditions:
// at most 64, unique qualified names, expressions that compile (with params
// when the policy has a paramKind).
func validateMatchConditions(mcs []v1.MatchCondition, params bool, old preexisting, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(mcs) > maxMatchConditions {
		errs = append(errs, field.TooMany(p, len(mcs), maxMatchConditions))
	}
	names := sets.NewString()
	for i := range mcs {
		mc, ip := &mcs[i], p.Index(i)
		if expr := strings.TrimSpace(mc.Expression); expr == "" {
			errs = append(errs, field.Required(ip.Child("expression"), ""))
		} else {
			errs = append(errs, compile(stateless(), &matchconditions.MatchCondition{Expression: expr},
				plugincel.OptionalVariableDeclarations{HasParams: params, HasAuthorizer: true},
				envFor(old.matchConditions, expr), ip.Child("expression"))...)
		}
		if mc.Name == "" {
			errs = append(errs, field.Required(ip.Child("name"), ""))
		} else {
			errs = append(errs, qualifiedName(mc.Name, ip.Child("name"))...)
		}
		if mc.Name != "" {
			if names.Has(mc.Name) {
				errs = append(errs, field.Duplicate(ip.Child("name"), mc.Name))
			} else {
				names.Insert(mc.Name)
			}
		}
	}
	return errs
}

var (
	celIdent    = regexp.MustCompile("^[_a-zA-Z][_a-zA-Z0-9]*$")
	celReserved = sets.NewString("true", "false", "null", "in", "as", "break", "const", "continue", "else",
		"for", "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while")
)

func isCELIdentifier(name string) bool {
	return celIdent.MatchString(name) && !celReserved.Has(name)
}

// validateVariable checks a policy variable and compiles it into c (a
// composition compiler), so that later expressions may use it.
func validateVariable(c plugincel.Compiler, v *v1.Variable, params bool, old preexisting, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if strings.TrimSpace(v.Name) == "" {
		errs = append(errs, field.Required(p.Child("name"), "name is not specified"))
	} else if !isCELIdentifier(v.Name) {
		errs = append(errs, field.Invalid(p.Child("name"), v.Name, "must be a valid CEL identifier"))
	}
	if strings.TrimSpace(v.Expression) == "" {
		return append(errs, field.Required(p.Child("expression"), "expression is not specified"))
	}
	cc, ok := c.(*plugincel.CompositedCompiler)
	if !ok {
		return append(errs, field.InternalError(p, fmt.Errorf("variable composition is not allowed")))
	}
	variable := &policyvalidating.Variable{Name: v.Name, Expression: v.Expression}
	r := cc.CompileAndStoreVariable(variable, plugincel.OptionalVariableDeclarations{HasParams: params, HasAuthorizer: true},
		envFor(old.validations, v.Expression))
	if r.Error != nil {
		errs = append(errs, celError(p.Child("expression"), variable, r.Error))
	}
	return errs
}

// validateMutationExpression compiles a mutating policy's JSON patch or
// apply configuration expression.
func validateMutationExpression(c plugincel.Compiler, expr plugincel.ExpressionAccessor, params bool, env environment.Type, p *field.Path) field.ErrorList {
	return compile(c, expr, plugincel.OptionalVariableDeclarations{HasParams: params, HasAuthorizer: true, HasPatchTypes: true}, env, p)
}

var (
	_ plugincel.ExpressionAccessor = &patch.JSONPatchCondition{}
	_ plugincel.ExpressionAccessor = &patch.ApplyConfigurationCondition{}
)
