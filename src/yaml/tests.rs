//! Round-trip tests of the YAML layer.

use super::*;

fn roundtrip(src: &str) -> String {
    let node = parse(src).unwrap_or_else(|e| panic!("parse failed: {e}\n{src}"));
    emit::to_string(src, &node)
}

/// Re-emits with every collection touched, so only scalars are copied.
fn touched(src: &str) -> String {
    let mut node = parse(src).unwrap_or_else(|e| panic!("parse failed: {e}\n{src}"));
    touch_all(&mut node);
    emit::to_string(src, &node)
}

fn touch_all(n: &mut Node) {
    if let Some(entries) = n.entries_mut() {
        for e in entries {
            e.trivia.set_whole(None);
            touch_all(&mut e.value);
        }
    } else if let Some(items) = n.items_mut() {
        for i in items {
            i.trivia.set_whole(None);
            touch_all(&mut i.value);
        }
    }
}

const KYAML: &str = r#"# head comment
apiVersion: apps/v1 # line comment
kind: Deployment
metadata:
  name: web
  annotations:
    config.kubernetes.io/index: '0'
    internal.config.kubernetes.io/path: "deploy.yaml"
    on: "on"
    yes: 'yes'
  # foot of annotations
spec:
  replicas: 3
  big: 123456789012345678901234567890
  hex: 0x1F
  strs: ["0123", "yes", "1.0", "true", "null", "~", ".inf"]
  template:
    spec:
      containers:
      - name: app
        image: nginx:1.25
        args: ["--port", "8080"]
        env:
        - name: A
          value: "1"
        # between
        - name: B
          value: |
            line one
            line two
      - name: side
        command:
        - sh
        - -c
        - |-
          echo hi
          echo there
  folded: >
    some folded
    text here

    para
  empty:
  emptymap: {}
  emptyseq: []
  anchor: &a {x: 1}
  alias: *a
  quoted: 'it''s'
  dq: "tab\there \u00e9"
  multi: plain text
    continued here
"#;

#[test]
fn verbatim_roundtrip() {
    assert_eq!(roundtrip(KYAML), KYAML);
}

#[test]
fn touched_roundtrip_is_identical_for_kyaml_style() {
    assert_eq!(touched(KYAML), KYAML);
}

#[test]
fn wide_sequences_become_compact_when_touched() {
    let src = "a:\n  - x\n  - y\nb: 1\n";
    assert_eq!(roundtrip(src), src);
    assert_eq!(touched(src), "a:\n- x\n- y\nb: 1\n");
}

#[test]
fn json_values() {
    let src = r#"{"a": 1, "b": [true, null, "x"], "c": {"d": "e"}}"#;
    let node = parse(src).unwrap();
    let v = to_json(&node).unwrap();
    assert_eq!(
        v,
        serde_json::json!({"a": 1, "b": [true, null, "x"], "c": {"d": "e"}})
    );
}

#[test]
fn block_scalar_values() {
    let n = parse("a: |\n  x\n  y\nb: >-\n  p\n  q\n\n  r\nc: |+\n  k\n\nd: x\n").unwrap();
    assert_eq!(n.str_at(&["a"]), Some("x\ny\n"));
    assert_eq!(n.str_at(&["b"]), Some("p q\nr"));
    assert_eq!(n.str_at(&["c"]), Some("k\n\n"));
}

#[test]
fn scalars_keep_types() {
    let n = parse("a: \"0123\"\nb: 0123\nc: yes\nd: 12345678901234567890\n").unwrap();
    let v = to_json(&n).unwrap();
    assert_eq!(v["a"], serde_json::json!("0123"));
    assert_eq!(v["c"], serde_json::json!("yes"));
    assert_eq!(v["d"], serde_json::json!(12345678901234567890u64));
}

#[test]
fn set_keeps_comments_and_appends() {
    let src = "data:\n  # keep me\n  a: \"1\" # one\n  b: x\n";
    let mut n = parse(src).unwrap();
    n.get_mut("data").unwrap().set("c", Node::string("on"));
    n.get_mut("data").unwrap().set("b", Node::string("z"));
    assert_eq!(
        emit::to_string(src, &n),
        "data:\n  # keep me\n  a: \"1\" # one\n  b: z\n  c: \"on\"\n"
    );
}

