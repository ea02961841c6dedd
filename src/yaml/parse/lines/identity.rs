//! An item's identity as the line scanner reads it: the role each value plays in it, and the
//! texts it hands over ([`IdentityPart`]), found again in the source.

use crate::yaml::node::{ScalarStyle, Span};

/// What a collection or a value is to the item's identity.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Role {
    /// Not part of the identity: only checked.
    Skim,
    /// The item's own mapping.
    Root,
    /// `metadata`.
    Metadata,
    /// `metadata.labels` or `metadata.annotations` (the field of their values).
    Pairs(Field),
    /// A scalar the identity reads: `apiVersion`, `kind`, `metadata.name` and `namespace`,
    /// a label's or an annotation's value.
    Text(Field),
}

impl Role {
    /// The role of the value of `key`, an entry of a mapping of this role.
    pub(super) fn of_value(self, key: &str) -> Role {
        match (self, key) {
            (Role::Root, "apiVersion") => Role::Text(Field::ApiVersion),
            (Role::Root, "kind") => Role::Text(Field::Kind),
            (Role::Root, "metadata") => Role::Metadata,
            (Role::Metadata, "name") => Role::Text(Field::Name),
            (Role::Metadata, "namespace") => Role::Text(Field::Namespace),
            (Role::Metadata, "labels") => Role::Pairs(Field::Label),
            (Role::Metadata, "annotations") => Role::Pairs(Field::Annotation),
            (Role::Pairs(f), _) => Role::Text(f),
            _ => Role::Skim,
        }
    }
}

/// A field of an item's identity.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Field {
    ApiVersion,
    Kind,
    Name,
    Namespace,
    /// A label (its key is the part's key).
    Label,
    /// An annotation.
    Annotation,
}

/// One text of an item's identity as the line scanner read it: what a reader of the item's
/// tree would read there (a null reads as the empty text), found again in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdentityPart {
    pub field: Field,
    pub(super) key: Span,
    pub(super) value: Span,
    pub(super) style: ScalarStyle,
}

impl IdentityPart {
    /// The label's or annotation's key.
    pub fn key<'s>(&self, src: &'s str) -> &'s str {
        &src[self.key.range()]
    }

    /// The value's text: a plain null (`~`, `null`, nothing...) is empty, a single-quoted
    /// scalar's `''` is one quote (the scanner reads no other escape).
    pub fn text<'s>(&self, src: &'s str) -> std::borrow::Cow<'s, str> {
        let t = &src[self.value.range()];
        match self.style {
            ScalarStyle::Plain if matches!(t, "~" | "null" | "Null" | "NULL") => "".into(),
            ScalarStyle::SingleQuoted if t.contains('\'') => t.replace("''", "'").into(),
            _ => t.into(),
        }
    }
}
