//! The reader: the parser's byte-level cursor. Character classes, white space, line breaks,
//! comments, document markers and error positions; nothing here builds a node.

use super::{describe, PResult, ParseError, Parser, MAX_IMPLICIT_KEY};
use crate::yaml::breaks::{self, wide_len};
use crate::yaml::node::Span;

pub(super) fn is_ws(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

pub(super) fn is_eol(c: u8) -> bool {
    c == b'\n' || c == b'\r' || c == 0
}

pub(super) fn is_ws_or_eol(c: u8) -> bool {
    is_ws(c) || is_eol(c)
}

pub(super) fn is_flow_indicator(c: u8) -> bool {
    matches!(c, b',' | b'[' | b']' | b'{' | b'}')
}

impl<'a> Parser<'a> {
    /// The byte at `pos`, 0 at the end; a NEL, LS or PS that starts there reads as `\n`, so
    /// that every check for a line end finds go-yaml's line ends ([`breaks`]). What consumes a
    /// line end is [`Parser::eat_newline`], which knows their lengths.
    #[inline]
    pub(super) fn peek(&self) -> u8 {
        self.byte_at(self.pos)
    }

    #[inline]
    pub(super) fn peek_at(&self, i: usize) -> u8 {
        self.byte_at(self.pos + i)
    }

    #[inline]
    fn byte_at(&self, i: usize) -> u8 {
        match self.b.get(i) {
            Some(&c) if c < 0xC2 => c,
            Some(&c) => {
                if wide_len(self.b, i) > 0 {
                    b'\n'
                } else {
                    c
                }
            }
            None => 0,
        }
    }

    pub(super) fn eof(&self) -> bool {
        self.pos >= self.b.len()
    }

    /// Byte column of `pos` on its line.
    pub(crate) fn col(&self) -> usize {
        self.pos - self.ls
    }

    /// The spaces that indent the current line (tabs never indent).
    pub(super) fn indent(&self) -> usize {
        self.b[self.ls..].iter().take_while(|&&c| c == b' ').count()
    }

    /// True when the white space before `pos` on this line holds a tab, so what starts at
    /// `pos` is not where its indentation says.
    pub(super) fn tab_before(&self) -> bool {
        self.b[self.ls..self.pos].contains(&b'\t')
    }

    /// Nothing but spaces before `pos` on its line.
    pub(super) fn first_on_line(&self) -> bool {
        self.b[self.ls..self.pos].iter().all(|&c| c == b' ')
    }

    pub(crate) fn err<T>(&self, msg: impl Into<String>) -> PResult<T> {
        Err(self.error_at(self.pos, msg))
    }

    /// An error at `pos`, its line and column counted as kpt counts them ([`breaks::position`]).
    pub(crate) fn error_at(&self, pos: usize, msg: impl Into<String>) -> ParseError {
        let (line, column) = breaks::position(self.s, pos);
        ParseError {
            message: msg.into(),
            line,
            column,
        }
    }

    pub(super) fn enter(&mut self) -> PResult<()> {
        // What follows is inside a collection: not an explicit key itself (see `Skim::key`).
        self.skim.key = false;
        self.depth += 1;
        if self.depth > self.max_depth {
            return self.err(format!(
                "YAML nesting is deeper than {}; refusing to parse it",
                crate::yaml::node::nesting_limit_named()
            ));
        }
        Ok(())
    }

    /// Whether an implicit key starting at `start` (its properties included) and ending where
    /// `pos` is (at its `:`, after the spaces before it) is longer than [`MAX_IMPLICIT_KEY`]
    /// characters.
    pub(super) fn too_long_for_implicit_key(&self, start: usize) -> bool {
        self.pos - start > MAX_IMPLICIT_KEY
            && self.s[start..self.pos].chars().count() > MAX_IMPLICIT_KEY
    }

    pub(super) fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Skips spaces and tabs; returns whether there was a tab among them.
    pub(super) fn skip_inline_ws(&mut self) -> bool {
        // On the bytes: every line's indentation passes here.
        let mut tab = false;
        while let Some(&c) = self.b.get(self.pos) {
            match c {
                b' ' => {}
                b'\t' => tab = true,
                _ => break,
            }
            self.pos += 1;
        }
        tab
    }

    /// Consumes one line break (`\n`, `\r\n`, `\r`, NEL, LS or PS), if here.
    pub(super) fn eat_newline(&mut self) -> bool {
        let n = breaks::break_len(self.b, self.pos);
        self.pos += n;
        if n > 0 {
            self.ls = self.pos;
        }
        n > 0
    }

    /// Consumes one line break, if here, and returns what go-yaml keeps of it in a scalar's
    /// value: a line feed, or LS and PS as they are.
    pub(super) fn eat_break_char(&mut self) -> Option<char> {
        let c = match self.b.get(self.pos) {
            Some(0xE2) => self.s[self.pos..].chars().next(),
            _ => Some('\n'),
        };
        self.eat_newline().then_some(c).flatten()
    }

    pub(super) fn skip_to_eol(&mut self) {
        while !is_eol(self.peek()) {
            self.pos += 1;
        }
        // A lone NUL inside the text is not the end.
        while self.peek() == 0 && !self.eof() {
            self.pos += 1;
            while !is_eol(self.peek()) {
                self.pos += 1;
            }
        }
    }

    /// Skips blank lines and comment lines, stopping at the first content of a line (or EOF).
    /// Sets [`Parser::line_tab`] for the white space before that content.
    pub(crate) fn skip_trivia(&mut self) -> PResult<()> {
        loop {
            let tab = self.skip_inline_ws();
            match self.peek() {
                b'#' => {
                    self.comment_here()?;
                }
                b'\n' | b'\r' => {
                    self.eat_newline();
                }
                _ => {
                    self.line_tab = tab;
                    return Ok(());
                }
            }
        }
    }

    /// `---` or `...` at the start of a line.
    #[inline]
    pub(super) fn at_doc_marker(&self) -> bool {
        self.pos == self.ls
            && (self.b[self.pos..].starts_with(b"---") || self.b[self.pos..].starts_with(b"..."))
            && is_ws_or_eol(self.peek_at(3))
    }

    /// Whether the line starting at `ls` begins with a document marker.
    pub(super) fn line_is_doc_marker(&self) -> bool {
        let rest = &self.b[self.ls..];
        (rest.starts_with(b"---") || rest.starts_with(b"..."))
            && is_ws_or_eol(self.byte_at(self.ls + 3))
    }

    pub(super) fn at_seq_entry(&self) -> bool {
        self.peek() == b'-' && is_ws_or_eol(self.peek_at(1))
    }

    /// `# comment` after inline whitespace on the current line; leaves `pos` at the line end.
    pub(super) fn take_line_comment(&mut self) -> PResult<Option<Span>> {
        self.skip_inline_ws();
        if self.peek() == b'#' {
            return self.comment_here();
        }
        if !is_eol(self.peek()) || (self.peek() == 0 && !self.eof()) {
            return self.err(format!(
                "unexpected {} after a value",
                describe(self.s, self.pos)
            ));
        }
        Ok(None)
    }

    /// A `# comment` starting exactly here; it must follow white space or start its line.
    pub(super) fn comment_here(&mut self) -> PResult<Option<Span>> {
        if self.peek() != b'#' {
            return Ok(None);
        }
        let start = self.pos;
        if start > self.ls && !is_ws(self.b[start - 1]) {
            return self.err("a comment must be separated from other tokens by white space");
        }
        self.skip_to_eol();
        Ok(Some(Span::new(start, self.pos)))
    }

    /// Leaves the current line (at its end) for the next line with content: the comment and
    /// blank lines in between become the `lead` of what starts there. `rewind` goes back when
    /// that content belongs to an enclosing collection.
    pub(super) fn next_line(&mut self) -> PResult<NextLine> {
        let line_end = self.pos;
        let line_start = self.ls;
        self.eat_newline();
        let lead_start = self.pos;
        self.skip_trivia()?;
        Ok(NextLine {
            line_end,
            line_start,
            lead: (self.ls > lead_start).then(|| Span::new(lead_start, self.ls)),
            // Indentation of the content, or -1 at EOF or a document marker.
            indent: if self.eof() || self.at_doc_marker() {
                -1
            } else if self.line_tab || self.ls < lead_start {
                self.indent() as i64
            } else {
                // The white space `skip_trivia` last skipped began at the line's start (a line
                // break was eaten, or the line is empty) and holds no tab: all of it spaces,
                // the indentation, without counting it again.
                debug_assert_eq!(self.pos - self.ls, self.indent());
                (self.pos - self.ls) as i64
            },
        })
    }

    pub(super) fn rewind(&mut self, next: &NextLine) {
        self.pos = next.line_end;
        self.ls = next.line_start;
    }

    /// At the first content of a line inside a flow collection or a multi-line scalar whose
    /// block parent is indented `n`: the line must be indented more than `n`, and must not be a
    /// document marker. `what` names the construct for the message.
    pub(super) fn check_continuation(&self, n: i64, what: &str) -> PResult<()> {
        if self.line_is_doc_marker() {
            return self.err(format!("a document marker inside {what}"));
        }
        if (self.indent() as i64) <= n && !self.eof() {
            let tab = if self.tab_before() {
                " (a tab does not indent)"
            } else {
                ""
            };
            return self.err(format!(
                "this line of {what} must be indented more than its parent, by at least {} spaces{tab}",
                n + 1
            ));
        }
        Ok(())
    }
}

/// Where [`Parser::next_line`] found the next content, and how to get back.
pub(super) struct NextLine {
    pub(super) line_end: usize,
    pub(super) line_start: usize,
    pub(super) lead: Option<Span>,
    /// Spaces before the content (tabs do not count), or -1 at EOF or a document marker.
    pub(super) indent: i64,
}

pub(super) fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}
