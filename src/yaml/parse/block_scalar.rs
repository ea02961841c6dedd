//! Block scalars: literal `|` and folded `>`, with chomping (`-`, `+`) and indentation
//! indicators. The value is decoded line by line as it is read, never held as a list of lines.

use super::reader::{is_eol, is_ws_or_eol};
use super::{describe, PResult, Parser};
use crate::yaml::breaks::wide_len;
use crate::yaml::node::{Kind, Node, Scalar, ScalarStyle, Span};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Chomp {
    Strip,
    Clip,
    Keep,
}

/// The decoded value, built one line at a time (YAML's line folding and chomping), as go-yaml
/// builds it: each line's break is kept as a line feed, or as itself for LS and PS, and only a
/// line feed folds.
struct Decoder {
    out: String,
    folded: bool,
    /// The break after the last line of text.
    leading: char,
    /// The breaks of the empty lines since the last line of text.
    empty: String,
    /// Whether the last line of text was more indented (starts with white space), once there
    /// is one.
    last: Option<bool>,
}

impl Decoder {
    /// A line of text, ended by `brk`.
    fn text(&mut self, text: &str, brk: char) {
        let more = text.starts_with([' ', '\t']);
        match self.last {
            // A line feed between two lines of text folds into a space.
            Some(false)
                if self.folded && !more && self.leading == '\n' && self.empty.is_empty() =>
            {
                self.out.push(' ')
            }
            // Folded with empty lines between: only the empty lines' breaks are kept.
            Some(false) if self.folded && !more && self.leading == '\n' => {}
            Some(_) => self.out.push(self.leading),
            None => {}
        }
        self.out.push_str(&self.empty);
        self.empty.clear();
        self.out.push_str(text);
        self.last = Some(more);
        self.leading = brk;
    }

    fn finish(mut self, chomp: Chomp) -> String {
        let text = self.last.is_some();
        if text && chomp != Chomp::Strip {
            self.out.push(self.leading);
        }
        if chomp == Chomp::Keep {
            self.out.push_str(&self.empty);
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
        // A skimmed value is checked, not decoded; a key is decoded (it is compared).
        let decode = !self.skim.on || std::mem::take(&mut self.skim.key);
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
            leading: '\n',
            empty: String::new(),
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
                while k < b.len() && !matches!(b[k], b'\n' | b'\r') {
                    if matches!(b[k], 0xC2 | 0xE2) && wide_len(b, k) > 0 {
                        break;
                    }
                    k += 1;
                }
                // What the value keeps of the line's break: LS and PS as they are.
                let brk = match b.get(k) {
                    Some(0xE2) => self.s[k..].chars().next().unwrap_or('\n'),
                    _ => '\n',
                };
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
                    if decode {
                        dec.empty.push(brk);
                    }
                    if chomp == Chomp::Keep {
                        end = k;
                        end_ls = line;
                    }
                } else if spaces >= ind {
                    if decode {
                        dec.text(&self.s[line + ind..k], brk);
                    }
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
