//! The field reference of every object the function takes as functionConfig, from one source:
//! the CRD structural schemas in `fnconfig/schemas/`, plus Kubernetes ObjectMeta for
//! `metadata`.
//!
//! Why one module: strict decoding ([`super::strict`]) walks these trees to refuse unknown
//! fields and wrong types, a test checks that the typed structs read exactly these fields, and
//! `--help` can render the same trees. Nothing about a field is written twice.
//!
//! The trees are static data: `package_variant.rs` and `package_variant_set.rs` here are
//! generated from the CRD files (`UPDATE_SCHEMAS=1 cargo test --lib api::schema` rewrites them;
//! a test fails when they differ), so a run pays nothing to read them. A CRD's `status` is
//! Porch's, written by its controllers: it is kept as "anything" and not checked.

mod extension_package_variant;
mod extension_package_variant_set;
mod package_variant;
mod package_variant_set;

use std::collections::HashMap;
use std::sync::OnceLock;

use super::package_variant::{
    EXTENSION_API_VERSION, PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND,
};
use super::package_variant_set::{PACKAGE_VARIANT_SET_API_VERSION, PACKAGE_VARIANT_SET_KIND};

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

/// One node of a structural schema (static data: copying one copies references).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Schema {
    ty: Type,
    description: &'static str,
    properties: &'static [(&'static str, Schema)],
    items: Option<&'static Schema>,
    values: Option<&'static Schema>,
    required: &'static [&'static str],
    preserve_unknown: bool,
    /// The type `--help` names when it is not the node's own (see [`Schema::text`]).
    shown_as: Option<&'static str>,
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
    /// True when the object that has the field requires it.
    pub required: bool,
    pub schema: &'a Schema,
}

impl Schema {
    const fn new(ty: Type, description: &'static str) -> Schema {
        Schema {
            ty,
            description,
            properties: &[],
            items: None,
            values: None,
            required: &[],
            preserve_unknown: false,
            shown_as: None,
        }
    }

