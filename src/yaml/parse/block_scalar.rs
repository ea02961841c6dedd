//! Block scalars: literal `|` and folded `>`, with chomping (`-`, `+`) and indentation
//! indicators. The value is decoded line by line as it is read, never held as a list of lines.

use super::reader::{is_eol, is_ws_or_eol};
use super::{describe, PResult, Parser};
use crate::yaml::node::{Kind, Node, Scalar, ScalarStyle, Span};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Chomp {
    Strip,
    Clip,
    Keep,
}

/// The decoded value, built one line at a time (YAML's line folding and chomping).
struct Decoder {
    out: String,
    folded: bool,
    /// Empty lines since the last line of text.
    empty: usize,
    /// Whether the last line of text was more indented (starts with white space), once there
    /// is one.
    last: Option<bool>,
}

impl Decoder {
    fn text(&mut self, text: &str) {
        let more = text.starts_with([' ', '\t']);
        match self.last {
            Some(false) if self.folded && !more => {
                if self.empty == 0 {
                    self.out.push(' ');
                }
                self.breaks(self.empty);
            }
            Some(_) => self.breaks(self.empty + 1),
            None => self.breaks(self.empty),
        }
        self.out.push_str(text);
        self.last = Some(more);
        self.empty = 0;
    }

    fn breaks(&mut self, n: usize) {
        for _ in 0..n {
            self.out.push('\n');
        }
    }

    fn finish(mut self, chomp: Chomp) -> String {
        let text = self.last.is_some();
        match chomp {
            Chomp::Strip => {}
            Chomp::Clip => self.breaks(usize::from(text)),
            Chomp::Keep => self.breaks(usize::from(text) + self.empty),
        }
        self.out
    }
}

impl<'a> Parser<'a> {
    /// `|` or `>` block scalar at `pos`; `n` is the indentation of its parent (-1 at the root).
    ///
    /// Its source text ends with its last line of text, or, with keep chomping (`+`), with its
    /// last empty line: those lines are part of the value, so copying the text keeps them.
    pub(super) fn parse_block_scalar(&mut self, n: i64) -> PResult<Node> {
        let start = self.pos;
        let folded = self.peek() == b'>';
        self.pos += 1;
        let mut chomp = None;
        let mut explicit: Option<usize> = None;
        loop {
            match self.peek() {
                b'-' if chomp.is_none() => chomp = Some(Chomp::Strip),
                b'+' if chomp.is_none() => chomp = Some(Chomp::Keep),
                d @ b'1'..=b'9' if explicit.is_none() => explicit = Some((d - b'0') as usize),
                b'0' if explicit.is_none() => {
                    return self
                        .err("a block scalar's indentation indicator must be a digit from 1 to 9")
                }
                _ => break,
            }
            self.pos += 1;
        }
        let chomp = chomp.unwrap_or(Chomp::Clip);
        if !is_ws_or_eol(self.peek()) || (self.peek() == 0 && !self.eof()) {
            return self.err(format!(
                "unexpected {} after a block scalar indicator",
                describe(self.s, self.pos)
            ));
        }
        self.skip_inline_ws();
        self.comment_here()?;
        if !is_eol(self.peek()) {
            return self.err("unexpected text after a block scalar header");
        }
        let style = if folded {
            ScalarStyle::Folded
        } else {
            ScalarStyle::Literal
        };
        let mut end = self.pos;
        let mut end_ls = self.ls;
        let mut dec = Decoder {
            out: String::new(),
            folded,
            empty: 0,
            last: None,
        };
        let mut indent = explicit.map(|d| n.max(0) as usize + d);
        // Most spaces on a leading empty line, and where that line is.
        let mut leading = (0usize, 0usize);
        if self.eat_newline() {
            while !self.eof() && !self.line_is_doc_marker() {
                let line = self.pos;
                let b = self.b;
                let mut j = line;
                while j < b.len() && b[j] == b' ' {
                    j += 1;
                }
                let spaces = j - line;
                let mut k = j;
                while k < b.len() && b[k] != b'\n' && b[k] != b'\r' {
                    k += 1;
                }
                let blank = j == k;
                let ind = match indent {
                    Some(i) => i,
                    None if blank => {
                        if spaces > leading.0 {
                            leading = (spaces, line);
                        }
                        usize::MAX
                    }
                    None => {
                        if spaces as i64 <= n {
                            self.after_block_scalar(j, k)?;
                            break;
                        }
                        if leading.0 > spaces {
                            return Err(self.error_at(
                                leading.1,
                                "a leading empty line of a block scalar has more spaces than its first line of text",
                            ));
                        }
                        indent = Some(spaces);
                        spaces
                    }
                };
                if blank && spaces <= ind {
                    dec.empty += 1;
                    if chomp == Chomp::Keep {
                        end = k;
                        end_ls = line;
                    }
                } else if spaces >= ind {
                    dec.text(&self.s[line + ind..k]);
                    end = k;
                    end_ls = line;
                } else {
                    self.after_block_scalar(j, k)?;
                    break;
                }
                self.pos = k;
                if !self.eat_newline() {
                    break;
                }
            }
        }
        self.pos = end;
        self.ls = end_ls;
        let mut node = Node::with_kind(Kind::Scalar(Scalar {
            value: dec.finish(chomp).into(),
            style,
        }));
        node.set_src(Some(Span::new(start, end)));
        Ok(node)
    }

    /// The line that ends a block scalar (its text after the indentation is `j..k`): a line
    /// of nothing but white space there may not hold a tab (YAML allows only spaces in the
    /// empty lines that follow a block scalar).
    fn after_block_scalar(&self, j: usize, k: usize) -> PResult<()> {
        if self.b[j..k].iter().all(|&c| c == b' ' || c == b'\t') {
            return Err(self.error_at(
                j,
                "a tab in an empty line after a block scalar; use spaces (or nothing) there",
            ));
        }
        Ok(())
    }
}
