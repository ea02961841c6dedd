//! Scalars and names: anchors, tags and aliases; plain scalars (one line or folded over
//! several) and single- and double-quoted scalars with their escapes.

use super::reader::{is_eol, is_flow_indicator, is_ws, is_ws_or_eol, utf8_len};
use super::{describe, PResult, Parser};
use crate::yaml::breaks::{next_break, wide_len};
use crate::yaml::node::{Kind, Node, Props, Scalar, ScalarStyle, ShortStr, Span};

/// Byte classes for [`Parser::scan_plain_line`]: every byte that may end or shape a plain
/// scalar's line; 0 for the rest.
const LINE_END: u8 = 1;
const COLON: u8 = 2;
const HASH: u8 = 4;
const WHITE: u8 = 8;
const FLOW: u8 = 16;
/// The first byte of a NEL, LS or PS, and of other characters: looked at further.
const WIDE: u8 = 32;
const ANY: u8 = LINE_END | COLON | HASH | WHITE | FLOW | WIDE;
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'\n' as usize] = LINE_END;
    t[b'\r' as usize] = LINE_END;
    t[b':' as usize] = COLON;
    t[b'#' as usize] = HASH;
    t[b' ' as usize] = WHITE;
    t[b'\t' as usize] = WHITE;
    t[b',' as usize] = FLOW;
    t[b'[' as usize] = FLOW;
    t[b']' as usize] = FLOW;
    t[b'{' as usize] = FLOW;
    t[b'}' as usize] = FLOW;
    t[0xC2] = WIDE;
    t[0xE2] = WIDE;
    t
};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Stop {
    Eol,
    Colon,
    Comment,
    Flow,
}

impl<'a> Parser<'a> {
    /// `&anchor` and `!tag` before a node, each at most once, each followed by white space
    /// (or, in a flow collection, by the indicator that ends the node).
    // Before every node: the common case, no property, is one comparison where it is called.
    #[inline(always)]
    pub(super) fn parse_props(&mut self, flow: bool) -> PResult<Option<Box<Props>>> {
        if !matches!(self.peek(), b'&' | b'!') {
            return Ok(None);
        }
        self.parse_some_props(flow)
    }

    fn parse_some_props(&mut self, flow: bool) -> PResult<Option<Box<Props>>> {
        let mut props: Option<Box<Props>> = None;
        loop {
            let start = self.pos;
            match self.peek() {
                b'&' => {
                    self.pos += 1;
                    self.skip_name();
                    if self.pos == start + 1 {
                        return self.err("an anchor needs a name after '&'");
                    }
                    self.skim.anchor |= self.skim.on;
                    let p = props.get_or_insert_with(Default::default);
                    if p.anchor.is_some() {
                        return Err(self.error_at(start, "a node cannot have two anchors"));
                    }
                    let name = &self.s[start + 1..self.pos];
                    self.anchors.insert(name);
                    p.anchor = Some(name.to_string());
                }
                b'!' => {
                    self.parse_tag()?;
                    let p = props.get_or_insert_with(Default::default);
                    if p.tag.is_some() {
                        return Err(self.error_at(start, "a node cannot have two tags"));
                    }
                    p.tag = Some(self.s[start..self.pos].to_string());
                }
                _ => return Ok(props),
            }
            let c = self.peek();
            if !(is_ws_or_eol(c) || (flow && is_flow_indicator(c))) {
                return self.err(format!(
                    "unexpected {} after an anchor or tag; separate them with a space",
                    describe(self.s, self.pos)
                ));
            }
            self.skip_inline_ws();
        }
    }

    /// Skips an anchor or alias name: anything up to white space or a flow indicator.
    fn skip_name(&mut self) {
        while !is_ws_or_eol(self.peek()) && !is_flow_indicator(self.peek()) {
            self.pos += 1;
        }
    }

