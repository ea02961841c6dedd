//! Typed values straight to nodes: [`to_node`] gives the node `from_json(&serde_json::to_value(v))`
//! gives, without building the JSON value in between (one tree instead of two, half the
//! allocations: this is what new and updated PackageVariants of a large set are written with).
//!
//! Same rules as serde_json's value serializer: structs and maps keep their serialisation
//! order, `None` and unit are `null`, numbers are written as serde_json prints them, enums are
//! externally tagged. Map keys must be strings (or numbers/bools/chars, written as text), as
//! in serde_json.

use super::node::{Entry, Item, Kind, Node, Trivia};
use serde::ser::{self, Serialize};
use std::fmt;

/// Why a value could not be written (a non-string map key, or a custom error).
#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

/// Serialises `value` into a new node.
pub fn to_node<T: Serialize + ?Sized>(value: &T) -> Result<Node, Error> {
    value.serialize(NodeSerializer)
}

fn mapping(entries: Vec<Entry>) -> Node {
    Node::with_kind(Kind::Mapping(entries))
}

fn entry(key: Node, value: Node) -> Entry {
    Entry {
        key,
        value,
        trivia: Trivia::default(),
    }
}

fn sequence(items: Vec<Node>) -> Node {
    Node::with_kind(Kind::Sequence(
        items
            .into_iter()
            .map(|value| Item {
                value,
                trivia: Trivia::default(),
            })
            .collect(),
    ))
}

fn float(v: f64) -> Node {
    match serde_json::Number::from_f64(v) {
        Some(n) => Node::plain(n.to_string()),
        None => Node::plain("null"),
    }
}

struct NodeSerializer;

impl ser::Serializer for NodeSerializer {
    type Ok = Node;
    type Error = Error;
    type SerializeSeq = SeqBuilder;
    type SerializeTuple = SeqBuilder;
    type SerializeTupleStruct = SeqBuilder;
    type SerializeTupleVariant = VariantBuilder<SeqBuilder>;
    type SerializeMap = MapBuilder;
    type SerializeStruct = MapBuilder;
    type SerializeStructVariant = VariantBuilder<MapBuilder>;

