//! Tests of the results' wire form: the nodes and bytes of the JSON route they replaced.

use super::*;

/// The JSON route `results` took before [`result_node`]: the nodes it made are the reference.
fn result_json(r: &ResultItem) -> serde_json::Value {
    use serde_json::{json, Map, Value};
    let mut m = Map::new();
    m.insert("message".into(), Value::String(r.message.clone()));
    m.insert("severity".into(), Value::String(r.severity.as_str().into()));
    if let Some(rr) = &r.resource_ref {
        let mut o = Map::new();
        o.insert("apiVersion".into(), json!(rr.api_version));
        o.insert("kind".into(), json!(rr.kind));
        o.insert("name".into(), json!(rr.name));
        if let Some(ns) = &rr.namespace {
            o.insert("namespace".into(), json!(ns));
        }
        m.insert("resourceRef".into(), Value::Object(o));
    }
    if let Some(p) = &r.field_path {
        m.insert("field".into(), json!({ "path": p }));
    }
    if let Some(f) = &r.file {
        let mut o = Map::new();
        o.insert("path".into(), json!(f.path));
        if let Some(i) = &f.index {
            match i.parse::<i64>() {
                Ok(n) => o.insert("index".into(), json!(n)),
                Err(_) => o.insert("index".into(), json!(i)),
            };
        }
        m.insert("file".into(), Value::Object(o));
    }
    if !r.tags.is_empty() {
        let o: Map<String, Value> = (r.tags.iter())
            .map(|(k, v)| (k.to_string(), json!(v.as_ref())))
            .collect();
        m.insert("tags".into(), Value::Object(o));
    }
    Value::Object(m)
}

/// `combined` as it was, through JSON.
fn combined_json(previous: Option<&Node>, results: &[ResultItem]) -> Option<Node> {
    let list: Vec<serde_json::Value> = results.iter().map(result_json).collect();
    let new = crate::yaml::from_json(&serde_json::Value::Array(list));
    let Some(previous) = previous.filter(|p| p.items().is_some_and(|i| !i.is_empty())) else {
        return (!results.is_empty()).then_some(new);
    };
    let mut all = previous.clone();
    if let (Some(items), Some(new)) = (all.items_mut(), new.items()) {
        items.extend(new.iter().cloned());
    }
    Some(all)
}

/// Texts that YAML writers must quote, escape or keep as strings.
const AWKWARD: &[&str] = &[
    "plain words",
    "it's \"quoted\"",
    "it's: 'quoted' here'",
    "two\nlines",
    "trailing newline\n",
    "  indented first\nsecond",
    "two breaks at the end\n\n",
    "tab\there",
    "ünïcödé ✓ 日本",
    "key: value",
    "a # comment",
    "#start",
    "  leading spaces",
    "trailing ",
    "1",
    "-3",
    "1.5",
    "0777",
    "true",
    "no",
    "null",
    "~",
    "",
    "- dash",
    "[flow]",
    "{flow}",
    "*alias",
    "&anchor",
    "!tag",
    "2024-01-01",
    "12:30",
    "bell\u{7}",
    "\u{2028}",
    "a very long message that goes on past the twenty-two bytes kept inline in a node",
];

fn variety() -> Vec<ResultItem> {
    let mut all = vec![
        ResultItem::error("bare"),
        ResultItem::warning("w").field("spec.x"),
        ResultItem::info("i"),
    ];
    for (n, &t) in AWKWARD.iter().enumerate() {
        let mut r = ResultItem::new(
            [Severity::Error, Severity::Warning, Severity::Info][n % 3],
            t,
        );
        if n % 2 == 0 {
            r = r.field(t);
        }
        if n % 4 != 3 {
            r.resource_ref = Some(ResourceRef {
                api_version: t.to_string(),
                kind: t.to_string(),
                name: t.to_string(),
                namespace: (n % 3 != 0).then(|| t.to_string()),
            });
        }
        let index = [
            None,
            Some("3"),
            Some("x"),
            Some(t),
            Some("+7"),
            Some("-2"),
            Some("007"),
            Some("99999999999999999999"),
        ][n % 8];
        if n % 3 == 1 {
            r = r.tag("phase", t).tag("action", "upgraded").tag("wave", "1");
        }
        if n % 5 != 4 {
            r.file = Some(FileRef {
                path: t.to_string(),
                index: index.map(str::to_string),
            });
        }
        all.push(r);
    }
    for &t in AWKWARD {
        all.push(ResultItem::info("index").on_item(0));
        all.last_mut().expect("pushed").file = Some(FileRef {
            path: "p.yaml".into(),
            index: Some(t.to_string()),
        });
    }
    all
}

