//! Skimming an item line by line. Most items of a large ResourceList are made of a few plain
//! shapes of line: `key: value`, `key:` with the value below, `- value`, `- key: value`, with
//! plain or quoted scalars and one-line flow collections. For such an item the parser's
//! per-node work is not needed to know where the item ends, that it is valid and what its
//! identity is: this scanner reads it a line at a time and builds only the identity
//! (`apiVersion`, `kind` and `metadata`'s name, namespace, labels and annotations).
//!
//! It never refuses anything. Whatever is not one of those shapes (a block scalar, an anchor,
//! a tag, a tab, a line break other than a line feed, a multi-line scalar or flow collection,
//! an escape, a wide mapping, indentation it does not expect...) makes it give up, and the
//! parser reads the item from its start as before: the parser alone decides what is refused,
//! and with which message. Every shape accepted here is one the parser accepts, read the same
//! way; `compare_readings` (reading with trees kept, which never comes here) checks that on
//! every corpus input and in the fuzz targets.

mod identity;
mod values;

use identity::Role;
pub use identity::{Field, IdentityPart};

use super::{Parser, LINEAR_KEY_CHECK, MAX_IMPLICIT_KEY};
use crate::yaml::breaks::wide_len;
use crate::yaml::node::{Kind, Node, ScalarStyle, Span};

/// Longer items go to the parser. Within it, an item cannot hold more values than the least
/// value limit (an entry takes at least two bytes), and [`MAX_OPEN`] and [`MAX_FLOW`] keep it
/// far from the parser's nesting limit.
const MAX_ITEM: usize = 64 * 1024;
/// Most block collections open at once.
const MAX_OPEN: usize = 32;
/// Most flow collections nested on a line.
const MAX_FLOW: usize = 8;

/// A block collection being read.
struct Open {
    col: usize,
    seq: bool,
    role: Role,
    /// Where its keys start in [`Lines::keys`].
    keys: usize,
}

/// A value that starts on a later line: the mapping entry's column and key, and its role.
#[derive(Clone, Copy)]
struct Pending {
    col: usize,
    role: Role,
    key: Span,
}

/// Gives up: the parser reads the item.
struct GiveUp;

type Step<T> = Result<T, GiveUp>;

/// What the scanner holds while it reads an item, kept by the parser from one item to the next
/// (a list of many items allocates it once).
#[derive(Default)]
pub(crate) struct Scratch {
    open: Vec<Open>,
    /// The keys of the open mappings, with their [`fingerprint`].
    keys: Vec<(u64, Span)>,
    /// The identity read so far (of the last item read, once read).
    pub(crate) parts: Vec<IdentityPart>,
    /// The last item was read by lines: its identity is [`Scratch::parts`].
    pub(crate) read: bool,
    /// The whole input is [`plain_input`], so no item needs the look.
    pub(crate) plain_input: bool,
}

/// Whether `b` holds no tab, carriage return, NEL, LS, PS or byte order mark: where one is,
/// the parser reads lines and white space otherwise than the scanner (a tab is white space to
/// it, a carriage return or an LS ends a line). Vector searches: run once over the whole input,
/// and over an item's text only when the input has one somewhere.
pub(crate) fn plain_input(b: &[u8]) -> bool {
    memchr::memchr2(b'\t', b'\r', b).is_none()
        && memchr::memchr3_iter(0xC2, 0xE2, 0xEF, b)
            .all(|i| wide_len(b, i) == 0 && !b[i..].starts_with("\u{feff}".as_bytes()))
}

struct Lines<'a> {
    s: &'a str,
    b: &'a [u8],
    /// Where the item's text may end at the latest ([`MAX_ITEM`]).
    limit: usize,
    open: Vec<Open>,
    keys: Vec<(u64, Span)>,
    parts: Vec<IdentityPart>,
    /// The end of the last line with content, and its start.
    end: usize,
    end_ls: usize,
    /// The end of the last line looked at.
    seen: usize,
    /// Where the line loop goes on from, when a value read more lines than its first (a block
    /// scalar): the end of the last line it read.
    resume: Option<usize>,
}

