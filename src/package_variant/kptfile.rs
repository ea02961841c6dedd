//! The root Kptfile: finding it among the items, and its readiness gates
//! (`info.readinessGates`) and conditions (`status.conditions`) for injection points.
//!
//! Porch re-sets `info` and `status` from typed structs, dropping fields it does not know; we
//! edit only the two lists, so other `info`/`status` fields (and unknown fields of a condition)
//! stay. Both lists are sorted by type and de-duplicated; nothing is removed; existing entries
//! keep their own nodes when they do not change. Conditions are looked up by type through an
//! index: no step is linear per gate or per point.

use crate::krm::resource_list::spliced::placeholder;
use crate::krm::results::{ResultItem, LISTED};
use crate::package_variant::edits::{assign_at, field_json};
use crate::package_variant::injection::InjectionPoint;
use crate::package_variant::kptfile_lists::{KptfileLists, ListEntry, NewEntry};
use crate::package_variant::package::Package;
use crate::yaml::alias::{self, Reader};
use crate::yaml::{from_json_sorted, Item, Node, Trivia};
use serde_json::{json, Value};
use std::collections::HashMap;

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

/// One entry of a list the Kptfile gets, in its final place.
enum Pending {
    /// Item `j` of the list as it was.
    Old(usize),
    /// Condition `j` as it was, updated to this value.
    Updated(usize, Box<Value>),
    /// A gate or condition made for a point.
    New(NewEntry),
}

const GATES: [&str; 2] = ["info", "readinessGates"];
const CONDITIONS: [&str; 2] = ["status", "conditions"];

/// Sets one condition per point and one readiness gate per required point (Porch's
/// `setInjectionPointConditionsAndGates`), and returns the readiness punch list of the result
/// (see [`punch_list`]). With `compact`, a list that changes is left in the tree as a
/// placeholder and returned in compact form, to be written as the output is written; the
/// output is the same. A Kptfile with aliases, or whose changed list is a flow collection or
/// has an anchor or tag, keeps its lists as trees.
pub fn set_conditions_and_gates(
    kptfile: &mut Node,
    points: &[InjectionPoint],
    item: usize,
    compact: bool,
) -> Result<(Vec<ResultItem>, Option<KptfileLists>), KptfileError> {
    // Sorted by types borrowed from the Kptfile and the points (no copy per entry), then
    // only the entries are kept.
    let (gates, conditions, punch, changed) = {
        let read: &Node = kptfile;
        let gates = new_gates(read, points)?;
        let conditions = new_conditions(read, points)?;
        let punch = punch_list_of(read, &gates, &conditions, item);
        let changed = [
            changed(read, GATES, &gates),
            changed(read, CONDITIONS, &conditions),
        ];
        let entries = |l: Vec<(&str, Pending)>| l.into_iter().map(|(_, p)| p).collect::<Vec<_>>();
        (entries(gates), entries(conditions), punch, changed)
    };
    let compact = compact
        && !alias::has_alias(kptfile)
        && [GATES, CONDITIONS].iter().zip(changed).all(|(keys, ch)| {
            !ch || kptfile
                .path(keys)
                .is_none_or(|n| !n.is_flow() && n.props().is_none())
        });
    let mut lists = Vec::new();
    for ((keys, list), ch) in [(GATES, gates), (CONDITIONS, conditions)]
        .into_iter()
        .zip(changed)
    {
        if !ch {
            continue;
        }
        if compact {
            let mut old: Vec<Option<Item>> = kptfile
                .path_mut(&keys)
                .and_then(Node::items_mut)
                .map(std::mem::take)
                .unwrap_or_default()
                .into_iter()
                .map(Some)
                .collect();
            let entries = list
                .into_iter()
                .filter_map(|p| match p {
                    Pending::Old(j) => old.get_mut(j)?.take().map(ListEntry::kept),
                    Pending::Updated(j, v) => {
                        let mut it = old.get_mut(j)?.take()?;
                        it.value.assign(from_json_sorted(&v));
                        Some(ListEntry::Tree(Box::new(it)))
                    }
                    Pending::New(n) => Some(ListEntry::New(n)),
                })
                .collect();
            write_list(kptfile, keys[0], keys[1], placeholder(lists.len()));
            lists.push(entries);
        } else {
            let old = list_at(kptfile, keys)?;
            let items = list
                .into_iter()
                .filter_map(|p| materialize(old, p))
                .collect();
            let mut seq = Node::sequence();
            if let Some(slot) = seq.items_mut() {
                *slot = items;
            }
            write_list(kptfile, keys[0], keys[1], seq);
        }
    }
    let lists = (!lists.is_empty()).then_some(KptfileLists { item, lists });
    Ok((punch, lists))
}

/// The tree of one entry, as the list holds it.
fn materialize(old: &[Item], p: Pending) -> Option<Item> {
    Some(match p {
        Pending::Old(j) => old.get(j)?.clone(),
        Pending::Updated(j, v) => {
            let mut it = old.get(j)?.clone();
            it.value.assign(from_json_sorted(&v));
            it
        }
        Pending::New(n) => Item {
            value: n.node(),
            trivia: Trivia::default(),
        },
    })
}

