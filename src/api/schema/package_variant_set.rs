//! The PackageVariantSet (config.porch.kpt.dev/v1alpha2) schema, generated from fnconfig/schemas/packagevariantset.yaml by
//! `UPDATE_SCHEMAS=1 cargo test --lib api::schema`: do not edit, edit the CRD.

use super::{Schema as S, OBJECT_META};

/// `config.porch.kpt.dev/v1alpha2` `PackageVariantSet`: the CRD's openAPIV3Schema, `metadata` as ObjectMeta, `status` not
/// checked.
#[rustfmt::skip]
pub static ROOT: S = S::object("One upstream package revision and the targets to make a PackageVariant for; the function emits, updates and deletes those PackageVariants.", &[
    ("apiVersion", S::string("")),
    ("kind", S::string("")),
    ("metadata", OBJECT_META),
    ("spec", S::object("", &[
        ("upstream", S::object("The package revision every generated PackageVariant starts from.", &[
            ("repo", S::string("Name of the upstream Repository.")),
            ("package", S::string("Name of the upstream package.")),
            ("revision", S::integer("Revision number of the upstream package (0 is unset).")),
            ("workspaceName", S::string("Workspace name of the upstream package revision.")),
        ], &[])),
        ("targets", S::list("Where variants go. Each target gives exactly one of repositories, repositorySelector and objectSelector, and an optional template.", &S::object("", &[
            ("repositories", S::list("Explicit downstream repositories, each with the package names to create there (default, the upstream package name).", &S::object("", &[
                ("name", S::string("A Repository in the PackageVariantSet's namespace.")),
                ("packageNames", S::list("", &S::string(""))),
            ], &["name"]))),
            ("repositorySelector", S::object("A label selector over the Repository objects in the namespace; one variant per matching repository.", &[
                ("matchLabels", S::map("", &S::string(""))),
                ("matchExpressions", S::list("", &S::object("", &[
                    ("key", S::string("")),
                    ("operator", S::string("In, NotIn, Exists or DoesNotExist.")),
                    ("values", S::list("", &S::string(""))),
                ], &["key", "operator"]))),
            ], &[])),
            ("objectSelector", S::object("A kind and a label selector over arbitrary objects in the namespace; one variant per matching object (the template says where).", &[
                ("apiVersion", S::string("")),
                ("kind", S::string("")),
                ("name", S::string("Accepted and ignored, as by Porch.")),
                ("matchLabels", S::map("", &S::string(""))),
                ("matchExpressions", S::list("", &S::object("", &[
                    ("key", S::string("")),
                    ("operator", S::string("In, NotIn, Exists or DoesNotExist.")),
                    ("values", S::list("", &S::string(""))),
                ], &["key", "operator"]))),
            ], &[])),
            ("template", S::object("How each target's PackageVariant spec is made; static values first, then the CEL *Expr fields, which win.", &[
                ("downstream", S::object("Downstream repo and package, each a value or an expression.", &[
                    ("repo", S::string("")),
                    ("package", S::string("")),
                    ("repoExpr", S::string("")),
                    ("packageExpr", S::string("")),
                ], &[])),
                ("adoptionPolicy", S::string("adoptNone or adoptExisting.")),
                ("deletionPolicy", S::string("delete or orphan.")),
                ("labels", S::map("", &S::string(""))),
                ("labelExprs", S::list("", &S::object("One map entry; the key from key or keyExpr, the value from value or valueExpr (CEL, must yield a string).", &[
                    ("key", S::string("")),
                    ("value", S::string("")),
                    ("keyExpr", S::string("")),
                    ("valueExpr", S::string("")),
                ], &[]))),
                ("annotations", S::map("", &S::string(""))),
                ("annotationExprs", S::list("", &S::object("One map entry; the key from key or keyExpr, the value from value or valueExpr (CEL, must yield a string).", &[
                    ("key", S::string("")),
                    ("value", S::string("")),
                    ("keyExpr", S::string("")),
                    ("valueExpr", S::string("")),
                ], &[]))),
                ("packageContext", S::object("", &[
                    ("data", S::map("", &S::string(""))),
                    ("dataExprs", S::list("", &S::object("One map entry; the key from key or keyExpr, the value from value or valueExpr (CEL, must yield a string).", &[
                        ("key", S::string("")),
                        ("value", S::string("")),
                        ("keyExpr", S::string("")),
                        ("valueExpr", S::string("")),
                    ], &[]))),
                    ("removeKeys", S::list("", &S::string(""))),
                    ("removeKeyExprs", S::list("CEL expressions, each yielding one key to remove.", &S::string(""))),
                ], &[])),
                ("pipeline", S::object("", &[
                    ("mutators", S::list("", &S::object("A kpt Kptfile v1 function, plus configMapExprs.", &[
                        ("image", S::string("")),
                        ("exec", S::string("")),
                        ("configPath", S::string("")),
                        ("configMap", S::map("", &S::string(""))),
                        ("configRef", S::object("A resource of the package used as the function config (kpt's ResourceReference); at most one of configMap, configPath and configRef.", &[
                            ("apiVersion", S::string("apiVersion of the resource; when omitted, any.")),
                            ("kind", S::string("Kind of the resource (required).")),
                            ("name", S::string("Name of the resource (required).")),
                            ("namespace", S::string("Namespace of the resource; when omitted, any.")),
                        ], &["kind", "name"])),
                        ("when", S::string("A CEL condition kpt evaluates over the step's selected resources (`resources`); the step is skipped when it is false. Checked here as kpt v1.0 compiles it.")),
                        ("configMapExprs", S::list("configMap entries computed with CEL; they win over configMap.", &S::object("One map entry; the key from key or keyExpr, the value from value or valueExpr (CEL, must yield a string).", &[
                            ("key", S::string("")),
                            ("value", S::string("")),
                            ("keyExpr", S::string("")),
                            ("valueExpr", S::string("")),
                        ], &[]))),
                        ("name", S::string("")),
                        ("tag", S::string("")),
                        ("selectors", S::list("", &S::object("", &[
                            ("apiVersion", S::string("")),
                            ("kind", S::string("")),
                            ("name", S::string("")),
                            ("namespace", S::string("")),
                            ("labels", S::map("", &S::string(""))),
                            ("annotations", S::map("", &S::string(""))),
                            ("resourceFileRegexp", S::string("A Go regular expression (RE2) over the resource file path (kpt v1.0.1, kptdev/kpt#4743); it must compile.")),
                        ], &[]))),
                        ("exclude", S::list("", &S::object("", &[
                            ("apiVersion", S::string("")),
                            ("kind", S::string("")),
                            ("name", S::string("")),
                            ("namespace", S::string("")),
                            ("labels", S::map("", &S::string(""))),
                            ("annotations", S::map("", &S::string(""))),
                            ("resourceFileRegexp", S::string("A Go regular expression (RE2) over the resource file path (kpt v1.0.1, kptdev/kpt#4743); it must compile.")),
                        ], &[]))),
                    ], &[]))),
                    ("validators", S::list("", &S::object("A kpt Kptfile v1 function, plus configMapExprs.", &[
                        ("image", S::string("")),
                        ("exec", S::string("")),
                        ("configPath", S::string("")),
                        ("configMap", S::map("", &S::string(""))),
                        ("configRef", S::object("A resource of the package used as the function config (kpt's ResourceReference); at most one of configMap, configPath and configRef.", &[
                            ("apiVersion", S::string("apiVersion of the resource; when omitted, any.")),
                            ("kind", S::string("Kind of the resource (required).")),
                            ("name", S::string("Name of the resource (required).")),
                            ("namespace", S::string("Namespace of the resource; when omitted, any.")),
                        ], &["kind", "name"])),
                        ("when", S::string("A CEL condition kpt evaluates over the step's selected resources (`resources`); the step is skipped when it is false. Checked here as kpt v1.0 compiles it.")),
                        ("configMapExprs", S::list("configMap entries computed with CEL; they win over configMap.", &S::object("One map entry; the key from key or keyExpr, the value from value or valueExpr (CEL, must yield a string).", &[
                            ("key", S::string("")),
                            ("value", S::string("")),
                            ("keyExpr", S::string("")),
                            ("valueExpr", S::string("")),
                        ], &[]))),
                        ("name", S::string("")),
                        ("tag", S::string("")),
                        ("selectors", S::list("", &S::object("", &[
                            ("apiVersion", S::string("")),
                            ("kind", S::string("")),
                            ("name", S::string("")),
                            ("namespace", S::string("")),
                            ("labels", S::map("", &S::string(""))),
                            ("annotations", S::map("", &S::string(""))),
                            ("resourceFileRegexp", S::string("A Go regular expression (RE2) over the resource file path (kpt v1.0.1, kptdev/kpt#4743); it must compile.")),
                        ], &[]))),
                        ("exclude", S::list("", &S::object("", &[
                            ("apiVersion", S::string("")),
                            ("kind", S::string("")),
                            ("name", S::string("")),
                            ("namespace", S::string("")),
                            ("labels", S::map("", &S::string(""))),
                            ("annotations", S::map("", &S::string(""))),
                            ("resourceFileRegexp", S::string("A Go regular expression (RE2) over the resource file path (kpt v1.0.1, kptdev/kpt#4743); it must compile.")),
                        ], &[]))),
                    ], &[]))),
                ], &[])),
                ("injectors", S::list("Injectors of the generated PackageVariant; exactly one of name and nameExpr.", &S::object("", &[
                    ("group", S::string("")),
                    ("version", S::string("")),
                    ("kind", S::string("")),
                    ("name", S::string("")),
                    ("nameExpr", S::string("")),
                ], &[]))),
            ], &[])),
        ], &[]))),
    ], &[])),
    ("status", S::any("Written by Porch's PackageVariantSet controller, never by the function.")),
], &[]);