#[test]
fn errors_have_positions() {
    let e = parse("a: b\n c: d\n").unwrap_err();
    assert!(e.line >= 1, "{e}");
    assert!(parse("a: [1, 2\n").is_err());
    assert!(parse("a: 'x\n").is_err());
    assert!(parse("- a\nb: c\n").is_err());
}

/// An escape's digits are hex digits: a sign is not one (`from_str_radix` would take it).
#[test]
fn escapes_take_hex_digits_only() {
    for src in [r#"a: "\x+1""#, r#"a: "\u+041""#, r#"a: "\U-0000041""#] {
        let e = parse(src).unwrap_err();
        assert_eq!(e.message, "invalid hexadecimal escape", "{src}");
    }
    let n = parse(r#"a: "\x41\u00e9\U0001F600""#).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(n.str_at(&["a"]), Some("Aé😀"));
}

#[test]
fn deep_nesting_is_refused() {
    std::thread::Builder::new()
        .stack_size(crate::STACK_SIZE)
        .spawn(deep_nesting)
        .unwrap()
        .join()
        .unwrap();
}

fn deep_nesting() {
    let src = "[".repeat(10_000);
    let e = parse(&src).unwrap_err();
    assert!(e.message.contains("nesting"), "{e}");
    let mut s = String::new();
    for i in 0..2000 {
        s.push_str(&" ".repeat(i));
        s.push_str("a:\n");
    }
    let e = parse(&s).unwrap_err();
    assert!(e.message.contains("nesting"), "{e}");
}

#[test]
fn billion_laughs_is_refused() {
    let mut s = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        s.push_str(&format!(
            "a{i}: &a{i} [{}]\n",
            vec![format!("*a{}", i - 1); 10].join(", ")
        ));
    }
    let n = parse(&s).unwrap();
    assert!(to_json(&n).unwrap_err().contains("aliases"));
}

/// Found by tests/properties.rs: trailing white space after a value or comment was dropped
/// from the copied text of the entry (and so from the last line of a pass-through item).
#[test]
fn trailing_white_space_is_kept() {
    let src = "a:\n  b: \"0123\" #   \n  c: x  \nd: [1]\t\n";
    assert_eq!(roundtrip(src), src);
    let mut n = parse(src).unwrap();
    n.get_mut("a").unwrap().set("e", Node::string("v"));
    assert_eq!(
        emit::to_string(src, &n),
        "a:\n  b: \"0123\" #   \n  c: x  \n  e: v\nd: [1]\t\n"
    );
}

/// Found by tests/properties.rs: the trailing blank lines of a keep (`|+`) block scalar are
/// content, but were left outside its source text, so appending an entry after it (or
/// touching its mapping) dropped them and changed the value.
#[test]
fn keep_block_scalar_keeps_trailing_blank_lines_when_a_sibling_is_added() {
    let src = "data:\n  k: |+\n    aa\n\n  j: |+\n    bb\n\n";
    let mut n = parse(src).unwrap();
    assert_eq!(n.str_at(&["data", "j"]), Some("bb\n\n"));
    n.get_mut("data").unwrap().set("z", Node::string("1"));
    let out = emit::to_string(src, &n);
    assert_eq!(
        out,
        "data:\n  k: |+\n    aa\n\n  j: |+\n    bb\n\n  z: \"1\"\n"
    );
    assert_eq!(parse(&out).unwrap().str_at(&["data", "j"]), Some("bb\n\n"));
    assert_eq!(touched(src), src);
}

/// A root flow mapping whose `{` stands alone on its line: the text before the root is copied
/// once and the touched mapping written once (the `{` came out doubled).
#[test]
fn root_flow_mapping_on_its_own_lines() {
    let src = "# head\n{\n  \"a\": 1,\n  \"b\": [x, y]\n}\n# foot\n";
    assert_eq!(roundtrip(src), src);
    let mut n = parse(src).unwrap();
    n.set("c", Node::string("z"));
    let out = emit::to_string(src, &n);
    assert_eq!(out, "# head\n{\"a\": 1, \"b\": [x, y], c: z}\n# foot\n");
    assert_eq!(
        to_json(&parse(&out).unwrap()).unwrap(),
        serde_json::json!({"a": 1, "b": ["x", "y"], "c": "z"})
    );
}

