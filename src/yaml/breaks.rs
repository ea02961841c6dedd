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

/// The first line break at or after `from`: where it starts and its length. Vector search
/// for LF and CR, then for the first bytes of the wide breaks before that.
#[inline]
pub fn next_break(b: &[u8], from: usize) -> Option<(usize, usize)> {
    let hay = b.get(from..)?;
    let classic = memchr::memchr2(b'\n', b'\r', hay).map(|i| from + i);
    let limit = classic.unwrap_or(b.len());
    let mut i = from;
    while let Some(j) = memchr::memchr2(0xC2, 0xE2, &b[i..limit]) {
        let at = i + j;
        let n = wide_len(b, at);
        if n > 0 {
            return Some((at, n));
        }
        i = at + 1;
    }
    classic.map(|at| (at, break_len(b, at)))
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

/// The end of the last line break in `s[from..pos]`, if there is one. Vector search, as
/// `rfind('\n')` was: the emitter asks for columns on long lines.
pub fn last_break_end(s: &str, from: usize, pos: usize) -> Option<usize> {
    let b = s.as_bytes();
    let hay = &b[from..pos];
    // The last LF, or CR not before an LF.
    let mut classic = None;
    let mut end = hay.len();
    while let Some(i) = memchr::memrchr2(b'\n', b'\r', &hay[..end]) {
        if hay[i] == b'\n' || b.get(from + i + 1) != Some(&b'\n') {
            classic = Some(i + 1);
            break;
        }
        end = i;
    }
    // A NEL, LS or PS after it (rare).
    let low = classic.unwrap_or(0);
    let mut end = hay.len();
    while let Some(i) = memchr::memrchr2(0xC2, 0xE2, &hay[low..end]) {
        let at = low + i;
        let n = wide_len(hay, at);
        if n > 0 {
            return Some(from + at + n);
        }
        end = at;
    }
    classic.map(|c| from + c)
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
