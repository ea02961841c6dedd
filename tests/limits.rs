//! Every limit through the binary: each hostile input is refused with a clear message (an error
//! result, or one line on stderr when the input cannot be read as a ResourceList) and exit 1,
//! without hanging, overflowing the stack or blowing up memory.
//!
//! The time bounds are generous (20 s of CPU time) and only catch hangs and quadratic or
//! exponential blow-ups.
//!
//! | limit | value | where |
//! |---|---|---|
//! | input size | 256 MiB (`resource_list::MAX_INPUT_BYTES`) | stdin |
//! | YAML nesting | 256 levels (`yaml::parse::MAX_DEPTH`) | any document |
//! | merge keys in metadata | 256 levels (`yaml::node::MAX_DEPTH`) | item identity |
//! | alias expansion | 100,000 values and 64 MiB of text (`yaml::json::MAX_ALIAS_EXPANSION`, `MAX_ALIAS_EXPANSION_BYTES`) | only when read as data |
//! | output | 8 x input + 64 MiB (`krm::output::limit`), checked by the writer before anything is written | every output; config injection counts it early |
//! | CEL source | 10,000 bytes, 20 nested brackets, 40 tree levels (`cel_env`) | PVS templates |
//! | CEL compile errors | 100 shown; a line over 256 characters quoted 60 either side of the column (`cel::errors`) | PVS templates |
//! | CEL evaluation | 10,000 comprehension steps, cost 1,000,000 per expression and 10,000,000 per run, regex programs of 1 MiB (`cel`) | PVS templates |
//! | CEL regular expressions | compiling costs half the program size class (16 KiB, 128 KiB, 1 MiB) from the same budgets; 16 kept compiled, 64 KiB of patterns, 4 MiB of classes (`cel`) | PVS templates |
//! | CEL values written out | 16 MiB per run (`cel::MAX_OUTPUT_BYTES`) | PVS templates |
//! | CEL compilation | each distinct expression costs 2,000 plus 100 per byte from the run's budget of 10,000,000 (`cel::COMPILE_COST`) | PVS templates |
//! | static template values written out | 256 MiB per run, counted once per variant (`templates::MAX_COPIED_BYTES`) | PVS templates |
//! | PackageVariants per set | 100,000 (`targets::MAX_PACKAGE_VARIANTS`) | PVS targets |
//! | results of one kind | the first 100 listed, then one result counting the rest (`results::LISTED`) | PV points, readiness gates, skipped in-cluster objects |

mod common;

use common::{
    items_section, pv_config, pvs_config, repository, resource_list, results_section, run, KPTFILE,
    PACKAGE_CONTEXT, UPSTREAM_PR,
};
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Only catches hangs and blow-ups.
const GENEROUS: Duration = Duration::from_secs(20);

/// Runs the binary and checks it took less than [`GENEROUS`] of CPU time.
fn run_bounded(input: &str) -> common::Run {
    run_cpu_bounded(input, GENEROUS)
}

/// Runs the binary and checks it took less than `bound` of CPU time (wall time on a shared,
/// loaded machine says nothing).
#[track_caller]
fn run_cpu_bounded(input: &str, bound: Duration) -> common::Run {
    let (out, cpu) = common::run_timed(input.as_bytes());
    common::assert_cpu_under(cpu, bound, "the run");
    out
}

/// Asserts exit 1 with an error result whose message contains every one of `needles`, and the
/// items unchanged.
fn assert_error_result(input: &str, out: &common::Run, needles: &[&str]) {
    assert_eq!(out.code, 1, "stderr: {}\n{}", out.stderr, out.stdout);
    let results = results_section(&out.stdout);
    assert!(results.contains("severity: error"), "{results}");
    for n in needles {
        assert!(results.contains(n), "{n:?} not in\n{results}");
    }
    assert_eq!(items_section(&out.stdout), items_section(input));
}

/// `name: &a0 [x × 10]` then 11 levels of ten aliases each: 10^12 values when expanded.
fn laughs(indent: &str) -> String {
    let mut s = format!("{indent}a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        s.push_str(&format!(
            "{indent}a{i}: &a{i} [{}]\n",
            vec![format!("*a{}", i - 1); 10].join(", ")
        ));
    }
    s
}

// ---------------------------------------------------------------- input size

/// 256 MiB + 1 byte of zeros is refused after reading one byte past the limit: the binary never
/// reads or holds the rest. (The exact boundary is the unit test
/// `resource_list::tests::input_size_limit`; generating 256 MiB of valid YAML here would only
/// slow the suite down.)
#[test]
fn limit_input_size_256_mib() {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_package-variant"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start package-variant");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let chunk = vec![0u8; 1 << 20];
        // 256 MiB + 1 MiB: the binary stops reading at the limit, so the pipe may close early.
        for _ in 0..257 {
            if stdin.write_all(&chunk).is_err() {
                return;
            }
        }
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().expect("writer");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(out.stdout.is_empty());
    assert!(
        stderr.contains("larger than the limit of 268435456 bytes (256 MiB)"),
        "{stderr}"
    );
    assert!(stderr.contains("split"), "says what to do: {stderr}");
    // Wall time (the test writes the input itself): only a hang fails, even on a loaded machine.
    assert!(start.elapsed() < 5 * GENEROUS, "took {:?}", start.elapsed());
}

// ---------------------------------------------------------------- alias expansion

#[test]
fn limit_alias_expansion_in_package_variant_config() {
    let config = pv_config(&format!("  notes:\n{}", laughs("    ")));
    let input = resource_list(&[KPTFILE], &config);
    // Well under a second, really.
    let out = run_cpu_bounded(&input, Duration::from_secs(5));
    assert_error_result(
        &input,
        &out,
        &[
            "cannot read the PackageVariant",
            "aliases expand to more than 100000 values",
        ],
    );
}

#[test]
fn limit_alias_expansion_in_package_variant_set_config() {
    let config = pvs_config(&format!(
        "  targets:\n  - repositories: [{{name: edge}}]\n  notes:\n{}",
        laughs("    ")
    ));
    let input = resource_list(&[UPSTREAM_PR], &config);
    let out = run_bounded(&input);
    assert_error_result(
        &input,
        &out,
        &[
            "cannot read the PackageVariantSet",
            "aliases expand to more than 100000 values",
        ],
    );
}

/// An item the PackageVariantSet reads in full (a PackageRevision) is data: refused.
#[test]
fn limit_alias_expansion_in_an_item_read_as_data() {
    let pr = format!("{UPSTREAM_PR}status:\n{}", laughs("  "));
    let input = resource_list(
        &[&pr],
        &pvs_config("  targets:\n  - repositories: [{name: edge}]\n"),
    );
    let out = run_bounded(&input);
    assert_error_result(
        &input,
        &out,
        &[
            "cannot read item",
            "aliases expand to more than 100000 values",
            "kind: PackageRevision",
        ],
    );
}

