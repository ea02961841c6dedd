//! The Kptfile's readiness gates and conditions in a compact form, written as the output is
//! written ([`ItemLists`]): a condition per injection point as a tree took about 650 bytes,
//! against about 180 bytes of text, so a package of many points held its Kptfile's lists in
//! several times the memory of the whole input. Here each entry the lists keep from the input
//! is its source span (or its tree, when it changed), and each new entry a few strings; each is
//! made into a tree only while it is written, so the output is the same, byte for byte.

use crate::krm::resource_list::ItemLists;
use crate::yaml::{strings_sorted, Emitter, Item, Node, Trivia};
use std::rc::Rc;

/// A gate or condition made for an injection point.
#[derive(Debug)]
pub enum NewEntry {
    /// `{conditionType: ...}`.
    Gate(Box<str>),
    /// `{type, status, reason, message}`: `True`/`ConfigInjected` when `injected`, else
    /// `False`/`NoResourceSelected`.
    Condition {
        kind: Box<str>,
        /// Shared by the conditions of one message (most unfilled points have the same).
        message: Rc<str>,
        injected: bool,
    },
}

impl NewEntry {
    /// A condition for a point of `kind` (condition type); `last` is the message of the
    /// condition made before, shared when it is the same.
    pub fn condition(
        kind: &str,
        message: String,
        injected: bool,
        last: &mut Option<Rc<str>>,
    ) -> NewEntry {
        let message = match last {
            Some(m) if **m == *message => Rc::clone(m),
            _ => {
                let m: Rc<str> = message.into();
                *last = Some(Rc::clone(&m));
                m
            }
        };
        NewEntry::Condition {
            kind: kind.into(),
            message,
            injected,
        }
    }

    /// `status`, `reason` and `message` of a condition ("" for a gate).
    pub fn fields(&self) -> (&str, &str, &str) {
        match self {
            NewEntry::Gate(_) => ("", "", ""),
            NewEntry::Condition {
                message, injected, ..
            } => {
                let (status, reason) = if *injected {
                    ("True", "ConfigInjected")
                } else {
                    ("False", "NoResourceSelected")
                };
                (status, reason, message)
            }
        }
    }

    /// The entry as a tree, as it is written.
    pub fn node(&self) -> Node {
        match self {
            NewEntry::Gate(kind) => strings_sorted(&[("conditionType", kind)]),
            NewEntry::Condition { kind, .. } => {
                let (status, reason, message) = self.fields();
                strings_sorted(&[
                    ("type", kind),
                    ("status", status),
                    ("reason", reason),
                    ("message", message),
                ])
            }
        }
    }
}

/// One entry of a list, in its final place.
#[derive(Debug)]
pub enum ListEntry {
    /// An entry of the input, untouched: its text is copied.
    Source(Trivia),
    /// An entry of the input that changed (or cannot be copied).
    Tree(Box<Item>),
    /// A new entry.
    New(NewEntry),
}

impl ListEntry {
    /// An entry of the input list: copied from its text when untouched.
    pub fn kept(item: Item) -> ListEntry {
        if item.value.is_pristine() && item.trivia.whole().is_some() {
            ListEntry::Source(item.trivia)
        } else {
            ListEntry::Tree(Box::new(item))
        }
    }
}

/// The Kptfile's lists that changed, in the order of their placeholders.
#[derive(Debug)]
pub struct KptfileLists {
    pub item: usize,
    pub lists: Vec<Vec<ListEntry>>,
}

impl ItemLists for KptfileLists {
    fn item(&self) -> usize {
        self.item
    }

    fn count(&self) -> usize {
        self.lists.len()
    }

    fn len(&self, n: usize) -> usize {
        self.lists.get(n).map_or(0, Vec::len)
    }

    fn write(&self, n: usize, k: usize, e: &mut Emitter, indent: usize, force_block: bool) {
        match self.lists.get(n).and_then(|l| l.get(k)) {
            // What `Emitter::seq_item` writes for an untouched item outside JSON (a Kptfile
            // read from JSON keeps its lists as trees).
            Some(ListEntry::Source(trivia)) => e.raw_item(trivia, indent),
            Some(ListEntry::Tree(item)) => {
                e.seq_item_forced(&item.value, &item.trivia, indent, force_block)
            }
            Some(ListEntry::New(new)) => {
                e.seq_item_forced(&new.node(), &Trivia::default(), indent, force_block)
            }
            None => {}
        }
    }
}
