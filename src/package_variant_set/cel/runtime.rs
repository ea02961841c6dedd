//! Evaluation: the variables Porch binds, and the meter that bounds what an expression may
//! cost, as Kubernetes bounds CEL (a runtime cost limit per expression and a budget per run).
//!
//! The `cel` crate has no cost tracking, so [`super::instrument`] inserts calls to three
//! hidden functions registered here: `@step` (one comprehension iteration, charged the nodes
//! of its body), `@arg` (an
//! operand of a size-dependent operation, charged by its size before the operation runs) and
//! `@matches` (`matches` with a cached, size-limited regex). A limit hit is recorded in the
//! meter, so an `error || true` fold cannot swallow it.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use cel::common::types::{
    CelBool, CelBytes, CelList, CelMap, CelMapKey, CelString, CelTimestamp, Kind,
};
use cel::common::value::{CowVal, Val};
use cel::context::VariableResolver;
use cel::objects::{Key, Map};
use cel::{Context, Env, ExecutionError, FunctionContext, Value};

use super::gotime::{duration_function, time_text_function, timestamp_function};
use super::instrument::{
    ARG_FUNCTION, DURATION_FUNCTION, MATCHES_FUNCTION, ORDERED_FUNCTION, STEP_FUNCTION,
    TIMESTAMP_FUNCTION, TIME_TEXT_FUNCTION, UTC_FUNCTION,
};
use super::suggest;
use super::Program;
use super::VARIABLES;
use cel::common::ast::{operators, Expr, IdedExpr, LiteralValue};

/// Most comprehension iterations one evaluation may run, all comprehensions together.
pub const MAX_COMPREHENSION_STEPS: u64 = 10_000;
/// Most cost one evaluation may spend (Kubernetes' per-expression limit, `PerCallLimit`).
pub const MAX_EXPRESSION_COST: u64 = 1_000_000;
/// Most cost all evaluations of one run may spend together (Kubernetes' budget for the CEL of
/// one validation, `RuntimeCELCostBudget`; about a second of evaluation).
pub const MAX_RUN_COST: u64 = 10_000_000;
/// Largest compiled program of one regular expression (the `regex` crate's size limit).
pub const MAX_REGEX_PROGRAM_BYTES: usize = 1 << 20;
/// The program size limits a pattern is compiled with in turn, smallest first: a pattern is
/// charged the cost of each class it is tried in ([`regex_compile_cost`]), so that a large
/// program costs in proportion to the time and memory compiling it takes.
pub const REGEX_PROGRAM_CLASSES: [usize; 3] = [16 << 10, 128 << 10, MAX_REGEX_PROGRAM_BYTES];
/// Most compiled regular expressions one run keeps for reuse.
pub const MAX_CACHED_REGEXES: usize = 16;
/// Most bytes of patterns, and of program size classes, the kept regular expressions may
/// take together: a few large programs, or many small ones.
pub const MAX_CACHED_PATTERN_BYTES: usize = 64 << 10;
pub const MAX_CACHED_PROGRAM_BYTES: usize = 4 << 20;
/// Most bytes the values of all expressions of one run may take together: each value is
/// copied into a PackageVariant, and a value copied into every variant of a large set
/// multiplies with its targets (a 100 KB value in 2,000 variants would be 200 MB of output).
pub const MAX_OUTPUT_BYTES: u64 = 16 << 20;

/// The cost of compiling a pattern in the program size class `class` (bytes): half of it,
/// so a pattern of the largest class costs 8,192 + 65,536 + 524,288 (more than half an
/// expression's limit, and a run's budget pays for 17 of them: about 20 ms each).
pub const fn regex_compile_cost(class: usize) -> u64 {
    class as u64 / 2
}

/// Compiles `pattern` in the smallest program size class it fits: the result, and the cost
/// of every class tried ([`regex_compile_cost`]). `pay` is asked for each class before it is
/// tried, and stops the compilation with its error.
pub fn compile_regex_in_classes<E>(
    pattern: &str,
    mut pay: impl FnMut(u64) -> Result<(), E>,
) -> Result<(Result<regex::Regex, String>, usize), E> {
    let mut result = Err(String::new());
    let mut class = 0;
    for limit in REGEX_PROGRAM_CLASSES {
        class = limit;
        pay(regex_compile_cost(limit))?;
        result = compile_regex_within(pattern, limit);
        let too_big = matches!(&result, Err(why) if why.starts_with(TOO_LARGE));
        if !too_big {
            break;
        }
    }
    Ok((result, class))
}

