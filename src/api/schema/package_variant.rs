//! The PackageVariant (config.porch.kpt.dev/v1alpha1) schema, generated from fnconfig/schemas/packagevariant.yaml by
//! `UPDATE_SCHEMAS=1 cargo test --lib api::schema`: do not edit, edit the CRD.

use super::{Schema as S, OBJECT_META};

/// `config.porch.kpt.dev/v1alpha1` `PackageVariant`: the CRD's openAPIV3Schema, `metadata` as ObjectMeta, `status` not
/// checked.
#[rustfmt::skip]
pub static ROOT: S = S::object("An upstream package revision, the downstream variant made from it, and the mutations (package context, pipeline, config injection) applied to the variant.", &[
    ("apiVersion", S::string("")),
    ("kind", S::string("")),
    ("metadata", OBJECT_META),
    ("spec", S::object("Where the variant comes from, where it goes and how it is mutated.", &[
        ("upstream", S::object("The package revision the variant is cloned from.", &[
            ("repo", S::string("Name of the upstream Repository.")),
            ("package", S::string("Name of the upstream package.")),
            ("revision", S::integer("Revision number of the upstream package (0 is unset).")),
            ("workspaceName", S::string("Workspace name of the upstream package revision.")),
        ], &[])),
        ("downstream", S::object("The repository and package name of the variant.", &[
            ("repo", S::string("Name of the downstream Repository.")),
            ("package", S::string("Name of the downstream package.")),
        ], &[])),
        ("adoptionPolicy", S::string("adoptNone (the default) or adoptExisting; whether an existing downstream package is taken over.")),
        ("deletionPolicy", S::string("delete (the default) or orphan; what becomes of the downstream package when the PackageVariant is deleted.")),
        ("labels", S::map("Labels for the downstream PackageRevision.", &S::string(""))),
        ("annotations", S::map("Annotations for the downstream PackageRevision.", &S::string(""))),
        ("packageContext", S::object("Keys set in, then removed from, the data of the kptfile.kpt.dev ConfigMap (package-context.yaml). The keys name and package-path are reserved.", &[
            ("data", S::map("", &S::string(""))),
            ("removeKeys", S::list("", &S::string(""))),
        ], &[])),
        ("pipeline", S::object("Functions put in front of the Kptfile's own pipeline, named PackageVariant.<name>.<function name>.<index>.", &[
            ("mutators", S::list("", &S::object("A kpt Kptfile v1 function.", &[
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
                ("name", S::string("")),
                ("tag", S::string("")),
                ("selectors", S::list("", &S::object("Resources the function applies to (all fields must match).", &[
                    ("apiVersion", S::string("")),
                    ("kind", S::string("")),
                    ("name", S::string("")),
                    ("namespace", S::string("")),
                    ("labels", S::map("", &S::string(""))),
                    ("annotations", S::map("", &S::string(""))),
                    ("resourceFileRegexp", S::string("A Go regular expression (RE2) over the resource file path (kpt v1.0.1, kptdev/kpt#4743); it must compile.")),
                ], &[]))),
                ("exclude", S::list("", &S::object("Resources the function applies to (all fields must match).", &[
                    ("apiVersion", S::string("")),
                    ("kind", S::string("")),
                    ("name", S::string("")),
                    ("namespace", S::string("")),
                    ("labels", S::map("", &S::string(""))),
                    ("annotations", S::map("", &S::string(""))),
                    ("resourceFileRegexp", S::string("A Go regular expression (RE2) over the resource file path (kpt v1.0.1, kptdev/kpt#4743); it must compile.")),
                ], &[]))),
            ], &[]))),
            ("validators", S::list("", &S::object("A kpt Kptfile v1 function.", &[
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
                ("name", S::string("")),
                ("tag", S::string("")),
                ("selectors", S::list("", &S::object("Resources the function applies to (all fields must match).", &[
                    ("apiVersion", S::string("")),
                    ("kind", S::string("")),
                    ("name", S::string("")),
                    ("namespace", S::string("")),
                    ("labels", S::map("", &S::string(""))),
                    ("annotations", S::map("", &S::string(""))),
                    ("resourceFileRegexp", S::string("A Go regular expression (RE2) over the resource file path (kpt v1.0.1, kptdev/kpt#4743); it must compile.")),
                ], &[]))),
                ("exclude", S::list("", &S::object("Resources the function applies to (all fields must match).", &[
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
        ("injectors", S::list("In-cluster objects whose data (ConfigMap) or spec (other kinds) is injected into the package's injection points, first match first.", &S::object("", &[
            ("group", S::string("")),
            ("version", S::string("")),
            ("kind", S::string("")),
            ("name", S::string("")),
        ], &["name"]))),
    ], &[])),
    ("status", S::any("Written by Porch's PackageVariant controller, never by the function.")),
], &[]);
