//! Block structure: what a node after an indicator is (and where it starts), block mappings
//! with implicit and explicit (`? `) keys, and block sequences, with the comments and blank
//! lines between their entries.

use super::reader::{is_eol, is_ws_or_eol};
use super::scalar::Stop;
use super::stream::ItemsHook;
use super::{
    null_at, skimmed, Building, Ctx, PResult, ParseError, Parser, LINEAR_KEY_CHECK,
    MAX_IMPLICIT_KEY,
};
use crate::yaml::node::{Entry, Item, Kind, Node, Props, Span, Trivia};

/// Why a block collection may not start where it does.
const NOT_ON_KEY_LINE: &str =
    "a block collection cannot start on the same line as its mapping key; start it on the next line (or quote a value that contains ': ')";
const NOT_ON_DOC_LINE: &str =
    "a block collection cannot start on the '---' line; start it on the next line";
const NOT_AFTER_PROPS: &str =
    "an anchor or tag of a block collection must end its line; start the collection on the next line";
/// An alias stands for a node that has its own properties.
pub(super) const ALIAS_PROPS: &str =
    "an alias cannot have an anchor or tag of its own (it stands for the anchored node)";
const NOT_AFTER_TAB: &str =
    "a tab character cannot indent a block collection; indent it with spaces";

impl<'a> Parser<'a> {
    /// Parses the block node after an indicator (`key:`, `-`, `?`, the `:` of an explicit
    /// entry, `---`) or at the root. `n` is the indentation of the parent (-1 at the root).
    /// Returns the node and the comment on the indicator's line when the node starts on a later
    /// line.
    pub(crate) fn parse_block_node(&mut self, n: i64, ctx: Ctx) -> PResult<(Node, Option<Span>)> {
        if ctx == Ctx::Root {
            return Ok((self.parse_node_on_new_line(n, ctx, None, None)?, None));
        }
        let tab = self.skip_inline_ws();
        let start = self.pos;
        let props = self.parse_props(false)?;
        if self.peek() == b'#' || is_eol(self.peek()) {
            let empty_at = if props.is_some() { self.pos } else { start };
            let comment = self.comment_here()?;
            let node = self.parse_node_below(n, ctx, props, empty_at)?;
            return Ok((node, comment));
        }
        self.pos = start;
        let node = self.parse_inline(n, ctx, None, false, tab)?;
        Ok((node, None))
    }

    /// The node after an indicator whose line has ended: on a later line, indented more than
    /// the parent (a sequence may also sit at the parent's column after a key), or empty.
    fn parse_node_below(
        &mut self,
        n: i64,
        ctx: Ctx,
        props: Option<Box<Props>>,
        empty_at: usize,
    ) -> PResult<Node> {
        let next = self.next_line()?;
        if next.indent > n {
            return self.parse_node_on_new_line(n, ctx, props, next.lead);
        }
        if next.indent == n && ctx.seq_at_parent() && self.at_seq_entry() {
            if self.line_tab {
                return self.err(NOT_AFTER_TAB);
            }
            let col = self.col();
            let mut node = self.parse_block_seq(col, next.lead)?;
            node.props = props;
            return Ok(node);
        }
        self.rewind(&next);
        let mut node = null_at(empty_at);
        node.props = props;
        Ok(node)
    }

    /// A node whose first content starts a line (indented more than `n`). `outer` are the
    /// properties written on earlier lines.
    fn parse_node_on_new_line(
        &mut self,
        n: i64,
        ctx: Ctx,
        outer: Option<Box<Props>>,
        lead: Option<Span>,
    ) -> PResult<Node> {
        let start = self.pos;
        let inner = self.parse_props(false)?;
        if inner.is_some() && (self.peek() == b'#' || is_eol(self.peek())) {
            // Properties alone on their line belong to the node below them.
            let props = self.merge_props(outer, inner, start)?;
            let empty_at = self.pos;
            self.comment_here()?;
            return self.parse_node_below(n, ctx, props, empty_at);
        }
        self.pos = start;
        let tab = self.line_tab;
        let mut node = self.parse_inline(n, ctx, outer, true, tab)?;
        if lead.is_some() && node.is_block_collection() {
            set_first_lead(&mut node, lead);
        }
        Ok(node)
    }