    /// `!<verbatim>`, `!local`, `!!core` or `!` at `pos`. A named handle (`!e!foo`) would need a
    /// `%TAG` directive, which is not supported.
    fn parse_tag(&mut self) -> PResult<()> {
        let start = self.pos;
        if self.peek_at(1) == b'<' {
            while self.peek() != b'>' && !is_eol(self.peek()) {
                self.pos += 1;
            }
            if self.peek() != b'>' || self.pos == start + 2 {
                return Err(self.error_at(start, "unterminated or empty verbatim tag (!<...>)"));
            }
            self.pos += 1;
            return Ok(());
        }
        self.pos += 1;
        while !is_ws_or_eol(self.peek()) && !is_flow_indicator(self.peek()) {
            self.pos += 1;
        }
        let text = &self.s[start..self.pos];
        if let Some(i) = text[1..].find('!') {
            if i > 0 {
                return Err(self.error_at(
                    start,
                    format!(
                        "the tag handle {} is not defined: named tag handles need a %TAG directive, which is not supported; write the tag in full (!<...>)",
                        &text[..i + 2]
                    ),
                ));
            }
        }
        Ok(())
    }

    pub(super) fn parse_alias(&mut self) -> PResult<Node> {
        let start = self.pos;
        self.pos += 1;
        self.skip_name();
        if self.pos == start + 1 {
            return self.err("an alias needs a name after '*'");
        }
        let name = &self.s[start + 1..self.pos];
        if !self.anchors.contains(name) {
            if self.record_dangling {
                self.dangling.get_or_insert(start);
            } else {
                return Err(self.error_at(
                    start,
                    format!(
                        "the alias *{name} has no anchor &{name} before it; write the value \
                         itself, or put &{name} on a node before the alias"
                    ),
                ));
            }
        }
        let mut n = Node::with_kind(Kind::Alias(name.into()));
        n.set_src(Some(Span::new(start, self.pos)));
        Ok(n)
    }

    /// Refuses a plain scalar that would start with an indicator (`-`, `?` and `:` only start
    /// one when followed by a character that is not a space or, in flow, an indicator).
    #[inline]
    pub(super) fn check_plain_start(&self, flow: bool) -> PResult<()> {
        let c = self.peek();
        let bad = match c {
            b'-' | b'?' | b':' => {
                let n = self.peek_at(1);
                is_ws_or_eol(n) || (flow && is_flow_indicator(n))
            }
            b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\''
            | b'"' | b'@' | b'`' | b'%' => true,
            _ => false,
        };
        if bad {
            return self.bad_plain_start();
        }
        Ok(())
    }

    /// The error of [`Parser::check_plain_start`], out of line: the check runs before every
    /// plain scalar.
    #[cold]
    fn bad_plain_start(&self) -> PResult<()> {
        if self.peek() == b'%' {
            return self.err("a directive ('%') may only come before a document's '---'");
        }
        self.err(format!(
            "{} cannot start a plain scalar; quote the value",
            describe(self.s, self.pos)
        ))
    }

    /// Scans one line of a plain scalar from `from`: returns where its text ends (trailing
    /// white space excluded) and why it stopped.
    pub(super) fn scan_plain_line(&self, from: usize, flow: bool) -> (usize, Stop) {
        let b = self.b;
        let mask = if flow { ANY } else { ANY & !FLOW };
        let mut i = from;
        let mut end = from;
        loop {
            // Ordinary bytes, the most of any scalar, one table lookup each: four at a time
            // while all four are ordinary, then one at a time.
            let run = i;
            while let Some(&[c0, c1, c2, c3]) = b.get(i..i + 4) {
                let classes = CLASS[c0 as usize]
                    | CLASS[c1 as usize]
                    | CLASS[c2 as usize]
                    | CLASS[c3 as usize];
                if classes & mask != 0 {
                    break;
                }
                i += 4;
            }
            while i < b.len() && CLASS[b[i] as usize] & mask == 0 {
                i += 1;
            }
            if i > run {
                end = i;
            }
            let Some(&c) = b.get(i) else {
                return (end, Stop::Eol);
            };
            match CLASS[c as usize] & mask {
                LINE_END => return (end, Stop::Eol),
                COLON => {
                    let n = b.get(i + 1).copied().unwrap_or(0);
                    if is_ws_or_eol(n) || (flow && is_flow_indicator(n)) || wide_len(b, i + 1) > 0 {
                        return (end, Stop::Colon);
                    }
                    i += 1;
                    end = i;
                }
                HASH => {
                    if i > from && is_ws(b[i - 1]) {
                        return (end, Stop::Comment);
                    }
                    i += 1;
                    end = i;
                }
                WHITE => i += 1,
                WIDE => {
                    if wide_len(b, i) > 0 {
                        return (end, Stop::Eol);
                    }
                    i += 1;
                    end = i;
                }
                _ => return (end, Stop::Flow),
            }
        }
    }