/// A function that takes its arguments as the interpreter holds them (no conversion to
/// [`Value`], which would copy strings and lists): the `cel` crate's own `Function` type.
pub(super) type Function = Box<
    dyn for<'c, 'a> Fn(&mut FunctionContext<'c, 'a>) -> Result<CowVal<'c, 'a>, ExecutionError>
        + Send
        + Sync,
>;

/// What one run has spent, and the first limit an evaluation hit.
#[derive(Default)]
struct Meter {
    steps: AtomicU64,
    cost: AtomicU64,
    run_cost: AtomicU64,
    stopped: Mutex<Option<String>>,
    regexes: Mutex<RegexCache>,
    /// Bytes of values handed out by [`Activation::evaluate`] so far.
    output: AtomicU64,
}

/// The compiled patterns a run keeps, bounded in count and size ([`MAX_CACHED_REGEXES`],
/// [`MAX_CACHED_PATTERN_BYTES`], [`MAX_CACHED_PROGRAM_BYTES`]); past the bounds a pattern is
/// compiled (and charged) each time it is used.
#[derive(Default)]
struct RegexCache {
    compiled: HashMap<String, (Result<Arc<regex::Regex>, String>, usize)>,
    pattern_bytes: usize,
    program_bytes: usize,
}

impl Meter {
    fn stop(&self, why: String) -> ExecutionError {
        let mut stopped = self.stopped.lock().unwrap_or_else(|e| e.into_inner());
        if stopped.is_none() {
            *stopped = Some(why.clone());
        }
        ExecutionError::function_error("evaluation", why)
    }

    /// Adds `units` of cost; an error past the per-expression limit or the run's budget.
    fn charge(&self, units: u64) -> Result<(), ExecutionError> {
        self.charge_as(units, OPERATION_COST)
    }

    /// [`Meter::charge`], saying `how` costs are counted when the expression's limit is hit.
    fn charge_as(&self, units: u64, how: &str) -> Result<(), ExecutionError> {
        let cost = self.cost.fetch_add(units, Ordering::Relaxed) + units;
        let run = self.run_cost.fetch_add(units, Ordering::Relaxed) + units;
        if cost > MAX_EXPRESSION_COST {
            return Err(self.stop(format!(
                "evaluation stopped: the expression costs more than the limit of \
                 {MAX_EXPRESSION_COST} ({how})"
            )));
        }
        if run > MAX_RUN_COST {
            let how = if how == OPERATION_COST {
                String::new()
            } else {
                format!(" ({how})")
            };
            return Err(self.stop(format!(
                "evaluation stopped: the set's expressions together cost more than the limit of \
                 {MAX_RUN_COST} for one run{how}; simplify the expressions or split the targets \
                 over several PackageVariantSets"
            )));
        }
        Ok(())
    }

    /// The compiled `pattern`, from the cache or compiled and charged for.
    fn regex(&self, pattern: &str) -> Result<Arc<regex::Regex>, ExecutionError> {
        let cached = {
            let cache = self.regexes.lock().unwrap_or_else(|e| e.into_inner());
            cache.compiled.get(pattern).map(|(r, _)| r.clone())
        };
        let compiled = match cached {
            Some(found) => found,
            None => {
                let (compiled, class) = self.compile_charged(pattern)?;
                let compiled = compiled.map(Arc::new);
                let mut cache = self.regexes.lock().unwrap_or_else(|e| e.into_inner());
                if cache.compiled.len() < MAX_CACHED_REGEXES
                    && cache.pattern_bytes + pattern.len() <= MAX_CACHED_PATTERN_BYTES
                    && cache.program_bytes + class <= MAX_CACHED_PROGRAM_BYTES
                {
                    cache.pattern_bytes += pattern.len();
                    cache.program_bytes += class;
                    cache
                        .compiled
                        .insert(pattern.to_string(), (compiled.clone(), class));
                }
                compiled
            }
        };
        compiled.map_err(|why| self.stop(why))
    }

