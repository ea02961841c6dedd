use super::*;
use serde_json::json;

#[test]
fn every_embedded_schema_loads() {
    let loaded = load().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(loaded.len(), 3);
    assert_eq!(kinds().len(), 3);
    assert!(for_kind(PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND).is_some());
    assert!(for_kind(PACKAGE_VARIANT_SET_API_VERSION, PACKAGE_VARIANT_SET_KIND).is_some());
    assert!(for_kind("config.porch.kpt.dev/v1alpha2", PACKAGE_VARIANT_KIND).is_none());
}

#[test]
fn fields_and_types() {
    let pvs = for_kind(PACKAGE_VARIANT_SET_API_VERSION, PACKAGE_VARIANT_SET_KIND);
    let root = pvs
        .map(Kind::root)
        .unwrap_or_else(|| panic!("no PVS schema"));
    let fields = root.fields();
    let expr = fields
        .iter()
        .find(|f| f.path == "spec.targets[].template.downstream.repoExpr")
        .unwrap_or_else(|| panic!("no repoExpr"));
    assert_eq!((expr.name, expr.depth), ("repoExpr", 4));
    assert_eq!(expr.schema.type_name(), "string");
    let labels = root.property("metadata").and_then(|m| m.property("labels"));
    assert_eq!(
        labels.map(Schema::type_name).as_deref(),
        Some("map of string")
    );
    let targets = root.property("spec").and_then(|s| s.property("targets"));
    assert_eq!(
        targets.map(Schema::type_name).as_deref(),
        Some("list of object")
    );
    let upstream = root.property("spec").and_then(|s| s.property("upstream"));
    assert!(upstream.is_some_and(|s| !s.description().is_empty()));
}

#[test]
fn owners_name_where_a_field_lives() {
    let pvs = for_kind(PACKAGE_VARIANT_SET_API_VERSION, PACKAGE_VARIANT_SET_KIND);
    let pvs = pvs.unwrap_or_else(|| panic!("no PVS schema"));
    assert_eq!(pvs.owners_of("template"), ["spec.targets[]"]);
    assert_eq!(pvs.owners_of("conditions"), [] as [String; 0]);
    let pv = for_kind(PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND);
    let pv = pv.unwrap_or_else(|| panic!("no PV schema"));
    assert_eq!(pv.owners_of("repo"), ["spec.upstream", "spec.downstream"]);
}

// ------------------------------------------------------------------ the structs and the schema

/// Every field a typed struct reads, as `(path, type)`, found by deserialising it from a probe
/// that offers each field the struct asks for (the struct's own field list) once.
mod probe {
    use serde::de::{self, value::Error, DeserializeSeed, IntoDeserializer, Visitor};
    use std::cell::RefCell;
    use std::collections::BTreeMap;

    pub type Fields = RefCell<BTreeMap<String, &'static str>>;

