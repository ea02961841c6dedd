//! How a string is written: the scalar styles, and kyaml's rules for choosing one so that a
//! new or changed string reads back as the same string (in YAML 1.2 and in YAML 1.1 readers).

/// How a scalar was (or will be) written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScalarStyle {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

/// Whether go-yaml reads `c` written raw: its reader refuses other characters anywhere in a
/// document (they can only be written as escapes in a double-quoted string).
fn readable_raw(c: char) -> bool {
    matches!(c as u32, 0x09 | 0x0A | 0x0D | 0x20..=0x7E | 0x85 | 0xA0..=0xD7FF | 0xE000..=0xFFFD | 0x10000..)
}

/// Line breaks to go-yaml: LF, CR, NEL (U+0085), LS (U+2028) and PS (U+2029). Written raw they
/// end a line, in every style.
fn is_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// A character that may stand raw within one line of a scalar: readable, not a line break, not
/// a byte order mark.
fn inline_ok(c: char) -> bool {
    readable_raw(c) && !is_break(c) && c != '\u{feff}'
}

/// Whether a double-quoted string must write `c` as an escape: everything go-yaml would not
/// read back as that character raw (line breaks fold, other characters are refused).
pub fn needs_escape(c: char) -> bool {
    !inline_ok(c) || c == '\t'
}

/// A multi-line string can be a literal block: its only line breaks are line feeds, no line
/// ends in a space or tab, and every character is written raw.
pub fn literal_ok(value: &str) -> bool {
    value.contains('\n')
        && !value.contains(" \n")
        && !value.contains("\t\n")
        && !value.ends_with([' ', '\t'])
        && !value.starts_with('\n')
        && value.chars().all(|c| c == '\n' || inline_ok(c))
}

/// A string can be single-quoted: one line, every character written raw.
pub fn single_ok(value: &str) -> bool {
    all_inline_ok(value, true)
}

/// Whether every character of `value` is [`inline_ok`] (and, unless `tab_ok`, not a tab).
/// ASCII is checked a byte at a time (printable ASCII is always fine, other ASCII never is,
/// tab aside), characters only from the first non-ASCII byte on: most text is ASCII.
fn all_inline_ok(value: &str, tab_ok: bool) -> bool {
    let b = value.as_bytes();
    match b
        .iter()
        .position(|&c| !((0x20..0x7f).contains(&c) || (tab_ok && c == b'\t')))
    {
        None => true,
        Some(i) if b[i] < 0x80 => false,
        // All before `i` is ASCII: `i` starts a character.
        Some(i) => value[i..]
            .chars()
            .all(|c| inline_ok(c) && (tab_ok || c != '\t')),
    }
}

/// A YAML indicator: a plain scalar starting with it reads as something else (`-`, `?` and `:`
/// only when followed by a space or, in flow, an indicator).
fn starts_indicator(c: u8) -> bool {
    matches!(
        c,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
    )
}

/// Whether `value` can be written as a plain scalar without changing what it reads as.
pub fn plain_ok(value: &str, flow: bool) -> bool {
    if value.is_empty() {
        return false;
    }
    let b = value.as_bytes();
    let first = b[0];
    if starts_indicator(first) {
        // `-`, `?`, `:` may start a plain scalar when followed by a safe character.
        let safe_lead = matches!(first, b'-' | b'?' | b':')
            && b.len() > 1
            && !matches!(b[1], b' ' | b'\t')
            && !(flow && matches!(b[1], b',' | b'[' | b']' | b'{' | b'}'));
        if !safe_lead {
            return false;
        }
        if value.starts_with("---") {
            return false;
        }
    }
    if value.starts_with("...") {
        return false;
    }
    if value.starts_with([' ', '\t']) || value.ends_with([' ', '\t', ':']) {
        return false;
    }
    // `: `, ` #`, `:\t`, `\t#` (one pass: four substring searches cost more than the text).
    if b.windows(2)
        .any(|w| matches!(w, [b':', b' ' | b'\t'] | [b' ' | b'\t', b'#']))
    {
        return false;
    }
    if flow && value.contains([',', '[', ']', '{', '}']) {
        return false;
    }
    if flow && value.contains(':') {
        return false;
    }
    all_inline_ok(value, false)
}

/// Strings that a YAML 1.1 reader (kubectl, go-yaml v2, PyYAML) would take for something
/// else, or that go-yaml v3 resolves to another type. kyaml quotes these with double quotes.
fn needs_double_quotes(value: &str) -> bool {
    super::resolve::resolve_plain(value) != super::resolve::Resolved::Str
        || matches!(
            value,
            "y" | "Y"
                | "yes"
                | "Yes"
                | "YES"
                | "n"
                | "N"
                | "no"
                | "No"
                | "NO"
                | "on"
                | "On"
                | "ON"
                | "off"
                | "Off"
                | "OFF"
                | "="
                | "<<"
        )
        || looks_numeric_1_1(value)
}

/// YAML 1.1 numbers and timestamps that YAML 1.2 reads as strings (`0777`, `1_000`,
/// `12:30`, `2024-01-01`).
fn looks_numeric_1_1(v: &str) -> bool {
    let t = v.strip_prefix(['+', '-']).unwrap_or(v);
    if t.is_empty() {
        return false;
    }
    let digitish = t
        .chars()
        .all(|c| c.is_ascii_digit() || c == '_' || c == ':' || c == '.');
    if digitish && t.starts_with(|c: char| c.is_ascii_digit()) {
        return true;
    }
    // Dates and timestamps.
    let b = t.as_bytes();
    b.len() >= 10 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-' && b[5].is_ascii_digit()
}

