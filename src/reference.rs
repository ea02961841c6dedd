//! The functionConfig field reference that `--help` prints, rendered from the CRD schemas in
//! `fnconfig/schemas/` (embedded here) so that it cannot drift from them. The schemas are
//! what the samples and examples are validated against; once the decoder reads them too
//! (`api::schema`, in progress), this renders from that module instead.

use package_variant::yaml;
use serde_json::Value;

/// Width the descriptions are wrapped to.
const WIDTH: usize = 96;

const CRDS: [&str; 2] = [
    include_str!("../fnconfig/schemas/packagevariant.yaml"),
    include_str!("../fnconfig/schemas/packagevariantset.yaml"),
];

/// The ConfigMap functionConfig kpt builds from `-- key=value` (no CRD describes it).
const CONFIG_MAP: &str = r#"{"type": "object", "properties": {
  "apiVersion": {"type": "string", "description": "v1"},
  "kind": {"type": "string", "description": "ConfigMap"},
  "metadata": {"type": "object", "description": "Any name; kpt names it function-input."},
  "data": {"type": "object", "additionalProperties": {"type": "string"},
    "description": "Keys set in the package context (package-context.yaml); name and package-path are reserved."}}}"#;

/// The reference of every functionConfig kind: each field's path, type, whether it is
/// required, and its description.
pub fn render() -> Result<String, String> {
    let mut out = String::from(
        "FUNCTIONCONFIG REFERENCE\n  From the CRD schemas in fnconfig/schemas/ (\"*.\" paths are map values, \"[]\" list items).\n",
    );
    for crd in CRDS {
        let crd = yaml::parse(crd).map_err(|e| e.to_string())?;
        let crd = yaml::to_json(&crd).map_err(|e| e.to_string())?;
        let spec = &crd["spec"];
        for version in spec["versions"].as_array().into_iter().flatten() {
            if version["served"] != Value::Bool(true) {
                continue;
            }
            out.push_str(&format!(
                "\n{} ({}/{})\n",
                spec["names"]["kind"].as_str().unwrap_or_default(),
                spec["group"].as_str().unwrap_or_default(),
                version["name"].as_str().unwrap_or_default()
            ));
            fields(&version["schema"]["openAPIV3Schema"], "", &mut out);
        }
    }
    out.push_str("\nConfigMap (v1)\n");
    let config_map: Value = serde_json::from_str(CONFIG_MAP).map_err(|e| e.to_string())?;
    fields(&config_map, "", &mut out);
    Ok(out)
}

/// `string`, `integer`, `map of string`, `list of object` ...
fn type_name(schema: &Value) -> String {
    match schema["type"].as_str() {
        Some("object") if schema.get("properties").is_none() => {
            match schema.get("additionalProperties").filter(|v| v.is_object()) {
                Some(values) => format!("map of {}", type_name(values)),
                None => "object".to_string(),
            }
        }
        Some("array") => match schema.get("items") {
            Some(items) => format!("list of {}", type_name(items)),
            None => "list".to_string(),
        },
        Some(ty) => ty.to_string(),
        None => "any".to_string(),
    }
}

/// Appends the fields under `node`, depth first in the schema's order (a list's item fields
/// under `name[]`).
fn fields(node: &Value, prefix: &str, out: &mut String) {
    let mut node = node;
    let mut prefix = prefix.to_string();
    while let Some(items) = node.get("items") {
        prefix.push_str("[]");
        node = items;
    }
    let required: Vec<&str> = node["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    for (name, field) in node["properties"].as_object().into_iter().flatten() {
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        let flag = if required.contains(&name.as_str()) {
            ", required"
        } else {
            ""
        };
        out.push_str(&format!("  {path} ({}{flag})\n", type_name(field)));
        wrap(field["description"].as_str().unwrap_or(""), "      ", out);
        fields(field, &path, out);
    }
}

/// `text` wrapped at [`WIDTH`], each line starting with `indent`.
fn wrap(text: &str, indent: &str, out: &mut String) {
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && indent.len() + line.len() + 1 + word.len() > WIDTH {
            out.push_str(&format!("{indent}{line}\n"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&format!("{indent}{line}\n"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every property path of a schema, walked independently of the renderer.
    fn paths(node: &Value, prefix: &str, out: &mut Vec<String>) {
        let node = match node.get("items") {
            Some(items) => return paths(items, &format!("{prefix}[]"), out),
            None => node,
        };
        for (name, field) in node["properties"].as_object().into_iter().flatten() {
            let path = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}.{name}")
            };
            out.push(path.clone());
            paths(field, &path, out);
        }
    }

    #[test]
    fn every_schema_field_is_in_the_reference_once() {
        let text = render().unwrap();
        let mut total = 0;
        for crd in CRDS {
            let crd = yaml::to_json(&yaml::parse(crd).unwrap()).unwrap();
            let mut all = Vec::new();
            paths(
                &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"],
                "",
                &mut all,
            );
            assert!(all.len() > 20);
            let kind = crd["spec"]["names"]["kind"].as_str().unwrap();
            let start = text.find(&format!("\n{kind} (")).unwrap();
            let end = text[start + 1..]
                .find("\n\n")
                .map_or(text.len(), |i| start + 1 + i);
            for path in all {
                total += 1;
                let line = format!("\n  {path} (");
                assert_eq!(text[start..end].matches(&line).count(), 1, "{kind} {path}");
            }
        }
        assert!(total > 100, "only {total} fields");
    }

    #[test]
    fn types_and_required_fields_read_as_written() {
        let text = render().unwrap();
        for line in [
            "\n  spec.upstream.revision (integer)\n",
            "\n  spec.injectors[].name (string, required)\n",
            "\n  spec.labels (map of string)\n",
            "\n  spec.targets (list of object)\n",
            "\n  data (map of string)\n",
        ] {
            assert!(text.contains(line), "{line:?} not in\n{text}");
        }
    }

    #[test]
    fn descriptions_wrap_under_their_field() {
        let mut out = String::new();
        wrap("one two three", "    ", &mut out);
        assert_eq!(out, "    one two three\n");
        let mut out = String::new();
        wrap(&"word ".repeat(40), "  ", &mut out);
        assert!(out
            .lines()
            .all(|l| l.len() <= WIDTH && l.starts_with("  word")));
        assert_eq!(out.split_whitespace().count(), 40);
    }
}