/// Keys as kpt writes them (tags, anchors, merge keys, explicit keys) read and come back
/// as written, untouched and with every collection re-emitted.
#[test]
fn keys_with_properties_and_explicit_keys() {
    let src = "!!merge <<: &m {a: 1}\n!!str 123: v\n&k anchored: *m\n? |\n  block\n: x\n? [a, b]\n: y\n*k : z\n";
    assert_eq!(roundtrip(src), src);
    let t = touched(src);
    assert_eq!(
        t,
        "!!merge <<: &m {a: 1}\n!!str 123: v\n&k anchored: *m\n? |\n  block\n: x\n[a, b]: y\n*k : z\n"
    );
    let n = parse(&t).unwrap();
    assert_eq!(n.entries().unwrap().len(), 6);
    assert_eq!(n.entries().unwrap()[1].key.tag(), Some("!!str"));
    assert_eq!(
        n.entries().unwrap()[3].key.as_scalar().unwrap().value,
        "block\n"
    );
}

/// Found by mutating the YAML test suite's cases: with every collection re-emitted, each of
/// these came out as YAML that does not parse, or reads as something else.
#[test]
fn touched_output_reads_the_same() {
    for src in [
        // A plain scalar continued on the next line, after properties, moved left: its next
        // line must stay indented past its key.
        "key:    &a# Comment\n  va\n",
        // An explicit key whose text would be a document marker at the start of a line.
        "a: 4.2\n? ---  23a\n",
        // An empty block scalar as a key.
        "?\t|\n",
        // A flow collection over several lines whose parent moves right.
        "Not indented:\n By one space: x\n Flow style: [ a,\n  b c,\n  \td ]\n",
        // A comment on the key's line, the block scalar below it.
        "key:    # Comment\n |+\n   \n\n\n",
        // An empty block scalar moved left, with a comment after it that would be its text.
        "foo:\n  - !!str a\n  - >\n \n  \n  # a comment\n",
    ] {
        let n = parse(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
        let out = touched(src);
        let back = parse(&out).unwrap_or_else(|e| panic!("{e}\n--- in\n{src}--- out\n{out}"));
        assert_eq!(
            to_json(&back).ok(),
            to_json(&n).ok(),
            "--- in\n{src}--- out\n{out}"
        );
    }
}

/// The injected value built straight from the tree is the one built through JSON: same
/// nodes (written out the same), same errors, for every kind of scalar and key.
#[test]
fn sorted_node_is_the_json_round_trip() {
    let docs = [
        "{b: 1, a: [x, 0777, 0o17, 0x1F, 1_000, 1e3, .5, -.inf, ~, true, 2024-01-01]}",
        "kind: K\nname: n\nspec: {z: [], y: {}, x: \"\", w: !!str 12, v: !!float 1}\n",
        "list:\n- {a: 1}\n- {a: 2, b: [1, {c: d}]}\n- - nested\n",
        "&top a: &v 1\nb: !!int 2\n",
        "k: |\n  text\n  more\n",
        "k: 9223372036854775808\nl: -9223372036854775809\n",
        "~: null key\n",
        "k: !!float .nan\n",
        "k: !!int x\n",
        "plain\n",
    ];
    for doc in docs {
        let node = parse(doc).unwrap_or_else(|e| panic!("{doc}: {e}"));
        let direct = json::to_sorted_node(&node).expect("no alias, no merge key");
        let through = to_json(&node).map(json::from_json_sorted_owned);
        match (direct, through) {
            (Ok(a), Ok(b)) => assert_eq!(emit::to_string("", &a), emit::to_string("", &b), "{doc}"),
            (Err(a), Err(b)) => assert_eq!(a, b, "{doc}"),
            (a, b) => panic!(
                "{doc}: direct {:?} vs through JSON {:?}",
                a.is_ok(),
                b.is_ok()
            ),
        }
    }
    for doc in ["a: &x 1\nb: *x\n", "base: {<<: {a: 1}, b: 2}\n"] {
        let node = parse(doc).unwrap_or_else(|e| panic!("{doc}: {e}"));
        assert!(json::to_sorted_node(&node).is_none(), "{doc}");
    }
}

/// A long list keeps, for each new item equal to an old one, the first old one not taken
/// yet (its formatting), as the pairwise search of a short list does; repeated values too.
#[test]
fn long_lists_keep_the_first_equal_old_item() {
    let old: Vec<String> = (0..60).map(|i| format!("v{}", i % 7)).collect();
    let new: Vec<String> = (0..50).rev().map(|i| format!("v{}", i % 9)).collect();
    let old_doc = format!(
        "[{}]",
        old.iter()
            .enumerate()
            .map(|(i, v)| if i % 2 == 0 {
                format!("'{v}'")
            } else {
                format!("\"{v}\"")
            })
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut node = parse(&old_doc).unwrap();
    // Built, not parsed: a new value has no source text.
    let new_node = from_json(&serde_json::Value::from(new.clone()));
    node.assign(new_node);
    let out = emit::to_string(&old_doc, &node);
    // Expected: each new value takes the first old position of that value not taken yet.
    let mut taken = vec![false; old.len()];
    let expected: Vec<String> = new
        .iter()
        .map(
            |v| match (0..old.len()).find(|&i| !taken[i] && &old[i] == v) {
                Some(i) => {
                    taken[i] = true;
                    if i % 2 == 0 {
                        format!("'{v}'")
                    } else {
                        format!("\"{v}\"")
                    }
                }
                None => v.clone(),
            },
        )
        .collect();
    assert_eq!(out.trim_end(), format!("[{}]", expected.join(", ")));
}

/// The functionConfig read consuming its tree gives what reading it in place gives: values,
/// key order, the first error in document order, wide collections read a chunk at a time.
#[test]
fn into_json_is_to_json() {
    let wide_list: String = (0..20_000).map(|i| format!("- k{i}\n")).collect();
    let wide_map: String = (0..20_000).map(|i| format!("k{i}: {i}\n")).collect();
    let bad_late = format!("{wide_list}- !!int x\n- !!float y\n");
    let docs = [
        "{b: 1, a: [x, 0777, 0x1F, 1e3, ~, true, 2024-01-01], c: {d: [{e: f}]}}",
        "k: !!int x\nl: !!float y\n",
        "~: v\n",
        "a: &x 1\nb: *x\n",
        "m: {<<: {a: 1}, b: 2}\n",
        &wide_list,
        &wide_map,
        &bad_late,
    ];
    for doc in docs {
        let node = parse(doc).unwrap_or_else(|e| panic!("{e}"));
        let expected = to_json(&node);
        assert_eq!(
            json::into_json(node),
            expected,
            "{}",
            &doc[..doc.len().min(60)]
        );
    }
}

/// `strings_sorted` writes what building the JSON object and converting it writes.
#[test]
fn strings_sorted_is_from_json_sorted_of_strings() {
    let values = [
        "",
        "x",
        "1",
        "true",
        "null",
        "~",
        "0777",
        "a: b",
        "# c",
        " lead",
        "trail ",
        "it's",
        "\"q\"",
        "line\nbreak",
        "tab\there",
        "é ü",
        "\u{85}",
        "-",
        "- x",
        "*a",
        "{}",
        "[1]",
    ];
    let keys = [
        "type",
        "status",
        "reason",
        "message",
        "name",
        "kind",
        "conditionType",
        "zz",
    ];
    for (i, v) in values.iter().enumerate() {
        let pairs: Vec<(&str, &str)> = keys
            .iter()
            .enumerate()
            .map(|(k, key)| (*key, values[(i + k) % values.len()]))
            .chain([("apiVersion", *v)])
            .collect();
        let object: serde_json::Map<String, serde_json::Value> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), serde_json::Value::String(v.to_string())))
            .collect();
        let through = from_json_sorted(&serde_json::Value::Object(object));
        let direct = strings_sorted(&pairs);
        assert_eq!(direct, through, "{pairs:?}");
        assert_eq!(emit::to_string("", &direct), emit::to_string("", &through));
    }
}
