//! RE2's syntax, as cel-go's `matches` reads it (Go's `regexp`), checked as Go checks it and
//! written in the `regex` crate's syntax with the same meaning. The crate's parser is never
//! the judge of a pattern: it takes patterns Go refuses (`a**`, `a{1001}`, `\p{greek}`,
//! `\u0041`) and refuses patterns Go takes (`x{foo}`, `a{,3}`, `\p{^Greek}`, `\x{D800}`), so
//! every pattern is read here by Go's rules and written out in a form the crate reads alike:
//! - a `{` that does not start a valid count (`{2}`, `{2,}`, `{2,5}`, no leading zero) is a
//!   character; counts above 1000, and nested counts whose product is above 1000, are refused,
//!   and so is a repetition of a repetition (`a**`, `a{2}{3}`, `a*??`);
//! - `\d`, `\w`, `\s`, `\b` and `\B` are ASCII in RE2 (`\s` is `[\t\n\f\r ]`): written out as
//!   ASCII classes and assertions; `\p{..}` takes only Go's exact names (categories, scripts,
//!   `Any`; `^` negates), and `\p{C}` is Go's (without unassigned code points);
//! - every character is written as a literal the crate cannot read otherwise (ASCII
//!   punctuation as hex escapes), so `\<`, `&&`, `--`, `~~` and `[` in a class stay characters;
//!   octal, `\x{..}` and `\Q...\E` become those literals; a surrogate (`\x{D800}`, which no
//!   string holds) becomes a class that matches nothing;
//! - group names are checked as Go checks them (ASCII word characters, repeats allowed) and
//!   the groups written unnamed (`matches` reads no group); flags are Go's four (i, m, s, U).
//!
//! Go's limits are kept: at most [`MAX_REPEAT`] for a count, [`MAX_GROUP_DEPTH`] groups open at
//! once. tests/re2_differential.rs runs generated and hand-picked patterns through Go itself.

/// Go's largest count (`{1000}`), and the largest product of counts nested in one another.
pub(super) const MAX_REPEAT: u32 = 1000;
/// Go refuses an expression nested this deep ("expression nests too deeply"): 999 groups
/// inside one another are taken, 1000 are not.
pub(super) const MAX_GROUP_DEPTH: usize = 1000;

mod classes;
#[cfg(test)]
mod tests;

use classes::{class, class_char, perl_class, push_char, unicode_class, NextClose};

/// The pattern `pattern` (RE2 syntax) in the `regex` crate's syntax, or why Go refuses it.
pub(super) fn to_regex_syntax(pattern: &str) -> Result<String, String> {
    Translation::new(pattern).run()
}

/// The last item of a group, which a repetition applies to: its weight (the largest product
/// of the counts nested in it, as Go weighs them), and whether it is itself a repetition.
struct Operand {
    weight: u32,
    repeated: bool,
}

/// An open group: the heaviest of its finished items, and its last one.
#[derive(Default)]
struct Frame {
    done: u32,
    last: Option<Operand>,
    /// Where the group started in the pattern, for a message.
    at: usize,
}

impl Frame {
    fn push(&mut self, weight: u32) {
        self.fold();
        self.last = Some(Operand {
            weight,
            repeated: false,
        });
    }

    fn fold(&mut self) {
        if let Some(l) = self.last.take() {
            self.done = self.done.max(l.weight);
        }
    }

    fn weight(&self) -> u32 {
        self.done.max(self.last.as_ref().map_or(1, |l| l.weight))
    }
}

struct Translation<'p> {
    pattern: &'p str,
    out: String,
    stack: Vec<Frame>,
    /// Flags read but not yet written: written before the next item, so that a repetition
    /// that follows them (Go applies `a(?i)*` to `a`) is written right after its operand.
    flags: String,
    closes: NextClose,
}

impl<'p> Translation<'p> {
    fn new(pattern: &'p str) -> Self {
        Translation {
            pattern,
            out: String::with_capacity(pattern.len() + 16),
            stack: vec![Frame::default()],
            flags: String::new(),
            closes: NextClose::default(),
        }
    }

