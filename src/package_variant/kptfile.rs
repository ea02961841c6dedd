//! The root Kptfile: finding it among the items, and its readiness gates
//! (`info.readinessGates`) and conditions (`status.conditions`) for injection points.
//!
//! Porch re-sets `info` and `status` from typed structs, dropping fields it does not know; we
//! edit only the two lists, so other `info`/`status` fields (and unknown fields of a condition)
//! stay. Both lists are sorted by type and de-duplicated; nothing is removed; existing entries
//! keep their own nodes when they do not change.

use crate::krm::results::ResultItem;
use crate::package_variant::injection::InjectionPoint;
use crate::package_variant::package::{assign_at, field_json, Package};
use crate::yaml::alias::Reader;
use crate::yaml::{from_json_sorted, to_json, Item, Node, Trivia};
use serde_json::{json, Value};

/// apiVersion of the Kptfiles we edit.
pub const KPTFILE_API_VERSION: &str = "kpt.dev/v1";
/// kind of Kptfiles.
pub const KPTFILE_KIND: &str = "Kptfile";

/// Finds the root Kptfile: the `kpt.dev/v1` Kptfile at path `Kptfile`, or, when no Kptfile has
/// a path annotation, the only Kptfile. Subpackage Kptfiles (`sub/Kptfile`) never qualify.
pub fn find_root(pkg: &Package) -> Result<usize, Box<ResultItem>> {
    let kptfiles: Vec<usize> = pkg
        .root_package_items()
        .into_iter()
        .filter(|&i| pkg.meta(i).is(KPTFILE_API_VERSION, KPTFILE_KIND))
        .collect();
    let at_root: Vec<usize> = kptfiles
        .iter()
        .copied()
        .filter(|&i| pkg.meta(i).path() == Some(KPTFILE_KIND))
        .collect();
    match at_root.as_slice() {
        [i] => return Ok(*i),
        // kpt writes one file per path: which of them is the package's is a guess.
        [_, second, ..] => {
            return Err(Box::new(
                ResultItem::error(format!(
                    "\"Kptfile\" must hold exactly one Kptfile, found {} (this one and {}); \
                     keep one",
                    at_root.len(),
                    pkg.meta(at_root[0]).describe()
                ))
                .on_item(*second),
            ))
        }
        [] => {}
    }
    match kptfiles.as_slice() {
        [i] if pkg.meta(*i).path().is_none() => Ok(*i),
        _ => Err(Box::new(ResultItem::error(
            "root Kptfile not found among the items: expected a kpt.dev/v1 Kptfile at path \"Kptfile\"",
        ))),
    }
}

/// A problem with the Kptfile's gates or conditions (a list that is not a list).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KptfileError {
    pub field: String,
    pub message: String,
}

fn list_at<'n>(kptfile: &'n Node, keys: [&str; 2]) -> Result<&'n [Item], KptfileError> {
    // A parent that is not a mapping would be replaced when writing: refuse rather than lose it.
    if let Some(p) = kptfile
        .get(keys[0])
        .filter(|p| !p.is_null() && !p.is_mapping())
    {
        return Err(KptfileError {
            field: keys[0].to_string(),
            message: format!("must be a mapping, found a {}", p.kind()),
        });
    }
    match kptfile.path(&keys) {
        None => Ok(&[]),
        Some(n) if n.is_null() => Ok(&[]),
        Some(n) => n.items().ok_or_else(|| KptfileError {
            field: keys.join("."),
            message: format!("must be a list, found a {}", n.kind()),
        }),
    }
}

/// The text of `item.key`, read through aliases and merge keys ("" when absent or unreadable).
fn str_field<'n>(r: &Reader<'n>, item: &'n Node, key: &str) -> &'n str {
    r.get(item, key)
        .ok()
        .flatten()
        .and_then(Node::as_str)
        .unwrap_or("")
}

/// Sets one condition per point and one readiness gate per required point (Porch's
/// `setInjectionPointConditionsAndGates`).
pub fn set_conditions_and_gates(
    kptfile: &mut Node,
    points: &[InjectionPoint],
) -> Result<(), KptfileError> {
    let gates = new_gates(kptfile, points)?;
    let conditions = new_conditions(kptfile, points)?;
    if let Some(g) = gates {
        write_list(kptfile, "info", "readinessGates", g);
    }
    if let Some(c) = conditions {
        write_list(kptfile, "status", "conditions", c);
    }
    Ok(())
}

