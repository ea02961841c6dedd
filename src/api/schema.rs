//! The field reference of every object the function takes as functionConfig, from one source:
//! the CRD structural schemas in `fnconfig/schemas/` (embedded here), plus Kubernetes ObjectMeta
//! for `metadata`.
//!
//! Why one module: strict decoding ([`super::strict`]) walks these trees to refuse unknown
//! fields and wrong types, a test checks that the typed structs accept exactly these fields,
//! and `--help` can render the same trees. Nothing about a field is written twice.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

use super::package_variant::{PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND};
use super::package_variant_set::{PACKAGE_VARIANT_SET_API_VERSION, PACKAGE_VARIANT_SET_KIND};

/// The PackageVariant CRD (`fnconfig/schemas/packagevariant.yaml`).
pub const PACKAGE_VARIANT_CRD: &str = include_str!("../../fnconfig/schemas/packagevariant.yaml");
/// The PackageVariantSet CRD (`fnconfig/schemas/packagevariantset.yaml`).
pub const PACKAGE_VARIANT_SET_CRD: &str =
    include_str!("../../fnconfig/schemas/packagevariantset.yaml");

/// Kubernetes ObjectMeta as a structural schema: the fields a client may write. A CRD only
/// says `metadata: {type: object}` because the API server checks ObjectMeta itself.
pub const OBJECT_META_SCHEMA: &str = "\
description: Standard Kubernetes object metadata.
type: object
properties:
  name: {type: string, description: The object's name (a DNS-1123 subdomain).}
  generateName: {type: string, description: Prefix of a name the API server generates.}
  namespace: {type: string, description: The object's namespace (default when empty).}
  selfLink: {type: string, description: Deprecated; set by the API server.}
  uid: {type: string, description: Set by the API server.}
  resourceVersion: {type: string, description: Set by the API server.}
  generation: {type: integer, description: Set by the API server.}
  creationTimestamp: {type: string, description: Set by the API server.}
  deletionTimestamp: {type: string, description: Set by the API server.}
  deletionGracePeriodSeconds: {type: integer, description: Set by the API server.}
  labels:
    description: Labels of the object.
    type: object
    additionalProperties: {type: string}
  annotations:
    description: Annotations of the object.
    type: object
    additionalProperties: {type: string}
  ownerReferences:
    description: Objects this one belongs to.
    type: array
    items:
      type: object
      properties:
        apiVersion: {type: string}
        kind: {type: string}
        name: {type: string}
        uid: {type: string}
        controller: {type: boolean}
        blockOwnerDeletion: {type: boolean}
  finalizers:
    description: Finalizers that must be removed before the object is deleted.
    type: array
    items: {type: string}
  managedFields:
    description: Written by the API server (server-side apply).
    type: array
    items: {type: object, x-kubernetes-preserve-unknown-fields: true}
";

/// The ConfigMap functionConfig (`kpt fn eval ... -- key=value`, a Kptfile `configMap:`): only
/// `data` is read. Values are taken by their text, as kpt writes every value as a string.
pub const CONFIG_MAP_SCHEMA: &str = "\
description: Package context data, as kpt builds it from -- key=value.
type: object
properties:
  apiVersion: {type: string}
  kind: {type: string}
  metadata: {type: object}
  data:
    description: Keys set in the package context (package-context.yaml); name and package-path
      are reserved.
    type: object
    additionalProperties: {x-kubernetes-preserve-unknown-fields: true}
";

/// The OpenAPI type of a schema node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Type {
    Object,
    Array,
    String,
    Integer,
    Number,
    Boolean,
    /// No type: anything (`x-kubernetes-preserve-unknown-fields` without a type).
    Any,
}

/// One node of a structural schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    ty: Type,
    description: String,
    properties: Vec<(String, Schema)>,
    items: Option<Box<Schema>>,
    values: Option<Box<Schema>>,
    required: Vec<String>,
    preserve_unknown: bool,
}

/// One field of a schema tree, as [`Schema::fields`] lists them.
#[derive(Debug, Clone, PartialEq)]
pub struct Field<'a> {
    /// Dotted path from the object's root, `[]` marking list items:
    /// `spec.targets[].template.downstream.repoExpr`.
    pub path: String,
    /// The field's own name (`repoExpr`).
    pub name: &'a str,
    /// Nesting level: 0 for a root field such as `spec`.
    pub depth: usize,
    pub schema: &'a Schema,
}