    /// Why Go refuses the pattern, `what` found at byte `at` (`len` bytes of it).
    fn refuse(&self, what: &str, at: usize, len: usize) -> String {
        refusal(self.pattern, what, at, len)
    }

    fn frame(&mut self) -> &mut Frame {
        // The outermost frame is never popped: `)` without a group is refused first.
        let last = self.stack.len() - 1;
        &mut self.stack[last]
    }

    /// Writes an item that a repetition may follow.
    fn operand(&mut self, text: &str, weight: u32) {
        self.out.push_str(&self.flags);
        self.flags.clear();
        self.out.push_str(text);
        self.frame().push(weight);
    }

    fn literal(&mut self, c: u32) {
        let mut text = String::new();
        push_char(&mut text, c);
        self.operand(&text, 1);
    }

    fn run(mut self) -> Result<String, String> {
        let pattern = self.pattern;
        let mut i = 0;
        // Where the previous item started, when it was a repetition.
        let mut last_repeat: Option<usize> = None;
        while let Some(c) = pattern[i..].chars().next() {
            let rest = &pattern[i..];
            let mut repeat = None;
            match c {
                '(' if rest.starts_with("(?") => i += self.perl_group(i)?,
                '(' => {
                    self.open(i, "(")?;
                    i += 1;
                }
                ')' => {
                    self.close(i)?;
                    i += 1;
                }
                '|' => {
                    self.out.push_str(&self.flags);
                    self.flags.clear();
                    self.out.push('|');
                    self.frame().fold();
                    i += 1;
                }
                '*' | '+' | '?' => {
                    let (min, max) = match c {
                        '*' => (0, -1),
                        '+' => (1, -1),
                        _ => (0, 1),
                    };
                    let start = i;
                    i = self.repeat(i, i + 1, min, max, last_repeat)?;
                    repeat = Some(start);
                }
                '{' => match count(rest) {
                    Some((min, max, len)) => {
                        let start = i;
                        i = self.repeat(i, i + len, min, max, last_repeat)?;
                        repeat = Some(start);
                    }
                    None => {
                        self.literal('{' as u32);
                        i += 1;
                    }
                },
                '[' => {
                    let (text, len) = class(self.pattern, i, &mut self.closes)?;
                    self.operand(&text, 1);
                    i += len;
                }
                '\\' => i += self.escape(i)?,
                '.' | '^' | '$' => {
                    self.operand(&c.to_string(), 1);
                    i += 1;
                }
                _ => {
                    self.literal(c as u32);
                    i += c.len_utf8();
                }
            }
            last_repeat = repeat;
        }
        if self.stack.len() > 1 {
            let at = self.stack[self.stack.len() - 1].at;
            return Err(self.refuse("missing closing )", at, 1));
        }
        self.out.push_str(&self.flags);
        Ok(self.out)
    }

    fn open(&mut self, at: usize, text: &str) -> Result<(), String> {
        if self.stack.len() >= MAX_GROUP_DEPTH {
            return Err(self.refuse("expression nests too deeply", at, 1));
        }
        self.out.push_str(&self.flags);
        self.flags.clear();
        self.out.push_str(text);
        self.stack.push(Frame {
            at,
            ..Frame::default()
        });
        Ok(())
    }

    fn close(&mut self, at: usize) -> Result<(), String> {
        if self.stack.len() == 1 {
            return Err(self.refuse("unexpected )", at, 1));
        }
        let Some(group) = self.stack.pop() else {
            return Err(self.refuse("unexpected )", at, 1));
        };
        // Flags set inside a group end with it.
        self.flags.clear();
        self.out.push(')');
        self.frame().push(group.weight());
        Ok(())
    }

