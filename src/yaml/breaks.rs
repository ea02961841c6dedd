//! The line breaks kpt's reader (go-yaml v3, a port of libyaml) breaks lines on: line feed,
//! carriage return (alone or before a line feed), and YAML 1.1's NEL (U+0085), LINE SEPARATOR
//! (U+2028) and PARAGRAPH SEPARATOR (U+2029), which YAML 1.2 reads as ordinary characters.
//!
//! Why one place: kpt reads `name: a # c<U+2028>  namespace: b` as two lines, so a namespace
//! hidden after such a character is a namespace to kpt; every part of the function that finds
//! lines in the text (the parser, error positions, the emitter moving copied lines) asks here,
//! so that it finds the lines kpt finds.
//!
//! The three wide breaks start with bytes 0xC2 and 0xE2, which no ASCII character has: ASCII
//! text pays one comparison per byte it already looks at, never a second pass.

/// Bytes that may start or be a line break.
const MAY_BREAK: [bool; 256] = {
    let mut t = [false; 256];
    t[b'\n' as usize] = true;
    t[b'\r' as usize] = true;
    t[0xC2] = true;
    t[0xE2] = true;
    t
};

/// Length in bytes of the line break at `i` of `b` (2 for CRLF and NEL, 3 for LS and PS), or
/// 0 when none starts there.
#[inline]
pub fn break_len(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(b'\n') => 1,
        Some(b'\r') => 1 + usize::from(b.get(i + 1) == Some(&b'\n')),
        Some(0xC2 | 0xE2) => wide_len(b, i),
        _ => 0,
    }
}

/// Length of a NEL (2), LS or PS (3) at `i`, or 0.
#[inline]
pub fn wide_len(b: &[u8], i: usize) -> usize {
    match b.get(i..).unwrap_or_default() {
        [0xC2, 0x85, ..] => 2,
        [0xE2, 0x80, 0xA8 | 0xA9, ..] => 3,
        _ => 0,
    }
}

/// Whether `c` is one of go-yaml's line breaks that YAML 1.2 does not have.
pub fn is_wide(c: char) -> bool {
    matches!(c, '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// What a wide break is called in messages: `U+2028 LINE SEPARATOR`.
pub fn name(c: char) -> &'static str {
    match c {
        '\u{85}' => "U+0085 NEXT LINE (NEL)",
        '\u{2028}' => "U+2028 LINE SEPARATOR",
        '\u{2029}' => "U+2029 PARAGRAPH SEPARATOR",
        _ => "a line break",
    }
}

/// Whether `text` holds a line break of any kind.
pub fn has_break(text: &str) -> bool {
    next_break(text.as_bytes(), 0).is_some()
}

/// Whether `text` ends with a line break (of any kind).
pub fn ends_line(text: &str) -> bool {
    !text.is_empty() && ends_with_break(text.as_bytes(), text.len())
}

/// The first line break at or after `from`: where it starts and its length.
#[inline]
pub fn next_break(b: &[u8], from: usize) -> Option<(usize, usize)> {
    let mut i = from;
    while i < b.len() {
        if MAY_BREAK[b[i] as usize] {
            let n = break_len(b, i);
            if n > 0 {
                return Some((i, n));
            }
        }
        i += 1;
    }
    None
}

/// Whether the break ending just before `end` (exclusive) is one: `b[..end]` ends with a line
/// break. A carriage return before a line feed is not a break of its own.
fn ends_with_break(b: &[u8], end: usize) -> bool {
    match b[..end] {
        [.., b'\n'] => true,
        [.., b'\r'] => b.get(end) != Some(&b'\n'),
        [.., 0xC2, 0x85] | [.., 0xE2, 0x80, 0xA8 | 0xA9] => true,
        _ => false,
    }
}

/// Start of the line that holds `pos` in `s`: just after the last line break before it.
pub fn line_start(s: &str, pos: usize) -> usize {
    last_break_end(s, 0, pos).unwrap_or(0)
}

/// The end of the last line break in `s[from..pos]`, if there is one.
pub fn last_break_end(s: &str, from: usize, pos: usize) -> Option<usize> {
    let b = s.as_bytes();
    let lf = s[from..pos].rfind('\n').map(|i| from + i + 1);
    // A lone CR or a wide break after the last line feed (rare): the line starts after it.
    let mut i = pos;
    while i > lf.unwrap_or(from) {
        if matches!(b[i - 1], b'\r' | 0x85 | 0xA8 | 0xA9) && ends_with_break(b, i) {
            return Some(i);
        }
        i -= 1;
    }
    lf
}

/// The lines of `text`, each with the break that ends it (the last may have none), split at
/// every line break.
pub fn lines_inclusive(text: &str) -> LinesInclusive<'_> {
    LinesInclusive { text, at: 0 }
}

/// Iterator of [`lines_inclusive`].
pub struct LinesInclusive<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Iterator for LinesInclusive<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.at >= self.text.len() {
            return None;
        }
        let start = self.at;
        self.at = match next_break(self.text.as_bytes(), start) {
            Some((i, n)) => i + n,
            None => self.text.len(),
        };
        Some(&self.text[start..self.at])
    }
}

/// `line` without the line break that ends it.
pub fn trim_break(line: &str) -> &str {
    let b = line.as_bytes();
    for n in [2, 1, 3] {
        if b.len() >= n && break_len(b, b.len() - n) == n {
            return &line[..b.len() - n];
        }
    }
    line
}

/// Line and column (both from 1) of `pos` in `s`, counted as go-yaml counts them: every line
/// break ends a line, a column is a character.
pub fn position(s: &str, pos: usize) -> (usize, usize) {
    let pos = pos.min(s.len());
    let b = s.as_bytes();
    let mut line = 1;
    let mut ls = 0;
    let mut i = 0;
    while let Some((at, n)) = next_break(b, i) {
        if at >= pos {
            break;
        }
        line += 1;
        i = at + n;
        ls = i;
    }
    let ls = ls.min(pos);
    let column = s.get(ls..pos).map_or(pos - ls, |t| t.chars().count()) + 1;
    (line, column)
}

/// The first wide break in `text` and where it is, if any.
pub fn first_wide(text: &str) -> Option<(usize, char)> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if matches!(b[i], 0xC2 | 0xE2) && wide_len(b, i) > 0 {
            return text[i..].chars().next().map(|c| (i, c));
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests;
