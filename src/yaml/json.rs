//! Conversions between YAML nodes and JSON values.
//!
//! Typed API structs are decoded from JSON (serde), so every node we read as data goes through
//! [`to_json`]; new objects we write come from JSON through [`from_json`] or, for typed values
//! written the way kyaml's `SetNestedField` writes them, [`from_json_sorted`]. Scalar types are
//! resolved with the YAML 1.2 core schema, as go-yaml v3 does.

use super::alias::is_merge_key;
pub use super::alias::{Expansion, MAX_ALIAS_EXPANSION_BYTES};
use super::node::{depth_limit, Entry, Item, Kind, Node, Scalar, Trivia};
use super::resolve::{self, Resolved};
use serde_json::{Map, Number, Value};
use std::collections::{HashMap, HashSet};

/// Most values that alias expansion may produce in one conversion: stops "billion laughs"
/// documents long before they cost time or memory.
pub const MAX_ALIAS_EXPANSION: usize = 100_000;

/// Converts a node to JSON, expanding aliases against anchors in the same tree.
pub fn to_json(node: &Node) -> Result<Value, String> {
    let mut anchors = HashMap::new();
    let mut budget = Expansion::new(MAX_ALIAS_EXPANSION);
    convert(node, &mut anchors, &mut budget, 0, false)
}

/// [`to_json`], consuming `node`: without aliases and merge keys, each part of the tree is
/// released as its JSON is built (a wide collection a chunk at a time), so a wide
/// functionConfig is not held twice, as nodes and as JSON, while it is read. With them, as
/// [`to_json`] (an alias may name any anchor before it).
pub fn into_json(node: Node) -> Result<Value, String> {
    if has_alias_or_merge_key(&node) {
        return to_json(&node);
    }
    into_json_plain(node, 0)
}

/// Whether [`to_json`] would have to read through an alias or a merge key somewhere in `n`.
fn has_alias_or_merge_key(n: &Node) -> bool {
    match n.kind() {
        Kind::Alias(_) => true,
        Kind::Scalar(_) => false,
        Kind::Mapping(es) => es.iter().any(|e| {
            is_merge_key(&e.key)
                || has_alias_or_merge_key(&e.key)
                || has_alias_or_merge_key(&e.value)
        }),
        Kind::Sequence(items) => items.iter().any(|i| has_alias_or_merge_key(&i.value)),
    }
}

/// Parts of a wide collection converted between two cuts of what is left of it.
const CHUNKS: usize = 8;

/// Hands `v`'s elements to `f` in order, giving back the room of each chunk once it is read.
fn consume_in_chunks<T>(
    mut v: Vec<T>,
    mut f: impl FnMut(T) -> Result<(), String>,
) -> Result<(), String> {
    let chunk = (v.len() / CHUNKS).max(4096);
    while !v.is_empty() {
        let n = chunk.min(v.len());
        for x in v.drain(..n) {
            f(x)?;
        }
        v.shrink_to_fit();
    }
    Ok(())
}

/// [`convert`] for a tree without aliases and merge keys, in its order, with its checks.
fn into_json_plain(node: Node, depth: usize) -> Result<Value, String> {
    if depth > depth_limit() {
        return Err("YAML aliases nest too deeply".to_string());
    }
    let Node { kind, props, .. } = node;
    Ok(match kind {
        Kind::Scalar(s) => scalar_to_json(&s, props.as_deref().and_then(|p| p.tag.as_deref()))?,
        Kind::Alias(_) => return Err("an alias cannot be converted here".to_string()),
        Kind::Mapping(entries) => {
            let mut m = Map::with_capacity(entries.len());
            consume_in_chunks(entries, |e| {
                let k = key_text(&e.key, &mut HashMap::new(), true)?;
                m.insert(k, into_json_plain(e.value, depth + 1)?);
                Ok(())
            })?;
            Value::Object(m)
        }
        Kind::Sequence(items) => {
            let mut a = Vec::with_capacity(items.len());
            consume_in_chunks(items, |i| {
                a.push(into_json_plain(i.value, depth + 1)?);
                Ok(())
            })?;
            Value::Array(a)
        }
    })
}