    /// An object with these fields (in order), of which `required` must be given.
    pub const fn object(
        description: &'static str,
        properties: &'static [(&'static str, Schema)],
        required: &'static [&'static str],
    ) -> Schema {
        Schema {
            properties,
            required,
            ..Schema::new(Type::Object, description)
        }
    }

    /// An object that takes any field (`x-kubernetes-preserve-unknown-fields: true`).
    pub const fn open(description: &'static str) -> Schema {
        Schema {
            preserve_unknown: true,
            ..Schema::new(Type::Object, description)
        }
    }

    /// A map from string keys to `values`.
    pub const fn map(description: &'static str, values: &'static Schema) -> Schema {
        Schema {
            values: Some(values),
            ..Schema::new(Type::Object, description)
        }
    }

    /// A list of `items`.
    pub const fn list(description: &'static str, items: &'static Schema) -> Schema {
        Schema {
            items: Some(items),
            ..Schema::new(Type::Array, description)
        }
    }

    pub const fn string(description: &'static str) -> Schema {
        Schema::new(Type::String, description)
    }

    pub const fn integer(description: &'static str) -> Schema {
        Schema::new(Type::Integer, description)
    }

    pub const fn number(description: &'static str) -> Schema {
        Schema::new(Type::Number, description)
    }

    pub const fn boolean(description: &'static str) -> Schema {
        Schema::new(Type::Boolean, description)
    }

    /// Anything at all.
    pub const fn any(description: &'static str) -> Schema {
        Schema {
            preserve_unknown: true,
            ..Schema::new(Type::Any, description)
        }
    }

    /// A string, where any other scalar is taken by its text (`3` is `"3"`), as kpt reads a
    /// ConfigMap's values: checked as [`Schema::any`] (the decoder refuses a null or a
    /// collection with its own message), named `string`.
    pub const fn text(description: &'static str) -> Schema {
        Schema {
            shown_as: Some("string"),
            ..Schema::any(description)
        }
    }

    /// The node's type.
    pub fn ty(&self) -> Type {
        self.ty
    }

    /// The node's description ("" when it has none).
    pub fn description(&self) -> &'static str {
        self.description
    }

    /// The named fields of an object, in the schema's order.
    pub fn properties(&self) -> impl Iterator<Item = (&'static str, &'static Schema)> {
        self.properties.iter().map(|(n, s)| (*n, s))
    }

    /// The schema of the field `name`, if the object has such a field.
    pub fn property(&self, name: &str) -> Option<&'static Schema> {
        self.properties
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| s)
    }

    /// The schema of a list's items.
    pub fn items(&self) -> Option<&'static Schema> {
        self.items
    }

    /// The schema of a map's values (`additionalProperties`).
    pub fn values(&self) -> Option<&'static Schema> {
        self.values
    }

    /// True when the object requires the field `name`.
    pub fn is_required(&self, name: &str) -> bool {
        self.required.contains(&name)
    }

    /// True when any field is accepted here (`x-kubernetes-preserve-unknown-fields`, or an
    /// object schema that names no fields and no value type).
    pub fn accepts_any_field(&self) -> bool {
        self.preserve_unknown
            || (self.ty == Type::Object && self.properties.is_empty() && self.values.is_none())
    }

    /// The type in a reader's words: `string`, `integer`, `map of string`, `list of object`.
    pub fn type_name(&self) -> String {
        if let Some(shown) = self.shown_as {
            return shown.to_string();
        }
        match self.ty {
            Type::Object => match self.values {
                Some(v) if self.properties.is_empty() => format!("map of {}", v.type_name()),
                _ => "object".to_string(),
            },
            Type::Array => match self.items {
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
    pub fn fields(&'static self) -> Vec<Field<'static>> {
        let mut out = Vec::new();
        self.collect_fields("", 0, &mut out);
        out
    }

    fn collect_fields(&'static self, prefix: &str, depth: usize, out: &mut Vec<Field<'static>>) {
        let mut node = self;
        let mut prefix = prefix.to_string();
        while let Some(items) = node.items {
            prefix.push_str("[]");
            node = items;
        }
        for (name, schema) in node.properties {
            let path = if prefix.is_empty() {
                name.to_string()
            } else {
                format!("{prefix}.{name}")
            };
            out.push(Field {
                path: path.clone(),
                name,
                depth,
                required: node.is_required(name),
                schema,
            });
            schema.collect_fields(&path, depth + 1, out);
        }
    }

    /// The node as an OpenAPI v3 schema (JSON), e.g. for a validator.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::{json, Map, Value};
        let mut o = Map::new();
        let ty = match self.ty {
            Type::Object => Some("object"),
            Type::Array => Some("array"),
            Type::String => Some("string"),
            Type::Integer => Some("integer"),
            Type::Number => Some("number"),
            Type::Boolean => Some("boolean"),
            Type::Any => None,
        };
        if !self.description.is_empty() {
            o.insert("description".into(), json!(self.description));
        }
        if let Some(t) = ty {
            o.insert("type".into(), json!(t));
        }
        if self.preserve_unknown {
            o.insert("x-kubernetes-preserve-unknown-fields".into(), json!(true));
        }
        if !self.required.is_empty() {
            o.insert("required".into(), json!(self.required));
        }
        if !self.properties.is_empty() {
            let props: Map<String, Value> = self
                .properties
                .iter()
                .map(|(n, s)| (n.to_string(), s.to_json()))
                .collect();
            o.insert("properties".into(), Value::Object(props));
        }
        if let Some(i) = self.items {
            o.insert("items".into(), i.to_json());
        }
        if let Some(v) = self.values {
            o.insert("additionalProperties".into(), v.to_json());
        }
        Value::Object(o)
    }
}

const STRINGS: Schema = Schema::string("");
const SET_BY_SERVER: &str = "Set by the API server.";

/// Kubernetes ObjectMeta as a structural schema: the fields a client may write. A CRD only
/// says `metadata: {type: object}` because the API server checks ObjectMeta itself.
pub const OBJECT_META: Schema = Schema::object(
    "Standard Kubernetes object metadata.",
    &[
        (
            "name",
            Schema::string("The object's name (a DNS-1123 subdomain)."),
        ),
        (
            "generateName",
            Schema::string("Prefix of a name the API server generates."),
        ),
        (
            "namespace",
            Schema::string("The object's namespace (default when empty)."),
        ),
        ("selfLink", Schema::string(SET_BY_SERVER)),
        ("uid", Schema::string(SET_BY_SERVER)),
        ("resourceVersion", Schema::string(SET_BY_SERVER)),
        ("generation", Schema::integer(SET_BY_SERVER)),
        ("creationTimestamp", Schema::string(SET_BY_SERVER)),
        ("deletionTimestamp", Schema::string(SET_BY_SERVER)),
        ("deletionGracePeriodSeconds", Schema::integer(SET_BY_SERVER)),
        ("labels", Schema::map("Labels of the object.", &STRINGS)),
        (
            "annotations",
            Schema::map("Annotations of the object.", &STRINGS),
        ),
        (
            "ownerReferences",
            Schema::list(
                "Objects this one belongs to.",
                &Schema::object(
                    "",
                    &[
                        ("apiVersion", Schema::string("")),
                        ("kind", Schema::string("")),
                        ("name", Schema::string("")),
                        ("uid", Schema::string("")),
                        ("controller", Schema::boolean("")),
                        ("blockOwnerDeletion", Schema::boolean("")),
                    ],
                    &[],
                ),
            ),
        ),
        (
            "finalizers",
            Schema::list(
                "Finalizers that must be removed before the object is deleted.",
                &STRINGS,
            ),
        ),
        (
            "managedFields",
            Schema::list(
                "Written by the API server (server-side apply).",
                &Schema::open(""),
            ),
        ),
    ],
    &[],
);

/// The ConfigMap functionConfig (`kpt fn eval ... -- key=value`, a Kptfile `configMap:`): only
/// `data` is read. Values are taken by their text, as kpt writes every value as a string.
static CONFIG_MAP: Schema = Schema::object(
    "Package context data, as kpt builds it from -- key=value.",
    &[
        ("apiVersion", Schema::string("")),
        ("kind", Schema::string("")),
        ("metadata", OBJECT_META),
        (
            "data",
            Schema::map(
                "Keys set in the package context (package-context.yaml); name and \
                 package-path are reserved. Other scalars count by their text (3 sets \"3\").",
                &Schema::text(""),
            ),
        ),
    ],
    &[],
);

/// A functionConfig kind and the schema of its objects.
#[derive(Debug)]
pub struct Kind {
    api_version: &'static str,
    kind: &'static str,
    root: &'static Schema,
    /// Field name -> the schema paths of the objects that have a field of that name; built
    /// when an unknown field is first explained.
    owners: OnceLock<HashMap<&'static str, Vec<String>>>,
}

impl Kind {
    const fn new(api_version: &'static str, kind: &'static str, root: &'static Schema) -> Kind {
        Kind {
            api_version,
            kind,
            root,
            owners: OnceLock::new(),
        }
    }

    /// `config.porch.kpt.dev/v1alpha1`.
    pub fn api_version(&self) -> &'static str {
        self.api_version
    }

    /// `PackageVariant`.
    pub fn kind(&self) -> &'static str {
        self.kind
    }

    /// The whole object: `apiVersion`, `kind`, `metadata` (ObjectMeta), `spec`, `status`.
    pub fn root(&self) -> &'static Schema {
        self.root
    }

    /// The schema paths of the objects that have a field called `name` (`spec.targets[]` for
    /// `template` in a PackageVariantSet), in schema order.
    pub fn owners_of(&self, name: &str) -> &[String] {
        let owners = self.owners.get_or_init(|| {
            let mut owners: HashMap<&'static str, Vec<String>> = HashMap::new();
            for f in self.root.fields() {
                let parent = f
                    .path
                    .strip_suffix(f.name)
                    .and_then(|p| p.strip_suffix('.'))
                    .unwrap_or("");
                owners.entry(f.name).or_default().push(parent.to_string());
            }
            owners
        });
        owners.get(name).map_or(&[], Vec::as_slice)
    }
}

