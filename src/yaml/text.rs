//! Typed values written straight to YAML text, as the emitter writes the nodes [`super::to_node`]
//! makes of them, without building the nodes: a set of a hundred thousand new objects is
//! written at the cost of its text, not of a tree per object.
//!
//! Only the common shapes take this path: mappings, sequences, integers, booleans, null, and
//! strings that the emitter writes plain or in double quotes without escapes, under keys it
//! writes plain. Anything else (floats, block scalars, single quotes, escapes, long or quoted
//! keys, enum variants with data) is [`Unsupported`], and the caller writes that value as a
//! node instead, so the rules for unusual strings live in one place, the emitter.
//! `tests` checks both paths agree wherever this one answers.

use super::style::{string_style, ScalarStyle};
use serde::ser::{self, Serialize};
use std::fmt;

/// The value has a part this path does not write; nothing was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unsupported;

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not written by the text path")
    }
}

impl std::error::Error for Unsupported {}

impl ser::Error for Unsupported {
    fn custom<T: fmt::Display>(_msg: T) -> Self {
        Unsupported
    }
}

/// Longest key the emitter writes as an implicit (`key:`) key.
const MAX_KEY_CHARS: usize = 1024;

/// Appends `value` as an entry of a block sequence at column 0 (`- ...`), exactly as
/// `Emitter::seq_item` writes `to_node(value)`. On [`Unsupported`], `out` is left as it was.
pub fn write_item<T: Serialize + ?Sized>(value: &T, out: &mut String) -> Result<(), Unsupported> {
    let mark = out.len();
    out.push('-');
    let written = value.serialize(Writer {
        out: &mut *out,
        at: At::Item(0),
    });
    if written.is_err() {
        out.truncate(mark);
    }
    written
}

/// Where a value goes: after the `-` of a sequence item at a column, or after the `key:` of a
/// mapping entry at a column.
#[derive(Debug, Clone, Copy)]
enum At {
    Item(usize),
    Entry(usize),
}

fn indent(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// Characters a double-quoted string may hold and still need no escape in any emitter.
fn quotes_plainly(value: &str) -> bool {
    value.bytes().all(|b| {
        b.is_ascii_alphanumeric() || matches!(b, b' ' | b'.' | b'_' | b'/' | b':' | b'+' | b'-')
    })
}

/// ` text\n` for a string value, as the emitter styles a new string.
fn string(out: &mut String, value: &str) -> Result<(), Unsupported> {
    match string_style(value) {
        ScalarStyle::Plain if !value.is_empty() => {
            out.push(' ');
            out.push_str(value);
        }
        ScalarStyle::DoubleQuoted if quotes_plainly(value) => {
            out.push_str(" \"");
            out.push_str(value);
            out.push('"');
        }
        _ => return Err(Unsupported),
    }
    out.push('\n');
    Ok(())
}

fn plain(out: &mut String, text: &str) -> Result<(), Unsupported> {
    out.push(' ');
    out.push_str(text);
    out.push('\n');
    Ok(())
}

/// A key the emitter writes plain.
fn key(out: &mut String, key: &str) -> Result<(), Unsupported> {
    if string_style(key) != ScalarStyle::Plain
        || key.is_empty()
        || key.chars().count() > MAX_KEY_CHARS
    {
        return Err(Unsupported);
    }
    out.push_str(key);
    out.push(':');
    Ok(())
}

struct Writer<'o> {
    out: &'o mut String,
    at: At,
}

impl<'o> ser::Serializer for Writer<'o> {
    type Ok = ();
    type Error = Unsupported;
    type SerializeSeq = Collection<'o>;
    type SerializeTuple = Collection<'o>;
    type SerializeTupleStruct = Collection<'o>;
    type SerializeTupleVariant = ser::Impossible<(), Unsupported>;
    type SerializeMap = Collection<'o>;
    type SerializeStruct = Collection<'o>;
    type SerializeStructVariant = ser::Impossible<(), Unsupported>;