    /// Content that starts at `pos`: a block collection, a block scalar, or a flow node (which
    /// may turn out to be the first key of a block mapping). `own_line`: nothing but
    /// indentation precedes it on its line; `tab`: a tab is in the white space before it.
    fn parse_inline(
        &mut self,
        n: i64,
        ctx: Ctx,
        outer: Option<Box<Props>>,
        own_line: bool,
        tab: bool,
    ) -> PResult<Node> {
        let col = self.col();
        let start = self.pos;
        let start_ls = self.ls;
        // Why a block collection may not start here, if it may not.
        let refuse = if tab {
            Some(NOT_AFTER_TAB)
        } else if own_line || ctx.compact() {
            None
        } else if ctx == Ctx::DocLine {
            Some(NOT_ON_DOC_LINE)
        } else {
            Some(NOT_ON_KEY_LINE)
        };
        let indicator = |p: &Parser, c: u8| p.peek() == c && is_ws_or_eol(p.peek_at(1));
        if indicator(self, b'-') {
            if let Some(why) = refuse {
                return self.err(why);
            }
            let mut node = self.parse_block_seq(col, None)?;
            node.props = outer;
            return Ok(node);
        }
        if indicator(self, b'?') || indicator(self, b':') {
            if let Some(why) = refuse {
                return self.err(why);
            }
            let mut node = self.parse_block_mapping(col, None, None)?;
            node.props = outer;
            return Ok(node);
        }
        let inner = self.parse_props(false)?;
        if inner.is_some() && (indicator(self, b'-') || indicator(self, b'?')) {
            return self.err(NOT_AFTER_PROPS);
        }
        let content = self.pos;
        let candidate = match self.peek() {
            b'|' | b'>' => {
                let props = self.merge_props(outer, inner, start)?;
                let mut node = self.parse_block_scalar(n)?;
                node.props = props;
                return Ok(node);
            }
            b':' if is_ws_or_eol(self.peek_at(1)) => None,
            b'*' => Some(self.parse_alias()?),
            b'"' | b'\'' => Some(self.parse_quoted(n)?),
            b'[' | b'{' => Some(self.parse_flow_node(n)?),
            _ => {
                self.check_plain_start(false)?;
                let first = self.scan_plain_line(self.pos, false);
                if first.1 != Stop::Colon {
                    let props = self.merge_props(outer, inner, start)?;
                    let mut node = self.parse_plain_block(n, Some(first))?;
                    node.props = props;
                    return Ok(node);
                }
                None
            }
        };
        // A key (the rest of the line is `: ...`), or a value?
        let after = self.pos;
        self.skip_inline_ws();
        let is_key = self.peek() == b':' && is_ws_or_eol(self.peek_at(1));
        self.pos = after;
        match candidate {
            Some(mut node) if !is_key => {
                node.props = self.merge_props(outer, inner, start)?;
                if node.props.is_some() && matches!(node.kind, Kind::Alias(_)) {
                    return Err(self.error_at(content, ALIAS_PROPS));
                }
                Ok(node)
            }
            _ => {
                if let Some(why) = refuse {
                    return Err(self.error_at(content, why));
                }
                self.pos = start;
                self.ls = start_ls;
                let mut node = self.parse_block_mapping(col, None, None)?;
                node.props = outer;
                Ok(node)
            }
        }
    }

