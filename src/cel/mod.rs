//! The CEL layer: expressions compiled and evaluated as Porch does (cel-go v0.26.1 with its
//! standard library, `HomogeneousAggregateLiterals` and `DefaultUTCTimeZone`), with the limits
//! a function running on untrusted configuration needs. The PackageVariantSet's templates,
//! conditions and waves use it; it knows nothing of PackageVariants, the API types or the
//! protocol, and uses only `crate::common` (`tests/architecture.rs`). What it promises:
//! - values: an expression evaluates to cel-go's value or fails with cel-go's error, unless one
//!   of the limits below refuses it (`conformance`: cel-spec's tests restated and counted);
//! - cost: Kubernetes' limits, [`MAX_EXPRESSION_COST`] per evaluation and [`MAX_RUN_COST`] per
//!   run, with the source's size and nesting bounded before it is parsed;
//! - determinism: a result and its message never depend on the run (a comprehension over a map
//!   takes its keys in sorted order, where cel-go takes Go's random order; the seeded hash of
//!   the program cache only finds programs again).
//!
//! - [`checker`] (with [`types`] and [`stdlib`]): cel-go's compile-time type check;
//! - [`errors`]: cel-go's error format; [`suggest`]: "did you mean" in messages;
//! - [`constants`]: conversions of constants that fail before evaluation, as in Porch;
//! - [`conversions`]: `string`, `double`, `int`, `uint` and `bool` as Go's `strconv` and `%g`;
//! - [`gotime`]: timestamps and durations read from strings as Go reads them;
//! - [`instrument`] and [`runtime`]: evaluation with Kubernetes-style cost bounds
//!   ([`functions`]: the hidden functions instrumented code calls; [`meter`]: what a run spent;
//!   [`re2`]: `matches`' patterns read as RE2 reads them).
//!
//! Porch has no strings extension (`lowerAscii`, `split`, `format`, ...), no optional types and
//! no Kubernetes libraries: the checker refuses them as cel-go does (`undeclared reference`).
//!
//! Variables (all declared for every expression, as in Porch): `repoDefault`, `packageDefault`
//! (strings), `upstream`, `target`, `repository` (dyn: maps of only `name`, `namespace`,
//! `labels`, `annotations`). `repository` is bound only after `downstream.repoExpr` is
//! evaluated; a reference to it from `repoExpr` fails at run time with
//! `no such attribute(s): repository`.
//!
//! Limits on the source, checked before and while parsing:
//! - source length: at most [`MAX_EXPRESSION_BYTES`];
//! - bracket nesting: at most [`MAX_NESTING`] (checked on the text before parsing, because the
//!   ANTLR parser recurses deeply per bracket and would overflow the stack first);
//! - tree depth: at most [`MAX_AST_DEPTH`], so that checking and evaluating, which recurse
//!   over the tree, stay within the stack.
//!
//! Parsing runs on a dedicated thread with a large stack; parsing and evaluation are wrapped in
//! `catch_unwind` as a last line of defence (it only helps where panics unwind, i.e. not in the
//! release profile, which aborts: the checks above are what prevent panics there).

mod checker;
mod constants;
mod conversions;
mod errors;
mod functions;
mod gotime;
mod instrument;
mod meter;
mod re2;
mod runtime;
mod stdlib;
mod suggest;
mod types;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use cel::common::ast::{Expr, IdedExpr, LiteralValue};
use cel::Env;

use crate::common::fast_hash::FastMap;

pub use runtime::{
    as_val, json_input, object_input, object_val, repositories_target_input,
    repositories_target_val, Activation, Bindings, IntOrString, MAX_CACHED_PATTERN_BYTES,
    MAX_CACHED_PROGRAM_BYTES, MAX_CACHED_REGEXES, MAX_COMPREHENSION_STEPS, MAX_EXPRESSION_COST,
    MAX_OUTPUT_BYTES, MAX_REGEX_PROGRAM_BYTES, MAX_RUN_COST, REGEX_PROGRAM_CLASSES,
};