    /// Compiles `pattern` in the smallest program size class it fits, charging each class
    /// tried: the result and the class it took.
    fn compile_charged(
        &self,
        pattern: &str,
    ) -> Result<(Result<regex::Regex, String>, usize), ExecutionError> {
        compile_regex_in_classes(pattern, |units| self.charge_as(units, REGEX_COST))
    }
}

/// How the cost of an operation is counted, for the message of a limit.
const OPERATION_COST: &str =
    "each operation costs 1 plus a tenth of the size of the strings and lists it reads";
const REGEX_COST: &str = "compiling a regular expression costs half of its compiled program's \
     size class (16 KiB, 128 KiB, 1 MiB), and at most 16 patterns are kept compiled: use the \
     same few patterns for every target, and short ones";
const TOO_LARGE: &str = "regular expression is too large";

/// Compiles a pattern whose program may take at most `limit` bytes (which bounds the time
/// compiling it takes).
fn compile_regex_within(pattern: &str, limit: usize) -> Result<regex::Regex, String> {
    regex::RegexBuilder::new(pattern)
        .size_limit(limit)
        .dfa_size_limit(MAX_REGEX_PROGRAM_BYTES)
        .build()
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(_) => format!(
                "{TOO_LARGE}: its compiled program exceeds the limit of {limit} bytes; use a \
                 shorter pattern or fewer repetitions"
            ),
            other => format!("invalid regular expression: {other}"),
        })
}

/// The size of a value as the meter counts it: bytes of strings, plus one per element.
fn size_of(v: &dyn Val, budget: u64) -> u64 {
    if let Some(s) = v.downcast_ref::<CelString>() {
        return s.inner().len() as u64;
    }
    if let Some(b) = v.downcast_ref::<CelBytes>() {
        return b.inner().len() as u64;
    }
    let mut total = 0u64;
    if let Some(l) = v.downcast_ref::<CelList>() {
        for item in l.inner() {
            total += 1 + size_of(item.as_ref(), budget.saturating_sub(total));
            if total > budget {
                break;
            }
        }
        return total;
    }
    if let Some(m) = v.downcast_ref::<CelMap>() {
        for item in m.inner().values() {
            total += 1 + size_of(item.as_ref(), budget.saturating_sub(total));
            if total > budget {
                break;
            }
        }
        return total;
    }
    if let Some(it) = v.as_iterable() {
        let mut items = it.iter();
        while let Some(item) = items.next() {
            total += 1 + size_of(item, budget.saturating_sub(total));
            if total > budget {
                break;
            }
        }
    }
    total
}

fn charge_for(meter: &Meter, v: &dyn Val) -> Result<(), ExecutionError> {
    let budget = MAX_EXPRESSION_COST.saturating_mul(10);
    meter.charge(1 + size_of(v, budget) / 10)
}

fn arg_function(meter: Arc<Meter>) -> Function {
    Box::new(move |ftx: &mut FunctionContext<'_, '_>| {
        let value = ftx
            .args
            .pop()
            .ok_or_else(|| ExecutionError::invalid_argument_count(1, 0))?;
        charge_for(&meter, value.as_ref())?;
        Ok(value)
    })
}

/// `@ordered(x)`: a map's keys as a list, sorted (the map's size charged as `@arg` does);
/// anything else unchanged.
fn ordered_function(meter: Arc<Meter>) -> Function {
    Box::new(move |ftx: &mut FunctionContext<'_, '_>| {
        let value = ftx
            .args
            .pop()
            .ok_or_else(|| ExecutionError::invalid_argument_count(1, 0))?;
        let Some(map) = value.downcast_ref::<CelMap>() else {
            return Ok(value);
        };
        meter.charge(1 + map.inner().len() as u64 / 10)?;
        let mut keys: Vec<&CelMapKey> = map.inner().keys().collect();
        keys.sort();
        let list: Vec<Box<dyn Val>> = keys
            .into_iter()
            .map(|k| k.inner().clone_as_boxed())
            .collect();
        Ok(CowVal::owned(CelList::from(list)))
    })
}