/// An item passed through is never expanded: it comes out as written, the output about as
/// large as the input.
#[test]
fn limit_alias_expansion_pass_through_item_is_copied_unexpanded() {
    let item = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\ndata:\n{}",
        laughs("  ")
    );
    let input = resource_list(&[KPTFILE, &item], &pv_config(""));
    let out = run_bounded(&input);
    assert_eq!(out.code, 0, "{}\n{}", out.stderr, out.stdout);
    assert_eq!(items_section(&out.stdout), items_section(&input));
    assert!(
        out.stdout.len() < input.len() + 1024,
        "output grew to {} bytes",
        out.stdout.len()
    );
}

/// An in-cluster object whose injected field would expand is not injected; the point says why.
#[test]
fn limit_alias_expansion_in_an_in_cluster_object() {
    let lol = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\ndata:\n{}",
        laughs("  ")
    );
    let point = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: point\n  annotations:\n    kpt.dev/config-injection: required\n    config.kubernetes.io/path: cm.yaml\ndata: {}\n";
    let input = resource_list(
        &[KPTFILE, point, &lol],
        &pv_config("  injectors:\n  - name: lol\n"),
    );
    let out = run_bounded(&input);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let results = results_section(&out.stdout);
    assert!(
        results.contains(
            "cannot read \"data\" of \"lol\": YAML aliases expand to more than 100000 values"
        ),
        "{results}"
    );
    assert!(out.stdout.len() < 2 * input.len() + 4096);
}

// ---------------------------------------------------------------- nesting depth

fn assert_nesting_refused(name: &str, input: &str) {
    let out = run_bounded(input);
    assert_eq!(out.code, 1, "{name}: {}", out.stderr);
    assert!(out.stdout.is_empty(), "{name}");
    assert!(
        out.stderr
            .contains("YAML nesting is deeper than 256 levels; refusing to parse it"),
        "{name}: {}",
        out.stderr
    );
    assert_eq!(out.stderr.lines().count(), 1, "{name}");
}

const HEAD: &str = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n";

#[test]
fn limit_nesting_10000_flow_sequences() {
    let input = format!("{HEAD}items:\n- {}\n", "[".repeat(10_000));
    assert_nesting_refused("flow sequences", &input);
    let closed = format!(
        "{HEAD}items:\n- a: {}{}\n",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    assert_nesting_refused("closed flow sequences", &closed);
}

#[test]
fn limit_nesting_10000_flow_mappings() {
    let input = format!(
        "{HEAD}items:\n- a: {}x{}\n",
        "{a: ".repeat(10_000),
        "}".repeat(10_000)
    );
    assert_nesting_refused("flow mappings", &input);
}

#[test]
fn limit_nesting_10000_json() {
    let input = format!(
        "{{\"apiVersion\": \"config.kubernetes.io/v1\", \"kind\": \"ResourceList\", \"items\": [{}1{}]}}",
        "{\"a\": ".repeat(10_000),
        "}".repeat(10_000)
    );
    assert_nesting_refused("JSON", &input);
}

#[test]
fn limit_nesting_10000_block_sequences() {
    // `- - - - x`: block sequences nested on one line.
    let input = format!("{HEAD}items:\n- {}x\n", "- ".repeat(10_000));
    assert_nesting_refused("block sequences", &input);
}

#[test]
fn limit_nesting_10000_block_mappings() {
    // One space more per level: 10,000 levels are 50 MB of indentation.
    let mut input = format!("{HEAD}items:\n- a:\n");
    for level in 1..10_000 {
        input.push_str(&" ".repeat(level + 2));
        input.push_str("a:\n");
    }
    assert_nesting_refused("block mappings", &input);
}

#[test]
fn limit_nesting_10000_in_function_config() {
    let input = format!(
        "{HEAD}items: []\nfunctionConfig:\n  apiVersion: config.porch.kpt.dev/v1alpha1\n  kind: PackageVariant\n  spec: {}\n",
        "[".repeat(10_000)
    );
    assert_nesting_refused("functionConfig", &input);
}

/// Just under the limit is accepted and passes through byte for byte.
#[test]
fn nesting_of_200_levels_is_accepted() {
    let item = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n  x: {}1{}\n",
        "[".repeat(200),
        "]".repeat(200)
    );
    let input = resource_list(&[KPTFILE, &item], &pv_config(""));
    let out = run_bounded(&input);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(items_section(&out.stdout), items_section(&input));
}

// ---------------------------------------------------------------- implicit keys

/// An implicit key (`key: value`, and a single pair in a flow sequence, `[key: value]`) is at
/// most 1024 characters counted up to its `:`, with the spaces before it, as YAML 1.2 and
/// go-yaml count them; a longer key is refused on stderr, naming the limit. A flow mapping's
/// keys are not implicit keys (`{key: value}` has no limit) in either.
#[test]
fn limit_implicit_keys_1024_characters() {
    let item = |value: &str| {
        let item =
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keys\ndata:\n{value}");
        resource_list(&[KPTFILE, &item], &pv_config(""))
    };
    let k = |n: usize| "k".repeat(n);
    let refused = [
        (format!("  {}: v\n", k(1025)), "an implicit mapping key"),
        (format!("  {} : v\n", k(1024)), "an implicit mapping key"),
        (format!("  {}    : v\n", k(1021)), "an implicit mapping key"),
        (format!("  x: [{}: v]\n", k(1025)), "a single-pair mapping"),
        (format!("  x: [{} : v]\n", k(1024)), "a single-pair mapping"),
        (
            format!("  x: [a, \"{}\": v]\n", k(1023)),
            "a single-pair mapping",
        ),
    ];
    for (value, what) in &refused {
        let out = run_bounded(&item(value));
        assert_eq!(out.code, 1, "{}", out.stderr);
        assert!(
            out.stderr.contains(what)
                && out
                    .stderr
                    .contains("longer than 1024 characters (with the spaces before its ':')"),
            "{}",
            out.stderr
        );
    }
    let accepted = [
        format!("  {}: v\n", k(1024)),
        format!("  {} : v\n", k(1023)),
        format!("  ? {}\n  : v\n", k(5000)),
        format!("  x: [{}: v]\n", k(1024)),
        format!("  x: [{} : v]\n", k(1023)),
        format!("  x: [? {} : v]\n", k(5000)),
        format!("  x: {{{} : v}}\n", k(5000)),
    ];
    for value in &accepted {
        let input = item(value);
        let out = run_bounded(&input);
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert_eq!(items_section(&out.stdout), items_section(&input));
    }
}

