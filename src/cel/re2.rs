//! RE2's syntax, as cel-go's `matches` reads it (Go's `regexp`), written in the `regex` crate's
//! syntax with the same meaning. The two agree on most patterns but not all, and where they
//! differ a pattern would match other strings here than in Porch, silently:
//! - `\d`, `\w`, `\s`, `\b` and `\B` are ASCII in RE2 (`\s` is `[\t\n\f\r ]`) and Unicode in
//!   the `regex` crate: they are written out as ASCII classes and assertions;
//! - `\<` and `\>` are the characters `<` and `>` in RE2 and word assertions in the crate;
//! - in a class, `&&`, `--` and `~~` are characters in RE2 and set operations in the crate, and
//!   `[` is a character (unless it starts `[:name:]`) where the crate nests a class: every
//!   punctuation character of a class is written as a hex escape;
//! - `\Q...\E` (RE2 quotes the text between) is written as escaped characters.
//!
//! Flags RE2 lacks (`x`, `u`, `R`: the crate would take them) are refused with the flag named.
//! Anything else is copied as it stands: where the crate refuses what RE2 also refuses, its
//! message is about the pattern as written (the caller compiles the original for it).

/// The pattern `pattern` (RE2 syntax) in the `regex` crate's syntax, or why RE2 refuses it where
/// the crate would not.
pub(super) fn to_regex_syntax(pattern: &str) -> Result<String, String> {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut closes = NextClose::default();
    let mut chars = pattern.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                let end = escape(pattern, i, &mut out);
                while chars.peek().is_some_and(|&(j, _)| j < i + end) {
                    chars.next();
                }
            }
            '[' => {
                let end = class(pattern, i, &mut out, &mut closes);
                while chars.peek().is_some_and(|&(j, _)| j < i + end) {
                    chars.next();
                }
            }
            '(' if pattern[i + 1..].starts_with('?') => {
                let flags: String = pattern[i + 2..]
                    .chars()
                    .take_while(|f| f.is_ascii_alphabetic() || *f == '-')
                    .collect();
                if let Some(bad) = flags
                    .chars()
                    .find(|f| !matches!(f, 'i' | 'm' | 's' | 'U' | '-'))
                {
                    // `(?P<name>...)` is a named group, not a flag.
                    if !(bad == 'P' && flags == "P") {
                        return Err(format!(
                            "invalid regular expression: flag `{bad}` in `(?{flags}` is not \
                             RE2 syntax (cel-go accepts only the flags i, m, s and U)"
                        ));
                    }
                }
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    Ok(out)
}

/// The escape that starts at `pattern[start]` (its `\\`), outside a class, written to `out`;
/// the bytes it took. What a class also holds (punctuation, octal, the rest) is read as in a
/// class ([`class_char`]).
fn escape(pattern: &str, start: usize, out: &mut String) -> usize {
    let text = &pattern[start..];
    let Some(e) = text[1..].chars().next() else {
        out.push('\\');
        return 1;
    };
    if let Some(class) = perl_class(e) {
        out.push_str(class.outside);
        return 2;
    }
    match e {
        'b' => out.push_str("(?-u:\\b)"),
        'B' => out.push_str("(?-u:\\B)"),
        'Q' => {
            let rest = &text[2..];
            let (quoted, skip) = match rest.find("\\E") {
                Some(end) => (&rest[..end], end + 2),
                None => (rest, rest.len()),
            };
            quoted.chars().for_each(|q| push_literal(out, q));
            return 2 + skip;
        }
        // Escaped punctuation is the character itself in RE2 (`\<` too), and so is an octal
        // escape; other escapes are copied.
        _ => {
            let Some((c, after)) = class_char(text) else {
                out.push_str(text);
                return text.len();
            };
            c.write(out);
            return text.len() - after.len();
        }
    }
    2
}

/// RE2's Perl classes, ASCII only: as a class of their own and as a class's items.
struct PerlClass {
    outside: &'static str,
    inside: &'static str,
}

fn perl_class(e: char) -> Option<PerlClass> {
    let (outside, inside) = match e {
        'd' => ("[0-9]", "0-9"),
        'D' => ("[^0-9]", "[^0-9]"),
        'w' => ("[0-9A-Za-z_]", "0-9A-Za-z_"),
        'W' => ("[^0-9A-Za-z_]", "[^0-9A-Za-z_]"),
        's' => ("[\\t\\n\\x{0C}\\r\\x{20}]", "\\t\\n\\x{0C}\\r\\x{20}"),
        'S' => ("[^\\t\\n\\x{0C}\\r\\x{20}]", "[^\\t\\n\\x{0C}\\r\\x{20}]"),
        _ => return None,
    };
    Some(PerlClass { outside, inside })
}

/// A character as a literal in either place: ASCII punctuation and controls as hex escapes
/// (never special to the crate), everything else as itself.
fn push_literal(out: &mut String, c: char) {
    if c.is_ascii() && !c.is_ascii_alphanumeric() {
        push_hex(out, c);
    } else {
        out.push(c);
    }
}

fn push_hex(out: &mut String, c: char) {
    out.push_str(&format!("\\x{{{:02X}}}", c as u32));
}

/// Where the next `:]` of a pattern is, for `[:name:]`: asked at positions that only grow, it
/// searches each part of the pattern once (a search per class would be quadratic on a
/// pattern of many `[[:`).
#[derive(Default)]
struct NextClose {
    /// Searched from here on: the first `:]` at `found` (or none after `from`).
    from: usize,
    found: Option<usize>,
    searched: bool,
}

