//! Running a function over one ResourceList, as a process does: read, dispatch, emit, exit.
//!
//! All or nothing: when any result is an error, the items are written back as they came. The
//! work runs on a stack sized for the deepest input accepted: the main thread's when the stack
//! limit allows, else a thread of its own, as large as `ulimit -v` lets one start, else the
//! main thread's within its limits; nesting is then bounded by the stack it has (deeper input
//! is refused naming the limit), so that no input overflows it ([`on_work_stack`]).

pub mod start;

use super::dispatch::Function;
use super::output;
use super::resource_list::{Changes, EmitError, ResourceList};
use super::results::{has_errors, ResultItem};
use crate::yaml::alias;
use crate::yaml::json::MAX_ALIAS_EXPANSION;
use crate::yaml::node;
use std::borrow::Cow;

/// Stack size of the thread that does the work: parsing, editing and emitting recurse once per
/// nesting level (bounded by [`crate::yaml::parse::MAX_DEPTH`]), and debug builds use large frames.
pub const STACK_SIZE: usize = 64 * 1024 * 1024;

/// What the function writes and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The output ResourceList (empty when the input was not one).
    pub stdout: String,
    /// A one-line message when the input was not a ResourceList; on an error result, a short
    /// summary of the errors (see [`super::results::error_summary`]).
    pub stderr: String,
    /// 0 on success, 1 on any error result or unreadable input.
    pub exit_code: i32,
}

/// Runs the functions of `functions` on a ResourceList (see `package_variant::process`).
pub fn process(input: Vec<u8>, functions: &'static [Function]) -> Outcome {
    // Own thread: a stack large enough for the deepest document we accept, in debug builds too.
    match std::thread::Builder::new()
        .stack_size(STACK_SIZE)
        .spawn(move || process_here(&input, functions))
        .map(|h| h.join())
    {
        Ok(Ok(outcome)) => outcome,
        _ => Outcome {
            stdout: String::new(),
            stderr: "package-variant: internal error while processing the input".to_string(),
            exit_code: 1,
        },
    }
}

