//! The hint a `no such key` error carries: the keys the map looked up in has, the closest one,
//! and how to test for a key a target may lack. Kept apart from evaluation because it reads
//! the expression's tree, not its value.

use cel::common::ast::{operators, Expr, IdedExpr, LiteralValue};
use cel::common::types::{CelMap, CelMapKey};
use cel::common::value::Val;

use super::super::suggest;
use super::Activation;

impl Activation<'_> {
    /// What a missing `key` was looked up in, when `expr` looks it up in a path from a
    /// variable (`target.labels['k']`, `repository.nme`): the keys that map has (the first
    /// [`suggest::MAX_LISTED`]), the closest one, and how to test for a key that may be absent.
    pub(super) fn key_hint(&self, expr: &IdedExpr, key: &str) -> Option<String> {
        let path = lookup_path(expr, key)?;
        let (root, steps) = path.split_first()?;
        let upstream = self.root.get_variable("upstream");
        let mut value: &dyn Val = match root.as_str() {
            "target" => self.vars.target,
            "repository" => self.vars.repository?,
            "upstream" => upstream.as_deref()?,
            _ => return None,
        };
        for step in steps {
            value = value
                .downcast_ref::<CelMap>()?
                .inner()
                .iter()
                .find(|(k, _)| key_text(k).as_deref() == Some(step.as_str()))?
                .1
                .as_ref();
        }
        let map = value.downcast_ref::<CelMap>()?;
        let mut keys: Vec<String> = map.inner().keys().filter_map(key_text).collect();
        keys.sort();
        let shown = shown_path(&path);
        let mut hint = if keys.is_empty() {
            format!("; {shown} is empty")
        } else {
            let listed = suggest::listed(keys.iter().map(String::as_str));
            format!("; {shown} has the keys {listed}")
        };
        if let Some(close) = suggest::closest(key, keys.iter().map(String::as_str)) {
            let meant = shown_path(&[shown.clone(), close.to_string()]);
            hint.push_str(&format!(": did you mean {meant}?"));
        }
        if !steps.is_empty() {
            let lead = if hint.ends_with('?') {
                " Where"
            } else {
                "; where"
            };
            hint.push_str(&format!(
                "{lead} a target may lack the key, test for it first: '{key}' in {shown} ? \
                 {shown}['{key}'] : ''"
            ));
        }
        Some(hint)
    }
}

/// A map key as text (strings as they are, other keys as CEL writes them).
fn key_text(key: &CelMapKey) -> Option<String> {
    match key {
        CelMapKey::String(s) => Some(s.inner().to_string()),
        CelMapKey::Int(i) => Some(i.inner().to_string()),
        CelMapKey::UInt(u) => Some(format!("{}u", u.inner())),
        CelMapKey::Bool(b) => Some(b.inner().to_string()),
    }
}

/// `target.labels` from `["target", "labels"]`: a step that is not an identifier is indexed
/// (`target.labels['app.kubernetes.io/name']`); the first step is written as it is.
fn shown_path(path: &[String]) -> String {
    let mut out = String::new();
    for (i, step) in path.iter().enumerate() {
        let identifier = step.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && step.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if i == 0 {
            out.push_str(step);
        } else if identifier {
            out.push('.');
            out.push_str(step);
        } else {
            out.push_str(&format!(
                "['{}']",
                step.replace('\\', "\\\\").replace('\'', "\\'")
            ));
        }
    }
    out
}

/// The path from a variable to the map `expr` looks `key` up in (`a.b['c'].key`, or
/// `a.b['c']['key']`): the first such lookup, in the order the expression is written.
fn lookup_path(expr: &IdedExpr, key: &str) -> Option<Vec<String>> {
    let found = match &expr.expr {
        Expr::Select(s) if !s.test && s.field == key => path_of(&s.operand),
        Expr::Call(c) if c.func_name == operators::INDEX && c.args.len() == 2 => {
            match &c.args[1].expr {
                Expr::Literal(LiteralValue::String(k)) if k.inner() == key => path_of(&c.args[0]),
                _ => None,
            }
        }
        _ => None,
    };
    found.or_else(|| {
        super::super::checker::children(expr)
            .into_iter()
            .find_map(|child| lookup_path(child, key))
    })
}

/// `a.b['c']` as `["a", "b", "c"]`, if it is a path from an identifier.
fn path_of(e: &IdedExpr) -> Option<Vec<String>> {
    match &e.expr {
        Expr::Ident(name) => Some(vec![name.clone()]),
        Expr::Select(s) if !s.test => {
            let mut p = path_of(&s.operand)?;
            p.push(s.field.clone());
            Some(p)
        }
        Expr::Call(c) if c.func_name == operators::INDEX && c.args.len() == 2 => {
            let Expr::Literal(LiteralValue::String(k)) = &c.args[1].expr else {
                return None;
            };
            let mut p = path_of(&c.args[0])?;
            p.push(k.inner().to_string());
            Some(p)
        }
        _ => None,
    }
}