    /// A repetition `pattern[at..end]` (`min`, `max`; -1 for none), with a `?` after it making
    /// it lazy; the byte after it.
    fn repeat(
        &mut self,
        at: usize,
        mut end: usize,
        min: i64,
        max: i64,
        last_repeat: Option<usize>,
    ) -> Result<usize, String> {
        let counted = self.pattern.as_bytes()[at] == b'{';
        if counted
            && (min > i64::from(MAX_REPEAT)
                || max > i64::from(MAX_REPEAT)
                || (max >= 0 && min > max))
        {
            return Err(self.refuse("invalid repeat count", at, end - at));
        }
        let lazy = self.pattern[end..].starts_with('?');
        if lazy {
            end += 1;
        }
        if let Some(before) = last_repeat {
            return Err(self.refuse("invalid nested repetition operator", before, end - before));
        }
        let Some(operand) = self.frame().last.as_ref() else {
            return Err(self.refuse("missing argument to repetition operator", at, end - at));
        };
        let factor = if max < 0 { min } else { max };
        let weight = match (max, factor) {
            (0, _) => 1,
            (_, 0) => operand.weight,
            _ => u32::try_from(factor)
                .unwrap_or(u32::MAX)
                .saturating_mul(operand.weight),
        };
        if counted && (min >= 2 || max >= 2) && weight > MAX_REPEAT {
            return Err(self.refuse("invalid repeat count", at, end - at));
        }
        // A repetition of a repetition (after flags: Go reads `a*(?i)?` as `(a*)?`) is written
        // with a count, which the crate reads as nested, not as lazy.
        let text = match (operand.repeated, min, max) {
            (false, 0, -1) => "*".to_string(),
            (false, 1, -1) => "+".to_string(),
            (false, 0, 1) if !counted => "?".to_string(),
            (_, min, -1) => format!("{{{min},}}"),
            (_, min, max) => format!("{{{min},{max}}}"),
        };
        self.out.push_str(&text);
        if lazy {
            self.out.push('?');
        }
        self.frame().last = Some(Operand {
            weight,
            repeated: true,
        });
        Ok(end)
    }

    /// `(?` at `at`: a named group, flags, or a group with flags; the bytes it took.
    fn perl_group(&mut self, at: usize) -> Result<usize, String> {
        let rest = &self.pattern[at..];
        if rest.len() > 4 && rest[2..].starts_with("P<") {
            let Some(end) = rest.find('>') else {
                return Err(self.refuse("invalid named capture", at, rest.len()));
            };
            let name = &rest[4..end];
            if name.is_empty() || !name.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric()) {
                return Err(self.refuse("invalid named capture", at, end + 1));
            }
            self.open(at, "(")?;
            return Ok(end + 1);
        }
        // Go's flags: the last of `i`, `m`, `s`, `U` or `-x` for each wins.
        let mut state: Vec<(char, bool)> = Vec::new();
        let mut negated = false;
        let mut saw_flag = false;
        for (j, f) in rest.char_indices().skip(2) {
            match f {
                'i' | 'm' | 's' | 'U' => {
                    state.retain(|(g, _)| *g != f);
                    state.push((f, !negated));
                    saw_flag = true;
                }
                '-' if !negated => {
                    negated = true;
                    saw_flag = false;
                }
                ':' | ')' if !negated || saw_flag => {
                    let on: String = state.iter().filter(|s| s.1).map(|s| s.0).collect();
                    let off: String = state.iter().filter(|s| !s.1).map(|s| s.0).collect();
                    let mut flags = on;
                    if !off.is_empty() {
                        flags.push('-');
                        flags.push_str(&off);
                    }
                    if f == ':' {
                        self.open(at, &format!("(?{flags}:"))?;
                    } else if !flags.is_empty() {
                        self.flags.push_str(&format!("(?{flags})"));
                    }
                    return Ok(j + 1);
                }
                _ => {
                    let why = if matches!(f, 'x' | 'u' | 'R') {
                        format!(
                            "invalid or unsupported Perl syntax (flag `{f}` is not RE2 syntax: \
                             cel-go accepts only the flags i, m, s and U)"
                        )
                    } else {
                        "invalid or unsupported Perl syntax".to_string()
                    };
                    return Err(self.refuse(&why, at, j + f.len_utf8()));
                }
            }
        }
        Err(self.refuse("invalid or unsupported Perl syntax", at, rest.len()))
    }

    /// The escape at `at` (its `\`), outside a class; the bytes it took.
    fn escape(&mut self, at: usize) -> Result<usize, String> {
        let text = &self.pattern[at..];
        let Some(e) = text[1..].chars().next() else {
            return Err(self.refuse("trailing backslash at end of expression", at, 1));
        };
        if let Some(class) = perl_class(e) {
            self.operand(class.outside, 1);
            return Ok(2);
        }
        match e {
            'A' | 'z' => self.operand(&text[..2], 1),
            'b' => self.operand("(?-u:\\b)", 1),
            'B' => self.operand("(?-u:\\B)", 1),
            'Q' => {
                let rest = &text[2..];
                let (quoted, skip) = match rest.find("\\E") {
                    Some(end) => (&rest[..end], end + 2),
                    None => (rest, rest.len()),
                };
                quoted.chars().for_each(|q| self.literal(q as u32));
                return Ok(2 + skip);
            }
            'p' | 'P' => {
                let (class, len) = unicode_class(self.pattern, at)?;
                self.operand(&class, 1);
                return Ok(len);
            }
            _ => {
                let (c, len) = class_char(self.pattern, at)?;
                self.literal(c);
                return Ok(len);
            }
        }
        Ok(2)
    }
}