    pub struct Probe<'f> {
        pub path: String,
        /// True in a field's position: the first type asked for is the field's.
        pub record: bool,
        pub out: &'f Fields,
    }

    impl Probe<'_> {
        fn record(&self, ty: &'static str) {
            if self.record {
                self.out.borrow_mut().insert(self.path.clone(), ty);
            }
        }
    }

    struct Fields1<'f> {
        names: std::slice::Iter<'static, &'static str>,
        parent: String,
        current: String,
        out: &'f Fields,
    }

    impl<'de> de::MapAccess<'de> for Fields1<'_> {
        type Error = Error;
        fn next_key_seed<K: DeserializeSeed<'de>>(
            &mut self,
            seed: K,
        ) -> Result<Option<K::Value>, Error> {
            let Some(&name) = self.names.next() else {
                return Ok(None);
            };
            self.current = if self.parent.is_empty() {
                name.to_string()
            } else {
                format!("{}.{name}", self.parent)
            };
            seed.deserialize(name.into_deserializer()).map(Some)
        }
        fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
            seed.deserialize(Probe {
                path: self.current.clone(),
                record: true,
                out: self.out,
            })
        }
    }

    struct One<'f> {
        probe: Option<Probe<'f>>,
        key: bool,
    }

    impl<'de> de::SeqAccess<'de> for One<'_> {
        type Error = Error;
        fn next_element_seed<T: DeserializeSeed<'de>>(
            &mut self,
            seed: T,
        ) -> Result<Option<T::Value>, Error> {
            self.probe.take().map(|p| seed.deserialize(p)).transpose()
        }
    }

    impl<'de> de::MapAccess<'de> for One<'_> {
        type Error = Error;
        fn next_key_seed<K: DeserializeSeed<'de>>(
            &mut self,
            seed: K,
        ) -> Result<Option<K::Value>, Error> {
            if self.probe.is_none() || self.key {
                return Ok(None);
            }
            self.key = true;
            seed.deserialize("key".into_deserializer()).map(Some)
        }
        fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
            match self.probe.take() {
                Some(p) => seed.deserialize(p),
                None => Err(de::Error::custom("no value")),
            }
        }
    }

    impl<'de, 'f> de::Deserializer<'de> for Probe<'f> {
        type Error = Error;

        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Error> {
            Err(de::Error::custom(format!("{}: untyped field", self.path)))
        }
        fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
            self.record("boolean");
            v.visit_bool(true)
        }
        fn deserialize_i64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
            self.record("integer");
            v.visit_i64(1)
        }
        fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
            self.record("string");
            v.visit_str("x")
        }
        fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
            self.deserialize_str(v)
        }
        fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
            v.visit_some(self)
        }
        fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
            self.record("list");
            let item = Probe {
                path: format!("{}[]", self.path),
                record: false,
                out: self.out,
            };
            v.visit_seq(One {
                probe: Some(item),
                key: false,
            })
        }
        fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
            self.record("map");
            let value = Probe {
                path: format!("{}.*", self.path),
                record: false,
                out: self.out,
            };
            v.visit_map(One {
                probe: Some(value),
                key: false,
            })
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            v: V,
        ) -> Result<V::Value, Error> {
            self.record("object");
            v.visit_map(Fields1 {
                names: fields.iter(),
                parent: self.path,
                current: String::new(),
                out: self.out,
            })
        }

        serde::forward_to_deserialize_any! {
            i8 i16 i32 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf unit unit_struct
            newtype_struct tuple tuple_struct enum identifier ignored_any
        }
    }
}

/// `(path, type)` of every field `T` reads, under `prefix`.
fn struct_fields<T: serde::de::DeserializeOwned>(prefix: &str) -> Vec<(String, String)> {
    let out = probe::Fields::default();
    let probe = probe::Probe {
        path: prefix.to_string(),
        record: false,
        out: &out,
    };
    if let Err(e) = T::deserialize(probe) {
        panic!("probe: {e}");
    }
    out.into_inner()
        .into_iter()
        .map(|(p, t)| (p, t.to_string()))
        .collect()
}

/// `(path, type)` of every field of the schema under `prefix` (a root field name).
fn schema_fields(kind: &Kind, prefix: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = kind
        .root()
        .fields()
        .into_iter()
        .filter(|f| f.path == prefix || f.path.starts_with(&format!("{prefix}.")))
        .map(|f| {
            let ty = match f.schema.ty() {
                Type::Object if f.schema.values().is_some() => "map",
                Type::Object => "object",
                Type::Array => "list",
                Type::String => "string",
                Type::Integer => "integer",
                Type::Number => "number",
                Type::Boolean => "boolean",
                Type::Any => "any",
            };
            (f.path, ty.to_string())
        })
        .collect();
    out.sort();
    out
}

fn kind(api_version: &str, name: &str) -> &'static Kind {
    for_kind(api_version, name).unwrap_or_else(|| panic!("no schema for {name}"))
}

/// The decoder reads exactly the fields of the schema, with the same types: neither can gain
/// or lose a field without the other.
#[test]
fn package_variant_spec_and_schema_agree() {
    use crate::api::package_variant::PackageVariantSpec;
    let schema = schema_fields(
        kind(PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND),
        "spec",
    );
    let mut structs = struct_fields::<PackageVariantSpec>("spec");
    structs.insert(0, ("spec".into(), "object".into()));
    structs.sort();
    assert_eq!(structs, schema);
}

