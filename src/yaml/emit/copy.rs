//! Copying source text into the output: the emitter's way of keeping what was not touched.
//! Text moves by whole lines, right or left, with its parent; the lines of flow text stay
//! indented past their parent.

//!
//! Lines end where kpt ends them ([`breaks`]): a line after a LINE SEPARATOR moves as a line
//! after a line feed does, or what kpt reads there would change.

use super::Emitter;
use crate::yaml::breaks::{self, lines_inclusive, trim_break};
use crate::yaml::node::{Span, Trivia};

impl<'a> Emitter<'a> {
    /// The column of source position `pos`.
    pub(crate) fn source_col(&self, pos: usize) -> usize {
        let pos = pos.min(self.src.len());
        let (last, last_start) = self.last_line.get();
        let start = if pos >= last {
            breaks::last_break_end(self.src, last, pos).unwrap_or(last_start)
        } else if pos >= last_start {
            last_start
        } else {
            breaks::line_start(self.src, pos)
        };
        self.last_line.set((pos, start));
        pos - start
    }
    /// Copies `span`, shifting the indentation of every following line by `delta`. Lines of
    /// nothing but spaces move too (inside a block scalar, spaces past its indentation are
    /// text); empty lines stay empty.
    pub fn copy(&mut self, span: Span, delta: i64) {
        let text = &self.src[span.range()];
        if delta == 0 {
            self.out.push_str(text);
            return;
        }
        let mut lines = lines_inclusive(text);
        if let Some(first) = lines.next() {
            self.out.push_str(first);
        }
        for line in lines {
            self.shifted(line, delta);
        }
    }

    /// One line moved right (`delta > 0`) or left by up to `-delta` of its leading spaces.
    fn shifted(&mut self, line: &str, delta: i64) {
        if trim_break(line).is_empty() {
            self.out.push_str(line);
        } else if delta > 0 {
            self.indent(delta as usize);
            self.out.push_str(line);
        } else {
            let have = line.len() - line.trim_start_matches(' ').len();
            self.out.push_str(&line[have.min((-delta) as usize)..]);
        }
    }

    /// Copies comment/blank lines before an entry, re-indented by `delta`.
    pub(super) fn lead(&mut self, lead: Option<Span>, delta: i64) {
        let Some(l) = lead else { return };
        // The lead runs up to the start of the entry's line; its last line holds only the
        // entry's own indentation, which the caller writes.
        let text = &self.src[l.range()];
        let cut = breaks::line_start(text, text.len());
        if cut == 0 {
            return;
        }
        if !self.out.is_empty() && !breaks::ends_line(&self.out) {
            self.out.push('\n');
        }
        self.copy_lines(
            Span::new(l.start() as usize, l.start() as usize + cut),
            delta,
        );
    }

    /// Copies whole lines, shifting every line (the first too) by `delta`.
    pub(super) fn copy_lines(&mut self, span: Span, delta: i64) {
        let text = &self.src[span.range()];
        if delta == 0 {
            self.out.push_str(text);
            return;
        }
        for line in lines_inclusive(text) {
            self.shifted(line, delta);
        }
    }
    /// Comment and blank lines after an item (`tail`), moved as far as the item (`trivia`,
    /// written at column `indent`).
    pub fn tail(&mut self, tail: Span, trivia: &Trivia, indent: usize) {
        let delta = self.item_delta(trivia, indent);
        self.copy_lines(tail, delta);
        // The input may end inside the tail (spaces without a line break): what follows
        // (`results:`, the next key) must start its own line.
        if !breaks::ends_line(&self.out) {
            self.out.push('\n');
        }
    }
    /// Copies `span` as written, moving its lines after the first right when one of them is
    /// not indented `need` spaces (a line of a flow collection or flow scalar must be indented
    /// past its block parent).
    pub(super) fn copy_past(&mut self, span: Span, need: i64) {
        let text = &self.src[span.range()];
        let least = lines_inclusive(text)
            .skip(1)
            .filter(|l| !l.trim().is_empty())
            .map(|l| (l.len() - l.trim_start_matches(' ').len()) as i64)
            .min();
        self.copy(span, least.map_or(0, |m| (need - m).max(0)));
    }
}