/// Whether the list at `keys` differs from `list` (an absent or null list is as an empty one).
fn changed(kptfile: &Node, keys: [&str; 2], list: &[(&str, Pending)]) -> bool {
    let old = match kptfile.path(&keys) {
        None => return !list.is_empty(),
        Some(n) if n.is_null() => return !list.is_empty(),
        Some(n) => n.items().unwrap_or(&[]),
    };
    if old.len() != list.len() {
        return true;
    }
    !list
        .iter()
        .zip(old)
        .enumerate()
        .all(|(i, ((_, p), o))| match p {
            Pending::Old(j) => *j == i || old.get(*j).is_some_and(|x| x.value.same_value(&o.value)),
            Pending::Updated(j, v) => old.get(*j).is_some_and(|x| {
                let mut it = x.value.clone();
                it.assign(from_json_sorted(v));
                it.same_value(&o.value)
            }),
            Pending::New(n) => n.node().same_value(&o.value),
        })
}

/// The new gate list: the gates there were, and one per required point, sorted by type, the
/// first of each type kept.
fn new_gates<'a>(
    kptfile: &'a Node,
    points: &'a [InjectionPoint],
) -> Result<Vec<(&'a str, Pending)>, KptfileError> {
    let old = list_at(kptfile, GATES)?;
    let r = Reader::new(kptfile);
    let mut gates: Vec<(&str, Pending)> = old
        .iter()
        .enumerate()
        .map(|(j, it)| (str_field(&r, &it.value, "conditionType"), Pending::Old(j)))
        .collect();
    for p in points.iter().filter(|p| p.required) {
        gates.push((
            p.condition_type.as_str(),
            Pending::New(NewEntry::Gate(p.condition_type.as_str().into())),
        ));
    }
    Ok(sorted_unique(gates))
}

/// The new condition list: the conditions there were, those of the points' types updated, and
/// one for each other point, sorted by type, the first of each type kept.
fn new_conditions<'a>(
    kptfile: &'a Node,
    points: &'a [InjectionPoint],
) -> Result<Vec<(&'a str, Pending)>, KptfileError> {
    let old = list_at(kptfile, CONDITIONS)?;
    let r = Reader::new(kptfile);
    let mut conds: Vec<(&str, Pending)> = old
        .iter()
        .enumerate()
        .map(|(j, it)| (str_field(&r, &it.value, "type"), Pending::Old(j)))
        .collect();
    // The first condition of each type, by type: one lookup per point.
    let mut by_type: HashMap<&str, usize> = HashMap::with_capacity(conds.len());
    for (j, (t, _)) in conds.iter().enumerate() {
        by_type.entry(*t).or_insert(j);
    }
    let mut last_message = None;
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
        match by_type.get(p.condition_type.as_str()).copied() {
            Some(j) => {
                // Update in place (meta.SetStatusCondition); unknown fields of the condition
                // stay. An existing condition is read in the Kptfile, where its aliases resolve.
                let read = old.get(j).map(|o| field_json(kptfile, &o.value));
                let mut v = read.and_then(Result::ok).unwrap_or(Value::Null);
                if !v.is_object() {
                    v = json!({"type": p.condition_type});
                }
                if let Some(o) = v.as_object_mut() {
                    o.insert("status".into(), status.into());
                    o.insert("reason".into(), reason.into());
                    o.insert("message".into(), message.into());
                }
                conds[j].1 = Pending::Updated(j, Box::new(v));
            }
            // Points have distinct condition types (`validate_points`): no need to index
            // the new ones.
            None => conds.push((
                p.condition_type.as_str(),
                Pending::New(NewEntry::condition(
                    &p.condition_type,
                    message,
                    p.injected.is_some(),
                    &mut last_message,
                )),
            )),
        }
    }
    Ok(sorted_unique(conds))
}

/// Sorts by type (stable), keeps the first of each type.
fn sorted_unique(mut list: Vec<(&str, Pending)>) -> Vec<(&str, Pending)> {
    list.sort_by(|a, b| a.0.cmp(b.0));
    list.dedup_by(|b, a| a.0 == b.0);
    list
}

/// Writes `list` at `parent.key`, creating `parent` (appended) when absent or not a mapping.
fn write_list(kptfile: &mut Node, parent: &str, key: &str, list: Node) {
    if let Some(p) = kptfile.upsert_mapping(parent) {
        assign_at(p, key, list);
    }
}