#[test]
fn package_variant_set_and_schema_agree() {
    use crate::api::package_variant_set::PackageVariantSet;
    let k = kind(PACKAGE_VARIANT_SET_API_VERSION, PACKAGE_VARIANT_SET_KIND);
    let structs = struct_fields::<PackageVariantSet>("");
    let spec: Vec<_> = structs
        .iter()
        .filter(|(p, _)| p.starts_with("spec"))
        .cloned()
        .collect();
    assert_eq!(spec, schema_fields(k, "spec"));
    // The rest of what the struct reads is in the schema too (metadata: ObjectMeta).
    let all = schema_fields(k, "metadata");
    for field in structs.iter().filter(|(p, _)| !p.starts_with("spec")) {
        let root = k.root().property(&field.0).is_some();
        assert!(
            root || all.contains(field),
            "{field:?} is not in the schema"
        );
    }
}

/// The CRD files of `fnconfig/schemas/` as [`CRDS_JSON`] holds them.
fn crds_json_from(files: &[(&str, &str)]) -> String {
    let mut out = Vec::new();
    for (name, text) in files {
        let node = crate::yaml::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let crd = crate::yaml::to_json(&node).unwrap_or_else(|e| panic!("{name}: {e}"));
        let group = crd
            .pointer("/spec/group")
            .and_then(Value::as_str)
            .unwrap_or("");
        let kind = crd
            .pointer("/spec/names/kind")
            .cloned()
            .unwrap_or(Value::Null);
        for version in crd
            .pointer("/spec/versions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if version["served"] != true {
                continue;
            }
            let name = version["name"].as_str().unwrap_or("");
            out.push(json!({
                "apiVersion": format!("{group}/{name}"),
                "kind": kind,
                "openAPIV3Schema": version["schema"]["openAPIV3Schema"],
            }));
        }
    }
    let mut text = serde_json::to_string_pretty(&out).unwrap_or_default();
    text.push('\n');
    text
}

fn fnconfig_crds() -> Vec<(String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fnconfig/schemas");
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            (p.display().to_string(), text)
        })
        .collect();
    files.sort();
    files
}

/// `src/api/schema/crds.json` is what `fnconfig/schemas/*.yaml` say, and nothing else:
/// `UPDATE_SCHEMAS=1` rewrites it.
#[test]
fn embedded_json_is_the_fnconfig_schemas() {
    let files = fnconfig_crds();
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let want = crds_json_from(&files);
    if std::env::var_os("UPDATE_SCHEMAS").is_some() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/api/schema/crds.json");
        std::fs::write(path, &want).unwrap_or_else(|e| panic!("{path}: {e}"));
        return;
    }
    assert!(
        CRDS_JSON == want,
        "src/api/schema/crds.json is out of date with fnconfig/schemas: run UPDATE_SCHEMAS=1 cargo test --lib api::schema"
    );
}

/// A field added to the schema only is caught by the comparison above: shown here on a copy
/// of the schema with one more field.
#[test]
fn a_field_in_the_schema_only_is_seen() {
    let crd = include_str!("../../../fnconfig/schemas/packagevariant.yaml").replace(
        "                  workspaceName: {type: string,",
        "                  branch: {type: string}\n                  workspaceName: {type: string,",
    );
    let pvs = include_str!("../../../fnconfig/schemas/packagevariantset.yaml");
    let json = crds_json_from(&[("pv", &crd), ("pvs", pvs)]);
    let kinds = load_from(&json).unwrap_or_else(|e| panic!("{e}"));
    let k = kinds
        .iter()
        .find(|k| k.kind() == PACKAGE_VARIANT_KIND)
        .unwrap_or_else(|| panic!("no PV"));
    let schema = schema_fields(k, "spec");
    assert!(schema.contains(&("spec.upstream.branch".into(), "string".into())));
    let mut structs = struct_fields::<crate::api::package_variant::PackageVariantSpec>("spec");
    structs.insert(0, ("spec".into(), "object".into()));
    structs.sort();
    assert_ne!(structs, schema);
}
