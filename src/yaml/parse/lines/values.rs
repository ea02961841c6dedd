//! The values the line scanner reads on a line: plain and quoted scalars, one-line flow
//! collections and the lines of a block scalar. Each gives up on what is not one of those
//! shapes, for the parser to read.

use super::{skip_spaces, Field, GiveUp, Lines, Role, Step, MAX_FLOW};
use crate::yaml::node::{ScalarStyle, Span};
use crate::yaml::parse::LINEAR_KEY_CHECK;

impl Lines<'_> {
    /// A value starting at `v` and ending its line (up to a comment), of the entry `key`:
    /// kept in the identity when `role` reads it.
    pub(super) fn value(&mut self, key: Span, v: usize, line_end: usize, role: Role) -> Step<()> {
        let after = match self.at(v) {
            b'\'' | b'"' => {
                let after = self.quoted(v, line_end)?;
                self.keep(
                    role,
                    key,
                    Span::new(v + 1, after - 1),
                    quote_style(self.b[v]),
                );
                after
            }
            b'|' | b'>' if role == Role::Skim => return self.block_scalar(v, line_end),
            b'[' | b'{' => {
                let pairs = match role {
                    Role::Skim => None,
                    Role::Pairs(field) if self.at(v) == b'{' => Some(field),
                    _ => return Err(GiveUp),
                };
                self.flow(v, line_end, 0, pairs)?
            }
            _ => {
                let end = self.plain(v, line_end)?;
                if matches!(role, Role::Metadata | Role::Pairs(_) | Role::Root) {
                    // A scalar where a mapping is read: a problem the parser's reading names.
                    return Err(GiveUp);
                }
                self.keep(role, key, Span::new(v, end), ScalarStyle::Plain);
                end
            }
        };
        self.line_rest(after, line_end)
    }

    /// A block scalar whose header is at `v` (`|` or `>`, with `-` or nothing after it), in the
    /// innermost open collection: its lines are read, and the line loop goes on after them.
    /// Lines of nothing but spaces give up (where they end the scalar, and whether one before
    /// its first text is refused, the parser decides), as do `+` and an indentation digit.
    fn block_scalar(&mut self, v: usize, line_end: usize) -> Step<()> {
        let n = self.open.last().ok_or(GiveUp)?.col;
        let mut h = v + 1;
        if self.at(h) == b'-' {
            h += 1;
        }
        if h < line_end && self.at(h) != b' ' {
            return Err(GiveUp);
        }
        self.line_rest(h, line_end)?;
        let mut indent = None;
        let mut last = line_end;
        let mut from = line_end;
        loop {
            if from >= self.b.len() || from + 1 >= self.b.len() {
                break;
            }
            let ls = from + 1;
            let j = skip_spaces(self.b, ls);
            let end = self.line(j)?;
            let spaces = j - ls;
            if j == end {
                if spaces > 0 {
                    return Err(GiveUp);
                }
                from = end;
                continue;
            }
            let ind = *indent.get_or_insert(spaces);
            if spaces <= n || spaces < ind {
                // The line after the scalar: the loop reads it.
                break;
            }
            self.done(end, ls);
            last = end;
            from = end;
        }
        self.resume = Some(last);
        Ok(())
    }

    /// After a value: white space, then a comment or the line's end.
    fn line_rest(&self, after: usize, line_end: usize) -> Step<()> {
        let j = skip_spaces(self.b, after);
        if j == line_end || (self.at(j) == b'#' && j > after) {
            return Ok(());
        }
        Err(GiveUp)
    }

    /// A plain scalar of a block value at `v`, on one line: where its text ends. Gives up on
    /// what may not start one, on `: ` inside it (a mapping the parser refuses here).
    fn plain(&self, v: usize, line_end: usize) -> Step<usize> {
        let c = self.at(v);
        match c {
            b'-' | b'?' | b':' if matches!(self.at(v + 1), b' ' | b'\n' | 0) => return Err(GiveUp),
            b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\''
            | b'"' | b'@' | b'`' | b'%' => return Err(GiveUp),
            _ => {}
        }
        // Only a `:` or a `#` can end the text before the line does.
        let mut j = v;
        let stop = loop {
            let Some(k) = memchr::memchr2(b':', b'#', &self.b[j..line_end]) else {
                break line_end;
            };
            let p = j + k;
            if self.b[p] == b':' {
                if matches!(self.at(p + 1), b' ' | b'\n' | 0) {
                    return Err(GiveUp);
                }
            } else if self.b[p - 1] == b' ' {
                break p;
            }
            j = p + 1;
        };
        let mut end = stop;
        while end > v && self.b[end - 1] == b' ' {
            end -= 1;
        }
        Ok(end)
    }

    /// A quoted scalar at `v` closed on its line, without escapes: its text, style and where
    /// it ends.
    fn quoted(&self, v: usize, line_end: usize) -> Step<usize> {
        let q = self.b[v];
        let mut j = v + 1;
        loop {
            let k = memchr::memchr2(q, b'\\', &self.b[j..line_end]).ok_or(GiveUp)?;
            j += k;
            if self.b[j] == b'\\' {
                if q == b'"' {
                    return Err(GiveUp);
                }
                j += 1;
                continue;
            }
            if q == b'\'' && self.at(j + 1) == b'\'' {
                j += 2;
                continue;
            }
            return Ok(j + 1);
        }
    }

    /// A flow collection at `v` closed on its line: where it ends. Its entries are plain or
    /// quoted scalars and flow collections; a mapping's keys are plain, each followed by `: `
    /// and a value. `pairs` keeps a mapping's entries (a mapping of scalars).
    fn flow(
        &mut self,
        v: usize,
        line_end: usize,
        depth: usize,
        pairs: Option<Field>,
    ) -> Step<usize> {
        if depth >= MAX_FLOW {
            return Err(GiveUp);
        }
        let map = self.b[v] == b'{';
        let close = if map { b'}' } else { b']' };
        // The keys so far (a flow mapping of more gives up).
        let mut keys = [Span::new(0, 0); LINEAR_KEY_CHECK];
        let mut n_keys = 0;
        let mut j = skip_spaces(self.b, v + 1);
        if self.at(j) == close {
            return Ok(j + 1);
        }
        loop {
            if j >= line_end {
                return Err(GiveUp);
            }
            let mut key = None;
            if map {
                let k_end = self.flow_plain(j, line_end)?;
                if self.at(k_end) != b':' || self.at(k_end + 1) != b' ' {
                    return Err(GiveUp);
                }
                let k = Span::new(j, k_end);
                let text = &self.b[j..k_end];
                if n_keys >= LINEAR_KEY_CHECK
                    || keys[..n_keys].iter().any(|k| &self.b[k.range()] == text)
                {
                    return Err(GiveUp);
                }
                keys[n_keys] = k;
                n_keys += 1;
                key = Some(k);
                j = skip_spaces(self.b, k_end + 1);
            }
            // The value (or the sequence's entry).
            let (value, style, after) = match self.at(j) {
                b'\'' | b'"' => {
                    let after = self.quoted(j, line_end)?;
                    (Span::new(j + 1, after - 1), quote_style(self.b[j]), after)
                }
                b'[' | b'{' => {
                    if pairs.is_some() {
                        return Err(GiveUp);
                    }
                    let after = self.flow(j, line_end, depth + 1, None)?;
                    (Span::new(j, after), ScalarStyle::Plain, after)
                }
                _ => {
                    let end = self.flow_plain(j, line_end)?;
                    if end == j {
                        return Err(GiveUp);
                    }
                    (Span::new(j, end), ScalarStyle::Plain, end)
                }
            };
            if let (Some(field), Some(key)) = (pairs, key) {
                self.keep(Role::Text(field), key, value, style);
            }
            j = skip_spaces(self.b, after);
            match self.at(j) {
                b',' => {
                    j = skip_spaces(self.b, j + 1);
                    if self.at(j) == close || self.at(j) == b',' {
                        // A trailing or an empty entry: the parser.
                        return Err(GiveUp);
                    }
                }
                c if c == close => return Ok(j + 1),
                _ => return Err(GiveUp),
            }
        }
    }

    /// A plain scalar inside a flow collection at `j`, of the bytes that need no thought
    /// there (no indicator, `:` or `#`): where its text ends (spaces after it excluded).
    fn flow_plain(&self, j: usize, line_end: usize) -> Step<usize> {
        let c = self.at(j);
        let starts = c.is_ascii_alphanumeric()
            || matches!(c, b'_' | b'.' | b'/')
            || (c == b'-' && (self.at(j + 1).is_ascii_alphanumeric() || self.at(j + 1) == b'-'));
        if !starts {
            return Err(GiveUp);
        }
        let mut end = j + 1;
        let mut k = j + 1;
        while k < line_end {
            let c = self.b[k];
            if c == b' ' {
                k += 1;
                continue;
            }
            if !(c.is_ascii_alphanumeric()
                || matches!(
                    c,
                    b'_' | b'.'
                        | b'/'
                        | b'-'
                        | b'='
                        | b'+'
                        | b'@'
                        | b'%'
                        | b'~'
                        | b'$'
                        | b'('
                        | b')'
                ))
            {
                break;
            }
            k += 1;
            end = k;
        }
        Ok(end)
    }
}

fn quote_style(quote: u8) -> ScalarStyle {
    if quote == b'"' {
        ScalarStyle::DoubleQuoted
    } else {
        ScalarStyle::SingleQuoted
    }
}
