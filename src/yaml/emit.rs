//! The emitter: writes nodes as block-style YAML the way kyaml does (two-space indentation,
//! sequences compact under their key), copying the source text of every untouched node.
//!
//! Copied text is re-indented by the difference between where its parent stood in the input
//! and where it stands in the output, so comments, quoting, flow collections and block
//! scalars come out as they went in.

use super::breaks::{self, has_break};
use super::node::{Entry, Item, Kind, Node, Span, Trivia};
use super::style::{literal_ok, needs_escape, plain_ok, single_ok, string_style, ScalarStyle};

mod copy;

/// Writes YAML for nodes that point into `src`.
pub struct Emitter<'a> {
    src: &'a str,
    pub out: String,
    /// Write flow collections in block style (the item itself was flow, e.g. JSON input).
    force_block: bool,
    /// The last [`Emitter::source_col`] answer: a position and the start of its line. Columns
    /// are asked for in about source order, so each answer searches only from the last one:
    /// on a long line (minified JSON) a search from the position back to the line start each
    /// time would make writing it quadratic.
    last_line: std::cell::Cell<(usize, usize)>,
}

impl<'a> Emitter<'a> {
    pub fn new(src: &'a str, capacity: usize) -> Emitter<'a> {
        Emitter {
            src,
            out: String::with_capacity(capacity),
            force_block: false,
            last_line: std::cell::Cell::new((0, 0)),
        }
    }

    fn indent(&mut self, n: usize) {
        for _ in 0..n {
            self.out.push(' ');
        }
    }

    fn comment(&mut self, c: Option<Span>) {
        if let Some(c) = c {
            self.out.push(' ');
            self.out.push_str(&self.src[c.range()]);
        }
    }

    fn props(&mut self, node: &Node) {
        if let Some(p) = node.props() {
            if let Some(a) = &p.anchor {
                self.out.push_str(" &");
                self.out.push_str(a);
            }
            if let Some(t) = &p.tag {
                self.out.push(' ');
                self.out.push_str(t);
            }
        }
    }

    fn is_block(&self, node: &Node) -> bool {
        let non_empty = match node.kind() {
            Kind::Mapping(e) => !e.is_empty(),
            Kind::Sequence(i) => !i.is_empty(),
            _ => return false,
        };
        non_empty && (!node.is_flow() || self.force_block)
    }

    fn copyable(&self, node: &Node) -> Option<Span> {
        if self.force_block && matches!(node.kind(), Kind::Mapping(_) | Kind::Sequence(_)) {
            return None;
        }
        node.span()
    }

    /// Writes a node that is a top-level document or a ResourceList item value, starting at the
    /// current position (column `indent`), first line already indented.
    pub fn node_at(&mut self, node: &Node, indent: usize, force_block: bool) {
        let saved = self.force_block;
        self.force_block = force_block;
        match node.kind() {
            Kind::Mapping(entries) if self.is_block(node) && self.copyable(node).is_none() => {
                self.entries(entries, indent, true)
            }
            Kind::Sequence(items) if self.is_block(node) && self.copyable(node).is_none() => {
                self.items(items, indent, true)
            }
            _ => match self.copyable(node) {
                Some(span) => {
                    let delta = indent as i64 - self.source_col(span.start() as usize) as i64;
                    self.copy(span, delta);
                    self.out.push('\n');
                }
                None => {
                    self.inline(node, indent);
                    self.out.push('\n');
                }
            },
        }
        self.force_block = saved;
    }

    /// Block mapping entries at column `indent`. With `inline_first`, the first key continues
    /// the current line (after `- `).
    pub fn entries(&mut self, entries: &[Entry], indent: usize, inline_first: bool) {
        for (i, e) in entries.iter().enumerate() {
            let key_col = e
                .trivia
                .start()
                .or(e.key.span().map(|s| s.start() as usize))
                .map(|s| self.source_col(s) as i64);
            let delta = key_col.map_or(0, |c| indent as i64 - c);
            let inline = self.item_lead(&e.trivia, delta, inline_first && i == 0);
            if !inline {
                self.indent(indent);
            }
            match e.trivia.whole() {
                Some(w) if e.value.is_pristine() && e.key.is_pristine() && !self.force_block => {
                    self.copy(w, delta);
                    self.out.push('\n');
                }
                _ => self.entry(e, indent, delta),
            }
        }
    }

    /// `key: value`, or `? key` and `: value` on the next line when the key does not fit an
    /// implicit key (a block collection or block scalar, anything over more than one line, or
    /// longer than YAML's 1024 characters).
    fn entry(&mut self, e: &Entry, indent: usize, delta: i64) {
        let mark = self.out.len();
        self.key(&e.key);
        let key = &self.out[mark..];
        // A key that starts like a document marker would be one at the start of a line.
        let marker =
            (key.starts_with("---") || key.starts_with("...")) && key[3..].starts_with([' ', '\t']);
        let block_scalar = e.key.as_scalar().is_some_and(|s| {
            matches!(s.style, ScalarStyle::Literal | ScalarStyle::Folded) && e.key.is_pristine()
        });
        if !has_break(key)
            && key.chars().count() <= 1024
            && !marker
            && !block_scalar
            && !self.is_block(&e.key)
        {
            self.out.push(':');
            self.value_after_indicator(&e.value, indent, indent + 2, e.trivia.comment, delta, true);
            return;
        }
        self.out.truncate(mark);
        self.out.push('?');
        self.value_after_indicator(&e.key, indent, indent + 2, None, delta, false);
        self.indent(indent);
        self.out.push(':');
        self.value_after_indicator(&e.value, indent, indent + 2, e.trivia.comment, delta, false);
    }

    /// Block sequence items at column `indent`.
    pub fn items(&mut self, items: &[Item], indent: usize, inline_first: bool) {
        for (i, it) in items.iter().enumerate() {
            self.seq_item(&it.value, &it.trivia, indent, inline_first && i == 0);
        }
    }

    /// One sequence item: comments before it, then `- value` at column `indent`.
    pub fn seq_item(&mut self, value: &Node, trivia: &Trivia, indent: usize, inline: bool) {
        let delta = self.item_delta(trivia, indent);
        let inline = self.item_lead(trivia, delta, inline);
        if !inline {
            self.indent(indent);
        }
        match trivia.whole() {
            Some(w) if value.is_pristine() && !self.force_block => {
                self.copy(w, delta);
                self.out.push('\n');
            }
            _ => {
                self.out.push('-');
                self.value_after_indicator(value, indent, indent + 2, trivia.comment, delta, false);
            }
        }
    }

    /// [`Emitter::seq_item`] with flow collections written as block collections when
    /// `force_block` (the item came as JSON).
    pub fn seq_item_forced(
        &mut self,
        value: &Node,
        trivia: &Trivia,
        indent: usize,
        force_block: bool,
    ) {
        let saved = self.force_block;
        self.force_block = force_block;
        self.seq_item(value, trivia, indent, false);
        self.force_block = saved;
    }

    /// [`Emitter::entries`] with flow collections written as block collections when
    /// `force_block`.
    pub fn entries_forced(&mut self, entries: &[Entry], indent: usize, force_block: bool) {
        let saved = self.force_block;
        self.force_block = force_block;
        self.entries(entries, indent, false);
        self.force_block = saved;
    }

    /// A new top-level entry `key:` whose value is an untouched block mapping read at `span`:
    /// what [`Emitter::entries`] writes for a new plain key and such a value, written from
    /// the text alone (the mapping's tree is not needed).
    pub fn copied_mapping_entry(&mut self, key: &str, span: Span) {
        self.out.push_str(key);
        self.out.push_str(":\n");
        self.indent(2);
        self.copy_block(span, 2);
    }

    /// An untouched block collection read at `span`, its first line already indented to
    /// column `target`, the rest moved there with it.
    fn copy_block(&mut self, span: Span, target: usize) {
        let src_col = self.source_col(span.start() as usize) as i64;
        self.copy(span, target as i64 - src_col);
        self.copied_break(span.end() as usize);
    }

    /// Ends a copied span's last line with the line break it had in the source (every other
    /// line of the span is copied with its own): a CRLF text comes out as it went in.
    fn copied_break(&mut self, end: usize) {
        if self.src[end..].starts_with("\r\n") {
            self.out.push('\r');
        }
        self.out.push('\n');
    }

    /// An untouched sequence item, copied from its source (`trivia.whole` starts at its `-`).
    pub fn raw_item(&mut self, trivia: &Trivia, indent: usize) {
        let delta = self.item_delta(trivia, indent);
        self.item_lead(trivia, delta, false);
        if let Some(w) = trivia.whole() {
            self.indent(indent);
            self.copy(w, delta);
            self.copied_break(w.end() as usize);
        }
    }

    fn item_delta(&self, trivia: &Trivia, indent: usize) -> i64 {
        trivia
            .start()
            .map_or(0, |s| indent as i64 - self.source_col(s) as i64)
    }

    /// Writes the comment lines before an entry or item; returns whether it still continues
    /// the current line (after `- `): comments cannot sit between `- ` and what follows, so an
    /// item with comments before its first key starts on its own line.
    fn item_lead(&mut self, trivia: &Trivia, delta: i64, mut inline: bool) -> bool {
        if trivia.lead.is_some_and(|l| has_break(&self.src[l.range()])) {
            if inline {
                while self.out.ends_with(' ') {
                    self.out.pop();
                }
                self.out.push('\n');
                inline = false;
            }
            self.lead(trivia.lead, delta);
        }
        inline
    }

    /// An implicit key (with its anchor and tag) on the current line, as far as it goes: the
    /// caller checks that it fits on one line.
    fn key(&mut self, key: &Node) {
        self.flow_props(key);
        match key.kind() {
            Kind::Scalar(s) => match key.span() {
                Some(sp) if !(self.force_block && is_json_string(key)) => self.copy(sp, 0),
                _ if key.is_null() && s.value.is_empty() => {}
                _ => {
                    let style = match s.style {
                        _ if is_json_string(key) && self.force_block => string_style(&s.value),
                        ScalarStyle::Plain if plain_ok(&s.value, false) => ScalarStyle::Plain,
                        ScalarStyle::Plain => string_style(&s.value),
                        st => st,
                    };
                    let style = match style {
                        ScalarStyle::Literal | ScalarStyle::Folded => ScalarStyle::DoubleQuoted,
                        st => st,
                    };
                    self.scalar_text(&s.value, style, 0);
                }
            },
            // `*a:` would read as the alias `a:`.
            Kind::Alias(_) => {
                self.inline(key, 0);
                self.out.push(' ');
            }
            _ => match self.copyable(key) {
                Some(sp) => self.copy(sp, 0),
                None => self.inline(key, 0),
            },
        }
    }

    /// Writes a value after `key:` or `-`. `indent` is the column of the key or dash, `child`
    /// the column of nested block content, `delta` how far the parent moved from the source.
    fn value_after_indicator(
        &mut self,
        v: &Node,
        indent: usize,
        child: usize,
        comment: Option<Span>,
        delta: i64,
        after_key: bool,
    ) {
        self.props(v);
        if self.is_block(v) {
            // A block collection starts on its own line after `key:` (a sequence at the key's
            // column, as kyaml writes it) or after a comment or properties; otherwise it
            // continues the `- ` line.
            let own_line = after_key || comment.is_some() || v.props().is_some();
            let target = if v.is_sequence() && after_key {
                indent
            } else {
                child
            };
            if own_line {
                self.comment(comment);
                self.out.push('\n');
            } else {
                self.out.push(' ');
            }
            match (v.kind(), self.copyable(v)) {
                (_, Some(span)) => {
                    // Untouched collection under a touched parent.
                    if own_line {
                        self.indent(target);
                    }
                    self.copy_block(span, target);
                }
                (Kind::Mapping(entries), None) => self.entries(entries, target, !own_line),
                (Kind::Sequence(items), None) => self.items(items, target, !own_line),
                _ => {}
            }
            return;
        }
        // Scalars, aliases, flow and empty collections stay on this line.
        let mark = self.out.len();
        self.out.push(' ');
        let before = self.out.len();
        let block = v
            .as_scalar()
            .filter(|s| matches!(s.style, ScalarStyle::Literal | ScalarStyle::Folded));
        match v.span() {
            Some(_) if self.force_block && is_json_string(v) => {
                let s = v.as_scalar().map_or("", |s| s.value.as_str());
                self.scalar_text(s, string_style(s), child);
            }
            // A block scalar without text, moved left: comment lines after it that were
            // less indented than its text would be could now be taken for its text.
            Some(_)
                if delta < 0
                    && block.is_some_and(|s| {
                        s.value
                            .chars()
                            .all(|c| matches!(c, '\n' | '\u{2028}' | '\u{2029}'))
                    }) =>
            {
                double_quote(&mut self.out, block.map_or("", |s| s.value.as_str()));
            }
            Some(span) if !self.force_block || v.is_scalar() => {
                let d = match v.as_scalar().map(|s| s.style) {
                    Some(ScalarStyle::Literal | ScalarStyle::Folded) => delta,
                    // Only text over several lines moves with its first line, and never further
                    // left than its parent moved: its lines must stay indented past the parent.
                    _ if !has_break(&self.src[span.range()]) => 0,
                    _ => {
                        let out_col =
                            self.out.len() - breaks::line_start(&self.out, self.out.len());
                        (out_col as i64 - self.source_col(span.start() as usize) as i64).max(delta)
                    }
                };
                self.copy(span, d)
            }
            _ => self.inline(v, child),
        }
        if self.out.len() == before {
            self.out.truncate(mark);
        }
        // After a block scalar's last line a comment would be text (or break it): it goes on
        // the header's line.
        let written = self.out.get(before..).unwrap_or("");
        let header_end = written
            .starts_with(['|', '>'])
            .then(|| breaks::next_break(written.as_bytes(), 0).map(|(n, _)| before + n))
            .flatten();
        match (header_end, comment) {
            (Some(at), Some(c)) => {
                let text = format!(" {}", &self.src[c.range()]);
                self.out.insert_str(at, &text);
            }
            _ => self.comment(comment),
        }
        self.out.push('\n');
    }

    /// A scalar, alias or flow collection (or empty block collection) on the current line;
    /// `child` is the indentation for block scalar content.
    fn inline(&mut self, v: &Node, child: usize) {
        match v.kind() {
            Kind::Scalar(s) => {
                if v.is_null() && v.span().is_none() && s.value.is_empty() {
                    self.out.push_str("null");
                } else {
                    self.scalar_text(&s.value, s.style, child);
                }
            }
            Kind::Alias(a) => {
                self.out.push('*');
                self.out.push_str(a);
            }
            Kind::Mapping(entries) => {
                self.out.push('{');
                for (i, e) in entries.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.flow_node(&e.key, child);
                    if matches!(e.key.kind(), Kind::Alias(_)) {
                        self.out.push(' ');
                    }
                    self.out.push(':');
                    let before = self.out.len();
                    self.out.push(' ');
                    let inner = self.out.len();
                    self.flow_node(&e.value, child);
                    if self.out.len() == inner {
                        self.out.truncate(before);
                    }
                }
                self.out.push('}');
            }
            Kind::Sequence(items) => {
                self.out.push('[');
                for (i, it) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.flow_node(&it.value, child);
                }
                self.out.push(']');
            }
        }
    }

    /// `&anchor !tag ` before a node on the current line.
    fn flow_props(&mut self, v: &Node) {
        if let Some(p) = v.props() {
            if let Some(a) = &p.anchor {
                self.out.push('&');
                self.out.push_str(a);
                self.out.push(' ');
            }
            if let Some(t) = &p.tag {
                self.out.push_str(t);
                self.out.push(' ');
            }
        }
    }

    /// A node inside a flow collection; `child` is one more than the column past which the
    /// collection's lines must stay.
    fn flow_node(&mut self, v: &Node, child: usize) {
        self.flow_props(v);
        if let Some(span) = v.span() {
            self.copy_past(span, child as i64 - 1);
            return;
        }
        match v.kind() {
            Kind::Scalar(s) => {
                let style = match s.style {
                    ScalarStyle::Plain if !plain_ok(&s.value, true) && !v.is_null() => {
                        ScalarStyle::DoubleQuoted
                    }
                    ScalarStyle::Literal | ScalarStyle::Folded => ScalarStyle::DoubleQuoted,
                    st => st,
                };
                if v.is_null() && s.value.is_empty() {
                    self.out.push_str("null");
                } else {
                    self.scalar_text(&s.value, style, 0);
                }
            }
            _ => self.inline(v, child),
        }
    }

    /// A new string value (a `Node::string`) after `key: `, as [`Emitter::entries`] writes it:
    /// in the style kyaml picks, block scalar lines at column `child`.
    pub fn string_value(&mut self, value: &str, child: usize) {
        self.scalar_text(value, string_style(value), child);
    }

    /// Writes scalar text in `style`; block scalars put their lines at column `child`.
    fn scalar_text(&mut self, value: &str, style: ScalarStyle, child: usize) {
        match style {
            ScalarStyle::Plain => self.out.push_str(value),
            ScalarStyle::SingleQuoted if single_ok(value) => {
                self.out.push('\'');
                // Written piece by piece: `replace` would copy the text into a new string first.
                for (i, piece) in value.split('\'').enumerate() {
                    if i > 0 {
                        self.out.push_str("''");
                    }
                    self.out.push_str(piece);
                }
                self.out.push('\'');
            }
            ScalarStyle::Literal | ScalarStyle::Folded if literal_ok(value) => {
                self.out.push('|');
                if value.starts_with(' ') {
                    self.out.push('2');
                }
                let body = value.trim_end_matches('\n');
                let trailing = value.len() - body.len();
                match trailing {
                    0 => self.out.push('-'),
                    1 => {}
                    _ => self.out.push('+'),
                }
                for line in body.split('\n') {
                    self.out.push('\n');
                    if !line.is_empty() {
                        self.indent(child);
                        self.out.push_str(line);
                    }
                }
                for _ in 1..trailing {
                    self.out.push('\n');
                }
            }
            _ => double_quote(&mut self.out, value),
        }
    }
}

