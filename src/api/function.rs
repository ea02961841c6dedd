//! The kptfile v1 `Function` and `Selector` types a PackageVariant's pipeline embeds, and kpt's
//! own checks of a function (`configRef`'s required fields, one config source, a `when` that
//! parses as CEL).
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

/// kptfile v1 `Selector` (kpt v1.0.0-beta.62.1): picks resources a function applies to.
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

/// Why `source` is not a CEL expression kpt could parse, with the parser's messages; `None`
/// when it parses. Only syntax: what it reads and whether it yields a bool is kpt's to judge.
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
    let parsed = std::panic::catch_unwind(|| cel::Env::stdlib().parser().parse(source));
    match parsed {
        Ok(Ok(_)) => None,
        Ok(Err(errors)) => {
            let msgs: Vec<String> = errors
                .errors
                .iter()
                .map(|e| format!("{}:{}: {}", e.pos.0, e.pos.1, e.msg))
                .collect();
            Some(format!("does not parse as CEL: {}", msgs.join("; ")))
        }
        Err(_) => Some("does not parse as CEL (the parser failed on it)".into()),
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