    /// A block mapping whose first entry starts at `pos`, column `col`. `hook` reads the value
    /// of `items` instead (the ResourceList's own mapping).
    pub(super) fn parse_block_mapping(
        &mut self,
        col: usize,
        first_lead: Option<Span>,
        mut hook: Option<&mut ItemsHook>,
    ) -> PResult<Node> {
        self.enter()?;
        let start = self.pos;
        let mut entries = Building::new(&self.entry_stack);
        let mut lead = first_lead;
        let mut end;
        loop {
            let entry_start = self.pos;
            self.count_value()?;
            let (key, value, mut comment) = if self.peek() == b'?' && is_ws_or_eol(self.peek_at(1))
            {
                self.parse_explicit_entry(col)?
            } else {
                let key = self.parse_implicit_key()?;
                // parse_implicit_key left us on the ':'.
                self.pos += 1;
                let (value, comment) = match hook.as_deref_mut() {
                    Some(h) if key.is_scalar() && key.scalar_text() == "items" => {
                        h.block_value(self, col)?
                    }
                    _ if self.skims(&key) => {
                        self.skim.on = true;
                        let value = self.parse_block_node(col as i64, Ctx::MapValue);
                        self.skim.on = false;
                        value?
                    }
                    _ => self.parse_block_node(col as i64, Ctx::MapValue)?,
                };
                (key, value, comment)
            };
            self.check_new_key(entries.so_far(&self.entry_stack), &key, entry_start)?;
            if !value.is_block_collection() {
                if let Some(c) = self.take_line_comment()? {
                    comment = Some(c);
                }
                end = self.pos;
            } else {
                end = value.origin().map_or(self.pos, |s| s.end() as usize);
            }
            let e = Entry {
                key,
                value,
                trivia: Trivia::written(lead, comment, Span::new(entry_start, end)),
            };
            entries.push(&mut self.entry_stack, e);
            let next = self.next_line()?;
            if next.indent == col as i64 {
                if self.line_tab {
                    return self.err("a tab character cannot indent a mapping entry; use spaces");
                }
                if self.at_seq_entry() {
                    return self
                        .err("a sequence entry is not allowed here (check the indentation)");
                }
                lead = next.lead;
                continue;
            }
            if next.indent > col as i64 {
                return self.err("bad indentation of a mapping entry");
            }
            self.rewind(&next);
            break;
        }
        self.check_keys_unique(entries.so_far(&self.entry_stack))?;
        self.leave();
        if self.skim.on {
            entries.discard(&mut self.entry_stack);
            return Ok(skimmed(
                Kind::Mapping(Vec::new()),
                Span::new(start, end),
                false,
            ));
        }
        let entries = entries.finish(&mut self.entry_stack);
        let mut node = Node::with_kind(Kind::Mapping(entries));
        node.set_src(Some(Span::new(start, end)));
        Ok(node)
    }

    /// `? key` and, on a following line at the same column, `: value`.
    fn parse_explicit_entry(&mut self, col: usize) -> PResult<(Node, Node, Option<Span>)> {
        self.pos += 1;
        self.skim.key = true;
        let key = self.parse_block_node(col as i64, Ctx::Explicit);
        self.skim.key = false;
        let (key, mut comment) = key?;
        if !key.is_block_collection() {
            if let Some(c) = self.take_line_comment()? {
                comment = Some(c);
            }
        }
        let next = self.next_line()?;
        if next.indent == col as i64
            && !self.line_tab
            && self.peek() == b':'
            && is_ws_or_eol(self.peek_at(1))
        {
            self.pos += 1;
            let (value, comment) = self.parse_block_node(col as i64, Ctx::Explicit)?;
            return Ok((key, value, comment));
        }
        self.rewind(&next);
        Ok((key, null_at(self.pos), comment))
    }

