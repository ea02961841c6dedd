//! Long lists inside an edited item, written by the function while the output is written.
//!
//! Why: a tree costs several times its text. A Kptfile that gets a readiness gate and a
//! condition per injection point (hundreds of thousands of them) held those lists as trees
//! until the output was written, about 650 bytes a condition against 180 bytes of text. Here
//! the item's tree holds a one-line placeholder sequence in each list's place; the emitter
//! writes the tree as always, and the placeholder's line is then replaced by the list's items,
//! which the function keeps compactly and writes one at a time, exactly as the emitter would
//! have written them from the tree.

use crate::yaml::{Emitter, Item, Node, ScalarStyle, Trivia};
use std::fmt;

/// Lists of one edited item that its function writes itself ([`super::Changes::lists`]).
/// The item's tree holds [`placeholder`]`(n)` where list `n` goes.
pub trait ItemLists: fmt::Debug {
    /// The edited item whose tree holds the placeholders.
    fn item(&self) -> usize;
    /// How many lists there are (placeholders `0..count()`).
    fn count(&self) -> usize;
    /// How many entries list `n` has.
    fn len(&self, n: usize) -> usize;
    /// Writes entry `k` of list `n` as a block sequence item at column `indent`, as
    /// [`Emitter::items`] writes a sequence's items (`force_block` as for the whole item).
    fn write(&self, n: usize, k: usize, e: &mut Emitter, indent: usize, force_block: bool);
}

/// Starts a placeholder's text: a control character, which the emitter writes raw only here
/// (scalars holding one are always double-quoted and escaped, and the input cannot hold one).
const MARK: char = '\u{1}';

/// The placeholder of list `n`: a block sequence of one plain scalar, written on its own line
/// as `- <MARK>n`.
pub fn placeholder(n: usize) -> Node {
    let mut seq = Node::sequence();
    if let Some(items) = seq.items_mut() {
        items.push(Item {
            value: Node::scalar(format!("{MARK}{n}"), ScalarStyle::Plain),
            trivia: Trivia::default(),
        });
    }
    seq
}

/// Replaces each placeholder line written since `from` with its list's entries, at the column
/// its `-` stood. `between` sees the output after each entry (a line boundary, where it may be
/// written out and cleared): a long list is never held whole as text either.
pub fn splice(
    lists: &dyn ItemLists,
    e: &mut Emitter,
    from: usize,
    force_block: bool,
    between: &mut dyn FnMut(&mut String),
) {
    // Each placeholder's line (start, end) and the column of its `-`, in the order written.
    let mut lines: Vec<(usize, usize, usize, usize)> = (0..lists.count())
        .filter_map(|n| {
            let text = format!("- {MARK}{n}\n");
            let at = e.out[from..].find(&text)? + from;
            let start = e.out[..at].rfind('\n').map_or(0, |p| p + 1).max(from);
            Some((start, at + text.len(), at - start, n))
        })
        .collect();
    debug_assert_eq!(lines.len(), lists.count(), "every placeholder is written");
    lines.sort_unstable();
    let item = e.out.split_off(from);
    let mut done = 0;
    for (start, end, indent, n) in lines {
        e.out.push_str(&item[done..start - from]);
        for k in 0..lists.len(n) {
            lists.write(n, k, e, indent, force_block);
            between(&mut e.out);
        }
        done = end - from;
    }
    e.out.push_str(&item[done..]);
}