/// An alias means the node of the most recent anchor of its name before it (YAML lets a later
/// anchor reuse a name), so anchors are recorded in document order as the walk meets them,
/// keys before their values, and not again while an alias is expanded.
fn convert<'n>(
    node: &'n Node,
    anchors: &mut HashMap<&'n str, &'n Node>,
    budget: &mut Expansion,
    depth: usize,
    in_alias: bool,
) -> Result<Value, String> {
    if in_alias {
        budget.take_value(MAX_ALIAS_EXPANSION)?;
        if let Kind::Scalar(s) = node.kind() {
            budget.take_bytes(s.value.len())?;
        }
    } else if let Some(a) = node.props().and_then(|p| p.anchor.as_deref()) {
        anchors.insert(a, node);
    }
    if depth > depth_limit() {
        return Err("YAML aliases nest too deeply".to_string());
    }
    Ok(match node.kind() {
        Kind::Scalar(s) => scalar_to_json(s, node.tag())?,
        Kind::Alias(name) => {
            let target = *anchors
                .get(name.as_str())
                .ok_or_else(|| format!("alias *{name} refers to an unknown anchor"))?;
            convert(target, anchors, budget, depth + 1, true)?
        }
        Kind::Mapping(entries) => {
            let mut m = Map::with_capacity(entries.len());
            // The keys the mapping sets itself, which win over merged ones wherever they stand;
            // collected once, on the first merge key (a lookup per merged key keeps it linear).
            let mut own: Option<HashSet<&str>> = None;
            for e in entries {
                let k = key_text(&e.key, anchors, in_alias)?;
                if in_alias {
                    budget.take_bytes(k.len())?;
                }
                if is_merge_key(&e.key) {
                    // Merge key: copy entries that are not set explicitly.
                    let own = own.get_or_insert_with(|| {
                        entries
                            .iter()
                            .filter(|x| !is_merge_key(&x.key))
                            .map(|x| x.key.scalar_text())
                            .collect()
                    });
                    let merged = convert(&e.value, anchors, budget, depth + 1, in_alias)?;
                    let maps = match merged {
                        Value::Array(a) => a,
                        other => vec![other],
                    };
                    for mv in maps {
                        if let Value::Object(o) = mv {
                            for (k2, v2) in o {
                                if !own.contains(k2.as_str()) {
                                    m.entry(k2).or_insert(v2);
                                }
                            }
                        }
                    }
                    continue;
                }
                let v = convert(&e.value, anchors, budget, depth + 1, in_alias)?;
                m.insert(k, v);
            }
            Value::Object(m)
        }
        Kind::Sequence(items) => {
            let mut a = Vec::with_capacity(items.len());
            for i in items {
                a.push(convert(&i.value, anchors, budget, depth + 1, in_alias)?);
            }
            Value::Array(a)
        }
    })
}

/// The text of a mapping key: a scalar, or an alias of one.
fn key_text<'n>(
    key: &'n Node,
    anchors: &mut HashMap<&'n str, &'n Node>,
    in_alias: bool,
) -> Result<String, String> {
    let node = match key.kind() {
        Kind::Alias(name) => *anchors
            .get(name.as_str())
            .ok_or_else(|| format!("alias *{name} refers to an unknown anchor"))?,
        _ => {
            if !in_alias {
                if let Some(a) = key.props().and_then(|p| p.anchor.as_deref()) {
                    anchors.insert(a, key);
                }
            }
            key
        }
    };
    // kubectl and the API server (sigs.k8s.io/yaml) refuse a null key; reading it as its text
    // (`~`) or as "" would be a guess.
    if node.is_null() {
        let text = node.as_scalar().map_or("", |s| s.value.as_str());
        return Err(format!(
            "a mapping key is null ({}); quote it (\"{text}\") if the text is meant",
            if text.is_empty() { "empty" } else { text }
        ));
    }
    node.as_scalar()
        .map(|s| s.value.as_str().to_owned())
        .ok_or_else(|| "only scalar mapping keys can be converted".to_string())
}

/// A scalar's JSON value, as go-yaml v3 decodes it into an `interface{}` (timestamps keep their
/// text, as a typed string field reads them).
fn scalar_to_json(s: &Scalar, tag: Option<&str>) -> Result<Value, String> {
    let resolved = s.resolved(tag);
    Ok(match resolved {
        Resolved::Null => Value::Null,
        Resolved::Bool => Value::Bool(s.value.starts_with(['t', 'T'])),
        Resolved::Int | Resolved::Float => {
            let n = resolve::number(&s.value);
            let as_float = |f: f64| {
                Number::from_f64(f).map(Value::Number).ok_or_else(|| {
                    format!(
                        "the float {} has no JSON form (JSON holds no infinity or NaN); quote it to make it a string",
                        s.value
                    )
                })
            };
            match (n, resolved) {
                (Some(resolve::Number::Int(i)), Resolved::Float) => as_float(i as f64)?,
                (Some(resolve::Number::Uint(u)), Resolved::Float) => as_float(u as f64)?,
                (Some(resolve::Number::Int(i)), _) => Value::Number(i.into()),
                (Some(resolve::Number::Uint(u)), _) => Value::Number(u.into()),
                (Some(resolve::Number::Float(f)), _) => as_float(f)?,
                (None, _) => return Err(format!("cannot read the number {}", s.value)),
            }
        }
        Resolved::Timestamp | Resolved::Str => Value::String(s.value.as_str().to_owned()),
        Resolved::Invalid => {
            return Err(format!(
                "{:?} is not a valid {}: go-yaml (kpt) refuses it; remove the tag or fix the value",
                s.value,
                tag.unwrap_or("value")
            ))
        }
    })
}

