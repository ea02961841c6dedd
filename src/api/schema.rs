//! The field reference of every object the function takes as functionConfig, from one source:
//! the CRD structural schemas in `fnconfig/schemas/` (embedded here as JSON generated from
//! them), plus Kubernetes ObjectMeta for `metadata`.
//!
//! Why one module: strict decoding ([`super::strict`]) walks these trees to refuse unknown
//! fields and wrong types, a test checks that the typed structs accept exactly these fields,
//! and `--help` can render the same trees. Nothing about a field is written twice.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::{json, Value};

use super::package_variant::{PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND};
use super::package_variant_set::{PACKAGE_VARIANT_SET_API_VERSION, PACKAGE_VARIANT_SET_KIND};

/// The `openAPIV3Schema` of the served version of each CRD in `fnconfig/schemas/`, as JSON:
/// `[{apiVersion, kind, openAPIV3Schema}]`. Generated from those files, which stay the source;
/// a test fails when it differs from them (`UPDATE_SCHEMAS=1 cargo test --lib api::schema`
/// rewrites it). JSON because this layer reads no YAML.
pub const CRDS_JSON: &str = include_str!("schema/crds.json");

/// Kubernetes ObjectMeta as a structural schema: the fields a client may write. A CRD only
/// says `metadata: {type: object}` because the API server checks ObjectMeta itself.
pub fn object_meta_json() -> Value {
    let string_map = json!({"type": "object", "additionalProperties": {"type": "string"}});
    let set_by_server = |ty: &str| json!({"type": ty, "description": "Set by the API server."});
    json!({
        "description": "Standard Kubernetes object metadata.",
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The object's name (a DNS-1123 subdomain)."},
            "generateName": {"type": "string", "description": "Prefix of a name the API server generates."},
            "namespace": {"type": "string", "description": "The object's namespace (default when empty)."},
            "selfLink": set_by_server("string"),
            "uid": set_by_server("string"),
            "resourceVersion": set_by_server("string"),
            "generation": set_by_server("integer"),
            "creationTimestamp": set_by_server("string"),
            "deletionTimestamp": set_by_server("string"),
            "deletionGracePeriodSeconds": set_by_server("integer"),
            "labels": with_description(&string_map, "Labels of the object."),
            "annotations": with_description(&string_map, "Annotations of the object."),
            "ownerReferences": {
                "description": "Objects this one belongs to.",
                "type": "array",
                "items": {"type": "object", "properties": {
                    "apiVersion": {"type": "string"},
                    "kind": {"type": "string"},
                    "name": {"type": "string"},
                    "uid": {"type": "string"},
                    "controller": {"type": "boolean"},
                    "blockOwnerDeletion": {"type": "boolean"},
                }},
            },
            "finalizers": {
                "description": "Finalizers that must be removed before the object is deleted.",
                "type": "array",
                "items": {"type": "string"},
            },
            "managedFields": {
                "description": "Written by the API server (server-side apply).",
                "type": "array",
                "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            },
        }
    })
}

/// The ConfigMap functionConfig (`kpt fn eval ... -- key=value`, a Kptfile `configMap:`): only
/// `data` is read. Values are taken by their text, as kpt writes every value as a string.
pub fn config_map_json() -> Value {
    json!({
        "description": "Package context data, as kpt builds it from -- key=value.",
        "type": "object",
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "data": {
                "description": "Keys set in the package context (package-context.yaml); name and package-path are reserved.",
                "type": "object",
                "additionalProperties": {"x-kubernetes-preserve-unknown-fields": true},
            },
        }
    })
}

fn with_description(schema: &Value, description: &str) -> Value {
    let mut s = schema.clone();
    if let Some(o) = s.as_object_mut() {
        o.insert("description".into(), Value::String(description.into()));
    }
    s
}

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
    Schema::from_json(&object_meta_json(), "metadata")
}

/// Reads every embedded schema; the error says which one failed.
pub fn load() -> Result<Vec<Kind>, String> {
    load_from(CRDS_JSON)
}

/// [`load`] from another `[{apiVersion, kind, openAPIV3Schema}]` text.
fn load_from(crds_json: &str) -> Result<Vec<Kind>, String> {
    let meta = object_meta()?;
    let crds: Value = serde_json::from_str(crds_json).map_err(|e| e.to_string())?;
    let root = |api_version: &str, kind: &str| -> Result<Schema, String> {
        let crd = crds
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["apiVersion"] == api_version && c["kind"] == kind)
            .ok_or_else(|| format!("no schema for {kind} {api_version}"))?;
        let mut root = Schema::from_json(&crd["openAPIV3Schema"], "")?;
        with_meta(&mut root, &meta);
        Ok(root)
    };
    let pv = root(PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND)?;
    let pvs = root(PACKAGE_VARIANT_SET_API_VERSION, PACKAGE_VARIANT_SET_KIND)?;
    let mut cm = Schema::from_json(&config_map_json(), "ConfigMap")?;
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

fn with_meta(root: &mut Schema, meta: &Schema) {
    for (name, schema) in &mut root.properties {
        if name == "metadata" {
            *schema = meta.clone();
        }
    }
}

#[cfg(test)]
mod tests;
