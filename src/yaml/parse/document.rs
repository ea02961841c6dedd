//! Documents: the BOM, directives and `---` before the root node, `...` and the end of the
//! stream after it. One document is read; a second one is refused by name.

use super::reader::{is_eol, is_ws_or_eol};
use super::{describe, Ctx, PResult, ParseError, Parser, MAX_TEXT};

/// The message for a stream with a second document.
pub(super) const MORE_THAN_ONE_DOCUMENT: &str =
    "the input holds more than one YAML document; send exactly one ResourceList";

impl<'a> Parser<'a> {
    /// Skips the BOM, directives, comments, `...` lines and the `---` marker before the root
    /// node. Returns how the root starts, or `None` when the stream holds no document.
    pub(crate) fn begin_document(&mut self) -> PResult<Option<Ctx>> {
        if self.s.len() > MAX_TEXT {
            return Err(ParseError {
                message: format!(
                    "the text is longer than {MAX_TEXT} bytes, more than a tree can point into"
                ),
                line: 1,
                column: 1,
            });
        }
        if self.s.starts_with('\u{feff}') {
            self.pos = 3;
            self.ls = 3;
        }
        let mut directive_at = None;
        let mut yaml_version = false;
        loop {
            self.skip_trivia()?;
            if self.eof() {
                if let Some(at) = directive_at {
                    return Err(self.error_at(
                        at,
                        "a directive must be followed by a document that starts with '---'",
                    ));
                }
                return Ok(None);
            }
            if self.pos == self.ls && self.peek() == b'%' {
                directive_at.get_or_insert(self.pos);
                self.directive(&mut yaml_version)?;
                continue;
            }
            if self.at_doc_marker() {
                if self.b[self.pos..].starts_with(b"---") {
                    self.pos += 3;
                    return Ok(Some(Ctx::DocLine));
                }
                if directive_at.is_some() {
                    return self.err("a directive must be followed by '---', not '...'");
                }
                self.pos += 3;
                self.document_suffix()?;
                continue;
            }
            if let Some(at) = directive_at {
                return Err(self.error_at(
                    at,
                    "a directive must be followed by a document that starts with '---'",
                ));
            }
            return Ok(Some(Ctx::Root));
        }
    }

    /// One `%` directive line. `%YAML 1.x` is read (once); `%TAG` is refused; any other
    /// (reserved) directive is ignored, as YAML asks.
    fn directive(&mut self, yaml_version: &mut bool) -> PResult<()> {
        let start = self.pos;
        self.pos += 1;
        while !is_ws_or_eol(self.peek()) {
            self.pos += 1;
        }
        let name = &self.s[start + 1..self.pos];
        match name {
            "YAML" => {
                if *yaml_version {
                    return Err(self.error_at(start, "the %YAML directive is given twice"));
                }
                *yaml_version = true;
                self.skip_inline_ws();
                let v = self.pos;
                while !is_ws_or_eol(self.peek()) {
                    self.pos += 1;
                }
                let version = &self.s[v..self.pos];
                let ok = version.split_once('.').is_some_and(|(major, minor)| {
                    major == "1"
                        && !minor.is_empty()
                        && minor.bytes().all(|c| c.is_ascii_digit())
                });
                if !ok {
                    return Err(self.error_at(
                        v,
                        format!("the %YAML directive needs a version 1.x, found {version:?}"),
                    ));
                }
                self.skip_inline_ws();
                if !is_eol(self.peek()) && self.peek() != b'#' {
                    return self.err("unexpected text after the %YAML directive's version");
                }
                self.comment_here()?;
                Ok(())
            }
            "TAG" => Err(self.error_at(
                start,
                "a %TAG directive is not supported: tag handles have no place in a KRM resource; write each tag in full (!<tag:example.com,2000:app/foo>)",
            )),
            "" => Err(self.error_at(start, "a directive needs a name after '%'")),
            _ => {
                self.skip_to_eol();
                Ok(())
            }
        }
    }

    /// After `...`: only a comment may follow on its line.
    fn document_suffix(&mut self) -> PResult<()> {
        self.skip_inline_ws();
        if self.peek() == b'#' {
            self.comment_here()?;
        } else if !is_eol(self.peek()) || (self.peek() == 0 && !self.eof()) {
            return self.err(format!(
                "unexpected {} after the document end marker '...' (only a comment may follow it)",
                describe(self.s, self.pos)
            ));
        }
        Ok(())
    }

    /// After the root node: comments, `...` lines and the end of the input. A second document
    /// (after `---`, or after `...`) is refused.
    pub(crate) fn end_document(&mut self) -> PResult<()> {
        let mut ended = false;
        loop {
            self.skip_trivia()?;
            if self.eof() {
                return Ok(());
            }
            if self.at_doc_marker() && self.b[self.pos..].starts_with(b"...") {
                self.pos += 3;
                self.document_suffix()?;
                ended = true;
                continue;
            }
            if ended || self.at_doc_marker() {
                return self.err(MORE_THAN_ONE_DOCUMENT);
            }
            return self.err(format!(
                "unexpected {} where the document should end (check its indentation)",
                describe(self.s, self.pos)
            ));
        }
    }
}