/// The style kyaml would pick for a new string value.
pub fn string_style(value: &str) -> ScalarStyle {
    // Fast path for the common case (names, keys, image references, paths): plain unless it
    // reads as another type. `plain_ok` holds for every such string, and none has a newline.
    let b = value.as_bytes();
    if b.first().is_some_and(u8::is_ascii_alphanumeric)
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.' | b'/'))
    {
        return if needs_double_quotes(value) {
            ScalarStyle::DoubleQuoted
        } else {
            ScalarStyle::Plain
        };
    }
    string_style_general(value)
}

fn string_style_general(value: &str) -> ScalarStyle {
    if value.contains('\n') {
        return if literal_ok(value) {
            ScalarStyle::Literal
        } else {
            ScalarStyle::DoubleQuoted
        };
    }
    if needs_double_quotes(value) {
        return ScalarStyle::DoubleQuoted;
    }
    if plain_ok(value, false) {
        return ScalarStyle::Plain;
    }
    if single_ok(value) {
        ScalarStyle::SingleQuoted
    } else {
        ScalarStyle::DoubleQuoted
    }
}

/// Whether a string value may keep `style` (copied from the value it replaces) and still
/// read as the same string.
pub fn style_allows(style: ScalarStyle, value: &str) -> bool {
    match style {
        ScalarStyle::Plain => string_style(value) == ScalarStyle::Plain,
        ScalarStyle::SingleQuoted => single_ok(value),
        ScalarStyle::DoubleQuoted => true,
        ScalarStyle::Literal | ScalarStyle::Folded => literal_ok(value),
    }
}

#[cfg(test)]
mod tests {
    use super::{
        inline_ok, plain_ok, single_ok, starts_indicator, string_style, string_style_general,
    };

    /// The fast path picks what the general rules pick: every string of up to three characters
    /// over an alphabet of safe and unsafe characters, plus keywords, numbers and dates.
    #[test]
    fn fast_path_agrees_with_the_general_rules() {
        let alphabet = [
            'a', 'Z', '0', '7', '-', '_', '.', '/', ':', '#', ' ', 'e', 'x', '+',
        ];
        let mut words: Vec<String> = vec![String::new()];
        for _ in 0..3 {
            let longer: Vec<String> = words
                .iter()
                .flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}")))
                .collect();
            words.extend(longer);
        }
        words.sort();
        words.dedup();
        for w in [
            "yes",
            "No",
            "on",
            "OFF",
            "y",
            "true",
            "null",
            "0x1F",
            "0o17",
            "1e3",
            "1_000",
            "2024-01-01",
            "12:30",
            "0777",
            ".inf",
            "-.5",
            "+1",
            "base-us-east1",
            "gcr.io/kpt-fn/set-labels:v0.2.0",
            "config.kubernetes.io/path",
            "a.b/c-d_e",
        ] {
            words.push(w.to_string());
        }
        for w in &words {
            assert_eq!(string_style(w), string_style_general(w), "{w:?}");
        }
    }

    /// `plain_ok` as it was written before its byte-at-a-time checks: substring searches and
    /// a walk over every character.
    fn plain_ok_by_chars(value: &str, flow: bool) -> bool {
        if value.is_empty() {
            return false;
        }
        let b = value.as_bytes();
        if starts_indicator(b[0]) {
            let safe_lead = matches!(b[0], b'-' | b'?' | b':')
                && b.len() > 1
                && !matches!(b[1], b' ' | b'\t')
                && !(flow && matches!(b[1], b',' | b'[' | b']' | b'{' | b'}'));
            if !safe_lead || value.starts_with("---") {
                return false;
            }
        }
        if value.starts_with("...")
            || value.starts_with([' ', '\t'])
            || value.ends_with([' ', '\t', ':'])
        {
            return false;
        }
        if value.contains(": ")
            || value.contains(" #")
            || value.contains(":\t")
            || value.contains("\t#")
        {
            return false;
        }
        if flow && (value.contains([',', '[', ']', '{', '}']) || value.contains(':')) {
            return false;
        }
        value.chars().all(|c| inline_ok(c) && c != '\t')
    }

    /// The byte-at-a-time checks of `single_ok` and `plain_ok` answer as the character walks
    /// and substring searches did: every string of up to four characters over an alphabet of
    /// ASCII, controls, line breaks and non-ASCII characters, and every character alone.
    #[test]
    fn byte_checks_agree_with_the_character_walks() {
        let alphabet = [
            'a', ':', ' ', '\t', '#', '-', '\n', '\u{7f}', '\u{1}', 'é', '\u{85}', '\u{feff}',
            '\u{2028}', '日',
        ];
        let mut words: Vec<String> = vec![String::new()];
        let mut last = words.clone();
        for _ in 0..4 {
            last = last
                .iter()
                .flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}")))
                .collect();
            words.extend(last.iter().cloned());
        }
        words.extend((0..=0x3000u32).filter_map(char::from_u32).map(String::from));
        words.extend(
            ["x\u{fffe}", "ab: c", "a #b", "héllo wörld: x", "a\u{10000}"].map(String::from),
        );
        for w in &words {
            assert_eq!(single_ok(w), w.chars().all(inline_ok), "{w:?}");
            for flow in [false, true] {
                assert_eq!(
                    plain_ok(w, flow),
                    plain_ok_by_chars(w, flow),
                    "{w:?} {flow}"
                );
            }
        }
    }
}