/// What `matches` compiles `pattern` (RE2's syntax) to, the run's cost meter left out: asked
/// by tests/re2_differential.rs, which holds the translation against Go's own `regexp`.
#[doc(hidden)]
pub fn compile_matches_pattern(pattern: &str) -> Result<regex::Regex, String> {
    match runtime::compile_regex_in_classes(pattern, |_| Ok::<(), std::convert::Infallible>(())) {
        Ok((compiled, _)) => compiled,
        Err(never) => match never {},
    }
}

/// Longest accepted expression source, in bytes.
pub const MAX_EXPRESSION_BYTES: usize = 10_000;
/// Deepest accepted nesting of `(`, `[` and `{` in the source.
pub const MAX_NESTING: usize = 20;
/// Deepest accepted expression tree (after macro expansion).
pub const MAX_AST_DEPTH: usize = 40;
/// What compiling one distinct expression costs, from the run's budget ([`MAX_RUN_COST`]):
/// this, plus [`COMPILE_COST_PER_BYTE`] for each byte of its source. Parsing and checking one
/// takes about 0.2 ms however short it is, so thousands of distinct expressions (4,800: 15 s
/// on a loaded machine) cost far more than their size: the budget stops a run after about
/// 2,500 short ones (half a second).
pub const COMPILE_COST: u64 = 2_000;
/// What each byte of a distinct expression's source adds to [`COMPILE_COST`].
pub const COMPILE_COST_PER_BYTE: u64 = 100;

/// The variables Porch declares.
pub const VARIABLES: [&str; 5] = [
    "repoDefault",
    "packageDefault",
    "upstream",
    "target",
    "repository",
];

/// The variables a rollout's `readyExpr` sees (and no others): `variant` (the PackageVariant
/// as given, dyn) and `revisions` (its downstream PackageRevisions, a list of dyn).
pub const READINESS_VARIABLES: [&str; 2] = ["variant", "revisions"];

/// The one variable of a kpt pipeline step's `when`: `resources`, the step's selected
/// resources (a list of dyn).
pub const KPT_VARIABLES: [&str; 1] = ["resources"];

/// Which variables an expression is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Declarations {
    /// Porch's ([`VARIABLES`]): templates, `when` and `waveExpr`.
    #[default]
    Porch,
    /// A rollout's `readyExpr` ([`READINESS_VARIABLES`]).
    Readiness,
    /// A kpt pipeline step's `when` ([`KPT_VARIABLES`]), in kpt's environment: the standard
    /// library and the extensions kpt enables ([`check_kpt_condition`]). Checked only: kpt
    /// evaluates it.
    Kpt,
}

impl Declarations {
    /// The variable names declared.
    pub fn names(self) -> &'static [&'static str] {
        match self {
            Declarations::Porch => &VARIABLES,
            Declarations::Readiness => &READINESS_VARIABLES,
            Declarations::Kpt => &KPT_VARIABLES,
        }
    }
}

/// Stack for the parser thread: the ANTLR parser uses a lot of stack per nesting level.
const PARSER_STACK_BYTES: usize = 64 << 20;

/// A compiled, checked and instrumented expression.
#[derive(Debug)]
pub struct Program {
    source: String,
    expr: IdedExpr,
    /// The type the checker gives the whole expression (cel-go's `ast.OutputType()`).
    output: types::Ty,
}

impl Program {
    /// The expression as written.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The checked type of the expression, as cel-go names it (`bool`, `string`, `dyn`).
    pub fn output_type(&self) -> String {
        self.output.to_string()
    }

    /// Whether the expression can give a bool, as a condition must: its checked type is
    /// `bool`, or `dyn` (then the value is checked when it is evaluated).
    pub fn may_be_bool(&self) -> bool {
        matches!(self.output, types::Ty::Bool | types::Ty::Dyn)
    }

    /// Whether the expression can give an int or a string, as a rollout's wave must: its
    /// checked type is one of them, or `dyn` (then the value is checked when evaluated).
    pub fn may_be_int_or_string(&self) -> bool {
        matches!(
            self.output,
            types::Ty::Int | types::Ty::String | types::Ty::Dyn
        )
    }
}

