//! Scalars: aliases, plain, single- and double-quoted (with escapes), and block scalars
//! (literal `|` and folded `>`, with chomping and indentation indicators).

use super::reader::{is_eol, is_flow_indicator, is_ws, is_ws_or_eol, utf8_len};
use super::{PResult, Parser};
use crate::yaml::node::{Kind, Node, Scalar, ScalarStyle, Span};

impl<'a> Parser<'a> {
    // ----- scalars ---------------------------------------------------------------------

    pub(super) fn parse_alias(&mut self) -> PResult<Node> {
        let start = self.pos;
        self.pos += 1;
        while !is_ws_or_eol(self.peek()) && !is_flow_indicator(self.peek()) {
            self.pos += 1;
        }
        if self.pos == start + 1 {
            return self.err("an alias needs a name");
        }
        let mut n = Node::with_kind(Kind::Alias(self.s[start + 1..self.pos].to_string()));
        n.src = Some(Span::new(start, self.pos));
        Ok(n)
    }

    /// Scans one line of a plain scalar from `from`: returns where its text ends (trailing
    /// white space excluded) and why it stopped.
    pub(super) fn scan_plain_line(&self, from: usize, flow: bool) -> (usize, Stop) {
        let b = self.b;
        let mut i = from;
        let mut end = from;
        loop {
            let c = b.get(i).copied().unwrap_or(0);
            if i >= b.len() || c == b'\n' || c == b'\r' {
                return (end, Stop::Eol);
            }
            if c == b':' {
                let n = b.get(i + 1).copied().unwrap_or(0);
                if is_ws_or_eol(n) || (flow && is_flow_indicator(n)) {
                    return (end, Stop::Colon);
                }
            }
            if flow && is_flow_indicator(c) {
                return (end, Stop::Flow);
            }
            if c == b'#' && i > from && is_ws(b[i - 1]) {
                return (end, Stop::Comment);
            }
            i += 1;
            if !is_ws(c) {
                end = i;
            }
        }
    }

    /// A plain scalar in block context, possibly continued on more-indented lines.
    pub(super) fn parse_plain_block(&mut self, parent: i64) -> PResult<Node> {
        let start = self.pos;
        let (end, stop) = self.scan_plain_line(self.pos, false);
        let mut value = String::from(&self.s[start..end]);
        let mut last_end = end;
        self.pos = end;
        if stop == Stop::Eol {
            // Look for continuation lines.
            loop {
                let save_pos = self.pos;
                let save_ls = self.ls;
                self.skip_inline_ws();
                if !self.eat_newline() {
                    self.pos = save_pos;
                    break;
                }
                let mut breaks = 0;
                loop {
                    self.skip_inline_ws();
                    if matches!(self.peek(), b'\n' | b'\r') {
                        self.eat_newline();
                        breaks += 1;
                        continue;
                    }
                    break;
                }
                let ind = self.col() as i64;
                let c = self.peek();
                if self.eof() || ind <= parent || c == b'#' || {
                    let p = self.pos;
                    self.pos = self.ls;
                    let m = self.at_doc_marker();
                    self.pos = p;
                    m
                } {
                    self.pos = save_pos;
                    self.ls = save_ls;
                    break;
                }
                let (e, st) = self.scan_plain_line(self.pos, false);
                if st == Stop::Colon {
                    return self.err("mapping values are not allowed here (check the indentation, or quote a value that contains ': ')");
                }
                if breaks == 0 {
                    value.push(' ');
                } else {
                    for _ in 0..breaks {
                        value.push('\n');
                    }
                }
                value.push_str(&self.s[self.pos..e]);
                self.pos = e;
                last_end = e;
                if st != Stop::Eol {
                    break;
                }
            }
        }
        self.pos = last_end;
        let mut n = Node::with_kind(Kind::Scalar(Scalar {
            value,
            style: ScalarStyle::Plain,
        }));
        n.src = Some(Span::new(start, last_end));
        Ok(n)
    }