/// The new gate list, or `None` when it equals the current one.
fn new_gates(kptfile: &Node, points: &[InjectionPoint]) -> Result<Option<Node>, KptfileError> {
    let old = list_at(kptfile, ["info", "readinessGates"])?;
    let r = Reader::new(kptfile);
    let mut gates: Vec<(String, Item)> = old
        .iter()
        .map(|it| {
            (
                str_field(&r, &it.value, "conditionType").to_string(),
                it.clone(),
            )
        })
        .collect();
    for p in points.iter().filter(|p| p.required) {
        gates.push((
            p.condition_type.clone(),
            new_item(json!({"conditionType": p.condition_type})),
        ));
    }
    Ok(sorted_unique(kptfile, ["info", "readinessGates"], gates))
}

/// The new condition list, or `None` when it equals the current one.
fn new_conditions(kptfile: &Node, points: &[InjectionPoint]) -> Result<Option<Node>, KptfileError> {
    let old = list_at(kptfile, ["status", "conditions"])?;
    let r = Reader::new(kptfile);
    let mut conds: Vec<(String, Item)> = old
        .iter()
        .map(|it| (str_field(&r, &it.value, "type").to_string(), it.clone()))
        .collect();
    // Where the first condition of each type is (a scan per point was quadratic).
    let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (j, (t, _)) in conds.iter().enumerate() {
        at.entry(t.clone()).or_insert(j);
    }
    for p in points {
        let (status, reason, message) = match &p.injected {
            Some(name) => (
                "True",
                "ConfigInjected",
                p.source
                    .clone()
                    .unwrap_or_else(|| format!("injected resource {name:?} from cluster")),
            ),
            None => ("False", "NoResourceSelected", p.not_injected_message()),
        };
        match at.get(&p.condition_type).copied() {
            Some(j) => {
                let item = &mut conds[j].1;
                // Update in place (meta.SetStatusCondition); unknown fields of the condition stay.
                // An existing condition is read in the Kptfile, where its aliases resolve.
                let read = match old.get(j) {
                    Some(o) => field_json(kptfile, &o.value),
                    None => to_json(&item.value),
                };
                let mut v = read.unwrap_or(Value::Null);
                if !v.is_object() {
                    v = json!({"type": p.condition_type});
                }
                if let Some(o) = v.as_object_mut() {
                    o.insert("status".into(), status.into());
                    o.insert("reason".into(), reason.into());
                    o.insert("message".into(), message.into());
                }
                item.value.assign(from_json_sorted(&v));
            }
            None => {
                at.insert(p.condition_type.clone(), conds.len());
                conds.push((
                    p.condition_type.clone(),
                    new_item(json!({
                        "type": p.condition_type, "status": status,
                        "reason": reason, "message": message,
                    })),
                ));
            }
        }
    }
    Ok(sorted_unique(kptfile, ["status", "conditions"], conds))
}

fn new_item(v: Value) -> Item {
    Item {
        value: from_json_sorted(&v),
        trivia: Trivia::default(),
    }
}

/// Sorts by type (stable), keeps the first of each type; `None` when that equals the list at
/// `keys` (or both are empty).
fn sorted_unique(kptfile: &Node, keys: [&str; 2], mut list: Vec<(String, Item)>) -> Option<Node> {
    list.sort_by(|a, b| a.0.cmp(&b.0));
    list.dedup_by(|b, a| a.0 == b.0);
    let mut seq = Node::sequence();
    if let Some(items) = seq.items_mut() {
        *items = list.into_iter().map(|(_, it)| it).collect();
    }
    let empty = seq.items().is_none_or(<[Item]>::is_empty);
    match kptfile.path(&keys) {
        Some(old) if old.same_value(&seq) => None,
        None if empty => None,
        Some(old) if old.is_null() && empty => None,
        _ => Some(seq),
    }
}

/// Writes `list` at `parent.key`, creating `parent` (appended) when absent or not a mapping.
fn write_list(kptfile: &mut Node, parent: &str, key: &str, list: Node) {
    if let Some(p) = kptfile.upsert_mapping(parent) {
        assign_at(p, key, list);
    }
}

