//! The translation's own cases: what Go reads, read so.

use super::to_regex_syntax;

fn is_match(pattern: &str, text: &str) -> bool {
    let translated = to_regex_syntax(pattern).unwrap();
    regex::Regex::new(&translated)
        .unwrap_or_else(|e| panic!("{pattern} -> {translated}: {e}"))
        .is_match(text)
}

#[test]
fn perl_classes_and_word_boundaries_are_ascii() {
    assert!(!is_match(r"^\d$", "٣"));
    assert!(is_match(r"^\d+$", "0129"));
    assert!(is_match(r"^\D$", "٣"));
    assert!(!is_match(r"^\w$", "é"));
    assert!(is_match(r"^\W$", "é"));
    assert!(is_match(r"^\w+$", "edge_1"));
    assert!(!is_match(r"^\s$", "\u{0B}"));
    assert!(!is_match(r"^\s$", "\u{A0}"));
    assert!(is_match(r"^\s+$", "\t\n\u{0C}\r "));
    assert!(is_match(r"^\S$", "\u{0B}"));
    // `é` is not a word character in RE2: a boundary stands before `x`.
    assert!(is_match(r"\bx", "éx"));
    assert!(!is_match(r"\Bx", "éx"));
    assert!(!is_match(r"\bx", "ax"));
    assert!(is_match(r"^[\d_]+$", "1_2"));
    assert!(!is_match(r"^[\d]$", "٣"));
    assert!(is_match(r"^[a\D]$", "٣"));
    assert!(!is_match(r"^[^\w]$", "a"));
    assert!(is_match(r"^[^\w]$", "é"));
}

#[test]
fn what_re2_reads_as_characters_stays_characters() {
    assert!(is_match(r"^\<a\>$", "<a>"));
    assert!(is_match(r"^[a&&b]+$", "&&ab"));
    assert!(is_match(r"^[a~~b]+$", "~a"));
    assert!(is_match(r"^[a-c--b]+$", "0b"));
    assert!(is_match(r"^[a-c-]+$", "b-"));
    assert!(is_match(r"^[[a]+$", "[a"));
    assert!(is_match(r"^[]a]+$", "]a"));
    assert!(is_match(r"^[^]a]$", "b"));
    assert!(is_match(r"^[a-]+$", "a-"));
    assert!(is_match(r"^[-a]+$", "-a"));
    assert!(is_match(r"^\Qa.b*\E$", "a.b*"));
    assert!(!is_match(r"^\Qa.b\E$", "axb"));
    assert!(is_match(r"^\Qa.b$", "a.b$"));
    assert!(is_match(r"^[\-\]\\]+$", "-]\\"));
}

#[test]
fn what_both_read_alike_is_kept() {
    assert!(is_match(r"^[[:alpha:]]+$", "abc"));
    assert!(!is_match(r"^[[:^alpha:]]$", "a"));
    assert!(is_match(r"^\pL+$", "éa"));
    assert!(is_match(r"^\p{Greek}$", "α"));
    assert!(is_match(r"^[\p{Greek}a]+$", "αa"));
    assert!(is_match(r"^[\x{3B1}-\x{3C9}]$", "β"));
    assert!(is_match(r"^\x41\x{42}$", "AB"));
    assert!(is_match(r"(?i)^ÉDGE$", "édge"));
    assert!(is_match(r"(?P<n>a)(?:b)", "ab"));
    assert!(is_match(r"^a{2,3}$", "aaa"));
    assert!(is_match(r"^[\n]$", "\n"));
    assert!(is_match(r"^[\101]$", "A"));
    assert!(is_match(r"^\101\0$", "A\0"));
    assert!(is_match(r"^\1018$", "A8"));
    assert!(to_regex_syntax(r"(a)\1").is_err());
    assert_eq!(
        to_regex_syntax(r"^edge-[0-9]+\.x$").unwrap(),
        r"^edge\x{2D}[0-9]+\x{2E}x$"
    );
}

#[test]
fn flags_re2_lacks_are_refused() {
    for p in ["(?x)a b", "(?u)a", "(?R)a", "(?ix:a)"] {
        let why = to_regex_syntax(p).unwrap_err();
        assert!(why.contains("not RE2 syntax"), "{p}: {why}");
    }
    for p in ["(?i)a", "(?ms-U:a)", "(?P<name>a)", "(?:a)"] {
        assert!(to_regex_syntax(p).is_ok(), "{p}");
    }
}

proptest::proptest! {
    /// Any text at all: translated without a panic, and what comes out is given to the
    /// crate (which refuses or compiles it) without one either.
    #[test]
    fn any_pattern_is_translated_without_a_panic(
        pattern in r"[\\\[\]^\-&~:(?)<>a-dQEPpxX0-9{}é٣]{0,24}"
    ) {
        if let Ok(t) = to_regex_syntax(&pattern) {
            let _ = regex::Regex::new(&t);
        }
    }
}

/// Hostile sizes: every part of the pattern is read a bounded number of times.
#[test]
fn many_classes_and_escapes_stay_linear() {
    for unit in ["[[:", "[:", "[]", "\\Q", "(?", "\\p{", "[\\x{", "[a-"] {
        let pattern = unit.repeat(200_000);
        let _ = to_regex_syntax(&pattern);
    }
    let named = "[[:alpha:]".repeat(50_000) + "]";
    assert!(to_regex_syntax(&named).is_ok());
}

#[test]
fn unclosed_classes_and_trailing_escapes_are_refused_as_go_refuses_them() {
    assert_eq!(
        to_regex_syntax("[ab").unwrap_err(),
        "invalid regular expression: missing closing ]: `[ab`"
    );
    assert_eq!(
        to_regex_syntax("a\\").unwrap_err(),
        "invalid regular expression: trailing backslash at end of expression: `\\`"
    );
}

/// Go's readings the crate's syntax lacks (issue 40): a `{` that starts no count, `^` in
/// a Unicode class name, surrogates, stacked repetitions and counts over 1000.
#[test]
fn what_go_reads_is_read_so() {
    assert!(is_match(r"^x{foo}$", "x{foo}"));
    assert!(is_match(r"^a{,3}$", "a{,3}"));
    assert!(is_match(r"^a{01}$", "a{01}"));
    assert!(is_match(r"^\p{^Greek}$", "a"));
    assert!(!is_match(r"^\p{^Greek}$", "α"));
    assert!(!is_match(r"\x{D800}", "\u{D7FF}\u{E000}"));
    assert!(is_match(r"^[a-\x{D800}]$", "\u{D7FF}"));
    assert!(!is_match(r"^\p{C}$", "\u{378}"));
    assert!(is_match(r"^a(?i)*$", "aa"));
    for p in [
        r"a**",
        r"a++",
        r"a*??",
        r"a{2}{3}",
        r"a{1001}",
        r"(a{2,3}){400}",
        r"\p{greek}",
    ] {
        assert!(to_regex_syntax(p).is_err(), "{p}");
    }
    // Unicode 15's scripts, which Go 1.21 and later take.
    assert!(is_match(r"^\p{Kawi}$", "\u{11F04}"));
    assert!(is_match(r"^\p{Vithkuqi}$", "\u{10570}"));
}
