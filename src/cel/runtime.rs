//! Evaluation: the variables Porch binds, and the meter that bounds what an expression may
//! cost, as Kubernetes bounds CEL (a runtime cost limit per expression and a budget per run).
//!
//! The `cel` crate has no cost tracking, so [`super::instrument`] inserts calls to three
//! hidden functions registered here: `@step` (one comprehension iteration, charged the nodes
//! of its body), `@arg` (an
//! operand of a size-dependent operation, charged by its size before the operation runs) and
//! `@matches` (`matches` with a cached, size-limited regex). A limit hit is recorded in the
//! meter, so an `error || true` fold cannot swallow it.

mod evaluation_errors;
mod key_hint;
mod values;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use cel::common::types::{CelBool, CelInt, CelString};
use cel::common::value::{CowVal, Val};
use cel::context::VariableResolver;
use cel::{Context, Env, ExecutionError, Value};

use super::functions::{arg_function, matches_function, ordered_function, utc_function};
use super::gotime::{duration_function, time_text_function, timestamp_function};
use super::instrument::{
    ARG_FUNCTION, DURATION_FUNCTION, MATCHES_FUNCTION, ORDERED_FUNCTION, STEP_FUNCTION,
    TIMESTAMP_FUNCTION, TIME_TEXT_FUNCTION, UTC_FUNCTION,
};
use super::meter::Meter;
use super::Program;
use evaluation_errors::to_string_result;

pub use super::meter::{
    compile_regex_in_classes, MAX_CACHED_PATTERN_BYTES, MAX_CACHED_PROGRAM_BYTES,
    MAX_CACHED_REGEXES, MAX_COMPREHENSION_STEPS, MAX_EXPRESSION_COST, MAX_OUTPUT_BYTES,
    MAX_REGEX_PROGRAM_BYTES, MAX_RUN_COST, REGEX_PROGRAM_CLASSES,
};
pub(super) use evaluation_errors::execution_error;
pub use values::{
    as_val, json_input, object_input, object_val, repositories_target_input,
    repositories_target_val,
};

/// A value that is an int or a string (a rollout's wave).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum IntOrString {
    Int(i64),
    String(String),
}

/// The variables of one target, looked up by name: nothing is copied into a scope.
struct Vars<'v> {
    repo_default: CelString<'v>,
    package_default: CelString<'v>,
    target: &'v dyn Val,
    repository: Option<&'v dyn Val>,
    /// `readyExpr`'s variables ([`Bindings::readiness`]).
    variant: Option<&'v dyn Val>,
    revisions: Option<&'v dyn Val>,
}

impl VariableResolver for Vars<'_> {
    fn resolve<'b>(&'b self, variable: &str) -> Option<CowVal<'b, 'b>> {
        let found: &'b dyn Val = match variable {
            "repoDefault" => &self.repo_default,
            "packageDefault" => &self.package_default,
            "target" => self.target,
            // Unbound until `repoExpr` has been evaluated: then the lookup fails, as in Porch.
            "repository" => self.repository?,
            "variant" => self.variant?,
            "revisions" => self.revisions?,
            _ => return None,
        };
        Some(CowVal::Borrowed(found))
    }
}

/// The variables bound for one target ([`Bindings::activation`]). Build once per target and
/// evaluate all its expressions.
pub struct Activation<'v> {
    root: &'v Context<'v, 'v>,
    meter: &'v Meter,
    vars: Vars<'v>,
}

/// What every target of a run shares: the environment, `upstream` (converted for the
/// interpreter once per run, not once per target) and the meter. Each target's variables are
/// looked up in a child scope ([`Bindings::activation`]); other lookups fall through to these.
pub struct Bindings {
    ctx: Context<'static, 'static>,
    meter: Arc<Meter>,
}

impl Bindings {
    pub fn new(env: Arc<Env>, upstream: Option<&Value>) -> Self {
        let mut ctx = Context::with_env(Arc::clone(&env));
        if let Some(up) = upstream {
            ctx.add_variable_from_value("upstream", up.clone());
        }
        let meter = Arc::new(Meter::default());
        let counter = Arc::clone(&meter);
        let step = move |weight: i64| -> Result<Value, ExecutionError> {
            let n = counter.steps.fetch_add(1, Ordering::Relaxed) + 1;
            if n > MAX_COMPREHENSION_STEPS {
                return Err(counter.stop(format!(
                    "evaluation stopped: more than {MAX_COMPREHENSION_STEPS} comprehension steps (all/exists/exists_one/map/filter iterations)"
                )));
            }
            counter.charge(weight.unsigned_abs())?;
            Ok(Value::Bool(true))
        };
        // The names start with `@`, which CEL source cannot spell: no overload can clash.
        let registered = [
            ctx.add_function(STEP_FUNCTION, step),
            ctx.add_function(ARG_FUNCTION, arg_function(Arc::clone(&meter))),
            ctx.add_function(MATCHES_FUNCTION, matches_function(Arc::clone(&meter))),
            ctx.add_function(ORDERED_FUNCTION, ordered_function(Arc::clone(&meter))),
            ctx.add_function(TIME_TEXT_FUNCTION, time_text_function()),
            ctx.add_function(UTC_FUNCTION, utc_function()),
            ctx.add_function(TIMESTAMP_FUNCTION, timestamp_function()),
            ctx.add_function(DURATION_FUNCTION, duration_function()),
        ];
        debug_assert!(registered.iter().all(Result::is_ok));
        super::conversions::register(&mut ctx, &env);
        Bindings { ctx, meter }
    }

