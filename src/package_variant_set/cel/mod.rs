//! The CEL environment of PackageVariantSet templates, as Porch binds it, with the limits a
//! function running on untrusted configuration needs.
//!
//! Porch (cel-go v0.26.1) uses the plain standard library: no strings extension (`lowerAscii`,
//! `split`, `format`, ...), no optional types, no Kubernetes libraries. So we do NOT register
//! `cel::extensions::strings`, we parse without the optional syntax, and we reject at compile
//! time any function cel-go's standard library lacks (the Rust crate registers a few more).
//!
//! Variables (all declared for every expression, as in Porch): `repoDefault`, `packageDefault`
//! (strings), `upstream`, `target`, `repository` (maps of only `name`, `namespace`, `labels`,
//! `annotations`). `repository` is bound only after `downstream.repoExpr` is evaluated; a
//! reference to it from `repoExpr` fails at run time with `no such attribute(s): repository`.
//!
//! Limits (the `cel` crate has no cost limit or cancellation hook, so we add our own):
//! - source length: at most [`MAX_EXPRESSION_BYTES`];
//! - bracket nesting: at most [`MAX_NESTING`] (checked on the text before parsing, because the
//!   ANTLR parser recurses deeply per bracket and would overflow the stack first);
//! - tree depth: at most [`MAX_AST_DEPTH`] (the parser's recursion limit plus our own check), so
//!   evaluation, which recurses over the tree, stays within a 2 MiB thread stack even in a
//!   debug build (measured: a 62-level tree overflows it, 48 does not);
//! - comprehension steps: every iteration of every comprehension (`all`, `exists`,
//!   `exists_one`, `map`, `filter`, nested or not) calls a hidden counter inserted into the tree;
//!   past [`MAX_COMPREHENSION_STEPS`] the evaluation stops with an error. Without loops or
//!   recursion in CEL, everything else an expression does is bounded by its (bounded) size
//!   times the size of the data it reads.
//!
//! Parsing runs on a dedicated thread with a large stack; parsing and evaluation are wrapped in
//! `catch_unwind` as a last line of defence (it only helps where panics unwind, i.e. not in the
//! release profile, which aborts: the checks above are what prevent panics there).

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use cel::common::ast::{
    operators, CallExpr, ComprehensionExpr, EntryExpr, Expr, IdedExpr, SourceInfo,
};
use cel::objects::{Key, Map};
use cel::{Context, Env, ExecutionError, Value};

/// Longest accepted expression source, in bytes.
pub const MAX_EXPRESSION_BYTES: usize = 10_000;
/// Deepest accepted nesting of `(`, `[` and `{` in the source.
pub const MAX_NESTING: usize = 20;
/// Deepest accepted expression tree (after macro expansion).
pub const MAX_AST_DEPTH: usize = 40;
/// Most comprehension iterations one evaluation may run, all comprehensions together.
pub const MAX_COMPREHENSION_STEPS: u64 = 10_000;

/// The variables Porch declares.
pub const VARIABLES: [&str; 5] = [
    "repoDefault",
    "packageDefault",
    "upstream",
    "target",
    "repository",
];

/// Stack for the parser thread: the ANTLR parser uses a lot of stack per nesting level.
const PARSER_STACK_BYTES: usize = 64 << 20;
/// Name of the hidden step counter. `@` cannot appear in CEL source, so no expression can call
/// or shadow it.
const STEP_FUNCTION: &str = "@step";

/// Type names cel-go resolves as identifiers (e.g. `type(x) == string`).
const TYPE_IDENTIFIERS: [&str; 10] = [
    "bool",
    "bytes",
    "double",
    "int",
    "list",
    "map",
    "null_type",
    "string",
    "type",
    "uint",
];

