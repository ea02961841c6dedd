//! The meter: what one run has spent against Kubernetes-style CEL cost limits (a cost limit
//! per expression, a budget per run, comprehension steps), and the bounded cache of compiled
//! regular expressions whose compilation it charges for. Kept apart from the bindings so the
//! limits and how costs are counted read in one place.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use cel::common::types::{CelBytes, CelList, CelMap, CelString};
use cel::common::value::Val;
use cel::ExecutionError;

use super::re2;

/// The cost of compiling a pattern in the program size class `class` (bytes): half of it,
/// so a pattern of the largest class costs 8,192 + 65,536 + 524,288 (more than half an
/// expression's limit, and a run's budget pays for 17 of them: about 20 ms each).
pub const fn regex_compile_cost(class: usize) -> u64 {
    class as u64 / 2
}

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

#[derive(Default)]
pub(super) struct Meter {
    pub(super) steps: AtomicU64,
    pub(super) cost: AtomicU64,
    run_cost: AtomicU64,
    pub(super) stopped: Mutex<Option<String>>,
    regexes: Mutex<RegexCache>,
    /// Bytes of values handed out by [`Activation::evaluate`](super::Activation::evaluate) so
    /// far.
    pub(super) output: AtomicU64,
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
    pub(super) fn stop(&self, why: String) -> ExecutionError {
        let mut stopped = self.stopped.lock().unwrap_or_else(|e| e.into_inner());
        if stopped.is_none() {
            *stopped = Some(why.clone());
        }
        ExecutionError::function_error("evaluation", why)
    }

    /// Adds `units` of cost; an error past the per-expression limit or the run's budget.
    pub(super) fn charge(&self, units: u64) -> Result<(), ExecutionError> {
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
    pub(super) fn regex(&self, pattern: &str) -> Result<Arc<regex::Regex>, ExecutionError> {
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
    // RE2's meaning in the crate's syntax; the crate's own message is about what was written.
    let translated = re2::to_regex_syntax(pattern)?;
    compile_translated(&translated, limit).map_err(|why| {
        let original = compile_translated(pattern, limit).err();
        original
            .filter(|_| !why.starts_with(TOO_LARGE))
            .unwrap_or(why)
    })
}

fn compile_translated(pattern: &str, limit: usize) -> Result<regex::Regex, String> {
    regex::RegexBuilder::new(pattern)
        .size_limit(limit)
        // Go takes 999 groups nested (re2::MAX_GROUP_DEPTH); the translation nests a little
        // more (a class in a class, a count around a repetition).
        .nest_limit(3 * re2::MAX_GROUP_DEPTH as u32)
        .dfa_size_limit(MAX_REGEX_PROGRAM_BYTES)
        .build()
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(_) => format!(
                "{TOO_LARGE}: its compiled program exceeds the limit of {limit} bytes; use a \
                 shorter pattern or fewer repetitions"
            ),
            other => format!(
                "invalid regular expression: {}",
                syntax_message(pattern, other)
            ),
        })
}

/// Patterns up to this long are quoted whole in a syntax error, as the `regex` crate writes
/// it (the pattern, and a caret line under the fault); a longer one by a window around the
/// fault, so that a hostile 300 KB pattern does not make a 600 KB message.
const MAX_QUOTED_PATTERN: usize = 256;

/// The crate's message for a short `pattern`; for a long one, where and what the fault is.
fn syntax_message(pattern: &str, error: regex::Error) -> String {
    if pattern.len() <= MAX_QUOTED_PATTERN {
        return error.to_string();
    }
    // The crate's parser, as the `regex` crate configures it by default (same nesting limit).
    let (offset, kind) = match regex_syntax::Parser::new().parse(pattern) {
        Err(regex_syntax::Error::Parse(e)) => (e.span().start.offset, e.kind().to_string()),
        Err(regex_syntax::Error::Translate(e)) => (e.span().start.offset, e.kind().to_string()),
        // Not a fault of the syntax: the crate's message names no pattern then.
        _ => return error.to_string(),
    };
    format!(
        "regex parse error at byte {offset} of the {} bytes of the pattern, near {:?}: {kind}",
        pattern.len(),
        re2::near(pattern, offset)
    )
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

pub(super) fn charge_for(meter: &Meter, v: &dyn Val) -> Result<(), ExecutionError> {
    let budget = MAX_EXPRESSION_COST.saturating_mul(10);
    meter.charge(1 + size_of(v, budget) / 10)
}