    /// A single- or double-quoted scalar (may span lines).
    pub(super) fn parse_quoted(&mut self) -> PResult<Node> {
        let start = self.pos;
        let q = self.peek();
        self.pos += 1;
        let mut value = String::new();
        let mut seg_start = self.pos;
        loop {
            if self.eof() {
                return Err(self.error_at(start, "unterminated quoted scalar"));
            }
            let c = self.peek();
            if q == b'\'' && c == b'\'' {
                value.push_str(&self.s[seg_start..self.pos]);
                if self.peek_at(1) == b'\'' {
                    value.push('\'');
                    self.pos += 2;
                    seg_start = self.pos;
                    continue;
                }
                self.pos += 1;
                break;
            }
            if q == b'"' && c == b'"' {
                value.push_str(&self.s[seg_start..self.pos]);
                self.pos += 1;
                break;
            }
            if q == b'"' && c == b'\\' {
                value.push_str(&self.s[seg_start..self.pos]);
                self.pos += 1;
                self.parse_escape(&mut value)?;
                seg_start = self.pos;
                continue;
            }
            if c == b'\n' || c == b'\r' {
                // Fold: trailing white space of this line and leading of the next go away.
                let seg = &self.s[seg_start..self.pos];
                value.push_str(seg.trim_end_matches([' ', '\t']));
                self.eat_newline();
                let mut breaks = 0;
                loop {
                    self.skip_inline_ws();
                    if matches!(self.peek(), b'\n' | b'\r') {
                        self.eat_newline();
                        breaks += 1;
                    } else {
                        break;
                    }
                }
                if self.at_doc_marker() {
                    return Err(self.error_at(start, "unterminated quoted scalar"));
                }
                if breaks == 0 {
                    value.push(' ');
                } else {
                    for _ in 0..breaks {
                        value.push('\n');
                    }
                }
                seg_start = self.pos;
                continue;
            }
            self.pos += utf8_len(c);
        }
        let style = if q == b'"' {
            ScalarStyle::DoubleQuoted
        } else {
            ScalarStyle::SingleQuoted
        };
        let mut n = Node::with_kind(Kind::Scalar(Scalar { value, style }));
        n.src = Some(Span::new(start, self.pos));
        Ok(n)
    }