    /// An implicit mapping key on one line: properties, then an alias, a quoted or plain
    /// scalar, a flow collection, or nothing (`: value`). Leaves `pos` on the `:`.
    fn parse_implicit_key(&mut self) -> PResult<Node> {
        let start = self.pos;
        let line = self.ls;
        let props = self.parse_props(false)?;
        let content = self.pos;
        let mut key = match self.peek() {
            b':' if is_ws_or_eol(self.peek_at(1)) => null_at(self.pos),
            b'*' if props.is_some() => return self.err(ALIAS_PROPS),
            b'*' => self.parse_alias()?,
            b'"' | b'\'' => self.parse_quoted(-1)?,
            b'[' | b'{' => self.parse_flow_node(-1)?,
            b'-' | b'?' if is_ws_or_eol(self.peek_at(1)) => {
                return self.err("expected a mapping key followed by ':'")
            }
            _ => {
                self.check_plain_start(false)?;
                let (end, stop) = self.scan_plain_line(self.pos, false);
                if stop != Stop::Colon || end == self.pos {
                    return self.err("expected a mapping key followed by ':'");
                }
                let node = self.plain_node(self.pos, end, &self.s[self.pos..end]);
                self.pos = end;
                node
            }
        };
        if self.ls != line {
            return Err(self.error_at(
                content,
                "an implicit mapping key must be on one line; write a longer key as an explicit key ('? key' and ': value' on the next line)",
            ));
        }
        // Counted up to its ':', with the spaces before it, as YAML 1.2 and go-yaml count.
        self.skip_inline_ws();
        if self.too_long_for_implicit_key(start) {
            return Err(self.error_at(
                start,
                format!("an implicit mapping key is longer than {MAX_IMPLICIT_KEY} characters (with the spaces before its ':'); write it as an explicit key ('? key' and ': value' on the next line)"),
            ));
        }
        if self.peek() != b':' {
            return self.err("expected ':' after a mapping key");
        }
        if !is_ws_or_eol(self.peek_at(1)) {
            return self.err("expected white space after ':'");
        }
        key.props = props;
        Ok(key)
    }

    /// Refuses `key` (read at `key_start`) when it is already among `entries`. Only while the
    /// mapping is small: a larger one is checked once, when complete, by
    /// [`Parser::check_keys_unique`], so a wide mapping costs linear time, not quadratic.
    pub(super) fn check_new_key(
        &self,
        entries: &[Entry],
        key: &Node,
        key_start: usize,
    ) -> PResult<()> {
        if key.is_scalar()
            && entries.len() < LINEAR_KEY_CHECK
            && entries
                .iter()
                .any(|e| e.key.is_scalar() && e.key.scalar_text() == key.scalar_text())
        {
            return Err(self.duplicate_key(key, key_start));
        }
        Ok(())
    }

    /// The check of [`Parser::check_new_key`] for a complete mapping too wide for it.
    pub(super) fn check_keys_unique(&self, entries: &[Entry]) -> PResult<()> {
        if entries.len() <= LINEAR_KEY_CHECK {
            return Ok(());
        }
        let mut seen = std::collections::HashSet::with_capacity(entries.len());
        for e in entries.iter().filter(|e| e.key.is_scalar()) {
            if !seen.insert(e.key.scalar_text()) {
                let at = e
                    .trivia
                    .whole()
                    .or(e.key.origin())
                    .map_or(0, |s| s.start() as usize);
                return Err(self.duplicate_key(&e.key, at));
            }
        }
        Ok(())
    }

    pub(super) fn duplicate_key(&self, key: &Node, pos: usize) -> ParseError {
        self.error_at(
            pos,
            format!("mapping key {:?} is defined twice", key.scalar_text()),
        )
    }

    /// A block sequence whose first `-` is at `pos`, column `col`.
    pub(super) fn parse_block_seq(
        &mut self,
        col: usize,
        first_lead: Option<Span>,
    ) -> PResult<Node> {
        self.enter()?;
        let mut items = Building::new(&self.item_stack);
        let span =
            self.parse_block_seq_streaming(col, first_lead, false, &mut |p, value, trivia, _| {
                if !p.skim.on {
                    items.push(&mut p.item_stack, Item { value, trivia });
                }
                Ok(())
            })?;
        self.leave();
        if self.skim.on {
            items.discard(&mut self.item_stack);
            return Ok(skimmed(Kind::Sequence(Vec::new()), span, false));
        }
        let items = items.finish(&mut self.item_stack);
        let mut node = Node::with_kind(Kind::Sequence(items));
        node.set_src(Some(span));
        Ok(node)
    }