fn matches_function(meter: Arc<Meter>) -> Function {
    Box::new(move |ftx: &mut FunctionContext<'_, '_>| {
        let (Some(text), Some(pattern)) = (ftx.args.first(), ftx.args.get(1)) else {
            return Err(ExecutionError::invalid_argument_count(2, ftx.args.len()));
        };
        let (Some(text), Some(pattern)) = (
            text.downcast_ref::<CelString>(),
            pattern.downcast_ref::<CelString>(),
        ) else {
            return Err(ExecutionError::function_error(
                "matches",
                "no such overload: matches needs two strings",
            ));
        };
        // Kubernetes' cost of `matches`: string traversal times regex size.
        let text_cost: u64 = 1 + text.inner().len() as u64 / 10;
        let regex_cost = 1 + pattern.inner().len() as u64 / 4;
        meter.charge(text_cost.saturating_mul(regex_cost))?;
        let re = meter.regex(pattern.inner())?;
        Ok(CowVal::owned(CelBool::from(re.is_match(text.inner()))))
    })
}

/// Go's `time.RFC3339Nano` layout: fraction without trailing zeros, `Z` for UTC.
pub(super) fn rfc3339_nano(t: &chrono::DateTime<chrono::FixedOffset>) -> String {
    use chrono::{Datelike, Timelike};
    let mut out = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        t.year(),
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    );
    let nanos = t.nanosecond() % 1_000_000_000;
    if nanos > 0 {
        let fraction = format!("{nanos:09}");
        out.push('.');
        out.push_str(fraction.trim_end_matches('0'));
    }
    let offset = t.offset().local_minus_utc();
    if offset == 0 {
        out.push('Z');
    } else {
        let sign = if offset < 0 { '-' } else { '+' };
        let abs = offset.unsigned_abs();
        out.push_str(&format!("{sign}{:02}:{:02}", abs / 3600, abs % 3600 / 60));
    }
    out
}

fn utc_function() -> Function {
    Box::new(|ftx: &mut FunctionContext<'_, '_>| {
        let value = ftx
            .args
            .pop()
            .ok_or_else(|| ExecutionError::invalid_argument_count(1, 0))?;
        match value.downcast_ref::<CelTimestamp>() {
            Some(t) => {
                let utc = chrono::FixedOffset::east_opt(0).expect("a zero offset is valid");
                Ok(CowVal::owned(CelTimestamp::from(
                    t.inner().with_timezone(&utc),
                )))
            }
            None => Ok(value),
        }
    })
}

/// What CEL sees of an object: only `name`, `namespace`, `labels` and `annotations` (absent
/// labels/annotations are empty maps; non-string entries are skipped).
pub fn object_input(object: &serde_json::Value) -> Value {
    let meta = object.get("metadata");
    let text = |field: &str| {
        meta.and_then(|m| m.get(field))
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_string()
    };
    let string_map = |field: &str| -> Value {
        let mut out: HashMap<Key, Value> = HashMap::new();
        if let Some(m) = meta.and_then(|m| m.get(field)).and_then(|v| v.as_object()) {
            for (k, v) in m {
                if let Some(s) = v.as_str() {
                    out.insert(Key::from(k.as_str()), Value::from(s));
                }
            }
        }
        Value::Map(Map { map: Arc::new(out) })
    };
    let mut input: HashMap<Key, Value> = HashMap::new();
    input.insert(Key::from("name"), Value::from(text("name")));
    input.insert(Key::from("namespace"), Value::from(text("namespace")));
    input.insert(Key::from("labels"), string_map("labels"));
    input.insert(Key::from("annotations"), string_map("annotations"));
    Value::Map(Map {
        map: Arc::new(input),
    })
}

/// `target` of a `repositories` target: `{repo, package}` and nothing else.
pub fn repositories_target_input(repo: &str, package: &str) -> Value {
    let mut input: HashMap<Key, Value> = HashMap::new();
    input.insert(Key::from("repo"), Value::from(repo));
    input.insert(Key::from("package"), Value::from(package));
    Value::Map(Map {
        map: Arc::new(input),
    })
}

