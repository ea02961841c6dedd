//! `matches` reads its pattern as cel-go does, in RE2's syntax, through the binary: where the
//! `regex` crate's syntax gives the same text another meaning (Unicode `\d`, `\w`, `\s` and
//! `\b`; `\<`; set operations in classes; octal escapes), the answer is RE2's, and flags RE2
//! lacks are refused as cel-go refuses them.

mod common;

use common::{pvs_config, repository, resource_list, results_section, run, UPSTREAM_PR};

/// A set whose one target gets a label `c<i>` per expression (in YAML single quotes).
fn run_exprs(exprs: &[&str]) -> common::Run {
    let mut targets = String::from(
        "  targets:\n  - repositories: [{name: edge1}]\n    template:\n      labelExprs:\n",
    );
    for (i, e) in exprs.iter().enumerate() {
        targets.push_str(&format!("      - {{key: c{i}, valueExpr: '{e}'}}\n"));
    }
    run(&resource_list(
        &[UPSTREAM_PR, &repository("edge1", "{}")],
        &pvs_config(&targets),
    ))
}

#[test]
fn patterns_mean_what_they_mean_in_re2() {
    // (text, RE2 pattern, cel-go's answer)
    let cases = [
        ("٣", r"^\d$", false),
        ("42", r"^\d+$", true),
        ("edge١", r"^\w+$", false),
        ("edge_1", r"^\w+$", true),
        ("a\u{a0}b", r"^a\sb$", false),
        ("a\u{a0}b", r"^a\Sb$", true),
        ("éx", r"\bx", true),
        ("a<b", r"^a\<b$", true),
        ("&", r"^[a&&b]$", true),
        ("0", r"^[a-c--b]$", true),
        ("-", r"^[a-c-]$", true),
        ("[", r"^[[a]$", true),
        ("A", r"^\101$", true),
        ("a.b", r"^\Qa.b\E$", true),
        ("axb", r"^\Qa.b\E$", false),
        ("Édge", r"(?i)^édge$", true),
        ("edge-7", r"^edge-[0-9]+$", true),
    ];
    assert_answers(&cases);
}

/// Each `(text, pattern, answer)` through the binary: `text.matches(pattern)` is `answer`.
fn assert_answers(cases: &[(&str, &str, bool)]) {
    let exprs: Vec<String> = cases
        .iter()
        .map(|(text, pattern, _)| format!("string(\"{text}\".matches(r\"{pattern}\"))"))
        .collect();
    let refs: Vec<&str> = exprs.iter().map(String::as_str).collect();
    let out = run_exprs(&refs);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    for (i, (text, pattern, want)) in cases.iter().enumerate() {
        let line = format!("      c{i}: \"{want}\"\n");
        assert!(
            out.stdout.contains(&line),
            "{text:?} matches {pattern:?} should be {want}:\n{}",
            out.stdout
        );
    }
}

#[test]
fn flags_re2_lacks_are_refused_on_the_field() {
    for pattern in [r"(?x)a b", r"(?u)a", r"(?R)^a$"] {
        let expr = format!("string(\"a\".matches(r\"{pattern}\"))");
        let out = run_exprs(&[&expr]);
        assert_eq!(out.code, 1, "{pattern}: {}", out.stdout);
        let results = results_section(&out.stdout);
        assert!(
            results.contains("is not RE2 syntax")
                && results.contains("spec.targets[0].template.labelExprs[0].valueExpr"),
            "{pattern}: {results}"
        );
    }
    // A pattern made at run time is refused when it runs.
    let out = run_exprs(&["string(\"a\".matches(\"(?\" + \"x)a\"))"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        results_section(&out.stdout).contains("is not RE2 syntax"),
        "{}",
        out.stdout
    );
}

/// A set whose expression matches against `pattern`, the label `p` of its one Repository.
fn pattern_from_a_label(pattern: &str) -> String {
    let repo = repository("edge1", &format!("{{p: '{pattern}'}}"));
    let targets = "  targets:\n  - repositories: [{name: edge1}]\n    template:\n      labelExprs:\n      - {key: m, valueExpr: \"string(target.repo.matches(repository.labels['p']))\"}\n";
    resource_list(&[UPSTREAM_PR, &repo], &pvs_config(targets))
}

/// A hostile pattern from the input (a 300,000-byte label of `[[:`, an unclosed class to RE2
/// too): each part read a bounded number of times, and refused.
#[test]
fn a_hostile_pattern_from_a_label_is_answered_in_bounded_time() {
    let pattern = "[[:".repeat(100_000);
    let input = pattern_from_a_label(&pattern);
    let (out, cpu) = common::run_timed(input.as_bytes());
    common::assert_cpu_under(cpu, std::time::Duration::from_secs(20), "a 300 KB pattern");
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        results_section(&out.stdout).contains("invalid regular expression"),
        "{}",
        out.stderr
    );
}

/// A long invalid pattern is quoted by a window around its fault, not whole: the message stays
/// short whatever the pattern's size, and says where the fault is.
#[test]
fn a_long_invalid_pattern_is_quoted_by_a_window() {
    let pattern = format!("{}(unclosed", "a".repeat(300_000));
    let out = run(&pattern_from_a_label(&pattern));
    assert_eq!(out.code, 1, "{}", out.stderr);
    let results = results_section(&out.stdout);
    assert!(
        results.contains("invalid regular expression: missing closing ) at byte 300000 of the 300009 bytes of the pattern"),
        "{}",
        &results[..results.len().min(2000)]
    );
    assert!(results.len() < 4000, "results are {} bytes", results.len());
    // A short one is quoted whole, as Go's regexp quotes it.
    let out = run_exprs(&["string(\"a\".matches(\"(b\"))"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        results_section(&out.stdout).contains("invalid regular expression: missing closing ): `(`"),
        "{}",
        out.stdout
    );
}

/// Issue 40's patterns through the binary: what Go's regexp takes is taken and matches as
/// there; what it refuses is refused on the field, with Go's reason.
#[test]
fn patterns_go_takes_and_refuses_are_taken_and_refused() {
    let taken = [
        ("x{foo}", r"^x{foo}$", true),
        ("{a}", r"^{.*}$", true),
        ("a{,3}", r"^a{,3}$", true),
        ("aaa", r"^a{,3}$", false),
        ("a", r"^\p{^Greek}$", true),
        ("α", r"^\p{^Greek}$", false),
        ("aa", r"^a{2}$", true),
    ];
    assert_answers(&taken);
    for (pattern, why) in [
        (r"a**", "invalid nested repetition operator: `**`"),
        (r"a++", "invalid nested repetition operator: `++`"),
        (r"a{2}{3}", "invalid nested repetition operator: `{2}{3}`"),
        (r"a{1001}", "invalid repeat count: `{1001}`"),
        (r"(a{2,3}){400}", "invalid repeat count: `{400}`"),
        (r"\p{greek}", "invalid character class range: `\\p{greek}`"),
        (r"\p{Emoji}", "invalid character class range: `\\p{Emoji}`"),
    ] {
        let expr = format!("string(\"a\".matches(r\"{pattern}\"))");
        let out = run_exprs(&[&expr]);
        assert_eq!(out.code, 1, "{pattern}: {}", out.stdout);
        let results = results_section(&out.stdout).replace("\\\\", "\\");
        assert!(
            results.contains(&format!("invalid regular expression: {why}"))
                && results.contains("spec.targets[0].template.labelExprs[0].valueExpr"),
            "{pattern}: {results}"
        );
    }
}