/// A double-quoted string from JSON input: re-styled as kyaml would write it.
fn is_json_string(v: &Node) -> bool {
    v.as_scalar()
        .is_some_and(|s| s.style == ScalarStyle::DoubleQuoted && v.props().is_none())
}

/// Writes `value` double-quoted, escaping every character go-yaml would not read back raw
/// (see [`needs_escape`]).
fn double_quote(out: &mut String, value: &str) {
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if !needs_escape(c) => out.push(c),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            '\u{85}' => out.push_str("\\N"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            c if (c as u32) <= 0xff => out.push_str(&format!("\\x{:02X}", c as u32)),
            c if (c as u32) <= 0xffff => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push_str(&format!("\\U{:08X}", c as u32)),
        }
    }
    out.push('"');
}

/// Writes `node`, the (possibly edited) root of the document `src`, as a standalone YAML
/// document (for tests and debugging). The text around where the root was read from
/// (comments, directives, `---`, the root's properties, what follows it) is copied as it was.
pub fn to_string(src: &str, node: &Node) -> String {
    let mut e = Emitter::new(src, src.len() + 64);
    let root = node.span().or(node.origin().filter(|r| !r.is_empty()));
    let Some(root) = root else {
        e.node_at(node, 0, false);
        return e.out;
    };
    e.out.push_str(&src[..root.start() as usize]);
    let col = e.source_col(root.start() as usize);
    e.node_at(node, col, false);
    e.out.pop();
    e.out.push_str(&src[root.end() as usize..]);
    e.out
}