/// A value for [`Bindings::activation`]: the interpreter's own form of `value`.
pub fn as_val(value: Value) -> Box<dyn Val> {
    Box::<dyn Val>::try_from(value).unwrap_or_else(|_| Box::new(cel::common::types::CelNull))
}

/// What CEL sees of an object (as [`object_input`]), in the interpreter's own form and
/// borrowing the object's strings: `target` and `repository` are built once per target this
/// way, without copying a string or converting a map.
pub fn object_val<'v>(
    name: &'v str,
    namespace: &'v str,
    labels: impl Iterator<Item = (&'v str, &'v str)>,
    annotations: impl Iterator<Item = (&'v str, &'v str)>,
) -> CelMap<'v> {
    let strings = |pairs: &mut dyn Iterator<Item = (&'v str, &'v str)>| -> Box<dyn Val + 'v> {
        let map: HashMap<CelMapKey<'v>, Box<dyn Val + 'v>> = pairs
            .map(|(k, v)| {
                (
                    CelMapKey::from(k),
                    Box::new(CelString::from(v)) as Box<dyn Val>,
                )
            })
            .collect();
        Box::new(CelMap::from(map))
    };
    let mut labels = labels;
    let mut annotations = annotations;
    let mut map: HashMap<CelMapKey<'v>, Box<dyn Val + 'v>> = HashMap::with_capacity(4);
    map.insert(CelMapKey::from("name"), Box::new(CelString::from(name)));
    map.insert(
        CelMapKey::from("namespace"),
        Box::new(CelString::from(namespace)),
    );
    map.insert(CelMapKey::from("labels"), strings(&mut labels));
    map.insert(CelMapKey::from("annotations"), strings(&mut annotations));
    CelMap::from(map)
}

/// `target` of a `repositories` target (as [`repositories_target_input`]), borrowing.
pub fn repositories_target_val<'v>(repo: &'v str, package: &'v str) -> CelMap<'v> {
    let mut map: HashMap<CelMapKey<'v>, Box<dyn Val + 'v>> = HashMap::with_capacity(2);
    map.insert(CelMapKey::from("repo"), Box::new(CelString::from(repo)));
    map.insert(
        CelMapKey::from("package"),
        Box::new(CelString::from(package)),
    );
    CelMap::from(map)
}

/// The variables of one target, looked up by name: nothing is copied into a scope.
struct Vars<'v> {
    repo_default: CelString<'v>,
    package_default: CelString<'v>,
    target: &'v dyn Val,
    repository: Option<&'v dyn Val>,
}

impl VariableResolver for Vars<'_> {
    fn resolve<'b>(&'b self, variable: &str) -> Option<CowVal<'b, 'b>> {
        let found: &'b dyn Val = match variable {
            "repoDefault" => &self.repo_default,
            "packageDefault" => &self.package_default,
            "target" => self.target,
            // Unbound until `repoExpr` has been evaluated: then the lookup fails, as in Porch.
            "repository" => self.repository?,
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
            },
        }
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

impl Activation<'_> {
    /// What a missing `key` was looked up in, when `expr` looks it up in a path from a
    /// variable (`target.labels['k']`, `repository.nme`): the keys that map has (the first
    /// [`suggest::MAX_LISTED`]), the closest one, and how to test for a key that may be absent.
    fn key_hint(&self, expr: &IdedExpr, key: &str) -> Option<String> {
        let path = lookup_path(expr, key)?;
        let (root, steps) = path.split_first()?;
        let upstream = self.root.get_variable("upstream");
        let mut value: &dyn Val = match root.as_str() {
            "target" => self.vars.target,
            "repository" => self.vars.repository?,
            "upstream" => upstream.as_deref()?,
            _ => return None,
        };
        for step in steps {
            value = value
                .downcast_ref::<CelMap>()?
                .inner()
                .iter()
                .find(|(k, _)| key_text(k).as_deref() == Some(step.as_str()))?
                .1
                .as_ref();
        }
        let map = value.downcast_ref::<CelMap>()?;
        let mut keys: Vec<String> = map.inner().keys().filter_map(key_text).collect();
        keys.sort();
        let shown = shown_path(&path);
        let mut hint = if keys.is_empty() {
            format!("; {shown} is empty")
        } else {
            let listed = suggest::listed(keys.iter().map(String::as_str));
            format!("; {shown} has the keys {listed}")
        };
        if let Some(close) = suggest::closest(key, keys.iter().map(String::as_str)) {
            let meant = shown_path(&[shown.clone(), close.to_string()]);
            hint.push_str(&format!(": did you mean {meant}?"));
        }
        if !steps.is_empty() {
            let lead = if hint.ends_with('?') {
                " Where"
            } else {
                "; where"
            };
            hint.push_str(&format!(
                "{lead} a target may lack the key, test for it first: '{key}' in {shown} ? \
                 {shown}['{key}'] : ''"
            ));
        }
        Some(hint)
    }
}