/// Go's count `{n}`, `{n,}` or `{n,m}` at the start of `text`: (min, max or -1, bytes). Not
/// a count (a `{` that is a character): `None`. Numbers with a leading zero are not counts;
/// a huge one is kept huge (refused as a count).
fn count(text: &str) -> Option<(i64, i64, usize)> {
    let bytes = text.as_bytes();
    let number = |from: usize| -> Option<(i64, usize)> {
        let digits = bytes[from..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 || (digits > 1 && bytes[from] == b'0') {
            return None;
        }
        let value = bytes[from..from + digits].iter().fold(0i64, |v, d| {
            v.saturating_mul(10).saturating_add(i64::from(d - b'0'))
        });
        Some((value.min(1 << 40), from + digits))
    };
    let (min, mut i) = number(1)?;
    let max = match bytes.get(i) {
        Some(b',') if bytes.get(i + 1) == Some(&b'}') => {
            i += 1;
            -1
        }
        Some(b',') => {
            let (max, j) = number(i + 1)?;
            i = j;
            max
        }
        _ => min,
    };
    (bytes.get(i) == Some(&b'}')).then_some((min, max, i + 1))
}

/// Why Go refuses `pattern`: `what`, and the `len` bytes at `at` it concerns (quoted whole in
/// a short pattern, by a window and its position in a long one).
fn refusal(pattern: &str, what: &str, at: usize, len: usize) -> String {
    const MAX_QUOTED: usize = 256;
    let end = (at + len).min(pattern.len());
    if pattern.len() <= MAX_QUOTED {
        return format!(
            "invalid regular expression: {what}: `{}`",
            &pattern[at..end]
        );
    }
    format!(
        "invalid regular expression: {what} at byte {at} of the {} bytes of the pattern, near \
         {:?}",
        pattern.len(),
        near(pattern, at)
    )
}

/// The bytes of a long pattern around byte `at` (30 either side, on character boundaries),
/// quoted in a message instead of the whole pattern.
pub(super) fn near(pattern: &str, at: usize) -> &str {
    let (mut from, mut to) = (at.saturating_sub(30), (at + 30).min(pattern.len()));
    while !pattern.is_char_boundary(from) {
        from -= 1;
    }
    while !pattern.is_char_boundary(to) {
        to += 1;
    }
    &pattern[from..to]
}