thread_local! {
    /// Set by the run of [`run_and_exit`]: the process ends when it is done.
    static EXITS_AFTER_RUN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// True during the run of [`run_and_exit`]: what the run builds need not be freed (the exit
/// releases it), and the stack is the one [`on_work_stack`] recorded (nesting is bounded by it).
pub fn exits_after_run() -> bool {
    EXITS_AFTER_RUN.with(std::cell::Cell::get)
}

/// Runs `work` (the binary's whole run, which ends the process) on a stack as large as the
/// process can have, up to what the deepest input accepted needs, and records its size for
/// [`run_and_exit`]: the main thread's when the stack limit allows
/// ([`stack::MAIN_NEEDED`]), else the largest thread of [`stack::WORKERS`] that can start,
/// else (`ulimit -v` leaves no room for any) the main thread's within its limits. Called first
/// thing in `main`: the main thread's own stack may be as small as `ulimit -s` makes it.
pub fn on_work_stack(work: fn() -> !) -> ! {
    let limits = stack::Limits::read();
    if limits.main_suffices() {
        // No thread: starting one (its stack, glibc's arena for it, the exit of a process
        // with two threads) cost 0.2-0.6 ms of CPU, of 2.9 ms, on a small package.
        work()
    }
    if limits.address_space_limited() {
        stack::one_heap();
    }
    // A thread's stack is mapped whole as it starts (or it does not start), so `ulimit -v`
    // cannot take it away later, as it can the main thread's.
    for &size in stack::WORKERS {
        let worker = std::thread::Builder::new()
            .stack_size(size)
            .spawn(move || -> ! {
                node::set_work_stack(stack::usable(size));
                work()
            });
        if let Ok(handle) = worker {
            // Only returns if the work did not exit (a panic that unwinds, in a debug build).
            let _ = handle.join();
            write_and_exit(&Outcome {
                stdout: String::new(),
                stderr: "package-variant: internal error while processing the input".to_string(),
                exit_code: 1,
            })
        }
    }
    // No thread at all: the main thread's stack, grown now to what the limits let it have.
    let bytes = limits.main_budget();
    if node::levels_within(bytes) >= stack::LEAST_LEVELS {
        stack::grow_main_to(bytes);
    }
    node::set_work_stack(bytes);
    work()
}

/// Runs the function like [`process`], writes the outcome to stdout and stderr, and ends the
/// process with its exit code: what the binary does, on the stack [`on_work_stack`] gave it
/// (nesting is bounded by what that stack holds; one too small for any run is refused with a
/// message).
///
/// The run exits the process itself, right after writing, so nothing the run built is
/// freed one allocation at a time and no thread is torn down: on large inputs that walk over
/// every allocation costs 10-20% of the run, for memory the exit releases at once anyway.
///
/// `stdout`: what file descriptor 1 was as the process started ([`start::stdout_state`]).
/// Closed or read-only, the run fails: Rust's stdout takes a write that fails with `EBADF` as
/// done, so the output would be lost and the run exit 0 as if it had succeeded.
pub fn run_and_exit(input: Vec<u8>, functions: &'static [Function], stdout: start::Stdout) -> ! {
    EXITS_AFTER_RUN.with(|e| e.set(true));
    if let Some(problem) = stdout.problem() {
        write_and_exit(&Outcome {
            stdout: String::new(),
            stderr: problem.to_string(),
            exit_code: 1,
        })
    }
    let stack_bytes = node::work_stack();
    if node::levels_within(stack_bytes) < stack::LEAST_LEVELS {
        write_and_exit(&fatal(format!(
            "the stack this run could have ({} KiB: `ulimit -s`, and `ulimit -v` leaves no room for a thread with a larger one) is too small to run; it needs {} KiB at least, {} KiB for the {} levels of nesting accepted otherwise",
            stack_bytes >> 10,
            node::stack_for(stack::LEAST_LEVELS) >> 10,
            node::stack_for(node::MAX_DEPTH) >> 10,
            node::MAX_DEPTH
        )))
    }
    // The output goes to stdout as it is written (see `ResourceList::emit_to`).
    let mut stdout = std::io::stdout().lock();
    let outcome = process_with(&input, functions, false, Some(&mut stdout));
    drop(stdout);
    write_and_exit(&outcome)
}

/// Which stack the run works on, and how large it is.
mod stack {
    /// What the main thread must be allowed to grow its stack to for the deepest input
    /// accepted and the longest CEL expression: more than
    /// [`crate::yaml::node::stack_for`] gives for [`crate::yaml::node::MAX_DEPTH`] (measured as it says). Release builds ask for 4 MiB, half the usual
    /// 8 MiB default; debug builds for the thread's size, so that tests take the thread
    /// unless one raises the limit (tests/per_call.rs does).
    pub const MAIN_NEEDED: u64 = if cfg!(debug_assertions) {
        super::STACK_SIZE as u64
    } else {
        4 << 20
    };

    /// The stacks a work thread is started with, largest first, when the main thread's limit
    /// is below [`MAIN_NEEDED`]: the first that can be mapped is taken (`ulimit -v` may
    /// forbid the larger).
    pub const WORKERS: &[usize] = &[super::STACK_SIZE, 16 << 20, 4 << 20, 1 << 20, 256 << 10];

    /// Fewest levels of nesting a run must be able to hold: a ResourceList's items and their
    /// metadata are four deep, a PackageVariant's injectors five.
    pub const LEAST_LEVELS: usize = 8;

    /// What the stack of a thread of `size` bytes leaves the work: glibc and musl keep its
    /// thread-local storage and guard page there.
    pub fn usable(size: usize) -> usize {
        size - size / 16
    }

    /// The process's limits, from `/proc/self/limits` and `/proc/self/status` (std has no
    /// `getrlimit`); what cannot be read is taken as no limit.
    pub struct Limits {
        /// Soft `RLIMIT_STACK`, in bytes.
        stack: Option<u64>,
        /// Soft `RLIMIT_AS`, in bytes.
        address_space: Option<u64>,
    }

    impl Limits {
        pub fn read() -> Limits {
            let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
            Limits {
                stack: soft_limit(&limits, "Max stack size"),
                address_space: soft_limit(&limits, "Max address space"),
            }
        }

        /// True when the soft `RLIMIT_STACK` lets the main thread's stack grow to
        /// [`MAIN_NEEDED`] (Linux grows it on demand up to that limit; the default is 8 MiB)
        /// and `RLIMIT_AS` does not stop it first. Unreadable, the work takes its thread.
        pub fn main_suffices(&self) -> bool {
            self.stack.is_some_and(|soft| soft >= MAIN_NEEDED)
                && self.address_space.is_none_or(|a| a == u64::MAX)
        }

        /// Whether `ulimit -v` limits the address space.
        pub fn address_space_limited(&self) -> bool {
            self.address_space.is_some_and(|a| a != u64::MAX)
        }

        /// What the main thread's stack can grow to from here, in bytes: its limit (at most
        /// [`MAIN_NEEDED`]) less what it holds already (the environment, the arguments, the frames so far), and no more
        /// than half the address space `ulimit -v` leaves (the other half for the heap).
        pub fn main_budget(&self) -> usize {
            let used = used_by_main();
            // Unreadable: the usual 8 MiB; no more than the deepest input needs.
            let soft = self.stack.unwrap_or(8 << 20).min(MAIN_NEEDED);
            let mut budget = soft.saturating_sub(used as u64);
            if let (Some(limit), Some(mapped)) = (self.address_space, mapped_now()) {
                if limit != u64::MAX {
                    budget = budget.min(limit.saturating_sub(mapped) / 2);
                }
            }
            // Margin for what the runtime keeps below the limit (its guard page).
            usize::try_from(budget.saturating_sub(16 << 10)).unwrap_or(usize::MAX - 1)
        }
    }

    /// Makes every thread allocate from the main thread's heap. glibc gives a new thread a
    /// heap of its own, reserving 128 MiB of address space for it; under `ulimit -v` that
    /// reservation fails and each of the thread's allocations then takes a page of its own
    /// (`mmap`): a run of many small allocations would soon run out of address space, or of
    /// mappings, where the main heap holds it.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    pub fn one_heap() {
        extern "C" {
            fn mallopt(param: i32, value: i32) -> i32;
        }
        /// glibc's `malloc.h`.
        const M_ARENA_MAX: i32 = -8;
        // SAFETY: glibc's `mallopt`, declared as its `malloc.h` declares it, with a parameter
        // it knows; it only sets that parameter (under its own lock), before any other thread
        // exists.
        unsafe {
            mallopt(M_ARENA_MAX, 1);
        }
    }

    /// musl has one heap for every thread already.
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    pub fn one_heap() {}

    /// How far the main thread's stack reaches below its top now, in bytes: from the end of
    /// its `[stack]` mapping to a local of this frame. Unreadable: a quarter of the usual
    /// 8 MiB limit (the most the kernel lets the arguments and environment take of it).
    fn used_by_main() -> usize {
        let here = 0u8;
        let sp = std::ptr::addr_of!(here) as usize;
        std::fs::read_to_string("/proc/self/maps")
            .ok()
            .and_then(|maps| {
                let line = maps.lines().find(|l| l.ends_with("[stack]"))?;
                let range = line.split_whitespace().next()?;
                let end = usize::from_str_radix(range.split('-').nth(1)?, 16).ok()?;
                end.checked_sub(sp)
            })
            .unwrap_or(2 << 20)
    }

    /// The address space mapped now (`VmSize`), in bytes.
    fn mapped_now() -> Option<u64> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let kib = status
            .lines()
            .find_map(|l| l.strip_prefix("VmSize:"))?
            .trim()
            .trim_end_matches(" kB")
            .parse::<u64>()
            .ok()?;
        Some(kib << 10)
    }

    /// Grows the main thread's stack by most of `bytes` now, so that what the heap maps later
    /// under `ulimit -v` cannot take the room the work's nesting was bounded by.
    pub fn grow_main_to(bytes: usize) {
        /// Frames of a page each until a local of one is at `stop`.
        #[inline(never)]
        fn touch(stop: usize) {
            let page = std::hint::black_box([0u8; 4096]);
            if (std::ptr::addr_of!(page) as usize) > stop {
                touch(stop);
            }
            std::hint::black_box(&page);
        }
        let here = 0u8;
        let sp = std::ptr::addr_of!(here) as usize;
        touch(sp.saturating_sub(bytes - bytes / 8));
    }

    /// The soft limit of the line starting with `name` of `/proc/PID/limits`, in bytes
    /// (`unlimited` is `u64::MAX`).
    pub(super) fn soft_limit(limits: &str, name: &str) -> Option<u64> {
        let line = limits.lines().find(|l| l.starts_with(name))?;
        match line[name.len()..].split_whitespace().next()? {
            "unlimited" => Some(u64::MAX),
            bytes => bytes.parse().ok(),
        }
    }

    #[cfg(test)]
    mod tests {
        use super::soft_limit;
        fn soft_stack_limit(limits: &str) -> Option<u64> {
            soft_limit(limits, "Max stack size")
        }

        #[test]
        fn the_soft_stack_limit_is_read_from_proc_limits() {
            let limits = "Limit                     Soft Limit           Hard Limit           Units     \n\
                          Max cpu time              unlimited            unlimited            seconds   \n\
                          Max stack size            8388608              unlimited            bytes     \n";
            assert_eq!(soft_stack_limit(limits), Some(8 << 20));
            let unlimited = limits.replace("8388608     ", "unlimited   ");
            assert_eq!(soft_stack_limit(&unlimited), Some(u64::MAX));
            assert_eq!(
                soft_stack_limit("Max cpu time  unlimited  unlimited  seconds\n"),
                None
            );
            assert_eq!(
                soft_stack_limit("Max stack size  lots  unlimited  bytes\n"),
                None
            );
        }
    }
}