    /// A plain scalar node for `start..end`.
    pub(super) fn plain_node(&self, start: usize, end: usize, value: impl Into<ShortStr>) -> Node {
        let mut n = Node::with_kind(Kind::Scalar(Scalar {
            value: value.into(),
            style: ScalarStyle::Plain,
        }));
        n.set_src(Some(Span::new(start, end)));
        n
    }

    /// A plain scalar in block context, possibly continued on lines indented more than `n`.
    /// `first`: [`Parser::scan_plain_line`] of its first line, when already done.
    pub(super) fn parse_plain_block(
        &mut self,
        n: i64,
        first: Option<(usize, Stop)>,
    ) -> PResult<Node> {
        let start = self.pos;
        let (end, stop) = first.unwrap_or_else(|| self.scan_plain_line(self.pos, false));
        // Built only for a scalar continued on more lines: most are one line, written as is.
        let mut value: Option<String> = None;
        let mut last_end = end;
        self.pos = end;
        if stop == Stop::Eol {
            loop {
                let save = (self.pos, self.ls);
                let Some(breaks) = self.next_continuation_line() else {
                    break;
                };
                if self.eof()
                    || (self.indent() as i64) <= n
                    || self.peek() == b'#'
                    || self.line_is_doc_marker()
                {
                    (self.pos, self.ls) = save;
                    break;
                }
                let (e, st) = self.scan_plain_line(self.pos, false);
                if st == Stop::Colon {
                    return self.err("mapping values are not allowed here (check the indentation, or quote a value that contains ': ')");
                }
                let text = value.get_or_insert_with(|| self.s[start..end].to_string());
                self.fold(text, breaks);
                text.push_str(&self.s[self.pos..e]);
                self.pos = e;
                last_end = e;
                if st != Stop::Eol {
                    break;
                }
            }
        }
        self.pos = last_end;
        Ok(match value {
            Some(text) => self.plain_node(start, last_end, text),
            None => self.plain_node(start, last_end, &self.s[start..end]),
        })
    }

    /// From the end of a line's text: moves to the first content of the next line that has
    /// any and returns the line breaks in between, or `None` (position unchanged) when the line
    /// does not end here.
    pub(super) fn next_continuation_line(&mut self) -> Option<Breaks> {
        let save = self.pos;
        self.skip_inline_ws();
        let from = self.pos;
        if !self.eat_newline() {
            self.pos = save;
            return None;
        }
        let mut blank = 0;
        loop {
            self.skip_inline_ws();
            if matches!(self.peek(), b'\n' | b'\r') {
                self.eat_newline();
                blank += 1;
                continue;
            }
            return Some(Breaks {
                blank,
                from,
                to: self.pos,
            });
        }
    }

    /// Joins the next line of a flow scalar to `value`: [`fold`], or go-yaml's folding when
    /// a NEL, LS or PS is among the breaks (only line feeds fold; LS and PS stay as they are).
    pub(super) fn fold(&self, value: &mut String, br: Breaks) {
        let between = &self.b[br.from..br.to];
        if between.iter().all(|&c| c < 0x80) {
            return fold(value, br.blank);
        }
        let mut breaks = Vec::new();
        let mut i = 0;
        while let Some((at, n)) = next_break(between, i) {
            breaks.push(if n == 3 {
                self.s[br.from + at..].chars().next().unwrap_or('\n')
            } else {
                '\n'
            });
            i = at + n;
        }
        match breaks.split_first() {
            Some(('\n', [])) => value.push(' '),
            Some(('\n', rest)) => value.extend(rest),
            _ => value.extend(breaks),
        }
    }