/// Compiles each distinct expression source once per run and remembers the outcome (errors too).
pub struct ProgramCache {
    env: Arc<Env>,
    programs: FastMap<String, Result<Arc<Program>, String>>,
    compilations: usize,
    /// What compiling the programs so far, and their literal patterns, cost ([`MAX_RUN_COST`]).
    compile_cost: u64,
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
            programs: FastMap::default(),
            compilations: 0,
            compile_cost: 0,
        }
    }

    /// The compiled program for `source`, compiling it on first use.
    pub fn compile(&mut self, source: &str) -> Result<Arc<Program>, String> {
        if let Some(found) = self.programs.get(source) {
            return found.clone();
        }
        // Past the budget the error is not remembered: the run stops at its first error.
        let result = self.compile_new(source, Declarations::Porch)?;
        self.programs.insert(source.to_string(), result.clone());
        result
    }

    /// `source` compiled against other variables ([`Declarations::Readiness`]), paid from the
    /// run's budget like the others; not cached (a set has one such expression).
    pub fn compile_declared(
        &mut self,
        source: &str,
        declarations: Declarations,
    ) -> Result<Arc<Program>, String> {
        self.compile_new(source, declarations)?
    }

    /// Compiles `source`; `Err` when the run's budget is spent (then nothing is compiled).
    #[allow(clippy::type_complexity)]
    fn compile_new(
        &mut self,
        source: &str,
        declarations: Declarations,
    ) -> Result<Result<Arc<Program>, String>, String> {
        self.compilations += 1;
        let cost = COMPILE_COST.saturating_add(COMPILE_COST_PER_BYTE * source.len() as u64);
        self.compile_cost = self.compile_cost.saturating_add(cost);
        if self.compile_cost > MAX_RUN_COST {
            // Not remembered: the run stops at its first error.
            return Err(format!(
                "compiling the set's distinct expressions costs more than the limit of \
                 {MAX_RUN_COST} for one run (each distinct expression costs {COMPILE_COST} plus \
                 {COMPILE_COST_PER_BYTE} per byte of its source; this is distinct expression {}); \
                 use the same expressions for every target (the variables tell targets apart) \
                 and fewer of them, or split the targets over several PackageVariantSets",
                self.compilations
            ));
        }
        let budget = MAX_RUN_COST.saturating_sub(self.compile_cost);
        let (result, spent) = compile_within(source, budget, declarations);
        self.compile_cost += spent;
        Ok(result.map(Arc::new))
    }

    /// True once compiling has spent the run's budget: the error said so once, and the
    /// expressions not yet compiled are left alone (each would only repeat it).
    pub fn out_of_budget(&self) -> bool {
        // A literal pattern past the budget spends all of it (`LiteralRegexes`).
        self.compile_cost >= MAX_RUN_COST
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

/// Porch's environment (the standard library, no optional syntax), built once: building it
/// for every expression took a good part of compiling one.
pub(crate) fn stdlib_env() -> &'static Arc<Env> {
    static ENV: std::sync::OnceLock<Arc<Env>> = std::sync::OnceLock::new();
    ENV.get_or_init(|| Arc::new(Env::stdlib().with_optional_support(false)))
}

/// cel-go's parser's default recursion limit, which kpt's `env.Compile` keeps.
const KPT_MAX_RECURSION: u16 = 250;