impl<'a> Parser<'a> {
    /// Reads the item of a block list whose `-` is at column `dash_col`, `pos` just after the
    /// `-`, when every line of it has a shape [`lines`](self) knows. Returns what
    /// [`Parser::parse_block_node`] returns (the item's mapping, with only its identity, and
    /// the comment on the `-` line), with `pos` where it leaves it; `None` (and nothing moved)
    /// when the parser must read the item.
    pub(super) fn skim_item_lines(&mut self, dash_col: usize) -> Option<(Node, Option<Span>)> {
        if self.max_depth < super::MAX_DEPTH {
            // A small stack lowered the nesting limit: the parser alone counts it.
            return None;
        }
        let mut scratch = std::mem::take(&mut self.lines);
        scratch.parts.clear();
        let mut l = Lines {
            s: self.s,
            b: self.b,
            limit: self.pos.saturating_add(MAX_ITEM).min(self.b.len()),
            open: scratch.open,
            keys: scratch.keys,
            parts: scratch.parts,
            end: 0,
            end_ls: 0,
            resume: None,
            seen: 0,
        };
        let plain_input = scratch.plain_input;
        let read = l.item(self.pos, self.ls, dash_col).and_then(|r| {
            match plain_input || self::plain_input(&self.b[self.pos..l.seen]) {
                true => Ok(r),
                false => Err(GiveUp),
            }
        });
        l.open.clear();
        l.keys.clear();
        self.lines = Scratch {
            open: l.open,
            keys: l.keys,
            parts: l.parts,
            read: read.is_ok(),
            plain_input,
        };
        let (node, comment) = read.ok()?;
        self.pos = l.end;
        self.ls = l.end_ls;
        Some((node, comment))
    }
}