// ---------------------------------------------------------------- wide mappings

/// `k0: 0` .. `k{n-1}: 0`: one mapping entry per line at `indent`.
fn wide_keys(indent: &str, n: usize) -> String {
    (0..n).map(|i| format!("{indent}k{i}: 0\n")).collect()
}

/// 60,000 keys in the ResourceList itself, in an item's block mapping and in a flow mapping
/// are read in linear time (every key is checked for a repeat), and a key repeated at the end
/// of the widest one is still refused. Checking the ResourceList's own keys one against
/// another took minutes here. (An object of more values is refused: see
/// `limit_values_per_object`.)
#[test]
fn wide_mappings_are_read_in_linear_time() {
    let flow: Vec<String> = (0..60_000).map(|i| format!("k{i}: 0")).collect();
    let item = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: wide\ndata:\n{}  flow: {{{}}}\n",
        wide_keys("  ", 60_000),
        flow.join(", ")
    );
    let input = resource_list(&[KPTFILE, &item], &pv_config("")) + &wide_keys("", 60_000);
    let out = run_bounded(&input);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(items_section(&out.stdout), items_section(&input));

    let repeated = format!("{input}k0: 1\n");
    let out = run_bounded(&repeated);
    assert_eq!(out.code, 1);
    let line = repeated.lines().count();
    assert_eq!(
        out.stderr.trim_end(),
        format!(
            "package-variant: input is not valid YAML: mapping key \"k0\" is defined twice at line {line} column 1"
        )
    );
}

/// A package context whose data comes through a merge key, with removeKeys for half of the
/// merged keys (and as many absent ones): the data is written out as the object's own keys,
/// less the removed ones. Leaving the removed keys out searched the list once per key, which
/// was quadratic (80,000 keys: billions of comparisons).
#[test]
fn removing_many_merged_context_keys_is_linear() {
    let n = 80_000;
    let context = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/path: package-context.yaml\nx: &base\n{}data:\n  <<: *base\n  name: pkg\n",
        (0..n).map(|i| format!("  m{i}: v\n")).collect::<String>()
    );
    let remove: String = (0..n).map(|i| format!("    - m{}\n", 2 * i)).collect();
    let config = pv_config(&format!("  packageContext:\n    removeKeys:\n{remove}"));
    let input = resource_list(&[KPTFILE, &context], &config);
    let out = run_bounded(&input);
    assert_eq!(
        out.code,
        0,
        "{}\n{}",
        out.stderr,
        results_section(&out.stdout)
    );
    let items = items_section(&out.stdout);
    let data = &items[items.find("\n  data:\n").expect("data")..];
    assert!(!data.contains("<<"), "written out as the object's own keys");
    for i in [0, 2, 1000, 2 * n - 2] {
        assert!(!data.contains(&format!(" m{i}: ")), "m{i} removed");
    }
    for i in [1, 3, 1001, n - 1] {
        assert!(data.contains(&format!("\n    m{i}: v\n")), "m{i} kept");
    }
    assert_eq!(data.matches(": v\n").count(), n / 2);
}

// ---------------------------------------------------------------- CEL

fn pvs_with_expr(expr: &str) -> String {
    let targets = format!(
        "  targets:\n  - repositorySelector: {{matchLabels: {{env: prod}}}}\n    template:\n      downstream:\n        packageExpr: '{}'\n",
        expr.replace('\'', "''")
    );
    resource_list(
        &[UPSTREAM_PR, &repository("edge1", "{env: prod}")],
        &pvs_config(&targets),
    )
}

const PACKAGE_EXPR: &str = "field:\n    path: spec.targets[0].template.downstream.packageExpr";

#[test]
fn limit_cel_expression_length() {
    let long = format!("'{}'", "x".repeat(10_001));
    let input = pvs_with_expr(&long);
    let out = run_bounded(&input);
    assert_error_result(
        &input,
        &out,
        &[
            "message: expression is 10003 bytes long, more than the limit of 10000 bytes\n",
            PACKAGE_EXPR,
        ],
    );
}

#[test]
fn limit_cel_expression_nesting() {
    let deep = format!("{}'x'{}", "(".repeat(2_000), ")".repeat(2_000));
    let input = pvs_with_expr(&deep);
    let out = run_bounded(&input);
    assert_error_result(
        &input,
        &out,
        &[
            "expression nests brackets 2000 deep, more than the limit of 20",
            PACKAGE_EXPR,
        ],
    );
}

/// cel-go quotes the whole source line under each of up to 100 errors: on one 10,000-byte
/// line that was 2 MB per expression (an input a hundred times smaller than its output). A
/// line over 256 characters is quoted by 60 characters either side of the error's column.
#[test]
fn limit_cel_errors_quote_a_long_line_around_the_column() {
    // About 1,500 undeclared references on one line.
    let mut list = String::from("[v0");
    let mut i = 1;
    while list.len() < 9_900 {
        list.push_str(&format!(",v{i}"));
        i += 1;
    }
    let v99 = list.find(",v99,").unwrap() + 1;
    let input = pvs_with_expr(&format!("{list}][0]"));
    let out = run_bounded(&input);
    assert_error_result(
        &input,
        &out,
        &[
            "ERROR: <input>:1:2: undeclared reference to 'v0' (in container '')",
            // 60 characters either side of the error's, the caret under it.
            &format!(
                "ERROR: <input>:1:{}: undeclared reference to 'v99' (in container '')\n     | ...{}...\n     | ...{}^\n",
                v99 + 1,
                &list[v99 - 60..v99 + 60],
                ".".repeat(60)
            ),
            &format!("{} more errors were truncated", i - 100),
            PACKAGE_EXPR,
        ],
    );
    let results = results_section(&out.stdout);
    assert!(
        results.len() < 64 << 10,
        "{} bytes of results",
        results.len()
    );

    // A syntax error at the end of a long line: the window ends there.
    let tail = format!("size('{}') +", "x".repeat(9_000));
    let out = run_bounded(&pvs_with_expr(&tail));
    let results = results_section(&out.stdout);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(results.contains("ERROR: <input>:1:9011: Syntax error: mismatched input '<EOF>'"));
    assert!(
        results.contains(&format!(
            "     | ...{}') +\n     | ...{}^\n",
            "x".repeat(56),
            ".".repeat(60)
        )),
        "{results}"
    );
    assert!(results.len() < 4 << 10, "{results}");
}