/// Functions of cel-go's standard library (v0.26.1), operators included.
const STDLIB_FUNCTIONS: [&str; 32] = [
    operators::CONDITIONAL,
    operators::LOGICAL_AND,
    operators::LOGICAL_OR,
    operators::LOGICAL_NOT,
    operators::SUBSTRACT,
    operators::ADD,
    operators::MULTIPLY,
    operators::DIVIDE,
    operators::MODULO,
    operators::EQUALS,
    operators::NOT_EQUALS,
    operators::GREATER_EQUALS,
    operators::LESS_EQUALS,
    operators::GREATER,
    operators::LESS,
    operators::NEGATE,
    operators::INDEX,
    operators::NOT_STRICTLY_FALSE,
    operators::IN,
    "size",
    "contains",
    "startsWith",
    "endsWith",
    "matches",
    "int",
    "uint",
    "double",
    "string",
    "bytes",
    "bool",
    "dyn",
    "type",
];

/// cel-go's time functions. They are in Porch's standard library, but this build of the `cel`
/// crate leaves out its time support (the `chrono` feature, and chrono-tz with it), so they
/// are refused at compile time with a message that says so rather than failing at evaluation.
const TIME_FUNCTIONS: [&str; 12] = [
    "duration",
    "timestamp",
    "getFullYear",
    "getMonth",
    "getDayOfYear",
    "getDayOfMonth",
    "getDate",
    "getDayOfWeek",
    "getHours",
    "getMinutes",
    "getSeconds",
    "getMilliseconds",
];

/// A compiled, checked and instrumented expression.
#[derive(Debug)]
pub struct Program {
    source: String,
    expr: IdedExpr,
}

impl Program {
    /// The expression as written.
    pub fn source(&self) -> &str {
        &self.source
    }
}

/// Compiles each distinct expression source once per run and remembers the outcome (errors too).
pub struct ProgramCache {
    env: Arc<Env>,
    programs: HashMap<String, Result<Arc<Program>, String>>,
    compilations: usize,
}

impl Default for ProgramCache {
    fn default() -> Self {
        Self::new()
    }
}

impl ProgramCache {
    /// A cache over Porch's environment: the standard library only.
    pub fn new() -> Self {
        // NOT `env.add_extension(cel::extensions::strings)`: Porch has no strings extension.
        let env = Env::stdlib().with_optional_support(false);
        ProgramCache {
            env: Arc::new(env),
            programs: HashMap::new(),
            compilations: 0,
        }
    }

    /// The compiled program for `source`, compiling it on first use.
    pub fn compile(&mut self, source: &str) -> Result<Arc<Program>, String> {
        if let Some(found) = self.programs.get(source) {
            return found.clone();
        }
        self.compilations += 1;
        let result = compile(source).map(Arc::new);
        self.programs.insert(source.to_string(), result.clone());
        result
    }

    /// How many distinct sources were compiled so far.
    pub fn compilations(&self) -> usize {
        self.compilations
    }

    /// The environment programs are evaluated in.
    pub fn env(&self) -> Arc<Env> {
        Arc::clone(&self.env)
    }
}

/// Compiles one expression: limits, parse (on a big-stack thread), instrumentation, checks.
pub fn compile(source: &str) -> Result<Program, String> {
    if source.len() > MAX_EXPRESSION_BYTES {
        return Err(format!(
            "expression is {} bytes long, more than the limit of {MAX_EXPRESSION_BYTES} bytes",
            source.len()
        ));
    }
    let depth = bracket_depth(source);
    if depth > MAX_NESTING {
        return Err(format!(
            "expression nests brackets {depth} deep, more than the limit of {MAX_NESTING}"
        ));
    }
    let owned = source.to_string();
    let handle = std::thread::Builder::new()
        .name("cel-compile".into())
        .stack_size(PARSER_STACK_BYTES)
        .spawn(move || catch_unwind(AssertUnwindSafe(|| parse_and_check(&owned))));
    match handle {
        // No thread available: parse here. The bracket limit keeps the parser's recursion modest.
        Err(_) => catch_unwind(AssertUnwindSafe(|| parse_and_check(source)))
            .unwrap_or_else(|_| Err("internal error: the CEL parser panicked".to_string())),
        Ok(handle) => match handle.join() {
            Ok(Ok(result)) => result,
            _ => Err("internal error: the CEL parser panicked".to_string()),
        },
    }
}