static KINDS: [Kind; 5] = [
    Kind::new(
        PACKAGE_VARIANT_API_VERSION,
        PACKAGE_VARIANT_KIND,
        &package_variant::ROOT,
    ),
    Kind::new(
        PACKAGE_VARIANT_SET_API_VERSION,
        PACKAGE_VARIANT_SET_KIND,
        &package_variant_set::ROOT,
    ),
    Kind::new("v1", "ConfigMap", &CONFIG_MAP),
    // The extension kinds: Porch's fields plus this function's own (docs/extensions.md).
    Kind::new(
        EXTENSION_API_VERSION,
        PACKAGE_VARIANT_KIND,
        &extension_package_variant::ROOT,
    ),
    Kind::new(
        EXTENSION_API_VERSION,
        PACKAGE_VARIANT_SET_KIND,
        &extension_package_variant_set::ROOT,
    ),
];

/// The schema of the kind `kind` at `api_version`, or `None` when there is none.
pub fn for_kind(api_version: &str, kind: &str) -> Option<&'static Kind> {
    KINDS
        .iter()
        .find(|k| k.api_version == api_version && k.kind == kind)
}

/// Every kind with a schema: PackageVariant, PackageVariantSet, the ConfigMap of context
/// data, then the extension PackageVariant and PackageVariantSet (`fn.kpt.dev/v1alpha1`).
pub fn kinds() -> &'static [Kind] {
    &KINDS
}

#[cfg(test)]
mod tests;