    /// Parses a block sequence item by item, handing each item's node, trivia and the position
    /// after its `-` to `f` instead of keeping it (so `items:` is never held as one tree).
    /// `own_trees`: each item is a tree of its own for [`Parser::count_value`].
    pub(crate) fn parse_block_seq_streaming(
        &mut self,
        col: usize,
        first_lead: Option<Span>,
        own_trees: bool,
        f: &mut dyn FnMut(&mut Parser<'a>, Node, Trivia, usize) -> PResult<()>,
    ) -> PResult<Span> {
        let start = self.pos;
        let mut lead = first_lead;
        let mut end;
        loop {
            let dash = self.pos;
            if own_trees {
                self.begin_own_tree();
            }
            self.count_value()?;
            self.pos += 1;
            // An item of a skimmed ResourceList in plain shapes is read by lines.
            let quick = (own_trees && self.skim.items)
                .then(|| self.skim_item_lines(col))
                .flatten();
            let (value, mut comment) = match quick {
                Some(read) => read,
                None => self.parse_block_node(col as i64, Ctx::SeqItem)?,
            };
            if !value.is_block_collection() {
                if let Some(c) = self.take_line_comment()? {
                    comment = Some(c);
                }
                end = self.pos;
            } else {
                end = value.origin().map_or(self.pos, |s| s.end() as usize);
            }
            f(
                self,
                value,
                Trivia::written(lead, comment, Span::new(dash, end)),
                dash + 1,
            )?;
            let next = self.next_line()?;
            if next.indent == col as i64 && self.at_seq_entry() {
                if self.line_tab {
                    return self.err("a tab character cannot indent a sequence entry; use spaces");
                }
                lead = next.lead;
                continue;
            }
            if next.indent > col as i64 {
                return self.err("bad indentation of a sequence entry");
            }
            self.rewind(&next);
            break;
        }
        Ok(Span::new(start, end))
    }

    /// Joins the properties written on an earlier line with those on the content's line.
    #[inline]
    pub(super) fn merge_props(
        &self,
        outer: Option<Box<Props>>,
        inner: Option<Box<Props>>,
        at: usize,
    ) -> PResult<Option<Box<Props>>> {
        // Most nodes have none: nothing to join.
        if outer.is_none() {
            return Ok(inner);
        }
        self.join_props(outer, inner, at)
    }

    fn join_props(
        &self,
        outer: Option<Box<Props>>,
        inner: Option<Box<Props>>,
        at: usize,
    ) -> PResult<Option<Box<Props>>> {
        match (outer, inner) {
            (Some(mut o), Some(i)) => {
                if o.anchor.is_some() && i.anchor.is_some() {
                    return Err(self.error_at(at, "a node cannot have two anchors"));
                }
                if o.tag.is_some() && i.tag.is_some() {
                    return Err(self.error_at(at, "a node cannot have two tags"));
                }
                o.anchor = o.anchor.or(i.anchor);
                o.tag = o.tag.or(i.tag);
                Ok(Some(o))
            }
            (o, i) => Ok(o.or(i)),
        }
    }
}

/// The comment and blank lines before a collection's first line are its first entry's lead.
fn set_first_lead(node: &mut Node, lead: Option<Span>) {
    match &mut node.kind {
        Kind::Mapping(e) => {
            if let Some(first) = e.first_mut() {
                first.trivia.lead = lead;
            }
        }
        Kind::Sequence(i) => {
            if let Some(first) = i.first_mut() {
                first.trivia.lead = lead;
            }
        }
        _ => {}
    }
}