    fn serialize_bool(self, v: bool) -> Result<(), Unsupported> {
        plain(self.out, if v { "true" } else { "false" })
    }
    fn serialize_i8(self, v: i8) -> Result<(), Unsupported> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i16(self, v: i16) -> Result<(), Unsupported> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i32(self, v: i32) -> Result<(), Unsupported> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i64(self, v: i64) -> Result<(), Unsupported> {
        plain(self.out, &v.to_string())
    }
    fn serialize_u8(self, v: u8) -> Result<(), Unsupported> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u16(self, v: u16) -> Result<(), Unsupported> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u32(self, v: u32) -> Result<(), Unsupported> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u64(self, v: u64) -> Result<(), Unsupported> {
        plain(self.out, &v.to_string())
    }
    fn serialize_f32(self, _v: f32) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_f64(self, _v: f64) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_char(self, v: char) -> Result<(), Unsupported> {
        string(self.out, v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(), Unsupported> {
        string(self.out, v)
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_none(self) -> Result<(), Unsupported> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Unsupported> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Unsupported> {
        plain(self.out, "null")
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Unsupported> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Unsupported> {
        string(self.out, variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Collection<'o>, Unsupported> {
        Ok(Collection::new(self, true))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Collection<'o>, Unsupported> {
        Ok(Collection::new(self, true))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Collection<'o>, Unsupported> {
        Ok(Collection::new(self, true))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Unsupported> {
        Err(Unsupported)
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Collection<'o>, Unsupported> {
        Ok(Collection::new(self, false))
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Collection<'o>, Unsupported> {
        Ok(Collection::new(self, false))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Unsupported> {
        Err(Unsupported)
    }
}

/// A block sequence or mapping being written. Whether it is empty (`[]`, `{}` on the line of
/// its key or dash) is known only at its first element, which decides how it starts: after a
/// dash on the same line, after a key on the next line; a sequence under a key stays at the
/// key's column (kyaml's compact style).
struct Collection<'o> {
    out: &'o mut String,
    at: At,
    sequence: bool,
    /// Column of the elements, once the first is written.
    column: Option<usize>,
    /// Column of the key just written, whose value comes next (maps).
    key_column: Option<usize>,
}

impl<'o> Collection<'o> {
    fn new(w: Writer<'o>, sequence: bool) -> Self {
        Collection {
            out: w.out,
            at: w.at,
            sequence,
            column: None,
            key_column: None,
        }
    }

    /// Starts the next element's line: its column.
    fn next_line(&mut self) -> usize {
        if let Some(col) = self.column {
            indent(self.out, col);
            return col;
        }
        let col = match self.at {
            At::Item(n) => {
                self.out.push(' ');
                n + 2
            }
            At::Entry(n) => {
                self.out.push('\n');
                let col = if self.sequence { n } else { n + 2 };
                indent(self.out, col);
                col
            }
        };
        self.column = Some(col);
        col
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        let col = self.next_line();
        self.out.push('-');
        value.serialize(Writer {
            out: &mut *self.out,
            at: At::Item(col),
        })
    }

    fn entry<T: Serialize + ?Sized>(&mut self, k: &str, value: &T) -> Result<(), Unsupported> {
        let col = self.next_line();
        key(self.out, k)?;
        value.serialize(Writer {
            out: &mut *self.out,
            at: At::Entry(col),
        })
    }

    fn end(self) -> Result<(), Unsupported> {
        if self.column.is_none() {
            self.out
                .push_str(if self.sequence { " []\n" } else { " {}\n" });
        }
        Ok(())
    }
}

impl ser::SerializeSeq for Collection<'_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.element(value)
    }
    fn end(self) -> Result<(), Unsupported> {
        Collection::end(self)
    }
}

impl ser::SerializeTuple for Collection<'_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.element(value)
    }
    fn end(self) -> Result<(), Unsupported> {
        Collection::end(self)
    }
}

impl ser::SerializeTupleStruct for Collection<'_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.element(value)
    }
    fn end(self) -> Result<(), Unsupported> {
        Collection::end(self)
    }
}

impl ser::SerializeMap for Collection<'_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), Unsupported> {
        let col = self.next_line();
        k.serialize(KeyText {
            out: &mut *self.out,
        })?;
        self.key_column = Some(col);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        let col = self.key_column.take().ok_or(Unsupported)?;
        value.serialize(Writer {
            out: &mut *self.out,
            at: At::Entry(col),
        })
    }
    fn end(self) -> Result<(), Unsupported> {
        Collection::end(self)
    }
}

impl ser::SerializeStruct for Collection<'_> {
    type Ok = ();
    type Error = Unsupported;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        k: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        self.entry(k, value)
    }
    fn end(self) -> Result<(), Unsupported> {
        Collection::end(self)
    }
}

/// A map key, written with its `:`: strings only (anything else goes through nodes).
struct KeyText<'o> {
    out: &'o mut String,
}

impl ser::Serializer for KeyText<'_> {
    type Ok = ();
    type Error = Unsupported;
    type SerializeSeq = ser::Impossible<(), Unsupported>;
    type SerializeTuple = ser::Impossible<(), Unsupported>;
    type SerializeTupleStruct = ser::Impossible<(), Unsupported>;
    type SerializeTupleVariant = ser::Impossible<(), Unsupported>;
    type SerializeMap = ser::Impossible<(), Unsupported>;
    type SerializeStruct = ser::Impossible<(), Unsupported>;
    type SerializeStructVariant = ser::Impossible<(), Unsupported>;

    fn serialize_str(self, v: &str) -> Result<(), Unsupported> {
        key(self.out, v)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        value.serialize(self)
    }
    fn serialize_bool(self, _v: bool) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_i8(self, _v: i8) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_i16(self, _v: i16) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_i32(self, _v: i32) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_i64(self, _v: i64) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_u8(self, _v: u8) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_u16(self, _v: u16) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_u32(self, _v: u32) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_u64(self, _v: u64) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_f32(self, _v: f32) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_f64(self, _v: f64) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_char(self, _v: char) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_none(self) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_unit(self) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
    ) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), Unsupported> {
        Err(Unsupported)
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Unsupported> {
        Err(Unsupported)
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Unsupported> {
        Err(Unsupported)
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Unsupported> {
        Err(Unsupported)
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Unsupported> {
        Err(Unsupported)
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Unsupported> {
        Err(Unsupported)
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, Unsupported> {
        Err(Unsupported)
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Unsupported> {
        Err(Unsupported)
    }
}

#[cfg(test)]
mod tests;