#[test]
fn limit_cel_evaluation_cost_nested_comprehensions() {
    // 100^3 = 1,000,000 iterations if it ran to the end.
    let list = format!(
        "[{}]",
        (0..100)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    let expr = format!("{list}.all(x, {list}.all(y, {list}.all(z, x + y + z >= 0))) ? 'a' : 'b'");
    let input = pvs_with_expr(&expr);
    let out = run_bounded(&input);
    assert_error_result(
        &input,
        &out,
        &[
            "evaluation stopped: more than 10000 comprehension steps",
            PACKAGE_EXPR,
        ],
    );
}

#[test]
fn limit_cel_evaluation_cost_over_object_labels() {
    // A comprehension over a target's (large) label map, nested over itself.
    let labels: Vec<String> = (0..2_000).map(|i| format!("l{i}: v")).collect();
    let repo = repository("edge1", &format!("{{env: prod, {}}}", labels.join(", ")));
    let targets = "  targets:\n  - repositorySelector: {matchLabels: {env: prod}}\n    template:\n      downstream:\n        packageExpr: \"target.labels.all(k, target.labels.exists(j, j == k)) ? 'a' : 'b'\"\n";
    let input = resource_list(&[UPSTREAM_PR, &repo], &pvs_config(targets));
    let out = run_bounded(&input);
    assert_error_result(
        &input,
        &out,
        &["evaluation stopped: more than 10000 comprehension steps"],
    );
}

#[test]
fn limit_cel_regex_program_size() {
    // A literal pattern whose compiled program is too big (within RE2's limits: each count
    // at most 1000): refused at compile time.
    let input = pvs_with_expr("target.name.matches('[^a]{1,1000}[^b]{1,1000}') ? 'a' : 'b'");
    let out = run_bounded(&input);
    assert_error_result(
        &input,
        &out,
        &["regular expression is too large", PACKAGE_EXPR],
    );
    // The same pattern from a label: refused when evaluated.
    let repo = repository("edge1", "{env: prod, p: '[^a]{1,1000}[^b]{1,1000}'}");
    let targets = "  targets:\n  - repositorySelector: {matchLabels: {env: prod}}\n    template:\n      downstream:\n        packageExpr: \"target.name.matches(target.labels['p']) || true ? 'a' : 'b'\"\n";
    let input = resource_list(&[UPSTREAM_PR, &repo], &pvs_config(targets));
    let out = run_bounded(&input);
    assert_error_result(&input, &out, &["regular expression is too large"]);
}

#[test]
fn limit_cel_cost_of_matches_over_a_large_pattern() {
    // A 4,000-byte pattern matched in a loop: the cost is text size times pattern size.
    let pattern = (0..800)
        .map(|i| format!("x{i:03}"))
        .collect::<Vec<_>>()
        .join("|");
    let list = (0..100)
        .map(|i| format!("'v{i}'"))
        .collect::<Vec<_>>()
        .join(",");
    let expr = format!(
        "[{list}].exists(x, [{list}].exists(y, (x + y).matches('^({pattern})$'))) ? 'a' : 'b'"
    );
    assert!(expr.len() < 10_000, "{}", expr.len());
    let input = pvs_with_expr(&expr);
    let out = run_bounded(&input);
    assert_error_result(
        &input,
        &out,
        &[
            "evaluation stopped: the expression costs more than the limit of 1000000",
            PACKAGE_EXPR,
        ],
    );
}

#[test]
fn limit_cel_cost_of_string_doubling() {
    // Each level quadruples the string: 4^9 times a 1,000-byte seed (262 GB) without the
    // cost limit.
    let seed = "x".repeat(1_000);
    let vars: Vec<String> = (0..9).map(|i| format!("v{i}")).collect();
    let mut expr = format!("'{seed}'");
    for v in &vars {
        expr = format!("[{expr}].map({v}, {v} + {v} + {v} + {v})[0]");
    }
    let expr = format!("string(size({expr}))");
    let input = pvs_with_expr(&expr);
    let out = run_bounded(&input);
    assert_error_result(
        &input,
        &out,
        &[
            "evaluation stopped: the expression costs more than the limit of 1000000",
            PACKAGE_EXPR,
        ],
    );
}

#[test]
fn limit_cel_cost_of_loop_bodies() {
    // 100 x 100 steps (within the step limit), each scanning a 1,000-element list literal.
    let hundred = (0..100)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let thousand = (0..1_000)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let expr = format!(
        "[{hundred}].all(x, [{hundred}].all(y, x * y in [{thousand}] || true)) ? 'a' : 'b'"
    );
    let input = pvs_with_expr(&expr);
    let out = run_bounded(&input);
    assert_error_result(
        &input,
        &out,
        &[
            "evaluation stopped: the expression costs more than the limit of 1000000",
            PACKAGE_EXPR,
        ],
    );
}

#[test]
fn limit_cel_cost_per_run() {
    // Each evaluation stays under the per-expression limit; 30 targets together do not.
    let thousand = (0..1_000)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let many = (0..800)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(",");
    let expr = format!("[{many}].all(x, x in [{thousand}]) ? target.name : 'b'");
    let repos: Vec<String> = (0..30)
        .map(|i| repository(&format!("edge{i}"), "{env: prod}"))
        .collect();
    let mut items: Vec<&str> = vec![UPSTREAM_PR];
    items.extend(repos.iter().map(String::as_str));
    let targets = format!(
        "  targets:\n  - repositorySelector: {{matchLabels: {{env: prod}}}}\n    template:\n      downstream:\n        packageExpr: '{}'\n",
        expr.replace('\'', "''")
    );
    let input = resource_list(&items, &pvs_config(&targets));
    let out = run_bounded(&input);
    assert_error_result(
        &input,
        &out,
        &["expressions together cost more than the limit of 10000000"],
    );
}

// ---------------------------------------------------------------- number of targets

#[test]
fn limit_package_variants_per_set() {
    let names: Vec<String> = (0..=100_000).map(|i| format!("p{i}")).collect();
    let targets = format!(
        "  targets:\n  - repositories:\n    - name: edge\n      packageNames: [{}]\n",
        names.join(", ")
    );
    let input = resource_list(&[UPSTREAM_PR, PACKAGE_CONTEXT], &pvs_config(&targets));
    let out = run_bounded(&input);
    assert_error_result(
        &input,
        &out,
        &[
            "the targets produce more than 100000 PackageVariants (the limit for one PackageVariantSet",
            "split the targets over several PackageVariantSets",
            "field:\n    path: spec.targets[0]",
        ],
    );
}

// ---------------------------------------------------------------- hostile shapes
//
// Each of these took quadratic time or many times the input in memory; `benches/hostile.rs`
// measures them at 1x, 4x and 16x on the release binary (seconds per MB, peak memory).

/// `n` ConfigMaps `cm-0`..: as JSON objects, or as flow mappings.
fn config_maps(n: usize, json: bool) -> Vec<String> {
    (0..n)
        .map(|i| {
            if json {
                format!("{{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{{\"name\":\"cm-{i}\"}},\"data\":{{\"k\":\"v{i}\"}}}}")
            } else {
                format!("{{apiVersion: v1, kind: ConfigMap, metadata: {{name: cm-{i}}}, data: {{k: v{i}}}}}")
            }
        })
        .collect()
}

/// Minified JSON, 40,000 items on one line (95 s before): read, the package context edited,
/// every item written back as block YAML.
#[test]
fn hostile_minified_json_on_one_line() {
    let context = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"kptfile.kpt.dev\",\"annotations\":{\"config.kubernetes.io/path\":\"package-context.yaml\"}},\"data\":{\"name\":\"pkg\"}}";
    let input = format!(
        "{{\"apiVersion\":\"config.kubernetes.io/v1\",\"kind\":\"ResourceList\",\"items\":[{context},{}],\"functionConfig\":{{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{{\"name\":\"x\"}},\"data\":{{\"zone\":\"a\"}}}}}}",
        config_maps(40_000, true).join(",")
    );
    assert_eq!(input.lines().count(), 1);
    let out = run_bounded(&input);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.matches("\n- apiVersion: v1\n").count(), 40_001);
    assert!(out.stdout.contains("    name: pkg\n    zone: a\n"));
    assert!(out
        .stdout
        .contains("    name: cm-39999\n  data:\n    k: v39999\n"));
}

