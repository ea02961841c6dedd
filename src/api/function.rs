//! The kptfile v1 `Function` and `Selector` types a PackageVariant's pipeline embeds, and kpt's
//! own checks of a function (`configRef`'s required fields, one config source, a `when` kpt
//! compiles: a CEL condition over `resources` giving a bool).
//!
//! Why here: both functions copy pipeline steps (the PackageVariant into the Kptfile, the set
//! into every variant it emits), and the set must never emit a step the PackageVariant
//! refuses, so the rules live once beside the type.
//!
//! `configRef` and `when` follow Porch's CRDs (kptdev/porch `api/generated/crds/`) and kpt's
//! `api/kptfile/v1` (`ResourceReference`, `CelCondition`, `validateConfigSources`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::null_default;

/// kptfile v1 `Selector`: picks resources a function applies to. `resourceFileRegexp` is kpt
/// v1.0.1's (kptdev/kpt#4743): a Go regular expression over the resource's file path.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Selector {
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub api_version: String,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub kind: String,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub name: String,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub namespace: String,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub labels: BTreeMap<String, String>,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub annotations: BTreeMap<String, String>,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub resource_file_regexp: String,
}

/// kptfile v1 `Function`: one pipeline step, with `configRef` and `when` as Porch's CRDs have
/// them today. Every field is omitempty. `exclude` is the Go field `Exclusions`, `when` the Go
/// field `CelCondition`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Function {
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub image: String,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub exec: String,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub config_path: String,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub config_map: BTreeMap<String, String>,
    /// A package resource used as the function config (kpt's `ResourceReference`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_ref: Option<ConfigRef>,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub name: String,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub tag: String,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub selectors: Vec<Selector>,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub exclude: Vec<Selector>,
    /// kpt's `CelCondition`: a CEL condition over the step's selected resources; kpt skips
    /// the step when it is false. kpt evaluates it, never this function.
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub when: String,
}

/// kptfile v1 `ResourceReference` (`configRef`): a resource of the package used as the
/// function's config. `kind` and `name` are required (the CRD's `required`, kpt's validation);
/// `apiVersion` and `namespace` filter only when given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigRef {
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub api_version: String,
    #[serde(default, deserialize_with = "null_default")]
    pub kind: String,
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    #[serde(
        default,
        deserialize_with = "null_default",
        skip_serializing_if = "String::is_empty"
    )]
    pub namespace: String,
}

/// Longest `when` checked, in bytes: the limit of the set's own CEL expressions. cel-go takes
/// up to 100,000 code points, but the parser here recurses on long chains (`a.b.c...`) and
/// costs about a millisecond per hundred bytes, so the check stays bounded.
pub const MAX_WHEN_BYTES: usize = 10_000;

/// Most bytes of `when` conditions one functionConfig may hold (every step of every
/// template together), so that checking them all stays within a second or so.
pub const MAX_WHEN_TOTAL_BYTES: usize = 100_000;

/// What is left of [`MAX_WHEN_TOTAL_BYTES`] for one functionConfig, and the conditions
/// already checked: a set repeats one template's `when` over many targets, and a text is
/// parsed (and charged) once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WhenBudget {
    left: usize,
    checked: std::collections::HashMap<String, Option<String>>,
}

impl Default for WhenBudget {
    fn default() -> Self {
        WhenBudget {
            left: MAX_WHEN_TOTAL_BYTES,
            checked: std::collections::HashMap::new(),
        }
    }
}

impl WhenBudget {
    /// [`when_problem`] of `source`, once per text; a text past the budget is refused.
    fn check(&mut self, source: &str) -> Option<String> {
        if let Some(known) = self.checked.get(source) {
            return known.clone();
        }
        if source.len() > self.left {
            return Some(format!(
                "is one condition too many: the when conditions of this functionConfig hold more than {MAX_WHEN_TOTAL_BYTES} bytes together; split the variants over several functionConfigs"
            ));
        }
        self.left -= source.len();
        let why = when_problem(source);
        self.checked.insert(source.to_string(), why.clone());
        why
    }
}

/// Deepest bracket nesting of a `when` (checked on the text before parsing, so that the
/// recursive parser stays within its stack).
pub const MAX_WHEN_NESTING: usize = 64;

