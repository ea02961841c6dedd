//! The record kept for each item of a streamed ResourceList: where its text is and its
//! identity. Sixteen bytes an item, plus sixteen and its metadata's texts when it has any
//! metadata at all (every item's in one buffer: no allocation per item), so that millions of
//! small items cost a small multiple of their text, not hundreds of bytes each. Everything
//! else an item had in the parser (the comment lines before it) is found again in the
//! source when it is written.

use crate::krm::object::{Ends, MetaProblem, ObjectMeta, Read, Record};
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

/// Where one item's metadata record is in [`Items`]' buffers: where its texts begin, where
/// its `n` ends begin (in `meta_ends`, or with [`NARROW`] in `meta_ends16`), then its number
/// of labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct MetaAt {
    text: usize,
    ends: u32,
    n: u32,
}

/// `MetaAt::ends` of a record whose ends take two bytes each ([`Ends::Narrow`]).
const NARROW: u32 = 1 << 31;

/// The items of a ResourceList, as read.
#[derive(Debug, PartialEq, Eq)]
pub struct Items {
    slots: Vec<Slot>,
    /// The items' metadata records ([`ObjectMeta`]) one after another: their texts, where
    /// each text ends (in two bytes where they fit, most records), and where each record
    /// begins.
    meta_text: String,
    meta_ends: Vec<u32>,
    meta_ends16: Vec<u16>,
    records: Vec<MetaAt>,
    /// The records' problems (rare), by record number, in order.
    problems: Vec<(u32, Box<MetaProblem>)>,
    /// The comment and blank lines before the first item.
    first_lead: Option<Span>,
    /// [`MAX_ITEMS`], smaller in tests.
    limit: usize,
}

impl Default for Items {
    fn default() -> Items {
        Items {
            slots: Vec::new(),
            meta_text: String::new(),
            meta_ends: Vec::new(),
            meta_ends16: Vec::new(),
            records: Vec::new(),
            problems: Vec::new(),
            first_lead: None,
            limit: MAX_ITEMS,
        }
    }
}

impl Items {
    /// Records an item as the parser hands it over, its metadata as `read` writes it into the
    /// buffers every item's record shares. `false` when there are already [`MAX_ITEMS`].
    pub(crate) fn push(
        &mut self,
        read: impl FnOnce(&mut Record) -> Read,
        trivia: Trivia,
        origin: ItemOrigin,
    ) -> bool {
        if self.slots.len() >= self.limit {
            return false;
        }
        let (text, wide) = (self.meta_text.len(), self.meta_ends.len());
        let mut r = Record::new(&mut self.meta_text, &mut self.meta_ends);
        let read = read(&mut r);
        let labels = r.labels;
        let object = read.is_object && (read.problem.is_some() || !r.is_empty());
        if !object || r.is_empty() {
            r.clear();
        }
        if !object {
            return self.push_slot(
                if read.is_object {
                    BARE_OBJECT
                } else {
                    NOT_OBJECT
                },
                trivia,
                origin,
            );
        }
        let n = self.meta_ends.len() - wide;
        let narrow = u16::try_from(labels)
            .ok()
            .filter(|_| Ends::fit_narrow(&self.meta_ends[wide..]));
        let at = match narrow {
            Some(labels) => {
                let at = self.meta_ends16.len();
                let ends = self.meta_ends[wide..].iter().map(|&e| Ends::narrow(e));
                self.meta_ends16.extend(ends);
                self.meta_ends16.push(labels);
                self.meta_ends.truncate(wide);
                u32::try_from(at)
                    .ok()
                    .filter(|&at| at < NARROW)
                    .map(|at| at | NARROW)
            }
            None => {
                self.meta_ends.push(labels);
                u32::try_from(wide).ok().filter(|&at| at < NARROW)
            }
        };
        let (Some(ends), Ok(n)) = (at, u32::try_from(n)) else {
            // Past 2^31 ends (unreachable within the input's size): as many items.
            return false;
        };
        let m = self.records.len() as u32;
        self.records.push(MetaAt { text, ends, n });
        if let Some(p) = read.problem {
            self.problems.push((m, p));
        }
        self.push_slot(m, trivia, origin)
    }