/// A map key as text (strings as they are, other keys as CEL writes them).
fn key_text(key: &CelMapKey) -> Option<String> {
    match key {
        CelMapKey::String(s) => Some(s.inner().to_string()),
        CelMapKey::Int(i) => Some(i.inner().to_string()),
        CelMapKey::UInt(u) => Some(format!("{}u", u.inner())),
        CelMapKey::Bool(b) => Some(b.inner().to_string()),
    }
}

/// `target.labels` from `["target", "labels"]`: a step that is not an identifier is indexed
/// (`target.labels['app.kubernetes.io/name']`); the first step is written as it is.
fn shown_path(path: &[String]) -> String {
    let mut out = String::new();
    for (i, step) in path.iter().enumerate() {
        let identifier = step.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && step.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if i == 0 {
            out.push_str(step);
        } else if identifier {
            out.push('.');
            out.push_str(step);
        } else {
            out.push_str(&format!(
                "['{}']",
                step.replace('\\', "\\\\").replace('\'', "\\'")
            ));
        }
    }
    out
}

/// The path from a variable to the map `expr` looks `key` up in (`a.b['c'].key`, or
/// `a.b['c']['key']`): the first such lookup, in the order the expression is written.
fn lookup_path(expr: &IdedExpr, key: &str) -> Option<Vec<String>> {
    let found = match &expr.expr {
        Expr::Select(s) if !s.test && s.field == key => path_of(&s.operand),
        Expr::Call(c) if c.func_name == operators::INDEX && c.args.len() == 2 => {
            match &c.args[1].expr {
                Expr::Literal(LiteralValue::String(k)) if k.inner() == key => path_of(&c.args[0]),
                _ => None,
            }
        }
        _ => None,
    };
    found.or_else(|| {
        super::checker::children(expr)
            .into_iter()
            .find_map(|child| lookup_path(child, key))
    })
}

/// `a.b['c']` as `["a", "b", "c"]`, if it is a path from an identifier.
fn path_of(e: &IdedExpr) -> Option<Vec<String>> {
    match &e.expr {
        Expr::Ident(name) => Some(vec![name.clone()]),
        Expr::Select(s) if !s.test => {
            let mut p = path_of(&s.operand)?;
            p.push(s.field.clone());
            Some(p)
        }
        Expr::Call(c) if c.func_name == operators::INDEX && c.args.len() == 2 => {
            let Expr::Literal(LiteralValue::String(k)) = &c.args[1].expr else {
                return None;
            };
            let mut p = path_of(&c.args[0])?;
            p.push(k.inner().to_string());
            Some(p)
        }
        _ => None,
    }
}

