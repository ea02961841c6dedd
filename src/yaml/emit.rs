//! The emitter: writes nodes as block-style YAML the way kyaml does (two-space indentation,
//! sequences compact under their key), copying the source text of every untouched node.
//!
//! Copied text is re-indented by the difference between where its parent stood in the input
//! and where it stands in the output, so comments, quoting, flow collections and block
//! scalars come out as they went in.

use super::node::{Entry, Item, Kind, Node, Span, Trivia};
use super::style::{literal_ok, needs_escape, plain_ok, single_ok, string_style, ScalarStyle};

/// Writes YAML for nodes that point into `src`.
pub struct Emitter<'a> {
    src: &'a str,
    pub out: String,
    /// Write flow collections in block style (the item itself was flow, e.g. JSON input).
    force_block: bool,
}

impl<'a> Emitter<'a> {
    pub fn new(src: &'a str, capacity: usize) -> Emitter<'a> {
        Emitter {
            src,
            out: String::with_capacity(capacity),
            force_block: false,
        }
    }

    fn source_col(&self, pos: usize) -> usize {
        let pos = pos.min(self.src.len());
        pos - self.src[..pos].rfind('\n').map_or(0, |i| i + 1)
    }

    fn indent(&mut self, n: usize) {
        for _ in 0..n {
            self.out.push(' ');
        }
    }

    /// Copies `span`, shifting the indentation of every following line by `delta`.
    pub fn copy(&mut self, span: Span, delta: i64) {
        let text = &self.src[span.range()];
        if delta == 0 {
            self.out.push_str(text);
            return;
        }
        let mut first = true;
        for line in text.split('\n') {
            if !first {
                self.out.push('\n');
                let trimmed = line.trim_start_matches(' ');
                if !trimmed.is_empty() && trimmed != "\r" {
                    if delta > 0 {
                        self.indent(delta as usize);
                        self.out.push_str(line);
                    } else {
                        let have = line.len() - trimmed.len();
                        let cut = have.min((-delta) as usize);
                        self.out.push_str(&line[cut..]);
                    }
                } else {
                    self.out.push_str(line);
                }
            } else {
                self.out.push_str(line);
            }
            first = false;
        }
    }

    /// Copies comment/blank lines before an entry, re-indented by `delta`.
    fn lead(&mut self, lead: Option<Span>, delta: i64) {
        let Some(l) = lead else { return };
        // The lead runs up to the start of the entry's line; its last line holds only the
        // entry's own indentation, which the caller writes.
        let text = &self.src[l.range()];
        let cut = text.rfind('\n').map_or(0, |i| i + 1);
        if cut == 0 {
            return;
        }
        if !self.out.is_empty() && !self.out.ends_with('\n') {
            self.out.push('\n');
        }
        self.copy_lines(Span::new(l.start as usize, l.start as usize + cut), delta);
    }

    /// Copies whole lines, shifting every line (the first too) by `delta`.
    fn copy_lines(&mut self, span: Span, delta: i64) {
        let text = &self.src[span.range()];
        for line in text.split_inclusive('\n') {
            let trimmed = line.trim_start_matches(' ');
            if trimmed.is_empty() || trimmed == "\n" || trimmed == "\r\n" {
                self.out.push_str(trimmed);
                continue;
            }
            let have = (line.len() - trimmed.len()) as i64;
            let want = (have + delta).max(0) as usize;
            self.indent(want);
            self.out.push_str(trimmed);
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
                    let delta = indent as i64 - self.source_col(span.start as usize) as i64;
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
                .whole
                .or(e.key.span())
                .map(|s| self.source_col(s.start as usize) as i64);
            let delta = key_col.map_or(0, |c| indent as i64 - c);
            let inline = self.item_lead(&e.trivia, delta, inline_first && i == 0);
            if !inline {
                self.indent(indent);
            }
            match e.trivia.whole {
                Some(w) if e.value.is_pristine() && e.key.is_pristine() && !self.force_block => {
                    self.copy(w, delta);
                    self.out.push('\n');
                }
                _ => {
                    self.key(&e.key);
                    self.out.push(':');
                    self.value_after_indicator(
                        &e.value,
                        indent,
                        indent + 2,
                        e.trivia.comment,
                        delta,
                        true,
                    );
                }
            }
        }
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
        match trivia.whole {
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

    /// An untouched sequence item, copied from its source (`trivia.whole` starts at its `-`).
    pub fn raw_item(&mut self, trivia: &Trivia, indent: usize) {
        let delta = self.item_delta(trivia, indent);
        self.item_lead(trivia, delta, false);
        if let Some(w) = trivia.whole {
            self.indent(indent);
            self.copy(w, delta);
            self.out.push('\n');
        }
    }

    fn item_delta(&self, trivia: &Trivia, indent: usize) -> i64 {
        trivia.whole.map_or(0, |s| {
            indent as i64 - self.source_col(s.start as usize) as i64
        })
    }

    /// Writes the comment lines before an entry or item; returns whether it still continues
    /// the current line (after `- `): comments cannot sit between `- ` and what follows, so an
    /// item with comments before its first key starts on its own line.
    fn item_lead(&mut self, trivia: &Trivia, delta: i64, mut inline: bool) -> bool {
        if trivia
            .lead
            .is_some_and(|l| self.src[l.range()].contains('\n'))
        {
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

    fn key(&mut self, key: &Node) {
        match key.span() {
            Some(s) if !(self.force_block && is_json_string(key)) => self.copy(s, 0),
            _ => {
                let text = key.as_scalar().map_or("", |s| s.value.as_str());
                let style = match string_style(text) {
                    ScalarStyle::Literal | ScalarStyle::Folded => ScalarStyle::DoubleQuoted,
                    s => s,
                };
                self.scalar_text(text, style, 0);
            }
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
                    let src_col = self.source_col(span.start as usize) as i64;
                    self.copy(span, target as i64 - src_col);
                    self.out.push('\n');
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
        match v.span() {
            Some(_) if self.force_block && is_json_string(v) => {
                let s = v.as_scalar().map_or("", |s| s.value.as_str());
                self.scalar_text(s, string_style(s), child);
            }
            Some(span) if !self.force_block || v.is_scalar() => {
                let d = match v.as_scalar().map(|s| s.style) {
                    Some(ScalarStyle::Literal | ScalarStyle::Folded) => delta,
                    _ => {
                        let out_col = self.out.len() - self.out.rfind('\n').map_or(0, |i| i + 1);
                        out_col as i64 - self.source_col(span.start as usize) as i64
                    }
                };
                self.copy(span, d)
            }
            _ => self.inline(v, child),
        }
        if self.out.len() == before {
            self.out.truncate(mark);
        }
        self.comment(comment);
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
                    self.flow_node(&e.key);
                    self.out.push(':');
                    let before = self.out.len();
                    self.out.push(' ');
                    let inner = self.out.len();
                    self.flow_node(&e.value);
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
                    self.flow_node(&it.value);
                }
                self.out.push(']');
            }
        }
    }

    fn flow_node(&mut self, v: &Node) {
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
        if let Some(span) = v.span() {
            self.copy(span, 0);
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
            _ => self.inline(v, 0),
        }
    }

    /// Writes scalar text in `style`; block scalars put their lines at column `child`.
    fn scalar_text(&mut self, value: &str, style: ScalarStyle, child: usize) {
        match style {
            ScalarStyle::Plain => self.out.push_str(value),
            ScalarStyle::SingleQuoted if single_ok(value) => {
                self.out.push('\'');
                self.out.push_str(&value.replace('\'', "''"));
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

/// Writes one node as a standalone YAML document (for tests and debugging).
/// Text before the root node's line (comments, directives, `---`) and after its last line is
/// copied as it was.
pub fn to_string(src: &str, node: &Node) -> String {
    let mut e = Emitter::new(src, src.len() + 64);
    let root = node.span().or_else(|| first_span(node));
    if let Some(r) = root {
        let ls = src[..r.start as usize].rfind('\n').map_or(0, |i| i + 1);
        e.out.push_str(&src[..ls]);
        e.indent(r.start as usize - ls);
    }
    e.node_at(
        node,
        e.out.len() - e.out.rfind('\n').map_or(0, |i| i + 1),
        false,
    );
    if let Some(end) = node.span().map(|s| s.end as usize) {
        if let Some(nl) = src[end..].find('\n') {
            e.out.push_str(&src[end + nl + 1..]);
        }
    }
    e.out
}

fn first_span(node: &Node) -> Option<Span> {
    match node.kind() {
        Kind::Mapping(e) => e.first().and_then(|e| e.trivia.whole.or(e.key.span())),
        Kind::Sequence(i) => i.first().and_then(|i| i.trivia.whole),
        _ => None,
    }
}