    /// The item's slot, its metadata being `meta`.
    fn push_slot(&mut self, meta: u32, trivia: Trivia, origin: ItemOrigin) -> bool {
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
    pub fn meta(&self, i: usize) -> ObjectMeta<'_> {
        match self.slots[i].meta {
            NOT_OBJECT => ObjectMeta::NOT_OBJECT,
            BARE_OBJECT => ObjectMeta::BARE_OBJECT,
            m => self.record(m as usize),
        }
    }

    /// Record `r` read through (the functions look at every item's, often several times).
    fn record(&self, r: usize) -> ObjectMeta<'_> {
        let at = self.records[r];
        let n = at.n as usize;
        let (ends, labels) = if at.ends & NARROW != 0 {
            let start = (at.ends & !NARROW) as usize;
            let e = &self.meta_ends16[start..start + n + 1];
            (Ends::Narrow(&e[..n]), u32::from(e[n]))
        } else {
            let e = &self.meta_ends[at.ends as usize..at.ends as usize + n + 1];
            (Ends::Wide(&e[..n]), e[n])
        };
        let problem = match self.problems.is_empty() {
            true => None,
            false => self
                .problems
                .binary_search_by_key(&(r as u32), |p| p.0)
                .ok()
                .map(|k| &*self.problems[k].1),
        };
        ObjectMeta::from_parts(&self.meta_text, at.text, ends, labels, problem)
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
    pub fn metas(&self) -> impl Iterator<Item = ObjectMeta<'_>> {
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
                |r| r.node(&node, None),
                Trivia::default(),
                ItemOrigin::Flow { at: i, ls: 0 }
            ));
        }
        assert!(!items.push(
            |r| r.node(&node, None),
            Trivia::default(),
            ItemOrigin::Flow { at: 3, ls: 0 }
        ));
        assert_eq!(items.len(), 3);
        assert_eq!(std::mem::size_of::<Slot>(), 16);
        assert!(items.meta(2).is_object && items.records.is_empty());
    }

    /// Each item's record reads back as it reads alone, whether its ends take two bytes or
    /// four (texts past 4 KiB), with its problem; a view is the same item only as itself.
    #[test]
    fn records_read_back_from_the_shared_buffers() {
        let long = "n".repeat(5000);
        let sources = [
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {app: x}\n  annotations: {config.kubernetes.io/path: a.yaml}\n".to_string(),
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {long}\n  labels: {{k: v}}\n"),
            "{}".to_string(),
            "- not an object\n".to_string(),
            "kind: K\nmetadata: {name: p, labels: [x]}\n".to_string(),
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: b\n  annotations: {x: ''}\n".to_string(),
        ];
        let nodes: Vec<_> = sources
            .iter()
            .map(|s| parse(s).unwrap_or_else(|e| panic!("{e}")))
            .collect();
        let mut items = Items::default();
        for (i, node) in nodes.iter().enumerate() {
            let origin = ItemOrigin::Flow {
                at: i as u32,
                ls: 0,
            };
            assert!(items.push(|r| r.node(node, None), Trivia::default(), origin));
        }
        assert_eq!(
            (items.meta_ends16.is_empty(), items.meta_ends.is_empty()),
            (false, false)
        );
        for (i, node) in nodes.iter().enumerate() {
            let alone = crate::krm::object::MetaRecord::from_node(node);
            assert_eq!(items.meta(i), alone.view(), "item {i}");
            assert_eq!(items.meta(i).problem, alone.view().problem, "item {i}");
        }
        assert_eq!(items.meta(1).name(), long);
        assert_eq!(
            items.meta(4).problem.map(|p| p.field.as_str()),
            Some("metadata.labels")
        );
        assert!(items.meta(0).is_same(&items.meta(0)) && !items.meta(0).is_same(&items.meta(5)));
        assert!(
            !items.meta(2).is_same(&items.meta(2)),
            "a bare object is no record"
        );
    }
}
