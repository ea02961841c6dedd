//! The record kept for each item of a streamed ResourceList: where its text is and its
//! identity. Sixteen bytes an item (plus its [`ObjectMeta`] when it has any metadata at all),
//! so that millions of small items cost a small multiple of their text, not hundreds of bytes
//! each. Everything else an item had in the parser (the comment lines before it) is found
//! again in the source when it is written.

use crate::krm::object::ObjectMeta;
use crate::yaml::breaks;
use crate::yaml::parse::ItemOrigin;
use crate::yaml::{Span, Trivia};

/// Most items one ResourceList may hold: 2^26. Their records alone take 1 GiB there; more only
/// fits an input of items of one or two bytes, which no package is.
pub const MAX_ITEMS: usize = 1 << 26;

/// `Slot::at`'s top bit: the item came from a flow (JSON) list.
const FLOW: u32 = 1 << 31;
/// `Slot::meta` for an item that is not a mapping.
const NOT_OBJECT: u32 = u32::MAX;
/// `Slot::meta` for a mapping without apiVersion, kind or metadata.
const BARE_OBJECT: u32 = u32::MAX - 1;

static NOT_OBJECT_META: ObjectMeta = ObjectMeta {
    is_object: false,
    api_version: String::new(),
    kind: String::new(),
    name: String::new(),
    namespace: None,
    labels: Vec::new(),
    annotations: Vec::new(),
    problem: None,
};

static BARE_OBJECT_META: ObjectMeta = ObjectMeta {
    is_object: true,
    api_version: String::new(),
    kind: String::new(),
    name: String::new(),
    namespace: None,
    labels: Vec::new(),
    annotations: Vec::new(),
    problem: None,
};

/// One item: where it starts (after its `-`, or where a flow item begins, with [`FLOW`]),
/// where its text ends (block) or the start of its line (flow), where the comment on its `-`
/// line starts (plus one; 0 for none), and its metadata.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    at: u32,
    aux: u32,
    comment: u32,
    meta: u32,
}

/// The items of a ResourceList, as read.
#[derive(Debug, PartialEq, Eq)]
pub struct Items {
    slots: Vec<Slot>,
    metas: Vec<ObjectMeta>,
    /// The comment and blank lines before the first item.
    first_lead: Option<Span>,
    /// [`MAX_ITEMS`], smaller in tests.
    limit: usize,
}

impl Default for Items {
    fn default() -> Items {
        Items {
            slots: Vec::new(),
            metas: Vec::new(),
            first_lead: None,
            limit: MAX_ITEMS,
        }
    }
}

impl Items {
    /// Records an item as the parser hands it over. `false` when there are already
    /// [`MAX_ITEMS`].
    pub(crate) fn push(&mut self, meta: ObjectMeta, trivia: Trivia, origin: ItemOrigin) -> bool {
        if self.slots.len() >= self.limit {
            return false;
        }
        let meta = if !meta.is_object {
            NOT_OBJECT
        } else if meta == BARE_OBJECT_META {
            BARE_OBJECT
        } else {
            self.metas.push(meta);
            (self.metas.len() - 1) as u32
        };
        let comment = trivia.comment.map_or(0, |c| c.start() + 1);
        let slot = match origin {
            ItemOrigin::Block { at } => {
                if self.slots.is_empty() {
                    self.first_lead = trivia.lead;
                }
                Slot {
                    at,
                    aux: trivia.whole().map_or(at, |w| w.end()),
                    comment,
                    meta,
                }
            }
            ItemOrigin::Flow { at, ls } => Slot {
                at: at | FLOW,
                aux: ls,
                comment,
                meta,
            },
        };
        self.slots.push(slot);
        true
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when there are no items.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The metadata of item `i`.
    pub fn meta(&self, i: usize) -> &ObjectMeta {
        match self.slots[i].meta {
            NOT_OBJECT => &NOT_OBJECT_META,
            BARE_OBJECT => &BARE_OBJECT_META,
            m => &self.metas[m as usize],
        }
    }

    /// Where item `i` can be parsed again.
    pub(crate) fn origin(&self, i: usize) -> ItemOrigin {
        let s = self.slots[i];
        if s.at & FLOW != 0 {
            ItemOrigin::Flow {
                at: s.at & !FLOW,
                ls: s.aux,
            }
        } else {
            ItemOrigin::Block { at: s.at }
        }
    }

    /// Item `i` is an entry of a block list (its text can be copied).
    pub(crate) fn is_block(&self, i: usize) -> bool {
        self.slots[i].at & FLOW == 0
    }

    /// The trivia item `i` had in the parser: its lead (the lines between the previous item
    /// and its `-`), its comment, its whole text. Flow items have none.
    pub(crate) fn trivia(&self, i: usize, src: &str) -> Trivia {
        let s = self.slots[i];
        if s.at & FLOW != 0 {
            return Trivia::default();
        }
        let dash = s.at as usize - 1;
        let lead = if i == 0 {
            self.first_lead
        } else {
            let prev = self.slots[i - 1].aux as usize;
            let start = breaks::next_break(src.as_bytes(), prev).map_or(src.len(), |(i, n)| i + n);
            let line = breaks::line_start(src, dash);
            (start < line).then(|| Span::new(start, line))
        };
        let comment = (s.comment > 0).then(|| {
            let c = s.comment as usize - 1;
            let end = breaks::next_break(src.as_bytes(), c).map_or(src.len(), |(i, _)| i);
            Span::new(c, end)
        });
        Trivia::written(lead, comment, Span::new(dash, s.aux as usize))
    }

    /// The metadata of every item, in order.
    pub fn metas(&self) -> impl Iterator<Item = &ObjectMeta> {
        (0..self.len()).map(|i| self.meta(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse;

    /// Past the limit an item is not recorded, and the caller is told.
    #[test]
    fn the_item_limit_holds() {
        let mut items = Items {
            limit: 3,
            ..Items::default()
        };
        let node = parse("{}").unwrap_or_else(|e| panic!("{e}"));
        for i in 0..3 {
            assert!(items.push(
                ObjectMeta::from_node(&node),
                Trivia::default(),
                ItemOrigin::Flow { at: i, ls: 0 }
            ));
        }
        assert!(!items.push(
            ObjectMeta::from_node(&node),
            Trivia::default(),
            ItemOrigin::Flow { at: 3, ls: 0 }
        ));
        assert_eq!(items.len(), 3);
        assert_eq!(std::mem::size_of::<Slot>(), 16);
        assert!(items.meta(2).is_object && items.metas.is_empty());
    }
}