/// The readiness punch list: an info result for every readiness gate of the Kptfile whose
/// condition is not `True`.
pub fn punch_list(kptfile: &Node, item: usize) -> Vec<ResultItem> {
    let gates = list_at(kptfile, ["info", "readinessGates"]).unwrap_or(&[]);
    let conds = list_at(kptfile, ["status", "conditions"]).unwrap_or(&[]);
    let r = Reader::new(kptfile);
    let mut out = Vec::new();
    // The first condition of each type (a scan per gate was quadratic in the points).
    let mut by_type: std::collections::HashMap<&str, &Item> = std::collections::HashMap::new();
    for c in conds {
        by_type.entry(str_field(&r, &c.value, "type")).or_insert(c);
    }
    for (i, g) in gates.iter().enumerate() {
        let ct = str_field(&r, &g.value, "conditionType");
        let cond = by_type.get(ct).copied();
        let why = match cond {
            Some(c) if str_field(&r, &c.value, "status") == "True" => continue,
            Some(c) => {
                let mut s = format!("condition is {:?}", str_field(&r, &c.value, "status"));
                let (reason, message) = (
                    str_field(&r, &c.value, "reason"),
                    str_field(&r, &c.value, "message"),
                );
                if !reason.is_empty() {
                    s.push_str(&format!(" ({reason}"));
                    if !message.is_empty() {
                        s.push_str(&format!(": {message}"));
                    }
                    s.push(')');
                }
                s
            }
            None => "no condition of that type in status.conditions".to_string(),
        };
        out.push(
            ResultItem::info(format!("readiness gate {ct:?} is not met: {why}"))
                .field(format!("info.readinessGates[{i}]"))
                .on_item(item),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{emit, parse};

    fn point(ct: &str, required: bool, injected: Option<&str>) -> InjectionPoint {
        InjectionPoint {
            item: 0,
            file: "f.yaml".into(),
            describe: "K/n".into(),
            required,
            condition_type: ct.into(),
            injected: injected.map(Into::into),
            errors: vec![],
            field: None,
            invalid_value: None,
            hints: vec![],
            source: None,
        }
    }

    fn apply(src: &str, points: &[InjectionPoint]) -> String {
        let mut n = parse(src).unwrap_or_else(|_| Node::mapping());
        assert!(set_conditions_and_gates(&mut n, points).is_ok());
        emit::to_string(src, &n)
    }

    const WITH_GATES: &str = "kind: Kptfile
info:
  readinessGates:
  - conditionType: test
  - conditionType: test3
status:
  conditions:
  - type: test
    status: \"False\"
    reason: test
    message: test
  - type: test2
    status: \"True\"
    reason: test2
    message: test2
";

    #[test]
    fn no_points_leaves_everything() {
        assert_eq!(apply("kind: Kptfile\n", &[]), "kind: Kptfile\n");
        assert_eq!(apply(WITH_GATES, &[]), WITH_GATES);
    }

    #[test]
    fn optional_gets_a_condition_but_no_gate() {
        assert_eq!(
            apply("kind: Kptfile\n", &[point("c.x", false, None)]),
            "kind: Kptfile\nstatus:\n  conditions:\n  - type: c.x\n    status: \"False\"\n    message: no resource matched any injection selector for this injection point\n    reason: NoResourceSelected\n"
        );
    }

    #[test]
    fn required_gets_a_sorted_gate_and_existing_ones_stay() {
        let out = apply(
            WITH_GATES,
            &[point("config.injection.A.b", true, Some("src"))],
        );
        assert!(out.contains("  readinessGates:\n  - conditionType: config.injection.A.b\n  - conditionType: test\n  - conditionType: test3\n"), "{out}");
        assert!(out.contains("  - type: config.injection.A.b\n    status: \"True\"\n    message: injected resource \"src\" from cluster\n    reason: ConfigInjected\n  - type: test\n"), "{out}");
    }

    #[test]
    fn duplicates_are_dropped_and_unsorted_lists_sorted() {
        let src = "info:\n  readinessGates:\n  - conditionType: b\n  - conditionType: a\n  - conditionType: b\n";
        assert_eq!(
            apply(src, &[]),
            "info:\n  readinessGates:\n  - conditionType: a\n  - conditionType: b\n"
        );
    }

    #[test]
    fn a_list_that_is_not_a_list_is_an_error() {
        let mut n = parse("info: text\n").unwrap_or_else(|_| Node::mapping());
        let e = set_conditions_and_gates(&mut n, &[point("a", true, None)]);
        assert_eq!(e.map_err(|e| e.field), Err("info".to_string()));
        let mut n = parse("status:\n  conditions: x\n").unwrap_or_else(|_| Node::mapping());
        let e = set_conditions_and_gates(&mut n, &[point("a", false, None)]);
        assert_eq!(e.map_err(|e| e.field), Err("status.conditions".to_string()));
    }

    #[test]
    fn punch_list_names_gates_not_true() {
        let n = parse(WITH_GATES).unwrap_or_else(|_| Node::mapping());
        let msgs: Vec<String> = punch_list(&n, 0).into_iter().map(|r| r.message).collect();
        assert_eq!(
            msgs,
            [
                "readiness gate \"test\" is not met: condition is \"False\" (test: test)",
                "readiness gate \"test3\" is not met: no condition of that type in status.conditions"
            ]
        );
    }
}
