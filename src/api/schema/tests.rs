use super::*;
use serde_json::{json, Value};

#[test]
fn every_kind_has_a_schema() {
    assert_eq!(kinds().len(), 5);
    assert!(for_kind(EXTENSION_API_VERSION, PACKAGE_VARIANT_KIND).is_some());
    assert!(for_kind(EXTENSION_API_VERSION, PACKAGE_VARIANT_SET_KIND).is_some());
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
    assert_eq!(
        (expr.name, expr.depth, expr.required),
        ("repoExpr", 4, false)
    );
    let name = fields
        .iter()
        .find(|f| f.path == "spec.targets[].repositories[].name");
    assert!(name.is_some_and(|f| f.required));
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

        /// A field that takes any value (`serde_json::Value`): "any", as an open object
        /// of the schema reads.
        fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
            if !self.record {
                return Err(de::Error::custom(format!("{}: untyped field", self.path)));
            }
            self.record("any");
            v.visit_unit()
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
                Type::Object if f.schema.accepts_any_field() => "any",
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

/// The decoder reads exactly the fields of the extension's schema, with the same types, and
/// Porch's schema is that without the extension's fields: neither can gain or lose a field
/// without the other.
#[test]
fn package_variant_spec_and_schema_agree() {
    use crate::api::package_variant::{PackageVariantSpec, EXTENSION_FIELDS};
    let extension = schema_fields(kind(EXTENSION_API_VERSION, PACKAGE_VARIANT_KIND), "spec");
    let mut structs = struct_fields::<PackageVariantSpec>("spec");
    structs.insert(0, ("spec".into(), "object".into()));
    structs.sort();
    assert_eq!(structs, extension);
    let porch = schema_fields(
        kind(PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND),
        "spec",
    );
    let is_extension = |p: &str| {
        EXTENSION_FIELDS.iter().any(|f| {
            p == format!("spec.{f}")
                || p.starts_with(&format!("spec.{f}."))
                || p.starts_with(&format!("spec.{f}["))
        })
    };
    structs.retain(|(p, _)| !is_extension(p));
    assert_eq!(structs, porch);
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
    // The struct reads the extension's fields; Porch's schema is that without them.
    let extension = kind(EXTENSION_API_VERSION, PACKAGE_VARIANT_SET_KIND);
    assert_eq!(spec, schema_fields(extension, "spec"));
    let is_extension = |p: &str| {
        crate::api::package_variant_set::EXTENSION_FIELDS
            .iter()
            .any(|f| {
                let ours = format!("spec.{f}");
                p == ours
                    || p.starts_with(&format!("{ours}["))
                    || p.starts_with(&format!("{ours}."))
            })
    };
    let porch: Vec<_> = spec
        .iter()
        .filter(|(p, _)| !is_extension(p))
        .cloned()
        .collect();
    assert_eq!(porch, schema_fields(k, "spec"));
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

// ------------------------------------------------------------------ generated from the CRDs

/// The CRD `file` (YAML text) as JSON.
fn crd_json(name: &str, text: &str) -> Value {
    let node = crate::yaml::parse(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    crate::yaml::to_json(&node).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The `openAPIV3Schema` of the served version of a CRD, with its apiVersion and kind.
fn served_schema(crd: &Value) -> (String, String, Value) {
    let group = crd
        .pointer("/spec/group")
        .and_then(Value::as_str)
        .unwrap_or("");
    let kind = crd
        .pointer("/spec/names/kind")
        .and_then(Value::as_str)
        .unwrap_or("");
    let versions = crd.pointer("/spec/versions").and_then(Value::as_array);
    let served: Vec<&Value> = versions
        .into_iter()
        .flatten()
        .filter(|v| v["served"] == true)
        .collect();
    assert_eq!(served.len(), 1, "{kind}: one served version");
    let version = served[0]["name"].as_str().unwrap_or("");
    (
        format!("{group}/{version}"),
        kind.to_string(),
        served[0]["schema"]["openAPIV3Schema"].clone(),
    )
}

/// The Rust expression of a schema node (`S::string("...")`), `indent` deep.
fn expr(v: &Value, indent: usize) -> String {
    if v == "OBJECT_META" {
        return "OBJECT_META".to_string();
    }
    let d = format!("{:?}", v["description"].as_str().unwrap_or(""));
    let preserve = v["x-kubernetes-preserve-unknown-fields"] == true;
    let pad = "    ".repeat(indent);
    match v["type"].as_str() {
        Some("object") if v.get("properties").is_some() => {
            let mut out = format!("S::object({d}, &[\n");
            for (name, sub) in v["properties"].as_object().into_iter().flatten() {
                out.push_str(&format!(
                    "{pad}    ({name:?}, {}),\n",
                    expr(sub, indent + 1)
                ));
            }
            let required: Vec<String> = v["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|r| r.as_str().map(|r| format!("{r:?}")))
                .collect();
            out.push_str(&format!("{pad}], &[{}])", required.join(", ")));
            out
        }
        Some("object") if v["additionalProperties"].is_object() => {
            format!("S::map({d}, &{})", expr(&v["additionalProperties"], indent))
        }
        Some("object") if preserve => format!("S::open({d})"),
        Some("object") => format!("S::object({d}, &[], &[])"),
        Some("array") => format!("S::list({d}, &{})", expr(&v["items"], indent)),
        Some("string") => format!("S::string({d})"),
        Some("integer") => format!("S::integer({d})"),
        Some("number") => format!("S::number({d})"),
        Some("boolean") => format!("S::boolean({d})"),
        None if preserve => format!("S::any({d})"),
        other => panic!("unknown schema type {other:?}"),
    }
}

/// The generated module of the CRD `file`: its root with ObjectMeta as `metadata` and
/// `status` as anything.
fn generated(file: &str, text: &str) -> String {
    let (api_version, kind, mut root) = served_schema(&crd_json(file, text));
    if let Some(props) = root.get_mut("properties").and_then(Value::as_object_mut) {
        for (name, sub) in props.iter_mut() {
            match name.as_str() {
                "metadata" => *sub = json!("OBJECT_META"),
                "status" => {
                    let d = sub["description"].clone();
                    *sub = json!({"description": d, "x-kubernetes-preserve-unknown-fields": true});
                }
                _ => {}
            }
        }
    }
    let body = expr(&root, 0);
    format!(
        "//! The {kind} ({api_version}) schema, generated from fnconfig/schemas/{file} by\n\
         //! `UPDATE_SCHEMAS=1 cargo test --lib api::schema`: do not edit, edit the CRD.\n\
         \n\
         use super::{{Schema as S, OBJECT_META}};\n\
         \n\
         /// `{api_version}` `{kind}`: the CRD's openAPIV3Schema, `metadata` as ObjectMeta, `status` not\n\
         /// checked.\n\
         #[rustfmt::skip]\n\
         pub static ROOT: S = {body};\n"
    )
}

/// The generated modules are what `fnconfig/schemas/*.yaml` say, and nothing else:
/// `UPDATE_SCHEMAS=1` rewrites them.
#[test]
fn generated_schemas_are_the_fnconfig_crds() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fnconfig/schemas");
    let out = concat!(env!("CARGO_MANIFEST_DIR"), "/src/api/schema");
    for (crd, module) in [
        ("packagevariant.yaml", "package_variant.rs"),
        ("packagevariantset.yaml", "package_variant_set.rs"),
        (
            "fn.kpt.dev/packagevariant.yaml",
            "extension_package_variant.rs",
        ),
        (
            "fn.kpt.dev/packagevariantset.yaml",
            "extension_package_variant_set.rs",
        ),
    ] {
        let text = std::fs::read_to_string(format!("{dir}/{crd}")).unwrap_or_default();
        let want = generated(crd, &text);
        let path = format!("{out}/{module}");
        if std::env::var_os("UPDATE_SCHEMAS").is_some() {
            std::fs::write(&path, &want).unwrap_or_else(|e| panic!("{path}: {e}"));
            continue;
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "{path} is out of date with fnconfig/schemas/{crd}: run UPDATE_SCHEMAS=1 cargo test --lib api::schema"
        );
    }
}

/// A schema built at run time from JSON (leaked: tests only).
fn leak(v: &Value) -> &'static Schema {
    let d: &'static str = Box::leak(
        v["description"]
            .as_str()
            .unwrap_or("")
            .to_string()
            .into_boxed_str(),
    );
    let schema = match v["type"].as_str() {
        Some("object") if v.get("properties").is_some() => {
            let props: Vec<(&'static str, Schema)> = v["properties"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(n, s)| {
                    let name: &'static str = Box::leak(n.clone().into_boxed_str());
                    (name, *leak(s))
                })
                .collect();
            Schema::object(d, Box::leak(props.into_boxed_slice()), &[])
        }
        Some("object") if v["additionalProperties"].is_object() => {
            Schema::map(d, leak(&v["additionalProperties"]))
        }
        Some("object") => Schema::open(d),
        Some("array") => Schema::list(d, leak(&v["items"])),
        Some("string") => Schema::string(d),
        Some("integer") => Schema::integer(d),
        Some("boolean") => Schema::boolean(d),
        _ => Schema::any(d),
    };
    Box::leak(Box::new(schema))
}

/// A field added to the schema only is caught by the comparison of the fields: shown here on
/// a copy of the CRD with one more field.
#[test]
fn a_field_in_the_schema_only_is_seen() {
    let crd = include_str!("../../../fnconfig/schemas/packagevariant.yaml").replace(
        "                  workspaceName: {type: string,",
        "                  branch: {type: string}\n                  workspaceName: {type: string,",
    );
    let (_, _, root) = served_schema(&crd_json("pv", &crd));
    let k: &'static Kind = Box::leak(Box::new(Kind::new(
        PACKAGE_VARIANT_API_VERSION,
        PACKAGE_VARIANT_KIND,
        leak(&root),
    )));
    let schema = schema_fields(k, "spec");
    assert!(schema.contains(&("spec.upstream.branch".into(), "string".into())));
    let mut structs = struct_fields::<crate::api::package_variant::PackageVariantSpec>("spec");
    structs.insert(0, ("spec".into(), "object".into()));
    structs.retain(|(p, _)| {
        !p.starts_with("spec.injection") && !p.starts_with("spec.pipelinePlacement")
    });
    structs.sort();
    assert_ne!(structs, schema);
}