    /// The activation of one target: `repoDefault`, `packageDefault` and `target` over the
    /// shared bindings. `repository` is bound later.
    pub fn activation<'v>(
        &'v self,
        repo_default: &'v str,
        package_default: &'v str,
        target: &'v dyn Val,
    ) -> Activation<'v> {
        Activation {
            root: &self.ctx,
            meter: &self.meter,
            vars: Vars {
                repo_default: CelString::from(repo_default),
                package_default: CelString::from(package_default),
                target,
                repository: None,
                variant: None,
                revisions: None,
            },
        }
    }

    /// The activation of a rollout's `readyExpr` for one variant: `variant` and `revisions`
    /// only (the program was checked against [`super::Declarations::Readiness`]).
    pub fn readiness<'v>(&'v self, variant: &'v dyn Val, revisions: &'v dyn Val) -> Activation<'v> {
        let mut activation = self.activation("", "", variant);
        activation.vars.variant = Some(variant);
        activation.vars.revisions = Some(revisions);
        activation
    }
}

impl<'v> Activation<'v> {
    /// Binds `repository` (after `repoExpr` has been evaluated, as Porch does).
    pub fn bind_repository(&mut self, repository: &'v dyn Val) {
        self.vars.repository = Some(repository);
    }

    /// Evaluates `program`; the result must be a CEL string. Errors use Porch's wording where
    /// it is known (`no such key: k`, `no such attribute(s): repository`, conversion errors).
    /// The value is copied into the output: its size is charged to the run's output budget
    /// ([`MAX_OUTPUT_BYTES`]).
    pub fn evaluate(&self, program: &Program) -> Result<String, String> {
        let value = self.evaluate_with(program, to_string_result)?;
        let len = value.len() as u64;
        let total = self.meter.output.fetch_add(len, Ordering::Relaxed) + len;
        if total > MAX_OUTPUT_BYTES {
            return Err(format!(
                "the values of the set's expressions together take more than the limit of \
                 {MAX_OUTPUT_BYTES} bytes ({} MiB) for one run (this value: {len} bytes); each \
                 value is copied into the PackageVariant of its target, so a large value is \
                 copied once per target: shorten the values (what every variant needs belongs \
                 in the upstream package) or split the targets over several PackageVariantSets",
                MAX_OUTPUT_BYTES >> 20
            ));
        }
        Ok(value)
    }

    /// Evaluates a condition (`program` checked by [`Program::may_be_bool`]); a value that is
    /// not a bool is an error, as cel-go's `ConvertToNative(bool)` makes it.
    pub fn evaluate_bool(&self, program: &Program) -> Result<bool, String> {
        self.evaluate_with(program, |value| match value.downcast_ref::<CelBool>() {
            Some(b) => Ok(*b.inner()),
            None => Err(format!(
                "expression returned non-bool value of type {}",
                value.get_type().name()
            )),
        })
    }

    /// Evaluates an expression checked by [`Program::may_be_int_or_string`]; another value
    /// is an error naming its type.
    pub fn evaluate_int_or_string(&self, program: &Program) -> Result<IntOrString, String> {
        self.evaluate_with(program, |value| {
            if let Some(i) = value.downcast_ref::<CelInt>() {
                return Ok(IntOrString::Int(*i.inner()));
            }
            match value.downcast_ref::<CelString>() {
                Some(s) => Ok(IntOrString::String(s.inner().to_string())),
                None => Err(format!(
                    "expression returned a value of type {}, not an int or a string",
                    value.get_type().name()
                )),
            }
        })
    }

    /// Evaluates `program` and hands its value, as the interpreter holds it, to `read`.
    pub(super) fn evaluate_with<R>(
        &self,
        program: &Program,
        read: impl FnOnce(&dyn Val) -> Result<R, String>,
    ) -> Result<R, String> {
        self.meter.steps.store(0, Ordering::Relaxed);
        self.meter.cost.store(0, Ordering::Relaxed);
        let mut ctx = self.root.new_inner_scope();
        ctx.set_variable_resolver(&self.vars);
        let result = catch_unwind(AssertUnwindSafe(|| {
            // The value as the interpreter holds it: a string is copied out once, by `read`.
            match Value::resolve_val(&program.expr, &ctx) {
                Ok(value) => read(value.as_ref()),
                Err(ExecutionError::NoSuchKey(key)) => {
                    let hint = self.key_hint(&program.expr, &key).unwrap_or_default();
                    Err(format!("no such key: {key}{hint}"))
                }
                Err(err) => Err(execution_error(err)),
            }
        }))
        .unwrap_or_else(|_| Err("internal error: the CEL interpreter panicked".into()));
        let stopped = self
            .meter
            .stopped
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        match stopped {
            Some(why) => Err(why),
            None => result,
        }
    }
}