/// The readiness punch list: an info result for every readiness gate whose condition is not
/// `True`, the first [`LISTED`] of them, then one result counting the rest (only counted: a
/// result per gate of a wide Kptfile would cost more than the Kptfile). Read from the lists
/// the Kptfile gets (`gates` and `conditions`, entries of the Kptfile's lists by index).
fn punch_list_of(
    kptfile: &Node,
    gates: &[(&str, Pending)],
    conditions: &[(&str, Pending)],
    item: usize,
) -> Vec<ResultItem> {
    let old = list_at(kptfile, CONDITIONS).unwrap_or(&[]);
    let r = Reader::new(kptfile);
    // The first condition of each type, by type: one lookup per gate.
    let mut by_type: HashMap<&str, &Pending> = HashMap::with_capacity(conditions.len());
    for (t, c) in conditions {
        by_type.entry(*t).or_insert(c);
    }
    let fields = |c: &Pending| -> (String, String, String) {
        let read = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        match c {
            Pending::Old(j) => {
                let n = old.get(*j).map(|it| &it.value);
                let f = |k| n.map_or("", |n| str_field(&r, n, k)).to_string();
                (f("status"), f("reason"), f("message"))
            }
            Pending::Updated(_, v) => (read(v, "status"), read(v, "reason"), read(v, "message")),
            Pending::New(n) => {
                let (s, r, m) = n.fields();
                (s.to_string(), r.to_string(), m.to_string())
            }
        }
    };
    let mut out = Vec::new();
    let mut more = 0usize;
    for (i, (ct, _)) in gates.iter().enumerate() {
        let cond = by_type.get(*ct).map(|c| fields(c));
        if cond.as_ref().is_some_and(|(status, _, _)| status == "True") {
            continue;
        }
        if out.len() == LISTED {
            more += 1;
            continue;
        }
        let why = match cond {
            Some((status, reason, message)) => {
                let mut s = format!("condition is {status:?}");
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
    if more > 0 {
        out.push(
            ResultItem::info(format!(
                "{more} more readiness gates are not met (only the first {LISTED} are listed): \
                 the Kptfile's info.readinessGates and status.conditions list them all"
            ))
            .field("info.readinessGates")
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
        assert!(set_conditions_and_gates(&mut n, points, 0, false).is_ok());
        let mut e = crate::yaml::Emitter::new(src, 0);
        e.node_at(&n, 0, false);
        assert_eq!(
            apply_compact(src, points),
            e.out,
            "the compact lists write the same"
        );
        emit::to_string(src, &n)
    }

    /// [`apply`] with the changed lists kept compact and spliced in as the output is written.
    fn apply_compact(src: &str, points: &[InjectionPoint]) -> String {
        let mut n = parse(src).unwrap_or_else(|_| Node::mapping());
        let lists = set_conditions_and_gates(&mut n, points, 0, true)
            .map(|(_, l)| l)
            .unwrap_or(None);
        let mut e = crate::yaml::Emitter::new(src, 0);
        e.node_at(&n, 0, false);
        if let Some(l) = &lists {
            crate::krm::resource_list::spliced::splice(l, &mut e, 0, false, &mut |_| {});
        }
        e.out
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

    /// Comments, an entry updated in place, unknown fields, entries kept and new ones, lists
    /// indented or not: the compact lists write what the trees write (checked in `apply`).
    #[test]
    fn compact_lists_write_what_the_trees_write() {
        let src = "kind: Kptfile
info:
  # gates
  readinessGates:   # all of them
    - conditionType: z   # last
    # before y
    - conditionType: y
status:
  other: 1
  conditions:
  - type: config.injection.A.b
    status: \"False\"   # was false
    reason: NoResourceSelected
    message: old
    lastTransitionTime: x
  - {type: w, status: \"True\"}
  - type: c
    status: 'True'
";
        let points = [
            point("config.injection.A.b", true, Some("src")),
            point("config.injection.A.a", false, None),
            point("config.injection.A.c", true, None),
        ];
        let out = apply(src, &points);
        assert!(out.contains("lastTransitionTime: x"), "{out}");
        assert!(out.contains("# before y"), "{out}");
        // A second run changes nothing, through either path.
        assert_eq!(apply(&out, &points), out);
        let empty = apply("kind: Kptfile\nstatus: ~\ninfo:\n", &points);
        assert!(
            empty.contains("  - conditionType: config.injection.A.c\n"),
            "{empty}"
        );
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
        let e = set_conditions_and_gates(&mut n, &[point("a", true, None)], 0, true).map(|_| ());
        assert_eq!(e.map_err(|e| e.field), Err("info".to_string()));
        let mut n = parse("status:\n  conditions: x\n").unwrap_or_else(|_| Node::mapping());
        let e = set_conditions_and_gates(&mut n, &[point("a", false, None)], 0, true).map(|_| ());
        assert_eq!(e.map_err(|e| e.field), Err("status.conditions".to_string()));
    }

    #[test]
    fn punch_list_names_gates_not_true() {
        let mut n = parse(WITH_GATES).unwrap_or_else(|_| Node::mapping());
        let punch = set_conditions_and_gates(&mut n, &[], 0, true).map_or(vec![], |(p, _)| p);
        let msgs: Vec<String> = punch.into_iter().map(|r| r.message).collect();
        assert_eq!(
            msgs,
            [
                "readiness gate \"test\" is not met: condition is \"False\" (test: test)",
                "readiness gate \"test3\" is not met: no condition of that type in status.conditions"
            ]
        );
    }
}