impl<'a> Lines<'a> {
    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(0)
    }

    /// The item after its `-` (at `at`, on the line starting at `ls`).
    fn item(&mut self, at: usize, ls: usize, dash_col: usize) -> Step<(Node, Option<Span>)> {
        let line_end = self.line(at)?;
        self.done(line_end, ls);
        let i = skip_spaces(self.b, at);
        if i == at && i < line_end {
            // `-x`: not an entry; the parser says what it is.
            return Err(GiveUp);
        }
        let mut comment = None;
        let mut pending: Option<Pending>;
        let mut root = None;
        if i == line_end || self.at(i) == b'#' {
            comment = (i < line_end).then(|| Span::new(i, line_end));
            // The mapping starts on a later line.
            pending = Some(Pending {
                col: dash_col,
                role: Role::Root,
                key: Span::new(0, 0),
            });
        } else {
            root = Some(i);
            self.push(i - ls, false, Role::Root)?;
            pending = self.entry(i, line_end)?;
        }
        let mut next = self.resume.take().unwrap_or(line_end);
        // Each next line with content.
        while let Some((ls, indent, i, line_end)) = self.next_content(next)? {
            if indent <= dash_col {
                break;
            }
            self.done(line_end, ls);
            pending = match pending.take() {
                Some(p) if p.role == Role::Root => {
                    // `- # comment` and the item's mapping below.
                    if self.is_seq_entry(i) {
                        return Err(GiveUp);
                    }
                    root = Some(i);
                    self.push(indent, false, Role::Root)?;
                    self.entry(i, line_end)?
                }
                Some(p) => self.line_after_key(p, i, ls, indent, line_end)?,
                None => {
                    // After a value on its line: nothing may be deeper than its collection.
                    self.close_to(indent)?;
                    self.line_in_open(i, ls, indent, line_end)?
                }
            };
            next = self.resume.take().unwrap_or(line_end);
        }
        if let Some(p) = pending {
            if p.role == Role::Root {
                return Err(GiveUp);
            }
            self.keep_null(p);
        }
        while self.open.len() > 1 {
            self.pop()?;
        }
        let root_start = root.ok_or(GiveUp)?;
        // The identity is in `parts`; the tree stands for the item's span.
        let mut node = Node::with_kind(Kind::Mapping(Vec::new()));
        node.set_src(Some(Span::new(root_start, self.end)));
        Ok((node, comment))
    }

    /// The first line with content after `key:` whose value starts below (`p`): the value's
    /// collection, or the next entry when the value is empty.
    fn line_after_key(
        &mut self,
        p: Pending,
        i: usize,
        ls: usize,
        indent: usize,
        line_end: usize,
    ) -> Step<Option<Pending>> {
        let seq = self.is_seq_entry(i);
        if indent > p.col || (indent == p.col && seq) {
            // A collection (a list may sit at its key's column). Where a string is read, or a
            // list where a mapping is, the parser's reading names the problem.
            if matches!(p.role, Role::Text(_)) || (seq && p.role != Role::Skim) {
                return Err(GiveUp);
            }
            self.push(indent, seq, p.role)?;
        } else {
            self.keep_null(p);
            self.close_to(indent)?;
        }
        self.line_in_open(i, ls, indent, line_end)
    }

    /// A line at the column of the innermost open collection: its next entry (or, for a list
    /// at its key's column, the key's mapping's next entry).
    fn line_in_open(
        &mut self,
        i: usize,
        ls: usize,
        indent: usize,
        line_end: usize,
    ) -> Step<Option<Pending>> {
        let top = self.open.last().ok_or(GiveUp)?;
        let seq_entry = self.is_seq_entry(i);
        if top.seq {
            if seq_entry {
                return self.seq_entry(i, ls, line_end);
            }
            self.pop()?;
            match self.open.last() {
                Some(m) if !m.seq && m.col == indent => {}
                _ => return Err(GiveUp),
            }
        } else if seq_entry {
            return Err(GiveUp);
        }
        self.entry(i, line_end)
    }

    /// Where the line holding `from` ends (its line feed, or the end of the input). What the
    /// line holds is checked once for the whole item, by [`plain_input`].
    fn line(&mut self, from: usize) -> Step<usize> {
        let end = memchr::memchr(b'\n', &self.b[from..]).map_or(self.b.len(), |n| from + n);
        if end > self.limit {
            return Err(GiveUp);
        }
        self.seen = self.seen.max(end);
        Ok(end)
    }

    /// From the line break at `from`: the next line with content, as (its start, its
    /// indentation, where its content starts, where it ends); `None` at the end of the input.
    /// Blank and comment lines are passed (checked as [`Lines::line`] checks).
    fn next_content(&mut self, from: usize) -> Step<Option<(usize, usize, usize, usize)>> {
        let mut ls = from;
        loop {
            if ls >= self.b.len() {
                return Ok(None);
            }
            // `from` is a line feed (or the end).
            ls += 1;
            if ls >= self.b.len() {
                return Ok(None);
            }
            let content = skip_spaces(self.b, ls);
            let end = self.line(content)?;
            match self.at(content) {
                b'\n' => {}
                b'#' => {}
                0 if content >= self.b.len() => return Ok(None),
                _ => return Ok(Some((ls, content - ls, content, end))),
            }
            ls = end;
        }
    }

    /// `- ` or `-` at the end of the line.
    fn is_seq_entry(&self, i: usize) -> bool {
        self.at(i) == b'-' && matches!(self.at(i + 1), b' ' | b'\n' | 0)
    }

    /// The line at `ls` is the last with content so far.
    fn done(&mut self, line_end: usize, ls: usize) {
        self.end = line_end;
        self.end_ls = ls;
    }

    fn push(&mut self, col: usize, seq: bool, role: Role) -> Step<()> {
        if self.open.len() >= MAX_OPEN {
            return Err(GiveUp);
        }
        self.open.push(Open {
            col,
            seq,
            role,
            keys: self.keys.len(),
        });
        Ok(())
    }

    /// Closes the collections deeper than `indent`; one must be open at `indent` exactly.
    fn close_to(&mut self, indent: usize) -> Step<()> {
        while self.open.last().is_some_and(|o| o.col > indent) {
            self.pop()?;
        }
        match self.open.last() {
            Some(o) if o.col == indent => Ok(()),
            _ => Err(GiveUp),
        }
    }

    /// Closes the innermost collection.
    fn pop(&mut self) -> Step<()> {
        let o = self.open.pop().ok_or(GiveUp)?;
        self.keys.truncate(o.keys);
        Ok(())
    }

    /// A text of the identity, when `role` is one.
    fn keep(&mut self, role: Role, key: Span, value: Span, style: ScalarStyle) {
        if let Role::Text(field) = role {
            self.parts.push(IdentityPart {
                field,
                key,
                value,
                style,
            });
        }
    }

    /// A kept value that turned out empty: null.
    fn keep_null(&mut self, p: Pending) {
        self.keep(p.role, p.key, Span::new(0, 0), ScalarStyle::Plain);
    }

    /// A mapping entry at `i` (a key, the innermost open collection a mapping at its column).
    /// Returns the value still to come when it starts on a later line.
    fn entry(&mut self, i: usize, line_end: usize) -> Step<Option<Pending>> {
        let key_end = self.key(i)?;
        let key = Span::new(i, key_end);
        let top = self.open.last().ok_or(GiveUp)?;
        let (col, role, first) = (top.col, top.role, top.keys);
        let text = &self.b[i..key_end];
        let print = fingerprint(text);
        if self.keys[first..].len() >= LINEAR_KEY_CHECK
            || self.keys[first..]
                .iter()
                .any(|&(p, k)| p == print && &self.b[k.range()] == text)
        {
            // A wide mapping, or a key given twice: the parser.
            return Err(GiveUp);
        }
        self.keys.push((print, key));
        let role = role.of_value(&self.s[i..key_end]);
        let v = skip_spaces(self.b, key_end + 1);
        if v >= line_end || self.at(v) == b'#' {
            return Ok(Some(Pending { col, role, key }));
        }
        self.value(key, v, line_end, role)?;
        Ok(None)
    }

    /// A list entry (`- ` at `i`): a value on the line, or a mapping starting on it.
    fn seq_entry(&mut self, i: usize, ls: usize, line_end: usize) -> Step<Option<Pending>> {
        let v = skip_spaces(self.b, i + 1);
        if v >= line_end || self.at(v) == b'#' || self.is_seq_entry(v) {
            return Err(GiveUp);
        }
        if self.key(v).is_ok() {
            self.push(v - ls, false, Role::Skim)?;
            return self.entry(v, line_end);
        }
        self.value(Span::new(0, 0), v, line_end, Role::Skim)?;
        Ok(None)
    }

    /// A plain key at `i` followed by `:` and a space or the line's end: where it ends.
    fn key(&self, i: usize) -> Step<usize> {
        let c = self.at(i);
        if !(c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'/') {
            return Err(GiveUp);
        }
        let j = i
            + 1
            + self.b[i + 1..]
                .iter()
                .take_while(|&&c| KEY[c as usize])
                .count();
        if self.at(j) != b':' || !matches!(self.at(j + 1), b' ' | b'\n' | 0) {
            return Err(GiveUp);
        }
        if j - i > MAX_IMPLICIT_KEY {
            return Err(GiveUp);
        }
        Ok(j)
    }
}

/// A key's length and last seven bytes: keys that differ mostly differ there, so most pairs
/// are told apart without comparing their text.
fn fingerprint(text: &[u8]) -> u64 {
    let tail = &text[text.len().saturating_sub(7)..];
    let mut word = [0u8; 8];
    word[..tail.len()].copy_from_slice(tail);
    word[7] = text.len() as u8;
    u64::from_le_bytes(word)
}

/// The bytes of a plain key the scanner reads.
const KEY: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'/' | b'-');
        c += 1;
    }
    t
};

fn skip_spaces(b: &[u8], mut i: usize) -> usize {
    while b.get(i) == Some(&b' ') {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests;