/// 100,000 flow mappings in one flow sequence on one line of a block ResourceList (over 600 s
/// for 32 MB before): passed through unchanged.
#[test]
fn hostile_flow_style_items() {
    let input = format!(
        "{HEAD}items: [{}]\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: x}}\n  data: {{zone: a}}\n",
        config_maps(100_000, false).join(", ")
    );
    let out = run_bounded(&input);
    // No package context among them: an error result, and the items come back as sent.
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out
        .stdout
        .contains("package context ConfigMap \"kptfile.kpt.dev\""));
    assert_eq!(out.stdout.matches("\n- apiVersion: v1\n").count(), 100_000);
    assert!(out
        .stdout
        .contains("    name: cm-99999\n  data:\n    k: v99999\n"));
}

/// 2,000,000 empty items (each one an item record, 200 bytes each before, 16 now): read and
/// written back, byte for byte.
#[test]
fn hostile_many_empty_items() {
    let input = resource_list(&[KPTFILE], &pv_config("")).replace(
        "functionConfig:",
        &format!("{}functionConfig:", "- {}\n".repeat(2_000_000)),
    );
    let out = run_bounded(&input);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(items_section(&out.stdout), items_section(&input));
}

/// 1,000,000 items that are not objects: the first 100 are reported one by one, the rest in
/// one result (a result each was gigabytes), and the items come back as sent.
#[test]
fn hostile_many_items_that_are_not_objects() {
    let input = format!("{HEAD}items:\n{}", "- x\n".repeat(1_000_000));
    let out = run_bounded(&input);
    assert_eq!(out.code, 1);
    let results = results_section(&out.stdout);
    assert_eq!(results.matches("is not an object").count(), 100);
    assert!(results.contains("items[99] is not an object"));
    assert!(
        results.contains("999900 more items cannot be read either (only the first 100 are listed)")
    );
    assert_eq!(items_section(&out.stdout), items_section(&input));
}

/// An object with more values than can be held (a tree costs up to ~450 bytes a value) is
/// refused with one line on stderr, in the functionConfig and in an item alike: 1,000,000
/// list entries in 6 MB (a process abort after 11 GB before), where the limit is 131,072 + one
/// per 16 bytes. Up to the limit it is read.
#[test]
fn limit_values_per_object() {
    let list = |n: usize| format!("  list:\n{}", "  - x\n".repeat(n));
    let in_config = resource_list(&[KPTFILE], &pv_config(&list(1_000_000)));
    let item = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n{}",
        list(1_000_000)
    );
    let in_item = resource_list(&[KPTFILE, &item], &pv_config(""));
    for input in [&in_config, &in_item] {
        let out = run_bounded(input);
        assert_eq!(out.code, 1);
        assert!(out.stdout.is_empty());
        let limit = package_variant::krm::resource_list::value_limit(input.len());
        assert_eq!(limit, (1 << 17) + input.len() / 16);
        assert!(
            out.stderr.starts_with(&format!(
                "package-variant: input cannot be held: an object holds more than {limit} values, more than the function can hold for an input of this size; split it at line "
            )),
            "{}",
            out.stderr
        );
        assert_eq!(out.stderr.lines().count(), 1);
    }
    let item = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n{}",
        list(120_000)
    );
    let under = resource_list(&[KPTFILE, &item], &pv_config(""));
    let out = run_bounded(&under);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(items_section(&out.stdout), items_section(&under));
}

// ---------------------------------------------------------------- merge keys

/// A Repository whose labels merge 100,000 mappings, in chains of 100 that each merge the one
/// before: every mapping is read once (linear), the first that sets a key wins, and the set
/// selects it. Chained deeper than the nesting limit, merge keys are an error result.
#[test]
fn merged_labels_of_many_mappings_are_read_in_linear_time() {
    let repo = |n: usize, chain: usize| {
        let mut anchors = String::from("x0: &a0 {env: prod, k0: v}\n");
        for i in 1..n {
            let merge = if i % chain == 0 {
                String::new()
            } else {
                format!(", <<: *a{}", i - 1)
            };
            anchors.push_str(&format!("x{i}: &a{i} {{env: dev, k{i}: v{merge}}}\n"));
        }
        let sources: Vec<String> = (0..n).rev().map(|i| format!("*a{i}")).collect();
        format!(
            "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\n{anchors}metadata:\n  name: edge\n  labels:\n    <<: [{}]\n",
            sources.join(", ")
        )
    };
    let targets = "  targets:\n  - repositorySelector: {matchLabels: {env: dev, k0: v}}\n";
    let input = resource_list(&[UPSTREAM_PR, &repo(100_000, 100)], &pvs_config(targets));
    let out = run(&input);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        results_section(&out.stdout).contains("1 created (my-set-edge-base)"),
        "{}",
        results_section(&out.stdout)
    );

    let input = resource_list(&[UPSTREAM_PR, &repo(1_000, 1_000)], &pvs_config(targets));
    let out = run(&input);
    assert_error_result(
        &input,
        &out,
        &[
            "merge keys nest more than 256 levels deep",
            "path: metadata.labels",
        ],
    );
}

// ---------------------------------------------------------------- wide values (issue 13)