    fn serialize_bool(self, v: bool) -> Result<Node, Error> {
        Ok(Node::plain(if v { "true" } else { "false" }))
    }
    fn serialize_i8(self, v: i8) -> Result<Node, Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i16(self, v: i16) -> Result<Node, Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i32(self, v: i32) -> Result<Node, Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i64(self, v: i64) -> Result<Node, Error> {
        Ok(Node::plain(v.to_string()))
    }
    fn serialize_i128(self, v: i128) -> Result<Node, Error> {
        Ok(Node::plain(v.to_string()))
    }
    fn serialize_u8(self, v: u8) -> Result<Node, Error> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u16(self, v: u16) -> Result<Node, Error> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u32(self, v: u32) -> Result<Node, Error> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u64(self, v: u64) -> Result<Node, Error> {
        Ok(Node::plain(v.to_string()))
    }
    fn serialize_u128(self, v: u128) -> Result<Node, Error> {
        Ok(Node::plain(v.to_string()))
    }
    fn serialize_f32(self, v: f32) -> Result<Node, Error> {
        Ok(float(f64::from(v)))
    }
    fn serialize_f64(self, v: f64) -> Result<Node, Error> {
        Ok(float(v))
    }
    fn serialize_char(self, v: char) -> Result<Node, Error> {
        Ok(Node::string(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Node, Error> {
        Ok(Node::string(v))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Node, Error> {
        Ok(sequence(
            v.iter().map(|b| Node::plain(b.to_string())).collect(),
        ))
    }
    fn serialize_none(self) -> Result<Node, Error> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Node, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Node, Error> {
        Ok(Node::plain("null"))
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Node, Error> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Node, Error> {
        Ok(Node::string(variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<Node, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Node, Error> {
        Ok(mapping(vec![entry(
            Node::string(variant),
            value.serialize(NodeSerializer)?,
        )]))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqBuilder, Error> {
        Ok(SeqBuilder(Vec::with_capacity(len.unwrap_or(0))))
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqBuilder, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<SeqBuilder, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<VariantBuilder<SeqBuilder>, Error> {
        Ok(VariantBuilder(variant, self.serialize_seq(Some(len))?))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<MapBuilder, Error> {
        Ok(MapBuilder {
            entries: Vec::with_capacity(len.unwrap_or(0)),
            key: None,
        })
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<MapBuilder, Error> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<VariantBuilder<MapBuilder>, Error> {
        Ok(VariantBuilder(variant, self.serialize_map(Some(len))?))
    }
}

struct SeqBuilder(Vec<Node>);

impl ser::SerializeSeq for SeqBuilder {
    type Ok = Node;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.0.push(value.serialize(NodeSerializer)?);
        Ok(())
    }
    fn end(self) -> Result<Node, Error> {
        Ok(sequence(self.0))
    }
}

impl ser::SerializeTuple for SeqBuilder {
    type Ok = Node;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Node, Error> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for SeqBuilder {
    type Ok = Node;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Node, Error> {
        ser::SerializeSeq::end(self)
    }
}

struct MapBuilder {
    entries: Vec<Entry>,
    key: Option<Node>,
}

impl MapBuilder {
    /// serde_json replaces the value of a repeated key (keeping its position).
    fn insert(&mut self, key: Node, value: Node) {
        let text = key.scalar_text();
        match self
            .entries
            .iter_mut()
            .find(|e| e.key.scalar_text() == text)
        {
            Some(e) => e.value = value,
            None => self.entries.push(entry(key, value)),
        }
    }
}

impl ser::SerializeMap for MapBuilder {
    type Ok = Node;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key = Some(key.serialize(KeySerializer)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| Error("map value without a key".into()))?;
        let value = value.serialize(NodeSerializer)?;
        self.insert(key, value);
        Ok(())
    }
    fn end(self) -> Result<Node, Error> {
        Ok(mapping(self.entries))
    }
}

impl ser::SerializeStruct for MapBuilder {
    type Ok = Node;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        // Struct fields are distinct: no duplicate check needed.
        self.entries
            .push(entry(Node::string(key), value.serialize(NodeSerializer)?));
        Ok(())
    }
    fn end(self) -> Result<Node, Error> {
        Ok(mapping(self.entries))
    }
}

struct VariantBuilder<B>(&'static str, B);

impl ser::SerializeTupleVariant for VariantBuilder<SeqBuilder> {
    type Ok = Node;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(&mut self.1, value)
    }
    fn end(self) -> Result<Node, Error> {
        let inner = ser::SerializeSeq::end(self.1)?;
        Ok(mapping(vec![entry(Node::string(self.0), inner)]))
    }
}

impl ser::SerializeStructVariant for VariantBuilder<MapBuilder> {
    type Ok = Node;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        ser::SerializeStruct::serialize_field(&mut self.1, key, value)
    }
    fn end(self) -> Result<Node, Error> {
        let inner = ser::SerializeStruct::end(self.1)?;
        Ok(mapping(vec![entry(Node::string(self.0), inner)]))
    }
}

/// Map keys: strings, or scalars written as their text (serde_json's rule).
struct KeySerializer;

fn key_error() -> Error {
    Error("key must be a string".into())
}

impl ser::Serializer for KeySerializer {
    type Ok = Node;
    type Error = Error;
    type SerializeSeq = ser::Impossible<Node, Error>;
    type SerializeTuple = ser::Impossible<Node, Error>;
    type SerializeTupleStruct = ser::Impossible<Node, Error>;
    type SerializeTupleVariant = ser::Impossible<Node, Error>;
    type SerializeMap = ser::Impossible<Node, Error>;
    type SerializeStruct = ser::Impossible<Node, Error>;
    type SerializeStructVariant = ser::Impossible<Node, Error>;

    fn serialize_bool(self, v: bool) -> Result<Node, Error> {
        Ok(Node::string(if v { "true" } else { "false" }))
    }
    fn serialize_i8(self, v: i8) -> Result<Node, Error> {
        Ok(Node::string(v.to_string()))
    }
    fn serialize_i16(self, v: i16) -> Result<Node, Error> {
        Ok(Node::string(v.to_string()))
    }
    fn serialize_i32(self, v: i32) -> Result<Node, Error> {
        Ok(Node::string(v.to_string()))
    }
    fn serialize_i64(self, v: i64) -> Result<Node, Error> {
        Ok(Node::string(v.to_string()))
    }
    fn serialize_u8(self, v: u8) -> Result<Node, Error> {
        Ok(Node::string(v.to_string()))
    }
    fn serialize_u16(self, v: u16) -> Result<Node, Error> {
        Ok(Node::string(v.to_string()))
    }
    fn serialize_u32(self, v: u32) -> Result<Node, Error> {
        Ok(Node::string(v.to_string()))
    }
    fn serialize_u64(self, v: u64) -> Result<Node, Error> {
        Ok(Node::string(v.to_string()))
    }
    fn serialize_f32(self, _v: f32) -> Result<Node, Error> {
        Err(key_error())
    }
    fn serialize_f64(self, _v: f64) -> Result<Node, Error> {
        Err(key_error())
    }
    fn serialize_char(self, v: char) -> Result<Node, Error> {
        Ok(Node::string(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Node, Error> {
        Ok(Node::string(v))
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<Node, Error> {
        Err(key_error())
    }
    fn serialize_none(self) -> Result<Node, Error> {
        Err(key_error())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<Node, Error> {
        Err(key_error())
    }
    fn serialize_unit(self) -> Result<Node, Error> {
        Err(key_error())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Node, Error> {
        Err(key_error())
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Node, Error> {
        Ok(Node::string(variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<Node, Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<Node, Error> {
        Err(key_error())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(key_error())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Error> {
        Err(key_error())
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(key_error())
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(key_error())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(key_error())
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, Error> {
        Err(key_error())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(key_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::package_variant::{
        Downstream, Function, InjectionSelector, PackageContext, PackageVariantSpec, Pipeline,
        Upstream,
    };
    use crate::yaml::{emit, from_json};
    use std::collections::BTreeMap;

    fn same_text<T: Serialize>(v: &T) {
        let direct = to_node(v).unwrap_or_else(|e| panic!("{e}"));
        let via_json = from_json(&serde_json::to_value(v).unwrap_or_else(|e| panic!("{e}")));
        assert_eq!(direct, via_json);
        assert_eq!(emit::to_string("", &direct), emit::to_string("", &via_json));
    }

    #[test]
    fn same_node_as_through_json() {
        let mut labels = BTreeMap::new();
        labels.insert("b".to_string(), "on".to_string());
        labels.insert("a".to_string(), "0123".to_string());
        let spec = PackageVariantSpec {
            upstream: Some(Upstream {
                repo: "r".into(),
                package: "p".into(),
                revision: -3,
                workspace_name: String::new(),
            }),
            downstream: Some(Downstream {
                repo: "d".into(),
                package: "true".into(),
            }),
            labels: labels.clone(),
            package_context: Some(PackageContext::default()),
            pipeline: Some(Pipeline {
                mutators: vec![Function {
                    image: "img".into(),
                    config_map: labels,
                    ..Default::default()
                }],
                validators: vec![],
            }),
            injectors: vec![InjectionSelector {
                kind: Some("ConfigMap".into()),
                name: String::new(),
                ..Default::default()
            }],
            ..Default::default()
        };
        same_text(&spec);
        same_text(&PackageVariantSpec::default());
        same_text(&serde_json::json!({"x": [1, 2.5, null, true, "a: b", {"k": []}], "y": {}}));
        same_text(&(1u8, "t", Some(2i64), None::<String>));
        let mut m: BTreeMap<i32, f64> = BTreeMap::new();
        m.insert(3, 1e300);
        same_text(&m);
    }
}