/// An evaluation error as cel-go words it.
pub(super) fn execution_error(err: ExecutionError) -> String {
    match err {
        ExecutionError::NoSuchKey(k) => format!("no such key: {k}"),
        ExecutionError::UndeclaredReference(name) if VARIABLES.contains(&name.as_str()) => {
            format!("no such attribute(s): {name}")
        }
        ExecutionError::UndeclaredReference(name) => format!("undeclared reference to '{name}'"),
        // cel-go's conversion and function errors carry no function name.
        ExecutionError::FunctionError { message, .. } => message,
        // cel-go's messages (`common/types`: overflow.go and err.go).
        ExecutionError::DivisionByZero(_) => "division by zero".into(),
        ExecutionError::RemainderByZero(_) => "modulus by zero".into(),
        // A timestamp moved by a duration out of range is a timestamp overflow; durations
        // added, and timestamps subtracted, overflow as the int64 nanoseconds they are.
        ExecutionError::Overflow(_, left, right) => match (left, right) {
            (Value::UInt(_), _) => "unsigned integer overflow".into(),
            (Value::Timestamp(_), Value::Duration(_))
            | (Value::Duration(_), Value::Timestamp(_)) => "timestamp overflow".into(),
            _ => "integer overflow".into(),
        },
        // cel-go indexes through attribute qualification (`interpreter/attributes.go`), which
        // checks bounds itself; an index it cannot use is `types.IndexOrError`'s message.
        ExecutionError::IndexOutOfBounds(index) => match index {
            Value::Int(i) => format!("index out of bounds: {i}"),
            Value::UInt(i) => format!("index out of bounds: {i}"),
            Value::Float(f) => format!("index out of bounds: {f}"),
            other => format!("index out of bounds: {other:?}"),
        },
        ExecutionError::UnsupportedIndex(index, _) => match index {
            Value::Float(f) => format!("unsupported index value {f} in list"),
            other => format!("unsupported index type '{}' in list", other.type_of()),
        },
        // cel-go's operators on operands of the wrong run-time types: `no such overload`.
        ExecutionError::UnsupportedBinaryOperator(op, l, r) => format!(
            "no such overload: {op} applied to '({}, {})'",
            l.type_of(),
            r.type_of()
        ),
        ExecutionError::ValuesNotComparable(l, r) => format!(
            "no such overload: comparison applied to '({}, {})'",
            l.type_of(),
            r.type_of()
        ),
        // A field of a value that has none: cel-go qualifies it as an index
        // (`interpreter/attributes.go`): a list's `IndexOrError`, else a missing key, which
        // cel-go names and the interpreter's error does not carry.
        ExecutionError::NoSuchOverload(o) if o.function() == "_._" => {
            match o.argument_types().first().map(String::as_str) {
                Some("list") => "unsupported index type 'string' in list".into(),
                Some(t) => format!("no such key (a field of a value of type '{t}')"),
                None => "no such key".into(),
            }
        }
        // cel-go: `no such overload` (naming the function where its interpreter does).
        ExecutionError::NoSuchOverload(o) => {
            let types = o.argument_types();
            let signature = match (o.is_member_function(), types.split_first()) {
                (true, Some((receiver, rest))) => format!("{receiver}.({})", rest.join(", ")),
                _ => format!("({})", types.join(", ")),
            };
            format!(
                "no such overload: {} applied to '{signature}'",
                o.function()
            )
        }
        other => other.to_string(),
    }
}

/// cel-go's `ConvertToNative(string)`: only strings convert.
fn to_string_result(value: &dyn Val) -> Result<String, String> {
    let message = match value.get_type().kind() {
        Kind::String => {
            return value
                .downcast_ref::<CelString>()
                .map(|s| s.inner().to_string())
                .ok_or_else(|| "expression returned non-string value".to_string())
        }
        Kind::Int => "unsupported type conversion from 'int' to string",
        Kind::UInt => "unsupported type conversion from 'uint' to string",
        Kind::Double => "type conversion error from Double to 'string'",
        Kind::Boolean => "type conversion error from bool to 'string'",
        Kind::NullType => "type conversion error from 'null_type' to 'string'",
        Kind::Bytes => "type conversion error from Bytes to 'string'",
        Kind::Map => "type conversion error from map to 'string'",
        Kind::List => "type conversion error from list to 'string'",
        Kind::Timestamp => "type conversion error from Timestamp to 'string'",
        Kind::Duration => "type conversion error from Duration to 'string'",
        Kind::Type => "type conversion not supported for 'type'",
        _ => {
            return Err(format!(
                "expression returned non-string value of type {}",
                value.get_type().name()
            ))
        }
    };
    Err(message.to_string())
}
