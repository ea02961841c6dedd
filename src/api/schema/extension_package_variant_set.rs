//! The PackageVariantSet (fn.kpt.dev/v1alpha1) schema, generated from fnconfig/schemas/fn.kpt.dev/packagevariantset.yaml by
//! `UPDATE_SCHEMAS=1 cargo test --lib api::schema`: do not edit, edit the CRD.

use super::{Schema as S, OBJECT_META};

/// `fn.kpt.dev/v1alpha1` `PackageVariantSet`: the CRD's openAPIV3Schema, `metadata` as ObjectMeta, `status` not
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
            ("tag", S::string("(extension) A floating tag instead of a revision (docs/extensions.md) - latest, or T for the Published revision labelled package-variant.fn.kpt.dev/tag-T; each variant gets the revision it names.")),
        ], &[])),
        ("upstreams", S::list("(extension) Several upstreams instead of upstream (docs/extensions.md); one PackageVariant per target and upstream, its package defaulting to that upstream's package.", &S::object("", &[
            ("repo", S::string("Name of the upstream Repository.")),
            ("package", S::string("Name of the upstream package.")),
            ("revision", S::integer("Revision number of the upstream package (0 is unset).")),
            ("workspaceName", S::string("Workspace name of the upstream package revision.")),
            ("tag", S::string("A floating tag instead of a revision (as upstream.tag).")),
        ], &[]))),
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
                ("injection", S::list("(extension) spec.injection of each generated PackageVariant (docs/extensions.md); each name static or by CEL (exactly one of the field and its *Expr). A template with injection makes fn.kpt.dev/v1alpha1 PackageVariants.", &S::object("One source (clusterResource, directResource with dataExprs and specExprs, or packageResource) for the point named by bindingPoint or bindingPointExpr; without either, a resource the variant owns.", &[
                    ("bindingPoint", S::string("metadata.name of the injection point to fill.")),
                    ("bindingPointExpr", S::string("CEL giving the injection point's metadata.name (instead of bindingPoint).")),
                    ("clusterResource", S::object("An in-cluster object of the point's kind; name or nameExpr.", &[
                        ("name", S::string("")),
                        ("nameExpr", S::string("CEL giving the in-cluster object's name.")),
                    ], &[])),
                    ("directResource", S::open("The inline value (spec, or data for a ConfigMap); dataExprs and specExprs add keys.")),
                    ("dataExprs", S::list("Keys of directResource.data, static or by CEL.", &S::object("", &[
                        ("key", S::string("")),
                        ("value", S::string("")),
                        ("keyExpr", S::string("")),
                        ("valueExpr", S::string("")),
                    ], &[]))),
                    ("specExprs", S::list("Keys of directResource.spec, static or by CEL.", &S::object("", &[
                        ("key", S::string("")),
                        ("value", S::string("")),
                        ("keyExpr", S::string("")),
                        ("valueExpr", S::string("")),
                    ], &[]))),
                    ("packageResource", S::object("A resource of another package revision; repo or repoExpr, package or packageExpr, name or nameExpr.", &[
                        ("repo", S::string("")),
                        ("repoExpr", S::string("CEL giving the repository.")),
                        ("package", S::string("")),
                        ("packageExpr", S::string("CEL giving the package name.")),
                        ("revision", S::integer("")),
                        ("apiVersion", S::string("")),
                        ("kind", S::string("")),
                        ("name", S::string("")),
                        ("nameExpr", S::string("CEL giving the resource's metadata.name.")),
                    ], &[])),
                ], &[]))),
                ("pipelinePlacement", S::object("(extension) spec.pipelinePlacement of each generated PackageVariant (docs/extensions.md); a template with it makes fn.kpt.dev/v1alpha1 PackageVariants.", &[
                    ("position", S::string("first (the default, Porch's), last (after the upstream's functions), before or after the upstream function named by function.")),
                    ("function", S::string("For before and after: the name of an upstream function of the list.")),
                ], &[])),
            ], &[])),
            ("when", S::string("(extension) A CEL condition evaluated per candidate (repository or object), with the variables the template sees (target, repository, upstream, repoDefault, packageDefault); the candidate is kept when it is true (docs/extensions.md).")),
        ], &[]))),
        ("rollout", S::object("(extension) Upgrades of the existing variants in waves when the upstream changes (docs/fleet-safety.md).", &[
            ("maxUpgrades", S::any("At most this many existing variants are upgraded per run, an integer (5) or a percentage of the existing variants (\"25%\", rounded up); default, the whole wave.")),
            ("waveExpr", S::string("A CEL expression giving each target's wave, an int or a string, with the variables the template sees; waves are upgraded in ascending order, one per run.")),
            ("requireReady", S::boolean("No upgrade while a variant already on the new upstream does not report Ready True in its status.conditions, or its downstream PackageRevision (porch.kpt.dev/v1alpha2, when among the items) reports Rendered or Ready other than True.")),
            ("pauseAfterWave", S::boolean("Once a wave is on the new upstream, the next wave waits for the annotation package-variant.fn.kpt.dev/approved-wave: \"W\" (W its waveExpr value; the waves up to W may start). Needs waveExpr.")),
            ("readyExpr", S::string("A CEL expression giving a bool: whether a variant already on the new upstream is ready, with variant (the PackageVariant as given) and revisions (its downstream PackageRevisions among the items, newest first). Replaces the Ready condition rule and implies requireReady; a failed render still blocks, an error blocks that variant.")),
            ("deletionOrder", S::string("AllAtOnce (the default: every variant the set no longer wants in one run) or Reverse (one wave per run, the highest first, by the package-variant.fn.kpt.dev/wave annotation the set writes). Needs waveExpr.")),
            ("creationOrder", S::string("AllAtOnce (the default: new targets are created at once unless an upgrade is under way) or Waves (new variants follow the waves and the gates as upgrades do, a first rollout included: one wave per run, requireReady and pauseAfterWave between waves). Needs waveExpr.")),
        ], &[])),
        ("revisionActivationPolicy", S::string("(extension) Automatic (the default: the revision a tag names reaches the fleet) or Manual (it is offered; the annotation package-variant.fn.kpt.dev/activate-revision: \"N\" activates it) (docs/fleet-safety.md).")),
    ], &[])),
    ("status", S::any("Written by Porch's PackageVariantSet controller, never by the function.")),
], &[]);