impl NextClose {
    fn at_or_after(&mut self, pattern: &str, at: usize) -> Option<usize> {
        let stale = !self.searched || at < self.from || self.found.is_some_and(|f| f < at);
        if stale {
            self.from = at;
            self.found = pattern[at..].find(":]").map(|f| at + f);
            self.searched = true;
        }
        self.found
    }
}

/// The class that starts at `pattern[start]` (its `[`), read as RE2 reads it and written to
/// `out`; the bytes it took. An unclosed class is copied as it stands (both refuse it).
fn class(pattern: &str, start: usize, out: &mut String, closes: &mut NextClose) -> usize {
    let text = &pattern[start..];
    let mut w = String::from("[");
    let mut rest = &text[1..];
    if let Some(r) = rest.strip_prefix('^') {
        w.push('^');
        rest = r;
    }
    let mut first = true;
    loop {
        let Some(c) = rest.chars().next() else {
            out.push_str(text);
            return text.len();
        };
        if c == ']' && !first {
            w.push(']');
            rest = &rest[1..];
            break;
        }
        first = false;
        // `[:alpha:]` and `[:^alpha:]`: the same names and meaning in both.
        if rest.starts_with("[:") {
            let at = pattern.len() - rest.len();
            if let Some(close) = closes.at_or_after(pattern, at + 2) {
                let end = close + 2 - at;
                w.push_str(&rest[..end]);
                rest = &rest[end..];
                continue;
            }
        }
        if let Some(esc) = rest.strip_prefix('\\') {
            if let Some(class) = esc.chars().next().and_then(perl_class) {
                w.push_str(class.inside);
                rest = &esc[1..];
                continue;
            }
            if esc.starts_with('p') || esc.starts_with('P') {
                let len = unicode_class_len(esc);
                w.push('\\');
                w.push_str(&esc[..len]);
                rest = &esc[len..];
                continue;
            }
        }
        let Some((lo, after)) = class_char(rest) else {
            out.push_str(text);
            return text.len();
        };
        rest = after;
        lo.write(&mut w);
        // `a-z` is a range; `a-]` is `a` and `-`.
        if rest.starts_with('-') && !rest[1..].starts_with(']') && rest.len() > 1 {
            let Some((hi, after)) = class_char(&rest[1..]) else {
                out.push_str(text);
                return text.len();
            };
            w.push('-');
            hi.write(&mut w);
            rest = after;
        }
    }
    out.push_str(&w);
    text.len() - rest.len()
}

/// The bytes of `\p` or `\P` and its name (`pL`, `p{Greek}`, `P{^Greek}`), after the `\`.
fn unicode_class_len(esc: &str) -> usize {
    match esc[1..].chars().next() {
        Some('{') => esc.find('}').map_or(esc.len(), |end| end + 1),
        Some(c) => 1 + c.len_utf8(),
        None => 1,
    }
}

/// One character of a class, as RE2 reads it.
enum ClassChar<'a> {
    /// A character whose meaning is known: written as a literal.
    Literal(char),
    /// An escape copied as it stands (`\x{263A}`, `\n`, `\123`, ...): the same in both, or
    /// refused by both.
    Escape(&'a str),
}

impl ClassChar<'_> {
    fn write(&self, w: &mut String) {
        match self {
            ClassChar::Literal(c) => push_literal(w, *c),
            ClassChar::Escape(e) => w.push_str(e),
        }
    }
}

fn class_char(text: &str) -> Option<(ClassChar<'_>, &str)> {
    let mut chars = text.chars();
    let c = chars.next()?;
    if c != '\\' {
        return Some((ClassChar::Literal(c), chars.as_str()));
    }
    let e = chars.next()?;
    if e.is_ascii() && !e.is_ascii_alphanumeric() {
        return Some((ClassChar::Literal(e), chars.as_str()));
    }
    let rest = chars.as_str();
    if let Some((c, digits)) = octal(e, rest) {
        return Some((ClassChar::Literal(c), &rest[digits..]));
    }
    // A letter escape: as far as its hex digits go.
    let len = match e {
        'x' if rest.starts_with('{') => rest.find('}').map_or(rest.len(), |end| end + 1),
        'x' => rest
            .bytes()
            .take(2)
            .take_while(u8::is_ascii_hexdigit)
            .count(),
        _ => 0,
    };
    let end = 1 + e.len_utf8() + len;
    Some((ClassChar::Escape(&text[..end]), &text[end..]))
}

/// RE2's octal escape `\<e><rest>` (the crate has none): `\0` and up to two more octal digits,
/// or `\1`-`\7` followed by at least one (alone it would be a backreference, refused by both).
/// The character, and how many digits of `rest` it took.
fn octal(e: char, rest: &str) -> Option<(char, usize)> {
    let digits = rest
        .bytes()
        .take(2)
        .take_while(|d| matches!(d, b'0'..=b'7'))
        .count();
    if !matches!(e, '0'..='7') || (e != '0' && digits == 0) {
        return None;
    }
    let value = rest.as_bytes()[..digits]
        .iter()
        .fold(e as u32 - '0' as u32, |v, d| v * 8 + u32::from(d - b'0'));
    char::from_u32(value).map(|c| (c, digits))
}

#[cfg(test)]
mod tests {
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
        assert!(to_regex_syntax(r"(a)\1").is_ok_and(|t| regex::Regex::new(&t).is_err()));
        assert_eq!(
            to_regex_syntax(r"^edge-[0-9]+\.x$").unwrap(),
            r"^edge-[0-9]+\x{2E}x$"
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
    fn unclosed_classes_and_trailing_escapes_are_copied() {
        assert_eq!(to_regex_syntax("[ab").unwrap(), "[ab");
        assert_eq!(to_regex_syntax("a\\").unwrap(), "a\\");
    }
}