/// Builds a node from JSON, keeping the JSON's key order.
pub fn from_json(v: &Value) -> Node {
    build(v, false)
}

/// Builds a node from JSON the way kyaml writes a typed Go value: mapping keys ordered by
/// kyaml's field order (`name`, `namespace`, `apiVersion`, `kind`, `metadata`, ... first),
/// the rest alphabetically.
pub fn from_json_sorted(v: &Value) -> Node {
    build(v, true)
}

/// What [`from_json_sorted`] gives for a JSON object of strings, without building the JSON
/// (small entries the functions write many of, such as a Kptfile's conditions).
pub fn strings_sorted(pairs: &[(&str, &str)]) -> Node {
    let mut pairs = pairs.to_vec();
    pairs.sort_by_cached_key(|&(k, _)| (field_rank(k), k));
    let entries = pairs
        .into_iter()
        .map(|(k, v)| Entry {
            key: Node::string(k),
            value: Node::string(v),
            trivia: Trivia::default(),
        })
        .collect();
    Node::with_kind(Kind::Mapping(entries))
}

/// [`from_json_sorted`], consuming `v`: each part is dropped once its node is built, so a wide
/// value is not held twice (as JSON and as nodes) while it is converted.
pub fn from_json_sorted_owned(v: Value) -> Node {
    match v {
        Value::String(s) => Node::string(s),
        Value::Array(a) => {
            let items = a
                .into_iter()
                .map(|x| Item {
                    value: from_json_sorted_owned(x),
                    trivia: Trivia::default(),
                })
                .collect();
            Node::with_kind(Kind::Sequence(items))
        }
        Value::Object(o) => {
            // Keys are unique in a JSON object: an unstable sort gives `build`'s order.
            let mut pairs: Vec<(usize, String, Value)> =
                o.into_iter().map(|(k, v)| (field_rank(&k), k, v)).collect();
            pairs.sort_unstable_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
            let entries = pairs
                .into_iter()
                .map(|(_, k, v)| Entry {
                    key: Node::string(k),
                    value: from_json_sorted_owned(v),
                    trivia: Trivia::default(),
                })
                .collect();
            Node::with_kind(Kind::Mapping(entries))
        }
        other => build(&other, true),
    }
}

/// What `from_json_sorted_owned(to_json(node)?)` gives, built straight from the tree when it
/// holds no alias and no merge key (`None` otherwise: convert through JSON). The JSON of a
/// wide value costs several times its nodes (a map and a string for every `{a: 1}`), and
/// writing an injected value needs only the nodes.
pub fn to_sorted_node(node: &Node) -> Option<Result<Node, String>> {
    (!has_alias_or_merge_key(node)).then(|| sorted_node(node, 0))
}

/// [`to_sorted_node`]'s walk: the checks and values of [`convert`], in its order.
fn sorted_node(node: &Node, depth: usize) -> Result<Node, String> {
    if depth > depth_limit() {
        return Err("YAML aliases nest too deeply".to_string());
    }
    Ok(match node.kind() {
        Kind::Scalar(s) => from_json_sorted_owned(scalar_to_json(s, node.tag())?),
        Kind::Alias(_) => return Err("an alias cannot be converted here".to_string()),
        Kind::Mapping(entries) => {
            let mut pairs = Vec::with_capacity(entries.len());
            for e in entries {
                let k = key_text(&e.key, &mut HashMap::new(), true)?;
                pairs.push((field_rank(&k), k, sorted_node(&e.value, depth + 1)?));
            }
            // A key given twice (`1` and `"1"` are one JSON key) keeps its last value, as a
            // JSON object built in order does: stable sort, then the last of each run.
            pairs.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
            let mut out: Vec<Entry> = Vec::with_capacity(pairs.len());
            for (_, k, v) in pairs {
                match out.last_mut() {
                    Some(last) if last.key.scalar_text() == k => last.value = v,
                    _ => out.push(Entry {
                        key: Node::string(k),
                        value: v,
                        trivia: Trivia::default(),
                    }),
                }
            }
            Node::with_kind(Kind::Mapping(out))
        }
        Kind::Sequence(items) => {
            let mut out = Vec::with_capacity(items.len());
            for i in items {
                out.push(Item {
                    value: sorted_node(&i.value, depth + 1)?,
                    trivia: Trivia::default(),
                });
            }
            Node::with_kind(Kind::Sequence(out))
        }
    })
}