/// Writes what `emit` writes for `combined`'s answer.
fn written(src: &str, node: Option<Node>) -> String {
    let mut e = Emitter::new(src, 0);
    if let Some(value) = node {
        let entry = Entry {
            key: Node::string("results"),
            value,
            trivia: Trivia::default(),
        };
        e.entries(std::slice::from_ref(&entry), 0, false);
    }
    e.out
}

#[test]
fn nodes_are_those_the_json_route_made() {
    for r in variety() {
        let direct = result_node(&r);
        assert_eq!(direct, crate::yaml::from_json(&result_json(&r)), "{r:?}");
        assert_eq!(
            written("", Some(direct)),
            written("", Some(crate::yaml::from_json(&result_json(&r)))),
            "{r:?}"
        );
    }
}

#[test]
fn quotes_in_a_single_quoted_message_are_doubled() {
    let r = ResultItem::info("it's: 'q'");
    assert_eq!(
        written("", combined(None, &[r])),
        "results:\n- message: 'it''s: ''q'''\n  severity: info\n"
    );
}

/// `results` an earlier function wrote: kept as written, ours appended (or, when none are
/// listed, ours alone).
const PREVIOUS_DOCS: &[&str] = &[
    "results:\n- message: earlier\n  severity: info\n",
    "results: # kept\n  - message: 'earlier'   # as written\n    severity: warning\n    x: [1, 2]\n",
    "results: [{message: flow, severity: info}]\n",
    "results: &a\n- message: anchored\n",
    "results: []\n",
    "results: {}\n",
    "results: text\n",
    "results:\n",
];

#[test]
fn combined_writes_what_the_json_route_wrote() {
    let results = variety();
    for src in PREVIOUS_DOCS {
        let doc = crate::yaml::parse(src).expect("test document parses");
        let previous = doc.get("results");
        for n in [0, 1, 2, results.len()] {
            let rs = &results[..n];
            let new = combined(previous, rs);
            let old = combined_json(previous, rs);
            assert_eq!(new, old, "{src:?} with {n} results");
            assert_eq!(written(src, new), written(src, old), "{src:?} with {n}");
        }
    }
    for n in [0, 1, results.len()] {
        let rs = &results[..n];
        assert_eq!(combined(None, rs), combined_json(None, rs));
        assert_eq!(
            written("", combined(None, rs)),
            written("", combined_json(None, rs))
        );
    }
}

/// What `emit` writes, with no output before it.
fn emitted(src: &str, previous: Option<&Node>, results: &[ResultItem]) -> String {
    let mut e = Emitter::new(src, 0);
    emit(&mut e, previous, results, 0);
    e.out
}

#[test]
fn written_directly_as_the_nodes_are_written() {
    let results = variety();
    for r in &results {
        let one = std::slice::from_ref(r);
        assert_eq!(
            emitted("", None, one),
            written("", combined_json(None, one)),
            "{r:?}"
        );
    }
    for n in [0, 1, 2, results.len()] {
        let rs = &results[..n];
        assert_eq!(emitted("", None, rs), written("", combined_json(None, rs)));
    }
}

#[test]
fn emit_writes_what_the_json_route_wrote_after_earlier_results() {
    let results = variety();
    for src in PREVIOUS_DOCS {
        let doc = crate::yaml::parse(src).expect("test document parses");
        let previous = doc.get("results");
        for n in [0, 1, results.len()] {
            let rs = &results[..n];
            assert_eq!(
                emitted(src, previous, rs),
                written(src, combined_json(previous, rs)),
                "{src:?} with {n}"
            );
        }
    }
}