#[path = "../benches/support/hostile_values.rs"]
mod hostile_values;

/// The value at `key` of the `data` of the item named `name` in an output, read back.
fn data_of(stdout: &str, name: &str) -> serde_json::Value {
    let node = package_variant::yaml::parse(stdout).expect("output parses");
    let json = package_variant::yaml::to_json(&node).expect("output converts");
    json["items"]
        .as_array()
        .and_then(|items| items.iter().find(|i| i["metadata"]["name"] == name))
        .map(|i| i["data"].clone())
        .unwrap_or_default()
}

/// 45,000 keys merged into an in-cluster object's data with `<<` (about as many as the alias
/// expansion limit of 100,000 values allows), half of them set again explicitly: injected
/// whole, the explicit keys winning. The merge was quadratic: 20k keys took 4.9 s, 40k 22.7 s.
#[test]
fn merge_keys_of_45k_keys_are_read_in_linear_time() {
    let n = 45_000;
    let out = run(&hostile_values::merge_keys(n));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let data = data_of(&out.stdout, "endpoints");
    assert_eq!(data.as_object().map(|m| m.len()), Some(n));
    assert_eq!(data["k0"], "own");
    assert_eq!(data["k1"], "v");
    assert_eq!(data[format!("k{}", n - 1)], "v");
}

/// A package context of 100,000 keys: 100,000 set, 50,000 changed, 25,000 removed (the old
/// merge of the whole map was quadratic: over 600 s at 1M keys).
#[test]
fn a_context_of_100k_keys_is_edited_in_linear_time() {
    let n = 100_000;
    let out = run(&hostile_values::context(n));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let data = data_of(&out.stdout, "kptfile.kpt.dev");
    assert_eq!(data.as_object().map(|m| m.len()), Some(1 + n - n / 4 + n));
    assert_eq!(data["k0"], serde_json::Value::Null);
    assert_eq!(data["k2"], "changed");
    assert_eq!(data["k3"], "v");
    assert_eq!(data["new99999"], "x");
}

/// 200,000 removeKeys (40,000 took 8.4 s).
#[test]
fn removing_200k_keys_is_linear() {
    let n = 200_000;
    let out = run(&hostile_values::remove_keys(n));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let data = data_of(&out.stdout, "kptfile.kpt.dev");
    assert_eq!(data, serde_json::json!({"name": "pkg"}));
}

/// 100,000 keys and a list of 100,000 items injected over equal-sized old ones, in reverse
/// order: kyaml's formatting rules (keys keep their place, equal items keep theirs) in linear
/// time.
#[test]
fn a_wide_injection_of_100k_keys_and_items_is_linear() {
    let n = 100_000;
    let out = run(&hostile_values::inject_wide(n));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let items = items_section(&out.stdout);
    // Existing keys keep their place (k0 first), with the new values.
    assert!(
        items.contains("  data:\n    k0: new\n    k1: new\n"),
        "{}",
        &items[..2000.min(items.len())]
    );
    // The list takes the new order.
    assert!(items.contains(&format!("    list:\n    - {{a: {}}}\n", n - 1)));
}

/// 80,000 aliases to a value the injection replaces are written out as the value they meant;
/// past the alias expansion limit (100,000) it is an error result and nothing changes.
#[test]
fn aliases_written_out_after_an_edit_are_bounded() {
    let out = run(&hostile_values::aliases_written_out(80_000));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let items = items_section(&out.stdout);
    assert!(items.contains("    c0: placeholder\n") && items.contains("    c79999: placeholder\n"));
    assert!(items.contains("    db: &d db.example.com\n"));

    let input = hostile_values::aliases_written_out(100_001);
    let out = run(&input);
    assert_error_result(
        &input,
        &out,
        &["YAML aliases expand to more than 100000 values"],
    );
}

// ---------------------------------------------------------------- CEL cost by the input (issue 20)

#[path = "../benches/support/hostile_cel.rs"]
mod hostile_cel;