fn build(v: &Value, sorted: bool) -> Node {
    match v {
        Value::Null => Node::plain("null"),
        Value::Bool(b) => Node::plain(if *b { "true" } else { "false" }),
        Value::Number(n) => Node::plain(n.to_string()),
        Value::String(s) => Node::string(s.as_str()),
        Value::Array(a) => {
            let items = a
                .iter()
                .map(|x| Item {
                    value: build(x, sorted),
                    trivia: Trivia::default(),
                })
                .collect();
            Node::with_kind(Kind::Sequence(items))
        }
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            if sorted {
                keys.sort_by_cached_key(|k| (field_rank(k), *k));
            }
            let entries = keys
                .into_iter()
                .map(|k| Entry {
                    key: Node::string(k.as_str()),
                    value: build(&o[k], sorted),
                    trivia: Trivia::default(),
                })
                .collect();
            Node::with_kind(Kind::Mapping(entries))
        }
    }
}

/// kyaml's `fieldSortOrder` (yaml/order.go): a later duplicate wins, as in its map.
const FIELD_ORDER: &[&str] = &[
    "name",
    "generateName",
    "namespace",
    "clusterName",
    "apiVersion",
    "kind",
    "metadata",
    "type",
    "labels",
    "annotations",
    "spec",
    "status",
    "stringData",
    "data",
    "binaryData",
    "parallelism",
    "completions",
    "activeDeadlineSeconds",
    "backoffLimit",
    "replicas",
    "selector",
    "manualSelector",
    "template",
    "ttlSecondsAfterFinished",
    "volumeClaimTemplates",
    "service",
    "serviceName",
    "podManagementPolicy",
    "updateStrategy",
    "strategy",
    "minReadySeconds",
    "revision",
    "revisionHistoryLimit",
    "paused",
    "progressDeadlineSeconds",
    "restartPolicy",
    "terminationGracePeriodSeconds",
    "activeDeadlineSeconds",
    "dnsPolicy",
    "serviceAccountName",
    "serviceAccount",
    "automountServiceAccountToken",
    "nodeName",
    "hostNetwork",
    "hostPID",
    "hostIPC",
    "shareProcessNamespace",
    "securityContext",
    "hostname",
    "subdomain",
    "schedulerName",
    "priorityClassName",
    "priority",
    "runtimeClassName",
    "enableServiceLinks",
    "nodeSelector",
    "hostAliases",
    "initContainers",
    "containers",
    "volumes",
    "securityContext",
    "imagePullSecrets",
    "affinity",
    "tolerations",
    "dnsConfig",
    "readinessGates",
    "image",
    "command",
    "args",
    "workingDir",
    "ports",
    "envFrom",
    "env",
    "resources",
    "volumeMounts",
    "volumeDevices",
    "imagePullPolicy",
    "lifecycle",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "hostPath",
    "emptyDir",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "persistentVolumeClaim",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "downwardAPI",
    "fc",
    "azureFile",
    "configMap",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "projected",
    "portworxVolume",
    "scaleIO",
    "storageos",
    "csi",
    "mountPath",
    "mountPropagation",
    "subPath",
    "value",
    "valueFrom",
    "initialDelaySeconds",
    "periodSeconds",
    "timeoutSeconds",
    "successThreshold",
    "failureThreshold",
    "containerPort",
    "hostPort",
    "hostIP",
    "protocol",
    "prefix",
    "expose",
    "targetPort",
    "nodePort",
];

/// Where kyaml writes a mapping key of a typed Go value: keys of lower rank first, equal ranks
/// alphabetically (the order of [`from_json_sorted`]).
pub fn field_rank(key: &str) -> usize {
    static RANKS: std::sync::OnceLock<HashMap<&str, usize, FixedState>> =
        std::sync::OnceLock::new();
    let ranks = RANKS.get_or_init(|| {
        FIELD_ORDER
            .iter()
            .enumerate()
            .map(|(i, f)| (*f, i))
            .collect()
    });
    ranks.get(key).copied().unwrap_or(usize::MAX)
}

/// FNV-1a for [`field_rank`]'s map: its keys are fixed (no input decides where they land), so
/// it needs no random seed, and a run looks up few keys: SipHash's setup and its random keys
/// cost more than the lookups.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

type FixedState = std::hash::BuildHasherDefault<Fnv>;