    pub(super) fn parse_escape(&mut self, out: &mut String) -> PResult<()> {
        let c = self.peek();
        self.pos += 1;
        let simple = match c {
            b'0' => Some('\0'),
            b'a' => Some('\x07'),
            b'b' => Some('\x08'),
            b't' | b'\t' => Some('\t'),
            b'n' => Some('\n'),
            b'v' => Some('\x0b'),
            b'f' => Some('\x0c'),
            b'r' => Some('\r'),
            b'e' => Some('\x1b'),
            b' ' => Some(' '),
            b'"' => Some('"'),
            b'/' => Some('/'),
            b'\\' => Some('\\'),
            b'N' => Some('\u{85}'),
            b'_' => Some('\u{a0}'),
            b'L' => Some('\u{2028}'),
            b'P' => Some('\u{2029}'),
            _ => None,
        };
        if let Some(ch) = simple {
            out.push(ch);
            return Ok(());
        }
        let digits = match c {
            b'x' => 2,
            b'u' => 4,
            b'U' => 8,
            b'\n' | b'\r' => {
                // Escaped line break: join without a space.
                self.pos -= 1;
                self.eat_newline();
                self.skip_inline_ws();
                return Ok(());
            }
            _ => {
                return Err(self.error_at(self.pos - 1, "invalid escape in a double-quoted scalar"))
            }
        };
        let hex = self
            .s
            .get(self.pos..self.pos + digits)
            .ok_or_else(|| self.error_at(self.pos, "truncated escape"))?;
        // Hex digits only: `from_str_radix` alone would also take a sign (`\x+1`).
        let v = Some(hex)
            .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()))
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .ok_or_else(|| self.error_at(self.pos, "invalid hexadecimal escape"))?;
        let ch = char::from_u32(v)
            .ok_or_else(|| self.error_at(self.pos, "escape is not a valid Unicode character"))?;
        out.push(ch);
        self.pos += digits;
        Ok(())
    }

    /// `|` or `>` block scalar; `parent` is the indentation of the enclosing collection.
    pub(super) fn parse_block_scalar(&mut self, parent: i64) -> PResult<Node> {
        let start = self.pos;
        let folded = self.peek() == b'>';
        self.pos += 1;
        let mut chomp = 0i8; // -1 strip, 0 clip, 1 keep
        let mut explicit: Option<usize> = None;
        for _ in 0..2 {
            match self.peek() {
                b'-' => chomp = -1,
                b'+' => chomp = 1,
                d @ b'1'..=b'9' => explicit = Some((d - b'0') as usize),
                _ => break,
            }
            self.pos += 1;
        }
        self.skip_inline_ws();
        if self.peek() == b'#' {
            self.skip_to_eol();
        }
        if !is_eol(self.peek()) {
            return self.err("unexpected text after a block scalar indicator");
        }
        let mut end = self.pos;
        let base = parent.max(0) as usize;
        let mut lines: Vec<&str> = Vec::new();
        if self.eat_newline() {
            let mut has_final_break = true;
            // Find the content indentation.
            let indent = match explicit {
                Some(d) => base + d - usize::from(parent < 0),
                None => {
                    let mut i = self.pos;
                    let mut found = None;
                    while i < self.b.len() {
                        let mut j = i;
                        while j < self.b.len() && self.b[j] == b' ' {
                            j += 1;
                        }
                        if j >= self.b.len() {
                            break;
                        }
                        if self.b[j] == b'\n' || self.b[j] == b'\r' {
                            i = j + 1;
                            if self.b[j] == b'\r' && self.b.get(j + 1) == Some(&b'\n') {
                                i += 1;
                            }
                            continue;
                        }
                        found = Some(j - i);
                        break;
                    }
                    match found {
                        Some(n) if n as i64 > parent => n,
                        _ => usize::MAX,
                    }
                }
            };
            // Collect lines.
            let mut last_content_end = None;
            // End of the last blank line: with keep chomping (`|+`), trailing blank lines are
            // content, so the node's source text must cover them.
            let mut last_blank_end = None;
            let mut pending_blank: Vec<&str> = Vec::new();
            loop {
                if self.eof() {
                    break;
                }
                let line_start = self.pos;
                let mut j = line_start;
                while j < self.b.len() && self.b[j] == b' ' {
                    j += 1;
                }
                let mut k = j;
                while k < self.b.len() && self.b[k] != b'\n' && self.b[k] != b'\r' {
                    k += 1;
                }
                let spaces = j - line_start;
                let blank = j == k;
                if !blank && (indent == usize::MAX || spaces < indent) {
                    break;
                }
                if indent == 0 && self.at_doc_marker() {
                    break;
                }
                let text = if blank {
                    if indent != usize::MAX && spaces > indent {
                        &self.s[line_start + indent..k]
                    } else {
                        ""
                    }
                } else {
                    &self.s[line_start + indent..k]
                };
                if blank && text.is_empty() {
                    pending_blank.push("");
                    last_blank_end = Some(k);
                } else {
                    lines.append(&mut pending_blank);
                    lines.push(text);
                    last_content_end = Some(k);
                }
                self.pos = k;
                if !self.eat_newline() {
                    has_final_break = false;
                    break;
                }
            }
            let trailing_blank = pending_blank.len();
            let keep_end = match (chomp, last_content_end, last_blank_end) {
                (1, Some(c), Some(b)) if trailing_blank > 0 && b > c => Some(b),
                _ => last_content_end,
            };
            match keep_end {
                Some(e) => {
                    end = e;
                    self.pos = e;
                    self.ls = self.s[..e].rfind('\n').map_or(0, |i| i + 1);
                    if e < self.b.len() {
                        has_final_break = true;
                    }
                }
                None => {
                    // No content: rewind to the end of the header line.
                    self.pos = end;
                    self.ls = self.s[..end].rfind('\n').map_or(0, |i| i + 1);
                }
            }
            let value = decode_block(&lines, folded, chomp, has_final_break, trailing_blank);
            let mut n = Node::with_kind(Kind::Scalar(Scalar {
                value,
                style: if folded {
                    ScalarStyle::Folded
                } else {
                    ScalarStyle::Literal
                },
            }));
            n.src = Some(Span::new(start, end));
            return Ok(n);
        }
        end = self.pos;
        let mut n = Node::with_kind(Kind::Scalar(Scalar {
            value: String::new(),
            style: if folded {
                ScalarStyle::Folded
            } else {
                ScalarStyle::Literal
            },
        }));
        n.src = Some(Span::new(start, end));
        Ok(n)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Stop {
    Eol,
    Colon,
    Comment,
    Flow,
}

/// Decodes the lines of a block scalar (indentation already removed).
pub(super) fn decode_block(
    lines: &[&str],
    folded: bool,
    chomp: i8,
    has_final_break: bool,
    trailing_blank: usize,
) -> String {
    let mut out = String::new();
    let mut leading_break = false;
    let mut leading_blank = false;
    let mut breaks = 0usize;
    let mut any = false;
    for line in lines {
        if line.is_empty() {
            breaks += 1;
            continue;
        }
        let trailing_blank_line = line.starts_with([' ', '\t']);
        if any {
            if folded && leading_break && !leading_blank && !trailing_blank_line {
                if breaks == 0 {
                    out.push(' ');
                }
            } else if leading_break {
                out.push('\n');
            }
        }
        for _ in 0..breaks {
            out.push('\n');
        }
        breaks = 0;
        out.push_str(line);
        leading_blank = trailing_blank_line;
        leading_break = true;
        any = true;
    }
    match chomp {
        -1 => {}
        0 => {
            if any && has_final_break {
                out.push('\n');
            }
        }
        _ => {
            if any && has_final_break {
                out.push('\n');
            }
            for _ in 0..(breaks + trailing_blank) {
                out.push('\n');
            }
        }
    }
    out
}