/// Runs the binary under `/usr/bin/time` (when present): the run and its peak RSS in bytes.
fn run_with_peak(input: &str) -> (common::Run, Option<u64>) {
    let time = std::path::Path::new("/usr/bin/time");
    if !time.exists() {
        return (run_bounded(input), None);
    }
    let report = std::env::temp_dir().join(format!("pv-limits-rss-{}", std::process::id()));
    let start = Instant::now();
    let mut child = Command::new(time)
        .arg("-f")
        .arg("%M")
        .arg("-o")
        .arg(&report)
        .arg(env!("CARGO_BIN_EXE_package-variant"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start package-variant");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        let _ = stdin.write_all(input.as_bytes());
    }
    let out = child.wait_with_output().expect("wait");
    // Wall time (the run is under /usr/bin/time): only a hang fails, even on a loaded machine.
    assert!(start.elapsed() < 5 * GENEROUS, "took {:?}", start.elapsed());
    let peak = std::fs::read_to_string(&report)
        .ok()
        .and_then(|t| t.lines().last().and_then(|l| l.trim().parse::<u64>().ok()))
        .map(|kb| kb * 1024);
    let _ = std::fs::remove_file(&report);
    let run = common::Run {
        stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
        code: out.status.code().unwrap_or(-1),
    };
    (run, peak)
}

/// Each hostile CEL shape at 1x, 4x and 16x is refused with its limit's message, in bounded
/// time and within 8 x input + 64 MiB of memory (measured on this build, debug or release).
fn assert_cel_shape_bounded(generate: fn(usize) -> String, base: usize, needles: &[&str]) {
    for factor in [1, 4, 16] {
        let input = generate(base * factor);
        let (out, peak) = run_with_peak(&input);
        assert_error_result(&input, &out, needles);
        if let Some(peak) = peak {
            let bound = 8 * input.len() as u64 + (64 << 20);
            assert!(
                peak <= bound,
                "{factor}x: peak {peak} bytes, more than 8 x {} + 64 MiB",
                input.len()
            );
        }
    }
}

/// 1,000 targets each matching its own ~1 MiB-program pattern (a label): the patterns were all
/// kept compiled (1.18 GB, 8 s); each compilation now costs by its program size class, and the
/// run's budget stops the run after about 17 of them, whatever the number of targets.
#[test]
fn limit_cel_distinct_regex_per_target() {
    assert_cel_shape_bounded(
        hostile_cel::distinct_patterns,
        1_000,
        &[
            "expressions together cost more than the limit of 10000000 for one run",
            "(compiling a regular expression costs half of its compiled program",
        ],
    );
}

/// Expressions each with its own large literal pattern: each was compiled when the set was
/// checked (300: 16.7 s, 680 MB); the checks now share the run's budget, and one error says
/// so. (50 at 1x: checking thousands of expressions is slow in a debug build.)
#[test]
fn limit_cel_literal_regex_per_expression() {
    assert_cel_shape_bounded(
        hostile_cel::literal_patterns,
        50,
        &["literal regular expressions costs more than the limit of 10000000 for one run"],
    );
    let out = run_bounded(&hostile_cel::literal_patterns(50));
    assert_eq!(
        results_section(&out.stdout)
            .matches("severity: error")
            .count(),
        1
    );
}

/// A 100 KB value copied by CEL into each of 2,000 variants (0.36 MB in) was 201 MB of output
/// and 257 MB peak, and an allocation abort under a 300 MB address-space limit: now the values
/// of a run take at most 16 MiB, and the run past it is an error result on the field.
#[test]
fn limit_cel_output_of_values_copied_per_target() {
    assert_cel_shape_bounded(
        hostile_cel::copied_value,
        2_000,
        &[
            "expressions together take more than the limit of 16777216 bytes (16 MiB) for one run",
            "this value: 100000 bytes",
            "path: spec.targets[0].template.packageContext.dataExprs[0].valueExpr",
        ],
    );
}

/// Runs the binary on `input` under a 300 MB address-space limit (`ulimit -v`, as a container
/// might set), asserts exit code 1 (an error result, not an allocation abort) and returns
/// stdout.
fn refused_under_an_address_space_limit(input: &str, tag: &str) -> String {
    let path = std::env::temp_dir().join(format!("pv-limits-{tag}-{}.yaml", std::process::id()));
    std::fs::write(&path, input).expect("write input");
    let script = format!("ulimit -v 300000 && exec \"$0\" < '{}'", path.display());
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_package-variant"))
        .output()
        .expect("run sh");
    let _ = std::fs::remove_file(&path);
    assert_eq!(
        out.status.code(),
        Some(1),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The same run under a 300 MB address-space limit (`ulimit -v`, as a container might set):
/// an error result and exit 1, not an allocation abort.
#[test]
fn limit_cel_output_under_an_address_space_limit() {
    let input = hostile_cel::copied_value(2_000);
    let stdout = refused_under_an_address_space_limit(&input, "as");
    assert!(
        results_section(&stdout).contains("take more than the limit of 16777216 bytes"),
        "{stdout}"
    );
}

/// One target with 1,000 distinct expressions of about 100 bytes (4,800 short ones took 15 s
/// to parse and check): compiling each now costs from the run's budget, and the run stops
/// with one error naming the expression that passed it.
#[test]
fn limit_cel_compilation_of_distinct_expressions() {
    assert_cel_shape_bounded(
        hostile_cel::distinct_expressions,
        1_000,
        &[
            "compiling the set's distinct expressions costs more than the limit of 10000000 for one run",
            "path: spec.targets[0].template.labelExprs[",
        ],
    );
    let out = run_bounded(&hostile_cel::distinct_expressions(1_000));
    assert_eq!(results_with(&out, "severity: error"), 1);
}

/// A static 100 KB context value in the template of 3,000 targets (no CEL): every variant
/// carried a copy, 300 MB of output from a 0.4 MB input. Now the static values of a run's
/// variants take at most 256 MiB together, and past it the run is an error result on the
/// template.
#[test]
fn limit_static_template_values_copied_per_target() {
    assert_cel_shape_bounded(
        hostile_cel::static_value,
        3_000,
        &[
            "static values are copied into every PackageVariant of its targets",
            "more than the limit of 268435456 bytes (256 MiB) for one run",
            "path: spec.targets[0].template",
        ],
    );
}

/// The same under a 300 MB address-space limit: an error result and exit 1.
#[test]
fn limit_static_template_values_under_an_address_space_limit() {
    let input = hostile_cel::static_value(3_000);
    let stdout = refused_under_an_address_space_limit(&input, "static");
    assert!(
        results_section(&stdout).contains("more than the limit of 268435456 bytes"),
        "{}",
        results_section(&stdout)
    );
    assert!(stdout.len() < 2 * input.len(), "{} bytes out", stdout.len());
}

// ---------------------------------------------------------------- config injection (issue 20)

#[path = "../benches/support/hostile_injection.rs"]
mod hostile_injection;

/// Peak RSS in MiB of the binary on `input`, when `/usr/bin/time` is there (Debian `time`).
fn peak_rss_mib(input: &str) -> Option<f64> {
    if !std::path::Path::new("/usr/bin/time").exists() {
        return None;
    }
    let mut child = Command::new("/usr/bin/time")
        .args(["-f", "%M", env!("CARGO_BIN_EXE_package-variant")])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let _ = child.stdin.take()?.write_all(input.as_bytes());
    let out = child.wait_with_output().ok()?;
    let kb: f64 = String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()?
        .trim()
        .parse()
        .ok()?;
    Some(kb / 1024.0)
}

/// Counts the results of `out` whose message contains `needle`.
fn results_with(out: &common::Run, needle: &str) -> usize {
    results_section(&out.stdout).matches(needle).count()
}

/// 2,000 points, 2,000 injectors and 2,000 in-cluster objects, only the last injector naming
/// one (matching was points x injectors x objects: 29 s). Every point is filled; 100 results
/// are listed and one counts the other 1,900.
#[test]
fn injection_of_2000_points_injectors_and_objects_is_linear() {
    let n = 2_000;
    let out = run_bounded(&hostile_injection::injection_matrix(n));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let items = items_section(&out.stdout);
    assert_eq!(items.matches("    k: injected\n").count(), n, "every point");
    assert_eq!(
        results_with(&out, "injected data of in-cluster ConfigMap \"src\""),
        100
    );
    let results = results_section(&out.stdout);
    assert!(results
        .contains("1900 more injection points were injected (only the first 100 are listed)"));
    assert!(results.contains("status.conditions list every point"));
}

/// 15,000 readiness gates and 15,000 conditions, none met (each gate's condition was looked up
/// linearly: 30,000 of each took 13.7 s): 100 gates listed, one result for the other 14,900.
#[test]
fn gates_and_conditions_of_15000_are_indexed() {
    let out = run_bounded(&hostile_injection::gates_and_conditions(15_000));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        results_with(&out, "is not met: condition is \"False\""),
        100
    );
    let results = results_section(&out.stdout);
    assert!(
        results.contains("14900 more readiness gates are not met (only the first 100 are listed)")
    );
    assert!(results.contains("info.readinessGates and status.conditions list them all"));
}

/// 20,000 required points nothing fills (12.5 s, a warning per point and an info per gate):
/// every point gets its condition and gate; 100 of each result, then one count each.
#[test]
fn unfilled_20000_required_points_are_linear_and_summarised() {
    let n = 20_000;
    let out = run_bounded(&hostile_injection::unfilled_points(n));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let items = items_section(&out.stdout);
    assert_eq!(
        items
            .matches("    - conditionType: config.injection.ConfigMap.p")
            .count(),
        n
    );
    assert_eq!(
        items.matches("      reason: NoResourceSelected\n").count(),
        n
    );
    let results = results_section(&out.stdout);
    // 100 points, the count of the rest, and Porch's message size (the output is past 6 MiB).
    assert_eq!(
        results_with(&out, "severity: warning"),
        102,
        "{}",
        &results[..2000]
    );
    assert!(results.contains("--max-request-body-size"));
    assert!(results
        .contains("19900 more required injection points are not filled (each blocks readiness)"));
    assert!(results.contains("19900 more readiness gates are not met"));
    assert!(
        results.len() < 200_000,
        "results are bounded: {} bytes",
        results.len()
    );
}

/// The Kptfile's lists at 4x of issue 20's sizes: 120,000 gates and conditions (14.7 MB in),
/// and 80,000 unfilled required points (18.2 MB in, a condition and a gate each). Their trees
/// took 217 and 219 MiB, past 8 x input + 64 MiB (176 and 203); the lists are now kept
/// compactly and written as the output streams. A debug build takes several seconds for each,
/// hence three times the usual time bound.
#[test]
fn kptfile_lists_of_4x_sizes_stay_within_the_memory_bound() {
    for (name, input) in [
        ("gates", hostile_injection::gates_and_conditions(120_000)),
        ("points", hostile_injection::unfilled_points(80_000)),
    ] {
        let start = Instant::now();
        let Some(peak) = peak_rss_mib(&input) else {
            return;
        };
        // Wall time (the run is under /usr/bin/time): only a hang fails.
        assert!(
            start.elapsed() < 15 * GENEROUS,
            "{name}: took {:?}",
            start.elapsed()
        );
        let bound = (8 * input.len() + (64 << 20)) as f64 / 1_048_576.0;
        assert!(
            peak <= bound,
            "{name}: peak {peak:.0} MiB, more than 8 x input + 64 MiB = {bound:.0} MiB"
        );
    }
}

/// Points x injectors x in-cluster objects at 16x of issue 20's size: 32,000 of each (12.6 MB
/// in), every point filled from the last object. Each filled point's tree is made when the
/// output is written, so memory stays within 8 x input + 64 MiB (160 MiB; 88 measured in
/// release, 98 in debug). A debug build takes several seconds, hence three times the usual
/// time bound.
#[test]
fn injection_matrix_of_16x_size_stays_within_the_memory_bound() {
    let n = 32_000;
    let input = hostile_injection::injection_matrix(n);
    let out = run_cpu_bounded(&input, 3 * GENEROUS);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let items = items_section(&out.stdout);
    assert_eq!(items.matches("    k: injected\n").count(), n, "every point");
    if let Some(peak) = peak_rss_mib(&input) {
        let bound = (8 * input.len() + (64 << 20)) as f64 / 1_048_576.0;
        assert!(
            peak <= bound,
            "peak {peak:.0} MiB, more than 8 x input + 64 MiB = {bound:.0} MiB"
        );
    }
}

/// 32,000 points bound by the extension's `spec.injection`, each from its own source (13.4 MB
/// in): each filled point's tree was held until the output was written, and the points'
/// results moved into a map (203 MiB release, 213 debug, past 8 x input + 64 MiB = 166). Now
/// 129 release, 138 debug. A debug build takes several seconds, hence three times the usual
/// time bound.
#[test]
fn bound_points_of_32000_stay_within_the_memory_bound() {
    let n = 32_000;
    let input = hostile_values::bound_points(n);
    let out = run_cpu_bounded(&input, 3 * GENEROUS);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let items = items_section(&out.stdout);
    assert_eq!(
        items.matches("    v: placeholder\n").count(),
        0,
        "every point"
    );
    // The last point of each source (a third each: cluster, inline, package).
    for last in ["cluster-31998", "inline-31999", "package-31997"] {
        assert!(items.contains(&format!("    v: {last}\n")), "{last}");
    }
    if let Some(peak) = peak_rss_mib(&input) {
        let bound = (8 * input.len() + (64 << 20)) as f64 / 1_048_576.0;
        assert!(
            peak <= bound,
            "peak {peak:.0} MiB, more than 8 x input + 64 MiB = {bound:.0} MiB"
        );
    }
}

/// One 5,000-key in-cluster ConfigMap into 200 points: every point gets every key, and the
/// value is held once (a copy per point took 602 MB for 1,000 points; 130 MB here). Memory
/// stays within 8 x input + 64 MiB. The output is 80 times the input: a debug build takes
/// seconds to write it, hence three times the usual bound.
#[test]
fn one_source_into_many_points_is_shared() {
    let n = 200;
    let input = hostile_injection::one_source_into(n, hostile_injection::WIDE_SOURCE_KEYS);
    let out = run_cpu_bounded(&input, 3 * GENEROUS);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let items = items_section(&out.stdout);
    assert_eq!(items.matches("    key04999: v04999\n").count(), n);
    assert_eq!(items.matches("    key00000: v00000\n").count(), n);
    assert_eq!(items.matches("kpt.dev/injected-resource: src").count(), n);
    if let Some(peak) = peak_rss_mib(&input) {
        let bound = 8.0 * input.len() as f64 / 1048576.0 + 64.0;
        assert!(peak < bound, "peak RSS {peak:.0} MiB, bound {bound:.0} MiB");
    }
}

/// Past the output limit (8 x input + 64 MiB, `krm::output::limit`) config injection is refused
/// with an error result before anything is written, never an allocation failure: a 20,000-key
/// source (about 320 KB) into 1,000 points.
#[test]
fn limit_injected_output() {
    let input = hostile_injection::one_source_into(1_000, 20_000);
    let out = run_bounded(&input);
    assert_error_result(
        &input,
        &out,
        &[
            "config injection, at injection point ConfigMap/",
            "in-cluster ConfigMap/src is",
            "would write more than the output limit of",
            "inject a large value into fewer points",
        ],
    );
}

/// The time bounds above are on CPU time read from `/proc`: a run that does real work must
/// show some, or every bound would pass without measuring anything.
#[test]
fn cpu_time_of_a_run_is_measured() {
    if !std::path::Path::new("/proc/self/stat").exists() {
        return;
    }
    let input = hostile_injection::injection_matrix(4_000);
    let (out, cpu) = common::run_timed(input.as_bytes());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        cpu > Duration::ZERO,
        "no CPU time read for a run of {} bytes",
        input.len()
    );
}