fn parse_and_check(source: &str) -> Result<Program, String> {
    let parser = Env::stdlib()
        .with_optional_support(false)
        .parser()
        .max_recursion_depth(MAX_AST_DEPTH as u16);
    let (mut expr, info) = parser
        .parse_with_source_info(source)
        .map_err(|e| syntax_errors(source, &e))?;
    check(&expr, &mut Vec::new(), 0, source, &info)?;
    instrument(&mut expr);
    let depth = tree_depth(&expr, 0);
    if depth > MAX_AST_DEPTH {
        return Err(format!(
            "expression tree is {depth} levels deep, more than the limit of {MAX_AST_DEPTH}"
        ));
    }
    Ok(Program {
        source: source.to_string(),
        expr,
    })
}

/// Deepest nesting of brackets outside string literals.
fn bracket_depth(source: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    let mut quote: Option<char> = None;
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                if c == '\\' {
                    chars.next();
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                '\'' | '"' => quote = Some(c),
                '(' | '[' | '{' => {
                    depth += 1;
                    max = max.max(depth);
                }
                ')' | ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            },
        }
    }
    max
}

/// Syntax errors in cel-go's format: each `ERROR: <input>:L:C: msg`, then ` | <line>` and
/// ` | <dots>^` (the cel crate writes `| ` without the leading space). No snippet for a line the
/// source lacks (e.g. an empty expression), as in cel-go.
fn syntax_errors(source: &str, errors: &cel::ParseErrors) -> String {
    errors
        .errors
        .iter()
        .map(|e| {
            let (line_no, col) = e.pos;
            let mut out = format!("ERROR: <input>:{line_no}:{col}: {}", e.msg);
            let line = usize::try_from(line_no - 1)
                .ok()
                .and_then(|l| source.lines().nth(l));
            if let Some(line) = line {
                let dots = ".".repeat(usize::try_from(col - 1).unwrap_or(0));
                out.push_str(&format!("\n | {}\n | {dots}^", line.replace('\t', " ")));
            }
            out
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// cel-go's compile error format: `ERROR: <input>:L:C: msg` plus the source line and a caret.
fn compile_error(source: &str, info: &SourceInfo, id: u64, msg: &str) -> String {
    let offset = info
        .offset_for(id)
        .map(|(start, _)| start as usize)
        .unwrap_or(0);
    let (mut line_no, mut col) = (1usize, 1usize);
    let mut line_start = 0usize;
    for (i, (byte, c)) in source.char_indices().enumerate() {
        if i >= offset {
            break;
        }
        if c == '\n' {
            line_no += 1;
            col = 1;
            line_start = byte + 1;
        } else {
            col += 1;
        }
    }
    let line = source
        .get(line_start..)
        .unwrap_or("")
        .lines()
        .next()
        .unwrap_or("");
    let caret = format!("{}^", ".".repeat(col.saturating_sub(1)));
    format!("ERROR: <input>:{line_no}:{col}: {msg}\n | {line}\n | {caret}")
}

/// Rejects what Porch's environment would reject at compile time: undeclared variables and
/// functions outside cel-go's standard library. Comprehension variables are in scope in the loop
/// and the result. Also rejects nodes the interpreter cannot evaluate.
fn check<'e>(
    expr: &'e IdedExpr,
    scope: &mut Vec<&'e str>,
    depth: usize,
    source: &str,
    info: &SourceInfo,
) -> Result<(), String> {
    if depth > MAX_AST_DEPTH {
        return Err(format!(
            "expression tree is more than {MAX_AST_DEPTH} levels deep"
        ));
    }
    let d = depth + 1;
    match &expr.expr {
        Expr::Unspecified => Err(compile_error(
            source,
            info,
            expr.id,
            "unsupported expression",
        )),
        Expr::Ident(name) => {
            if VARIABLES.contains(&name.as_str())
                || TYPE_IDENTIFIERS.contains(&name.as_str())
                || scope.contains(&name.as_str())
            {
                Ok(())
            } else {
                Err(compile_error(
                    source,
                    info,
                    expr.id,
                    &format!("undeclared reference to '{name}' (in container '')"),
                ))
            }
        }
        Expr::Literal(_) => Ok(()),
        Expr::Select(s) => check(&s.operand, scope, d, source, info),
        Expr::Call(call) => {
            let f = call.func_name.as_str();
            if TIME_FUNCTIONS.contains(&f) {
                return Err(compile_error(
                    source,
                    info,
                    expr.id,
                    &format!(
                        "'{f}' is not supported: package-variant's CEL has no timestamps or durations \
                         (Porch's has); compute time values outside the template"
                    ),
                ));
            }
            if !STDLIB_FUNCTIONS.contains(&f) {
                return Err(compile_error(
                    source,
                    info,
                    expr.id,
                    &format!("undeclared reference to '{f}' (in container '')"),
                ));
            }
            if let Some(t) = &call.target {
                check(t, scope, d, source, info)?;
            }
            call.args
                .iter()
                .try_for_each(|a| check(a, scope, d, source, info))
        }
        Expr::List(l) => l
            .elements
            .iter()
            .try_for_each(|e| check(e, scope, d, source, info)),
        Expr::Map(m) => m.entries.iter().try_for_each(|e| match &e.expr {
            EntryExpr::MapEntry(me) => check(&me.key, scope, d, source, info)
                .and_then(|_| check(&me.value, scope, d, source, info)),
            EntryExpr::StructField(sf) => check(&sf.value, scope, d, source, info),
        }),
        Expr::Struct(_) => Err(compile_error(
            source,
            info,
            expr.id,
            "message construction is not supported (no message types are declared)",
        )),
        Expr::Comprehension(c) => {
            check(&c.iter_range, scope, d, source, info)?;
            check(&c.accu_init, scope, d, source, info)?;
            let before = scope.len();
            scope.push(&c.accu_var);
            scope.push(&c.iter_var);
            if let Some(v2) = &c.iter_var2 {
                scope.push(v2);
            }
            let r = check(&c.loop_cond, scope, d, source, info)
                .and_then(|_| check(&c.loop_step, scope, d, source, info))
                .and_then(|_| check(&c.result, scope, d, source, info));
            scope.truncate(before);
            r
        }
    }
}

fn tree_depth(expr: &IdedExpr, depth: usize) -> usize {
    if depth > MAX_AST_DEPTH {
        return depth;
    }
    let d = depth + 1;
    let children: Vec<&IdedExpr> = match &expr.expr {
        Expr::Call(c) => c.target.iter().map(|t| &**t).chain(c.args.iter()).collect(),
        Expr::Comprehension(c) => vec![
            &c.iter_range,
            &c.accu_init,
            &c.loop_cond,
            &c.loop_step,
            &c.result,
        ],
        Expr::List(l) => l.elements.iter().collect(),
        Expr::Map(m) => m
            .entries
            .iter()
            .flat_map(|e| match &e.expr {
                EntryExpr::MapEntry(me) => vec![&me.key, &me.value],
                EntryExpr::StructField(sf) => vec![&sf.value],
            })
            .collect(),
        Expr::Select(s) => vec![&*s.operand],
        _ => vec![],
    };
    children
        .into_iter()
        .map(|c| tree_depth(c, d))
        .max()
        .unwrap_or(d)
}

fn node(expr: Expr) -> IdedExpr {
    // Ids only locate nodes in the source for messages; inserted nodes have none.
    IdedExpr { id: 0, expr }
}

fn call(func: &str, args: Vec<IdedExpr>) -> IdedExpr {
    node(Expr::Call(CallExpr {
        func_name: func.to_string(),
        target: None,
        args,
    }))
}

/// `@step() ? then : otherwise`: counts one step, then evaluates `then`.
fn counted(then: IdedExpr, otherwise: IdedExpr) -> IdedExpr {
    call(
        operators::CONDITIONAL,
        vec![call(STEP_FUNCTION, vec![]), then, otherwise],
    )
}

/// Inserts the step counter into every comprehension's loop step, keeping the shapes the
/// interpreter optimises (`@result + [x]` appends, `@result && p` folds) recognisable.
fn instrument(expr: &mut IdedExpr) {
    match &mut expr.expr {
        Expr::Call(c) => {
            if let Some(t) = &mut c.target {
                instrument(t);
            }
            c.args.iter_mut().for_each(instrument);
        }
        Expr::List(l) => l.elements.iter_mut().for_each(instrument),
        Expr::Map(m) => m.entries.iter_mut().for_each(|e| match &mut e.expr {
            EntryExpr::MapEntry(me) => {
                instrument(&mut me.key);
                instrument(&mut me.value);
            }
            EntryExpr::StructField(sf) => instrument(&mut sf.value),
        }),
        Expr::Select(s) => instrument(&mut s.operand),
        Expr::Comprehension(c) => {
            instrument(&mut c.iter_range);
            instrument(&mut c.accu_init);
            instrument(&mut c.loop_cond);
            instrument(&mut c.loop_step);
            instrument(&mut c.result);
            count_steps(c);
        }
        _ => {}
    }
}

fn count_steps(c: &mut ComprehensionExpr) {
    let accu = c.accu_var.clone();
    let is_accu = |e: &IdedExpr| matches!(&e.expr, Expr::Ident(n) if *n == accu);
    let false_literal = || {
        node(Expr::Literal(cel::common::ast::LiteralValue::Boolean(
            false.into(),
        )))
    };
    let step = std::mem::take(&mut c.loop_step);
    c.loop_step = match step.expr {
        // `@result && p` / `@result || p` (all, exists): count inside the right operand.
        Expr::Call(mut fold)
            if (fold.func_name == operators::LOGICAL_AND
                || fold.func_name == operators::LOGICAL_OR)
                && fold.target.is_none()
                && fold.args.len() == 2
                && fold.args.first().is_some_and(&is_accu) =>
        {
            if let Some(p) = fold.args.pop() {
                fold.args.push(counted(p, false_literal()));
            }
            IdedExpr {
                id: step.id,
                expr: Expr::Call(fold),
            }
        }
        // `g ? step : @result` (filter, exists_one, 3-argument map): count in the guard.
        Expr::Call(mut cond)
            if cond.func_name == operators::CONDITIONAL
                && cond.target.is_none()
                && cond.args.len() == 3
                && cond.args.last().is_some_and(&is_accu) =>
        {
            if let Some(g) = cond.args.first_mut() {
                let guard = std::mem::take(g);
                *g = counted(guard, false_literal());
            }
            IdedExpr {
                id: step.id,
                expr: Expr::Call(cond),
            }
        }
        // Anything else (`@result + [x]` of map): `@step() ? step : @result`.
        other => counted(
            IdedExpr {
                id: step.id,
                expr: other,
            },
            node(Expr::Ident(accu.clone())),
        ),
    };
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

/// The variables bound for one target ([`Bindings::activation`]). Build once per target and
/// evaluate all its expressions.
pub struct Activation<'p> {
    ctx: Context<'p, 'static>,
    steps: Arc<AtomicU64>,
}

/// What every target of a run shares: the environment, `upstream` (converted for the
/// interpreter once per run, not once per target) and the step counter. Each target's
/// variables go in a child scope ([`Bindings::activation`]); lookups fall through to these.
pub struct Bindings {
    ctx: Context<'static, 'static>,
    steps: Arc<AtomicU64>,
}

impl Bindings {
    pub fn new(env: Arc<Env>, upstream: Option<&Value>) -> Self {
        let mut ctx = Context::with_env(env);
        if let Some(up) = upstream {
            ctx.add_variable_from_value("upstream", up.clone());
        }
        let steps = Arc::new(AtomicU64::new(0));
        let counter = Arc::clone(&steps);
        // Errors when over the limit; `evaluate` also checks the count afterwards, because a
        // fold (`error || true`) may swallow the error.
        let registered =
            ctx.add_function(STEP_FUNCTION, move || -> Result<Value, ExecutionError> {
                let n = counter.fetch_add(1, Ordering::Relaxed) + 1;
                if n > MAX_COMPREHENSION_STEPS {
                    Err(ExecutionError::function_error(
                        STEP_FUNCTION,
                        "step limit exceeded",
                    ))
                } else {
                    Ok(Value::Bool(true))
                }
            });
        debug_assert!(
            registered.is_ok(),
            "the step function name cannot clash with an overload"
        );
        Bindings { ctx, steps }
    }

    /// The activation of one target: `repoDefault`, `packageDefault` and `target` over the
    /// shared bindings. `repository` is bound later.
    pub fn activation(
        &self,
        repo_default: &str,
        package_default: &str,
        target: &Value,
    ) -> Activation<'_> {
        let mut ctx = self.ctx.new_inner_scope();
        ctx.add_variable_from_value("repoDefault", repo_default);
        ctx.add_variable_from_value("packageDefault", package_default);
        ctx.add_variable_from_value("target", target.clone());
        Activation {
            ctx,
            steps: Arc::clone(&self.steps),
        }
    }
}

impl Activation<'_> {
    /// Binds `repository` (after `repoExpr` has been evaluated, as Porch does).
    pub fn bind_repository(&mut self, repository: &Value) {
        self.ctx
            .add_variable_from_value("repository", repository.clone());
    }

    /// Evaluates `program`; the result must be a CEL string. Errors use Porch's wording where
    /// it is known (`no such key: k`, `no such attribute(s): repository`, conversion errors).
    pub fn evaluate(&self, program: &Program) -> Result<String, String> {
        self.steps.store(0, Ordering::Relaxed);
        let result = catch_unwind(AssertUnwindSafe(|| {
            Value::resolve(&program.expr, &self.ctx)
        }))
        .unwrap_or_else(|_| {
            Err(ExecutionError::InternalError(
                "the CEL interpreter panicked".into(),
            ))
        });
        if self.steps.load(Ordering::Relaxed) > MAX_COMPREHENSION_STEPS {
            return Err(format!(
                "evaluation stopped: more than {MAX_COMPREHENSION_STEPS} comprehension steps (all/exists/exists_one/map/filter iterations)"
            ));
        }
        match result {
            Ok(value) => to_string_result(value),
            Err(err) => Err(execution_error(err)),
        }
    }
}