impl Schema {
    /// The node's type.
    pub fn ty(&self) -> Type {
        self.ty
    }

    /// The node's description ("" when it has none).
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The named fields of an object, in the schema's order.
    pub fn properties(&self) -> impl Iterator<Item = (&str, &Schema)> {
        self.properties.iter().map(|(n, s)| (n.as_str(), s))
    }

    /// The schema of the field `name`, if the object has such a field.
    pub fn property(&self, name: &str) -> Option<&Schema> {
        self.properties
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| s)
    }

    /// The schema of a list's items.
    pub fn items(&self) -> Option<&Schema> {
        self.items.as_deref()
    }

    /// The schema of a map's values (`additionalProperties`).
    pub fn values(&self) -> Option<&Schema> {
        self.values.as_deref()
    }

    /// True when the object requires the field `name`.
    pub fn is_required(&self, name: &str) -> bool {
        self.required.iter().any(|r| r == name)
    }

    /// True when any field is accepted here (`x-kubernetes-preserve-unknown-fields`, or an
    /// object schema that names no fields and no value type).
    pub fn accepts_any_field(&self) -> bool {
        self.preserve_unknown
            || (self.ty == Type::Object && self.properties.is_empty() && self.values.is_none())
    }

    /// The type in a reader's words: `string`, `integer`, `map of string`, `list of object`.
    pub fn type_name(&self) -> String {
        match self.ty {
            Type::Object => match &self.values {
                Some(v) if self.properties.is_empty() => format!("map of {}", v.type_name()),
                _ => "object".to_string(),
            },
            Type::Array => match &self.items {
                Some(i) => format!("list of {}", i.type_name()),
                None => "list".to_string(),
            },
            Type::String => "string".to_string(),
            Type::Integer => "integer".to_string(),
            Type::Number => "number".to_string(),
            Type::Boolean => "boolean".to_string(),
            Type::Any => "any".to_string(),
        }
    }

    /// Every field below this node, depth first in the schema's order (a list's item fields
    /// under `name[]`, a map's value fields not at all).
    pub fn fields(&self) -> Vec<Field<'_>> {
        let mut out = Vec::new();
        self.collect_fields("", 0, &mut out);
        out
    }

    fn collect_fields<'a>(&'a self, prefix: &str, depth: usize, out: &mut Vec<Field<'a>>) {
        let mut node = self;
        let mut prefix = prefix.to_string();
        while let Some(items) = node.items.as_deref() {
            prefix.push_str("[]");
            node = items;
        }
        for (name, schema) in &node.properties {
            let path = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}.{name}")
            };
            out.push(Field {
                path: path.clone(),
                name,
                depth,
                schema,
            });
            schema.collect_fields(&path, depth + 1, out);
        }
    }

    /// Reads a structural schema from its JSON form.
    fn from_json(v: &Value, at: &str) -> Result<Schema, String> {
        let obj = v
            .as_object()
            .ok_or_else(|| format!("{at}: a schema must be a mapping"))?;
        let preserve_unknown =
            obj.get("x-kubernetes-preserve-unknown-fields") == Some(&true.into());
        let ty = match obj.get("type").and_then(Value::as_str) {
            Some("object") => Type::Object,
            Some("array") => Type::Array,
            Some("string") => Type::String,
            Some("integer") => Type::Integer,
            Some("number") => Type::Number,
            Some("boolean") => Type::Boolean,
            None if preserve_unknown => Type::Any,
            other => return Err(format!("{at}: unknown or missing type {other:?}")),
        };
        let mut properties = Vec::new();
        for (name, sub) in obj
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            properties.push((
                name.clone(),
                Schema::from_json(sub, &format!("{at}.{name}"))?,
            ));
        }
        let items = match obj.get("items") {
            Some(i) => Some(Box::new(Schema::from_json(i, &format!("{at}[]"))?)),
            None => None,
        };
        let values = match obj.get("additionalProperties") {
            Some(a) if a.is_object() => Some(Box::new(Schema::from_json(a, &format!("{at}.*"))?)),
            _ => None,
        };
        let required = obj
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|r| r.as_str().map(str::to_string))
            .collect();
        Ok(Schema {
            ty,
            description: obj
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            properties,
            items,
            values,
            required,
            preserve_unknown,
        })
    }
}