fn write_and_exit(outcome: &Outcome) -> ! {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if stdout.write_all(outcome.stdout.as_bytes()).is_err() || stdout.flush().is_err() {
        eprintln!("package-variant: cannot write stdout");
        std::process::exit(1);
    }
    if !outcome.stderr.is_empty() {
        eprintln!("{}", outcome.stderr);
    }
    std::process::exit(outcome.exit_code)
}

/// [`process`] on the current thread (its stack must be [`STACK_SIZE`] for hostile input).
pub fn process_here(input: &[u8], functions: &[Function]) -> Outcome {
    process_with(input, functions, true, None)
}

/// `free`: drop what the run built; `false` leaves it allocated (see [`run_and_exit`]).
/// `out`: where to write the output ResourceList as it is produced; `None` returns it in
/// [`Outcome::stdout`].
fn process_with(
    input: &[u8],
    functions: &[Function],
    free: bool,
    out: Option<&mut dyn std::io::Write>,
) -> Outcome {
    if let Err(e) = super::resource_list::check_size(input.len()) {
        return fatal(e.0);
    }
    let src = match std::str::from_utf8(input) {
        Ok(s) => s,
        Err(e) => {
            return fatal(format!(
                "input is not valid UTF-8 (invalid byte at offset {})",
                e.valid_up_to()
            ))
        }
    };
    let mut rl = match ResourceList::parse(src) {
        Ok(rl) => rl,
        Err(e) => return fatal(e.0),
    };
    // Why: a wide functionConfig's tree would stay beside everything the function builds.
    let detached = rl.detach_function_config();
    let (mut changes, mut results) = match not_objects(&rl) {
        errors if !errors.is_empty() => (Changes::default(), errors),
        _ => {
            let config = detached
                .map(Cow::Owned)
                .or_else(|| rl.function_config().map(Cow::Borrowed));
            super::dispatch::run_with(&rl, config, functions)
        }
    };
    results.extend(keep_alias_meanings(&rl, &mut changes));
    rl.resolve(&mut results);
    let limit = output::limit(input.len());
    let no_changes = Changes::default();
    let mut outcome = Outcome {
        stdout: String::new(),
        stderr: String::new(),
        exit_code: 0,
    };
    let mut out = out;
    // The output within the limit, or the items as they came with an error saying so (an
    // output of the input's size: the limit holds it).
    for attempt in 0..2 {
        // Errors first, then a leading summary, then warnings, then infos (stable within
        // each): kpt prints only the first lines of a failed function's results, and the error
        // is what must be among them.
        results.sort_by_key(ResultItem::rank);
        let failed = has_errors(&results);
        let changes_out = if failed { &no_changes } else { &changes };
        // Runners that drop stdout of a failed run show only stderr (see `error_summary`).
        outcome.stderr = super::results::error_summary(&results);
        outcome.exit_code = i32::from(failed);
        let written = match out.as_deref_mut() {
            None => {
                outcome.stdout = rl.emit(changes_out, &results);
                if outcome.stdout.len() > limit && attempt == 0 {
                    outcome.stdout = String::new();
                    Err(EmitError::TooLarge)
                } else {
                    Ok(())
                }
            }
            Some(w) => {
                let limit = if attempt == 0 { limit } else { usize::MAX };
                rl.emit_to(changes_out, &results, w, limit)
            }
        };
        match written {
            Ok(()) => break,
            Err(EmitError::TooLarge) => results.push(ResultItem::error(output::too_large(
                input.len(),
                "the output ResourceList",
            ))),
            Err(EmitError::Io(_)) => {
                outcome.stderr = "package-variant: cannot write stdout".to_string();
                outcome.exit_code = 1;
                break;
            }
        }
    }
    if !free {
        std::mem::forget(rl);
        std::mem::forget(changes);
        std::mem::forget(results);
    }
    outcome
}