/// Checks a kpt pipeline step's `when` as kpt v1.0 compiles it before it evaluates it
/// (kptdev/kpt `EvaluateCondition`, kptdev/kpt#4469 at ef0fce17d): parsed with optional
/// syntax, type-checked against `resources` (a list of dyn) and the extensions kpt enables
/// (cross-type numeric comparisons, optional types, strings v2, sets, two-variable
/// comprehensions, lists v3), every list and map literal homogeneous, a literal `matches`
/// pattern compiled, and the result's type exactly `bool` (kpt refuses `dyn`: "CEL expression
/// must return a boolean, got dyn"). `Err` is cel-go's message. The caller bounds the source's
/// length and nesting.
pub fn check_kpt_condition(source: &str) -> Result<(), String> {
    let owned = source.to_string();
    let check = move || {
        catch_unwind(AssertUnwindSafe(|| {
            let parser = Env::stdlib()
                .with_optional_support(true)
                .parser()
                .max_recursion_depth(KPT_MAX_RECURSION);
            let (expr, info) = parser
                .parse_with_source_info(&owned)
                .map_err(|e| errors::syntax_errors(&owned, &e))?;
            let types = checker::check(&expr, Declarations::Kpt).map_err(|issues| {
                let issues = issues.into_iter().map(|i| (i.id, i.message)).collect();
                errors::compile_errors(&owned, &info, issues)
            })?;
            let mut spent = 0;
            let mut literal_errors = Vec::new();
            LiteralRegexes {
                errors: &mut literal_errors,
                budget: MAX_RUN_COST,
                spent: &mut spent,
            }
            .check(&expr);
            if !literal_errors.is_empty() {
                return Err(errors::compile_errors(&owned, &info, literal_errors));
            }
            match types.get(&expr.id) {
                Some(types::Ty::Bool) => Ok(()),
                Some(t) => Err(format!("CEL expression must return a boolean, got {t}")),
                None => Err("CEL expression must return a boolean".into()),
            }
        }))
        .unwrap_or_else(|_| Err("internal error: the CEL parser panicked".to_string()))
    };
    match std::thread::Builder::new()
        .name("cel-kpt-check".into())
        .stack_size(PARSER_STACK_BYTES)
        .spawn(check)
    {
        Ok(handle) => handle
            .join()
            .unwrap_or_else(|_| Err("internal error: the CEL checker failed".to_string())),
        Err(_) => Err("internal error: no thread to check the CEL expression on".to_string()),
    }
}

/// Compiles one expression: limits, parse (on a big-stack thread), instrumentation, checks.
pub fn compile(source: &str) -> Result<Program, String> {
    compile_within(source, MAX_RUN_COST, Declarations::Porch).0
}

/// [`compile`], with `regex_budget` for compiling its literal patterns: the result and what
/// those cost (each pattern is compiled to check it, as cel-go does when it builds a program;
/// a large one costs as at run time, [`meter::regex_compile_cost`]).
fn compile_within(
    source: &str,
    regex_budget: u64,
    declarations: Declarations,
) -> (Result<Program, String>, u64) {
    if source.len() > MAX_EXPRESSION_BYTES {
        let why = format!(
            "expression is {} bytes long, more than the limit of {MAX_EXPRESSION_BYTES} bytes",
            source.len()
        );
        return (Err(why), 0);
    }
    let depth = bracket_depth(source);
    if depth > MAX_NESTING {
        let why =
            format!("expression nests brackets {depth} deep, more than the limit of {MAX_NESTING}");
        return (Err(why), 0);
    }
    let owned = source.to_string();
    let handle = std::thread::Builder::new()
        .name("cel-compile".into())
        .stack_size(PARSER_STACK_BYTES)
        .spawn(move || {
            catch_unwind(AssertUnwindSafe(|| {
                let mut spent = 0;
                (
                    parse_and_check(&owned, regex_budget, &mut spent, declarations),
                    spent,
                )
            }))
        });
    let panicked = || {
        (
            Err("internal error: the CEL parser panicked".to_string()),
            0,
        )
    };
    let refused = crate::common::stack::cel_parse_refused();
    match handle {
        Err(_) if refused.is_some() => {
            let why = format!(
                "expression cannot be parsed: no thread of its own could start for the parser, and {}",
                refused.unwrap_or_default()
            );
            (Err(why), 0)
        }
        // No thread available: parse here. The bracket limit keeps the parser's recursion modest.
        Err(_) => catch_unwind(AssertUnwindSafe(|| {
            let mut spent = 0;
            (
                parse_and_check(source, regex_budget, &mut spent, declarations),
                spent,
            )
        }))
        .unwrap_or_else(|_| panicked()),
        Ok(handle) => handle
            .join()
            .ok()
            .and_then(Result::ok)
            .unwrap_or_else(panicked),
    }
}