/// A functionConfig kind and the schema of its objects.
#[derive(Debug)]
pub struct Kind {
    api_version: &'static str,
    kind: &'static str,
    root: Schema,
    /// Field name -> the schema paths of the objects that have a field of that name.
    owners: HashMap<String, Vec<String>>,
}

impl Kind {
    /// `config.porch.kpt.dev/v1alpha1`.
    pub fn api_version(&self) -> &'static str {
        self.api_version
    }

    /// `PackageVariant`.
    pub fn kind(&self) -> &'static str {
        self.kind
    }

    /// The whole object: `apiVersion`, `kind`, `metadata` (ObjectMeta), `spec`, `status`.
    pub fn root(&self) -> &Schema {
        &self.root
    }

    /// The schema paths of the objects that have a field called `name` (`spec.targets[]` for
    /// `template` in a PackageVariantSet), in schema order; `status` is left out.
    pub fn owners_of(&self, name: &str) -> &[String] {
        self.owners.get(name).map_or(&[], Vec::as_slice)
    }

    fn new(api_version: &'static str, kind: &'static str, root: Schema) -> Kind {
        let mut owners: HashMap<String, Vec<String>> = HashMap::new();
        for f in root.fields() {
            if f.path == "status" || f.path.starts_with("status.") {
                continue;
            }
            let parent = f
                .path
                .strip_suffix(f.name)
                .and_then(|p| p.strip_suffix('.'))
                .unwrap_or("");
            owners
                .entry(f.name.to_string())
                .or_default()
                .push(parent.to_string());
        }
        Kind {
            api_version,
            kind,
            root,
            owners,
        }
    }
}

/// The schema of the kind `kind` at `api_version`, or `None` when no schema is embedded for
/// it (or, which a test rules out, the embedded schema cannot be read).
pub fn for_kind(api_version: &str, kind: &str) -> Option<&'static Kind> {
    kinds()
        .iter()
        .find(|k| k.api_version == api_version && k.kind == kind)
}

/// Every kind with a schema: PackageVariant, PackageVariantSet and the ConfigMap of context
/// data, in that order.
pub fn kinds() -> &'static [Kind] {
    static KINDS: OnceLock<Vec<Kind>> = OnceLock::new();
    KINDS.get_or_init(|| load().unwrap_or_default())
}

/// Kubernetes ObjectMeta, as every kind's `metadata` field uses it.
pub fn object_meta() -> Result<Schema, String> {
    Schema::from_json(&yaml_json(OBJECT_META_SCHEMA)?, "metadata")
}

/// Reads every embedded schema; the error says which one failed.
pub fn load() -> Result<Vec<Kind>, String> {
    let meta = object_meta()?;
    let pv = crd_root(PACKAGE_VARIANT_CRD, PACKAGE_VARIANT_API_VERSION, &meta)?;
    let pvs = crd_root(
        PACKAGE_VARIANT_SET_CRD,
        PACKAGE_VARIANT_SET_API_VERSION,
        &meta,
    )?;
    let mut cm = Schema::from_json(&yaml_json(CONFIG_MAP_SCHEMA)?, "ConfigMap")?;
    with_meta(&mut cm, &meta);
    Ok(vec![
        Kind::new(PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND, pv),
        Kind::new(
            PACKAGE_VARIANT_SET_API_VERSION,
            PACKAGE_VARIANT_SET_KIND,
            pvs,
        ),
        Kind::new("v1", "ConfigMap", cm),
    ])
}

fn yaml_json(text: &str) -> Result<Value, String> {
    let node = crate::yaml::parse(text).map_err(|e| e.to_string())?;
    crate::yaml::to_json(&node)
}

/// The `openAPIV3Schema` of the served version `api_version` of a CRD, `metadata` replaced by
/// ObjectMeta.
fn crd_root(crd: &str, api_version: &str, meta: &Schema) -> Result<Schema, String> {
    let crd = yaml_json(crd)?;
    let version = api_version.rsplit('/').next().unwrap_or(api_version);
    let served = crd
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|v| v["name"] == version && v["served"] == true)
        .ok_or_else(|| format!("the CRD does not serve {api_version}"))?;
    let mut root = Schema::from_json(&served["schema"]["openAPIV3Schema"], "")?;
    with_meta(&mut root, meta);
    Ok(root)
}

fn with_meta(root: &mut Schema, meta: &Schema) {
    for (name, schema) in &mut root.properties {
        if name == "metadata" {
            *schema = meta.clone();
        }
    }
}

#[cfg(test)]
mod tests;