    /// A single- or double-quoted scalar (may span lines indented more than `n`).
    pub(super) fn parse_quoted(&mut self, n: i64) -> PResult<Node> {
        let start = self.pos;
        let q = self.peek();
        self.pos += 1;
        let mut value = String::new();
        let mut seg_start = self.pos;
        loop {
            // Bytes that are the text itself, the most of any quoted scalar: each byte below
            // 0xC2 is a whole character that is neither a quote, an escape nor a line break.
            while let Some(&c) = self.b.get(self.pos) {
                if c == q || c == b'\\' || c == b'\n' || c == b'\r' || c >= 0xC2 {
                    break;
                }
                self.pos += 1;
            }
            if self.eof() {
                return Err(self.error_at(start, "unterminated quoted scalar"));
            }
            let c = self.peek();
            if q == b'\'' && c == b'\'' {
                if self.peek_at(1) == b'\'' {
                    value.push_str(&self.s[seg_start..self.pos]);
                    value.push('\'');
                    self.pos += 2;
                    seg_start = self.pos;
                    continue;
                }
                self.pos += 1;
                break;
            }
            if q == b'"' && c == b'"' {
                self.pos += 1;
                break;
            }
            if q == b'"' && c == b'\\' {
                value.push_str(&self.s[seg_start..self.pos]);
                self.pos += 1;
                self.parse_escape(&mut value, n, start)?;
                seg_start = self.pos;
                continue;
            }
            if c == b'\n' || c == b'\r' {
                // Fold: trailing white space of this line and leading of the next go away.
                let seg = &self.s[seg_start..self.pos];
                value.push_str(seg.trim_end_matches([' ', '\t']));
                let breaks = self.next_continuation_line();
                self.quoted_line(n, start)?;
                if let Some(b) = breaks {
                    self.fold(&mut value, b);
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
        // The text is what was pushed, then the last segment: without escapes or folds, that
        // segment alone, taken without building a `String`.
        let close = self.pos - 1;
        let value = if value.is_empty() {
            ShortStr::from(&self.s[seg_start..close])
        } else {
            value.push_str(&self.s[seg_start..close]);
            value.into()
        };
        let mut n = Node::with_kind(Kind::Scalar(Scalar { value, style }));
        n.set_src(Some(Span::new(start, self.pos)));
        Ok(n)
    }

    /// At the first content of a continuation line of the quoted scalar at `start`.
    fn quoted_line(&self, n: i64, start: usize) -> PResult<()> {
        if self.eof() || self.line_is_doc_marker() {
            return Err(self.error_at(start, "unterminated quoted scalar"));
        }
        self.check_continuation(n, "a quoted scalar")
    }

    fn parse_escape(&mut self, out: &mut String, n: i64, start: usize) -> PResult<()> {
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
                // An escaped line break: the lines join without a space; blank lines after it
                // are line feeds.
                self.pos -= 1;
                self.eat_newline();
                loop {
                    self.skip_inline_ws();
                    let Some(c) = self.eat_break_char() else {
                        break;
                    };
                    out.push(c);
                }
                return self.quoted_line(n, start);
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
}

/// The line breaks between two lines of a flow scalar, from [`Parser::next_continuation_line`].
#[derive(Clone, Copy)]
pub(super) struct Breaks {
    /// Blank lines between (one fewer than the breaks).
    blank: usize,
    /// From the first break to the next line's content.
    from: usize,
    to: usize,
}

/// Line folding between two lines of a flow scalar: one break is a space, more are kept as
/// line feeds (one fewer than there were breaks).
fn fold(value: &mut String, blank_lines: usize) {
    if blank_lines == 0 {
        value.push(' ');
    } else {
        for _ in 0..blank_lines {
            value.push('\n');
        }
    }
}