/// Most items reported one by one; past that, one result counts the rest.
const NOT_OBJECTS_REPORTED: usize = 100;

/// An edit never changes what an alias of the edited item means: aliases whose anchor the edit
/// replaced, moved or removed are written out as the value they meant (see
/// [`crate::yaml::alias::keep_alias_meanings`]). Items without aliases cost one walk.
fn keep_alias_meanings(rl: &ResourceList, changes: &mut Changes) -> Vec<ResultItem> {
    let mut edited: Vec<(&usize, &mut crate::yaml::Node)> = changes
        .edited
        .iter_mut()
        .filter(|(_, t)| alias::has_alias(t))
        .collect();
    edited.sort_by_key(|(i, _)| **i);
    let mut errors = Vec::new();
    for (&i, tree) in edited {
        let original = match rl.original(i) {
            Ok(t) => t,
            Err(e) => {
                errors.push(*e);
                continue;
            }
        };
        if let Err(e) = alias::keep_alias_meanings(&original, tree, MAX_ALIAS_EXPANSION) {
            errors.push(
                ResultItem::error(format!(
                    "items[{i}]: the edit would change what its aliases mean and they cannot be written out: {e}; write the values instead of aliases"
                ))
                .on_item(i),
            );
        }
    }
    errors
}

/// Items must be objects (mappings) whose metadata reads as kpt reads it; anything else is
/// reported and the run fails: no item is selected, isolated or identified by a guess.
fn not_objects(rl: &ResourceList) -> Vec<super::results::ResultItem> {
    let mut results = Vec::new();
    let mut more = 0;
    for (i, m) in rl.items.metas().enumerate() {
        if m.is_object && m.problem.is_none() {
            continue;
        }
        if results.len() == NOT_OBJECTS_REPORTED {
            more += 1;
            continue;
        }
        results.push(match &m.problem {
            Some(p) if m.is_object => super::results::ResultItem::error(format!(
                "cannot read {}items[{i}] as kpt reads it: {}; write the value itself",
                match p.field.split(['.', '[']).next() {
                    Some("apiVersion" | "kind" | "metadata") => "the metadata of ",
                    _ => "",
                },
                p.message
            ))
            .field(p.field.clone())
            .on_item(i),
            _ => super::results::ResultItem::error(format!(
                "items[{i}] is not an object (a KRM resource must be a mapping with apiVersion, kind and metadata)"
            ))
            .field(format!("items[{i}]")),
        });
    }
    if more > 0 {
        results.push(super::results::ResultItem::error(format!(
            "{more} more items cannot be read either (only the first {NOT_OBJECTS_REPORTED} are listed)"
        )));
    }
    results
}

fn fatal(message: String) -> Outcome {
    Outcome {
        stdout: String::new(),
        stderr: format!("package-variant: {message}"),
        exit_code: 1,
    }
}