impl Function {
    /// kpt's checks of this step that Porch's CRD leaves to kpt, as (field below the step,
    /// message): `""` is the step itself. `config_map_given` is whether the step writes a
    /// configMap (the set's `configMapExprs` make one too). Each `when` is checked once per
    /// text, its length taken from `budget`; one that does not fit is refused.
    pub fn problems(
        &self,
        config_map_given: bool,
        budget: &mut WhenBudget,
    ) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let given: Vec<&str> = [
            ("configMap", config_map_given),
            ("configPath", !self.config_path.is_empty()),
            ("configRef", self.config_ref.is_some()),
        ]
        .iter()
        .filter(|(_, on)| *on)
        .map(|(n, _)| *n)
        .collect();
        if given.len() > 1 {
            out.push((
                String::new(),
                format!(
                    "gives {} {}; a function takes its config from at most one of configMap, configPath and configRef (kpt refuses the Kptfile otherwise): keep one of {} and remove the {}",
                    if given.len() == 2 { "both" } else { "all of" },
                    given.join(" and "),
                    given.join(", "),
                    if given.len() == 2 { "other" } else { "others" }
                ),
            ));
        }
        // kpt v1.0.1 validates every Kptfile it reads (kptdev/kpt#4742, #4750, and #4743's
        // selectors; api/kptfile/v1/validation.go at 00a08c1a): a step it would refuse is
        // refused here, before it is written.
        match (self.image.is_empty(), self.exec.is_empty()) {
            (true, true) => out.push((
                String::new(),
                "gives neither image nor exec; kpt refuses a function without one (\"must specify a functon (`image` or `exec`) to execute\"): give the function's image, e.g. image: ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2.0".into(),
            )),
            (false, false) => out.push((
                String::new(),
                "gives both image and exec; kpt refuses a function with both (\"must not specify both `image` and `exec` at the same time\"): keep one".into(),
            )),
            (false, true) => {
                if let Some(why) = super::image_ref::problem(&self.image) {
                    out.push((
                        ".image".into(),
                        format!(
                            "function image reference {:?} is invalid: {why}; kpt refuses the Kptfile: write a reference such as ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2.0",
                            self.image
                        ),
                    ));
                }
            }
            (true, false) => {}
        }
        if !self.config_path.is_empty() {
            if let Some(why) = config_path_problem(&self.config_path) {
                out.push((
                    ".configPath".into(),
                    format!(
                        "{why}: kpt refuses a configPath {:?}; write the path of a file of the package, relative to its Kptfile, e.g. configPath: fn-config.yaml",
                        self.config_path
                    ),
                ));
            }
        }
        for (list, selectors) in [("selectors", &self.selectors), ("exclude", &self.exclude)] {
            for (i, s) in selectors.iter().enumerate() {
                if s.resource_file_regexp.is_empty() {
                    continue;
                }
                if let Err(why) = crate::cel::compile_matches_pattern(&s.resource_file_regexp) {
                    out.push((
                        format!(".{list}[{i}].resourceFileRegexp"),
                        format!(
                            "invalid regular expression: {why}; kpt refuses the Kptfile: write a Go (RE2) regular expression over the file path, e.g. resourceFileRegexp: 'deployment/.*[.]yaml'"
                        ),
                    ));
                }
            }
        }
        if let Some(r) = &self.config_ref {
            if r.kind.is_empty() {
                out.push((
                    ".configRef.kind".into(),
                    "configRef must specify `kind`: the kind of the package resource to use as the function config, e.g. kind: ConfigMap".into(),
                ));
            }
            if r.name.is_empty() {
                out.push((
                    ".configRef.name".into(),
                    "configRef must specify `name`: the metadata.name of the package resource to use as the function config".into(),
                ));
            }
        }
        if !self.when.is_empty() {
            if let Some(why) = budget.check(&self.when) {
                out.push((
                    ".when".into(),
                    format!(
                        "{why}; kpt evaluates when as a CEL condition over the step's selected resources, e.g. when: \"resources.exists(r, r.kind == 'ConfigMap')\""
                    ),
                ));
            }
        }
        out
    }
}

/// Why kpt v1.0 would refuse `source` as a step's `when`, with cel-go's messages; `None` when
/// kpt compiles it: parsed, type-checked in kpt's environment (one variable `resources`, the
/// extensions kpt enables) and giving exactly a bool ([`crate::cel::check_kpt_condition`],
/// kptdev/kpt#4469 at ef0fce17d). kpt evaluates it at render; this function never does.
pub fn when_problem(source: &str) -> Option<String> {
    if source.len() > MAX_WHEN_BYTES {
        return Some(format!(
            "is {} bytes long, more than the limit of {MAX_WHEN_BYTES} bytes; write a shorter condition",
            source.len()
        ));
    }
    let depth = bracket_depth(source);
    if depth > MAX_WHEN_NESTING {
        return Some(format!(
            "nests brackets {depth} deep, more than {MAX_WHEN_NESTING}; write a flatter condition"
        ));
    }
    if let Some(why) = crate::common::stack::cel_parse_refused() {
        return Some(format!("cannot be parsed: {why}"));
    }
    crate::cel::check_kpt_condition(source)
        .err()
        .map(|why| format!("is not a condition kpt accepts: {why}"))
}

/// kpt's `validateFnConfigPathSyntax`: not blank, relative, and no `..` once cleaned.
fn config_path_problem(path: &str) -> Option<&'static str> {
    if path.trim().is_empty() {
        return Some("path must not be empty");
    }
    if path.starts_with('/') {
        return Some("path must be relative");
    }
    if clean(path).contains("..") {
        return Some("path must not be outside the package");
    }
    None
}

/// Go's `filepath.Clean` of a relative path: `.` and empty parts dropped, `..` folded.
pub(crate) fn clean(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." if parts.last().is_some_and(|l| *l != "..") => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    if parts.is_empty() {
        ".".into()
    } else {
        parts.join("/")
    }
}

/// The deepest nesting of `(`, `[` and `{` in the text, string literals included (a bound on
/// what the parser recurses into, not a parse).
fn bracket_depth(source: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for c in source.chars() {
        match c {
            '(' | '[' | '{' => {
                depth += 1;
                max = max.max(depth);
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}