fn execution_error(err: ExecutionError) -> String {
    match err {
        ExecutionError::NoSuchKey(k) => format!("no such key: {k}"),
        ExecutionError::UndeclaredReference(name) if VARIABLES.contains(&name.as_str()) => {
            format!("no such attribute(s): {name}")
        }
        ExecutionError::UndeclaredReference(name) => format!("undeclared reference to '{name}'"),
        other => other.to_string(),
    }
}

/// cel-go's `ConvertToNative(string)`: only strings convert.
fn to_string_result(value: Value) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s.to_string()),
        Value::Int(_) => Err("unsupported type conversion from 'int' to string".into()),
        Value::UInt(_) => Err("unsupported type conversion from 'uint' to string".into()),
        Value::Float(_) => Err("type conversion error from Double to 'string'".into()),
        Value::Bool(_) => Err("type conversion error from bool to 'string'".into()),
        Value::Null => Err("type conversion error from 'null_type' to 'string'".into()),
        Value::Bytes(_) => Err("type conversion error from Bytes to 'string'".into()),
        Value::Map(_) => Err("type conversion error from map to 'string'".into()),
        Value::List(_) => Err("type conversion error from list to 'string'".into()),
        other => Err(format!("expression returned non-string value: {other:?}")),
    }
}

#[cfg(test)]
mod tests;