fn parse_and_check(
    source: &str,
    regex_budget: u64,
    spent: &mut u64,
    declarations: Declarations,
) -> Result<Program, String> {
    let parser = stdlib_env()
        .parser()
        .max_recursion_depth(MAX_AST_DEPTH as u16);
    let (mut expr, info) = parser
        .parse_with_source_info(source)
        .map_err(|e| errors::syntax_errors(source, &e))?;
    let depth = instrument::tree_depth(&expr, 0, MAX_AST_DEPTH);
    if depth > MAX_AST_DEPTH {
        return Err(format!(
            "expression tree is {depth} levels deep, more than the limit of {MAX_AST_DEPTH}"
        ));
    }
    let types = checker::check(&expr, declarations).map_err(|issues| {
        let issues = issues.into_iter().map(|i| (i.id, i.message)).collect();
        errors::compile_errors(source, &info, issues)
    })?;
    let mut literal_errors = Vec::new();
    let mut regexes = LiteralRegexes {
        errors: &mut literal_errors,
        budget: regex_budget,
        spent,
    };
    regexes.check(&expr);
    if !literal_errors.is_empty() {
        return Err(errors::compile_errors(source, &info, literal_errors));
    }
    if let Some(failure) = constants::failed_conversion(&expr) {
        return Err(failure);
    }
    let output = types.get(&expr.id).cloned().unwrap_or(types::Ty::Dyn);
    instrument::instrument(&mut expr, &types);
    Ok(Program {
        source: source.to_string(),
        expr,
        output,
    })
}

/// cel-go (with Porch's `OptOptimize`) compiles a literal `matches` pattern when it builds the
/// program, so an invalid one fails before anything is evaluated: the same here, each
/// compilation paid from `budget` (the run's, shared by all the set's expressions).
struct LiteralRegexes<'a> {
    errors: &'a mut Vec<(u64, String)>,
    budget: u64,
    spent: &'a mut u64,
}

impl LiteralRegexes<'_> {
    fn check(&mut self, e: &IdedExpr) {
        if let Expr::Call(c) = &e.expr {
            if c.func_name == "matches" {
                let pattern = if c.target.is_some() {
                    c.args.first()
                } else {
                    c.args.get(1)
                };
                if let Some(IdedExpr {
                    id,
                    expr: Expr::Literal(LiteralValue::String(p)),
                }) = pattern
                {
                    // Spent by an earlier expression, which was refused for it: the run
                    // stops there, and one error says why.
                    if *self.spent >= self.budget {
                        return;
                    }
                    let (budget, spent) = (self.budget, &mut *self.spent);
                    let compiled = runtime::compile_regex_in_classes(p.inner(), |units| {
                        if *spent + units > budget {
                            *spent = budget;
                            return Err(format!(
                                "compiling the set's literal regular expressions costs more \
                                 than the limit of {MAX_RUN_COST} for one run (each costs half \
                                 of its compiled program's size class: 16 KiB, 128 KiB, 1 MiB); \
                                 use fewer or shorter patterns"
                            ));
                        }
                        *spent += units;
                        Ok(())
                    });
                    match compiled {
                        Ok((Ok(_), _)) => {}
                        Ok((Err(why), _)) | Err(why) => self.errors.push((*id, why)),
                    }
                }
            }
        }
        for child in checker::children(e) {
            self.check(child);
        }
    }
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

/// An evaluation error as Porch words it: without what this function adds to say the fix
/// (the keys a map has, the target it was evaluated for). For tests that compare with Porch.
#[cfg(test)]
pub fn porch_words(message: &str) -> String {
    let message = message
        .split(" (evaluated for the target ")
        .next()
        .unwrap_or(message);
    match message.find("no such key: ") {
        Some(at) => {
            let end = message[at..].find(';').map_or(message.len(), |e| at + e);
            message[..end].to_string()
        }
        None => message.to_string(),
    }
}

#[cfg(test)]
mod conformance;
#[cfg(test)]
mod tests;
