//! The type checker Porch runs on every template expression before evaluating it: cel-go's
//! `checker.Check` over Porch's declarations, then its `HomogeneousAggregateLiterals`
//! validator. An expression cel-go refuses at compile time is refused here, with cel-go's
//! wording, even in a branch that would never be evaluated.
//!
//! Porch's declarations: `repoDefault` and `packageDefault` are strings; `upstream`, `target`
//! and `repository` are `dyn`, so what is selected from them is checked only when evaluated.

use std::collections::HashMap;

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};

use super::stdlib::{self, Overload};
use super::suggest;
use super::types::{most_general, Mapping, Ty, PARAM_A, PARAM_B};
use super::Declarations;

mod kpt;

/// A compile error: the node it is about, and cel-go's message.
pub struct Issue {
    pub id: u64,
    pub message: String,
}

/// Checks `expr`: the type of every node (by id), or cel-go's errors (unsorted).
pub fn check(expr: &IdedExpr, declarations: Declarations) -> Result<HashMap<u64, Ty>, Vec<Issue>> {
    let mut c = Checker {
        declarations,
        ..Checker::default()
    };
    c.check(expr);
    if !c.issues.is_empty() {
        return Err(c.issues);
    }
    let mut issues = Vec::new();
    homogeneous(expr, &c, &mut issues);
    if !issues.is_empty() {
        return Err(issues);
    }
    Ok(c.types
        .iter()
        .map(|(id, t)| (*id, c.mapping.substitute(t, true)))
        .collect())
}

#[derive(Default)]
struct Checker<'e> {
    mapping: Mapping,
    types: HashMap<u64, Ty>,
    /// Comprehension variables, innermost last.
    scopes: Vec<(&'e str, Ty)>,
    issues: Vec<Issue>,
    /// The whole `a.b.c` an identifier starts (by the identifier's id), for "did you mean".
    paths: HashMap<u64, String>,
    /// The variables declared.
    declarations: Declarations,
}

impl<'e> Checker<'e> {
    fn error(&mut self, id: u64, message: String) {
        self.issues.push(Issue { id, message });
    }

    fn set(&mut self, e: &IdedExpr, t: Ty) {
        self.types.insert(e.id, t);
    }

    fn get(&self, e: &IdedExpr) -> Ty {
        self.types.get(&e.id).cloned().unwrap_or(Ty::Error)
    }

    fn check(&mut self, e: &'e IdedExpr) {
        match &e.expr {
            Expr::Literal(l) => {
                let t = match l {
                    LiteralValue::Boolean(_) => Ty::Bool,
                    LiteralValue::Bytes(_) => Ty::Bytes,
                    LiteralValue::Double(_) => Ty::Double,
                    LiteralValue::Int(_) => Ty::Int,
                    LiteralValue::Null => Ty::Null,
                    LiteralValue::String(_) => Ty::String,
                    LiteralValue::UInt(_) => Ty::Uint,
                };
                self.set(e, t);
            }
            Expr::Ident(name) => {
                let t = match self.lookup(e.id, name) {
                    Some(t) => t,
                    None => {
                        let path = self.paths.get(&e.id).map_or(name.as_str(), String::as_str);
                        let hint = self.did_you_mean(name, path);
                        self.error(e.id, format!("{}\n{hint}", undeclared(name)));
                        Ty::Error
                    }
                };
                self.set(e, t);
            }
            Expr::Select(s) => {
                let qualified = qualified_name(e);
                if let Some(t) = qualified.as_deref().and_then(stdlib::type_identifier) {
                    self.set(e, t);
                    return;
                }
                if let (Some(q), Some(root)) = (qualified, root_ident(e)) {
                    // The outermost select is checked first: it names the whole path.
                    self.paths.entry(root).or_insert(q);
                }
                self.check(&s.operand);
                let mut operand = self.mapping.substitute(&self.get(&s.operand), false);
                // cel-go: a field of an optional value is an optional field (kpt's env only).
                let optional = match operand {
                    Ty::Optional(inner) if !s.test => {
                        operand = *inner;
                        true
                    }
                    _ => false,
                };
                let mut t = match &operand {
                    Ty::Map(_, v) => (**v).clone(),
                    Ty::Var(_) => {
                        self.mapping.assignable(&Ty::Dyn, &operand);
                        Ty::Dyn
                    }
                    Ty::Dyn | Ty::Error => Ty::Dyn,
                    other => {
                        let msg = format!("type '{other}' does not support field selection");
                        self.error(e.id, msg);
                        Ty::Dyn
                    }
                };
                if s.test {
                    t = Ty::Bool;
                }
                if optional {
                    t = Ty::optional(t);
                }
                let t = self.mapping.substitute(&t, false);
                self.set(e, t);
            }
            Expr::Call(call) => {
                if self.declarations == Declarations::Kpt {
                    if let Some(t) = self.kpt_call(e, call) {
                        self.set(e, t);
                        return;
                    }
                }
                for a in &call.args {
                    self.check(a);
                }
                if let Some(target) = &call.target {
                    self.check(target);
                }
                let Some(overloads) = self.functions().get(call.func_name.as_str()) else {
                    self.error(e.id, undeclared(&call.func_name));
                    self.set(e, Ty::Error);
                    return;
                };
                let t = self.resolve(
                    e,
                    &call.func_name,
                    overloads,
                    call.target.as_deref(),
                    &call.args,
                );
                self.set(e, t);
            }
            Expr::List(l) => {
                let mut elems: Option<Ty> = None;
                for (i, el) in l.elements.iter().enumerate() {
                    self.check(el);
                    let mut t = self.get(el);
                    if l.optional_indices.contains(&i) {
                        t = self.optional_element(el, t);
                    }
                    elems = Some(self.join(elems, t));
                }
                let elem = elems.unwrap_or_else(|| self.mapping.fresh());
                self.set(e, Ty::list(elem));
            }
            Expr::Map(m) => {
                let (mut keys, mut values): (Option<Ty>, Option<Ty>) = (None, None);
                for entry in &m.entries {
                    match &entry.expr {
                        EntryExpr::MapEntry(me) => {
                            self.check(&me.key);
                            let k = self.get(&me.key);
                            keys = Some(self.join(keys, k));
                            self.check(&me.value);
                            let mut v = self.get(&me.value);
                            if me.optional {
                                v = self.optional_element(&me.value, v);
                            }
                            values = Some(self.join(values, v));
                        }
                        EntryExpr::StructField(sf) => self.check(&sf.value),
                    }
                }
                let t = match (keys, values) {
                    (Some(k), Some(v)) => Ty::map(k, v),
                    _ => Ty::map(self.mapping.fresh(), self.mapping.fresh()),
                };
                self.set(e, t);
            }
            Expr::Struct(_) => {
                self.error(
                    e.id,
                    "message construction is not supported (no message types are declared)".into(),
                );
                self.set(e, Ty::Error);
            }
            Expr::Unspecified => {
                self.error(e.id, "unsupported expression".into());
                self.set(e, Ty::Error);
            }
            Expr::Comprehension(c) => {
                self.check(&c.iter_range);
                self.check(&c.accu_init);
                let range = self.mapping.substitute(&self.get(&c.iter_range), false);
                let accu = self.get(&c.accu_init);
                let (var, var2) = match &range {
                    Ty::List(elem) => match c.iter_var2 {
                        Some(_) => (Ty::Int, (**elem).clone()),
                        None => ((**elem).clone(), Ty::Dyn),
                    },
                    Ty::Map(k, v) => ((**k).clone(), (**v).clone()),
                    Ty::Dyn | Ty::Error | Ty::Var(_) => {
                        self.mapping.assignable(&Ty::Dyn, &range);
                        (Ty::Dyn, Ty::Dyn)
                    }
                    other => {
                        let msg = format!(
                            "expression of type '{other}' cannot be range of a comprehension (must be list, map, or dynamic)"
                        );
                        self.error(c.iter_range.id, msg);
                        (Ty::Error, Ty::Error)
                    }
                };
                let outer = self.scopes.len();
                self.scopes.push((&c.accu_var, accu.clone()));
                let inner = self.scopes.len();
                self.scopes.push((&c.iter_var, var));
                if let Some(v2) = &c.iter_var2 {
                    self.scopes.push((v2, var2));
                }
                self.check(&c.loop_cond);
                self.assert_type(&c.loop_cond, &Ty::Bool);
                self.check(&c.loop_step);
                self.assert_type(&c.loop_step, &accu);
                self.scopes.truncate(inner);
                self.check(&c.result);
                self.scopes.truncate(outer);
                let t = self.mapping.substitute(&self.get(&c.result), false);
                self.set(e, t);
            }
        }
    }

    /// The functions declared: cel-go's standard library, or kpt's environment.
    fn functions(&self) -> &'static HashMap<&'static str, Vec<Overload>> {
        match self.declarations {
            Declarations::Kpt => stdlib::kpt_functions(),
            _ => stdlib::functions(),
        }
    }

    fn lookup(&mut self, id: u64, name: &str) -> Option<Ty> {
        // `.name` is the root scope's `name`, past any macro variable. The interpreter has no
        // root scope: where a macro variable hides it, the expression is refused.
        if let Some(root) = name.strip_prefix('.') {
            if self.scopes.iter().any(|(n, _)| *n == root) {
                self.error(
                    id,
                    format!("'{name}' is the variable '{root}', which a macro variable of the same name hides here: rename the macro variable"),
                );
                return Some(Ty::Error);
            }
            return self.lookup(id, root);
        }
        if let Some((_, t)) = self.scopes.iter().rev().find(|(n, _)| *n == name) {
            return Some(t.clone());
        }
        match (self.declarations, name) {
            (Declarations::Porch, "repoDefault" | "packageDefault") => Some(Ty::String),
            (Declarations::Porch, "upstream" | "target" | "repository") => Some(Ty::Dyn),
            (Declarations::Readiness, "variant") => Some(Ty::Dyn),
            (Declarations::Readiness, "revisions") => Some(Ty::list(Ty::Dyn)),
            (Declarations::Kpt, "resources") => Some(Ty::list(Ty::Dyn)),
            _ => stdlib::type_identifier(name),
        }
    }

    /// What an undeclared `name` (starting `path`, `a.b.c`) may have meant: the closest
    /// variable in scope (and field of an object's view), and the variables there are.
    fn did_you_mean(&self, name: &str, path: &str) -> String {
        let mut variables: Vec<&str> = self.declarations.names().to_vec();
        variables.extend(
            self.scopes
                .iter()
                .map(|(n, _)| *n)
                .filter(|n| !n.starts_with('@') && !n.starts_with("__")),
        );
        let listed = format!("the variables are {}", variables.join(", "));
        let Some(variable) = suggest::closest(name, variables.iter().copied()) else {
            return format!(" | {listed}");
        };
        // The fields after the name, each replaced by the closest field of an object's view.
        let mut fixed = variable.to_string();
        let is_object = ["target", "repository", "upstream"].contains(&variable);
        for field in path.split('.').skip(1) {
            let known = suggest::OBJECT_FIELDS
                .iter()
                .chain(suggest::REPOSITORIES_TARGET_FIELDS.iter())
                .copied();
            let field = if is_object && fixed == variable {
                suggest::closest(field, known).unwrap_or(field)
            } else {
                field
            };
            fixed.push('.');
            fixed.push_str(field);
        }
        format!(" | did you mean '{fixed}'? ({listed})")
    }

    fn assert_type(&mut self, e: &IdedExpr, want: &Ty) {
        let got = self.get(e);
        if !self.mapping.assignable(want, &got) {
            self.error(e.id, type_mismatch(want, &got));
        }
    }

    /// cel-go's `joinTypes` with dynamic aggregate literals (Porch's homogeneity is a separate
    /// validator, [`homogeneous`]).
    fn join(&mut self, previous: Option<Ty>, current: Ty) -> Ty {
        match previous {
            None => current,
            Some(p) if self.mapping.assignable(&p, &current) => most_general(&p, &current),
            Some(_) => Ty::Dyn,
        }
    }

    /// cel-go's `resolveOverload`.
    fn resolve(
        &mut self,
        call: &IdedExpr,
        name: &str,
        overloads: &[Overload],
        target: Option<&IdedExpr>,
        args: &[IdedExpr],
    ) -> Ty {
        let mut arg_types: Vec<Ty> = target.iter().map(|t| self.get(t)).collect();
        arg_types.extend(args.iter().map(|a| self.get(a)));
        if name == "_&&_" || name == "_||_" {
            let mut ok = true;
            for (a, t) in args.iter().zip(&arg_types) {
                if !self.mapping.assignable(t, &Ty::Bool) {
                    self.error(a.id, type_mismatch(&Ty::Bool, t));
                    ok = false;
                }
            }
            return if ok { Ty::Bool } else { Ty::Error };
        }
        let mut result: Option<Ty> = None;
        for o in overloads.iter().filter(|o| o.member == target.is_some()) {
            let (params, ret) = if o.has_params() {
                let a = self.mapping.fresh();
                let b = self.mapping.fresh();
                let inst = |t: &Ty| instantiate(t, &a, &b);
                (o.args.iter().map(inst).collect::<Vec<_>>(), inst(&o.result))
            } else {
                (o.args.clone(), o.result.clone())
            };
            if self.mapping.assignable_list(&arg_types, &params) {
                let ret = self.mapping.substitute(&ret, false);
                result = Some(match result {
                    None => ret,
                    Some(prev) if prev == Ty::Dyn || prev == ret => prev,
                    Some(_) => Ty::Dyn,
                });
            }
        }
        match result {
            Some(t) => t,
            None => {
                let shown: Vec<String> = arg_types
                    .iter()
                    .map(|t| self.mapping.substitute(t, true).to_string())
                    .collect();
                let signature = match target {
                    Some(_) => format!("{}.({})", shown[0], shown[1..].join(", ")),
                    None => format!("({})", shown.join(", ")),
                };
                self.error(
                    call.id,
                    format!("found no matching overload for '{name}' applied to '{signature}'"),
                );
                Ty::Error
            }
        }
    }
}

fn instantiate(t: &Ty, a: &Ty, b: &Ty) -> Ty {
    match t {
        Ty::Var(PARAM_A) => a.clone(),
        Ty::Var(PARAM_B) => b.clone(),
        Ty::List(e) => Ty::list(instantiate(e, a, b)),
        Ty::Map(k, v) => Ty::map(instantiate(k, a, b), instantiate(v, a, b)),
        Ty::Type(Some(p)) => Ty::type_of(instantiate(p, a, b)),
        Ty::Optional(p) => Ty::optional(instantiate(p, a, b)),
        other => other.clone(),
    }
}

fn undeclared(name: &str) -> String {
    format!("undeclared reference to '{name}' (in container '')")
}

fn type_mismatch(want: &Ty, got: &Ty) -> String {
    format!("expected type '{want}' but found '{got}'")
}

/// The id of the identifier a chain of selects starts from.
fn root_ident(e: &IdedExpr) -> Option<u64> {
    match &e.expr {
        Expr::Ident(_) => Some(e.id),
        Expr::Select(s) if !s.test => root_ident(&s.operand),
        _ => None,
    }
}

/// `a.b.c` spelled by selects over an identifier, as cel-go's `ToQualifiedName`.
fn qualified_name(e: &IdedExpr) -> Option<String> {
    match &e.expr {
        Expr::Ident(name) => Some(name.clone()),
        Expr::Select(s) if !s.test => {
            qualified_name(&s.operand).map(|prefix| format!("{prefix}.{}", s.field))
        }
        _ => None,
    }
}

/// cel-go's `HomogeneousAggregateLiterals` validator: every element of a list literal, and
/// every key and every value of a map literal, must have the type of the first one, exactly
/// (`dyn` is not `string`). Only the first mismatch of a list is reported.
fn homogeneous(e: &IdedExpr, c: &Checker<'_>, issues: &mut Vec<Issue>) {
    let final_type = |e: &IdedExpr| c.mapping.substitute(&c.get(e), true);
    match &e.expr {
        Expr::List(l) => {
            let mut first: Option<Ty> = None;
            for el in &l.elements {
                let t = final_type(el);
                match &first {
                    None => first = Some(t),
                    Some(f) if !f.is_equivalent(&t) => {
                        issues.push(Issue {
                            id: el.id,
                            message: type_mismatch(f, &t),
                        });
                        break;
                    }
                    Some(_) => {}
                }
            }
        }
        Expr::Map(m) => {
            let mut first: Option<(Ty, Ty)> = None;
            for entry in &m.entries {
                let EntryExpr::MapEntry(me) = &entry.expr else {
                    continue;
                };
                let (k, v) = (final_type(&me.key), final_type(&me.value));
                match &first {
                    None => first = Some((k, v)),
                    Some((fk, fv)) => {
                        if !fk.is_equivalent(&k) {
                            issues.push(Issue {
                                id: me.key.id,
                                message: type_mismatch(fk, &k),
                            });
                        }
                        if !fv.is_equivalent(&v) {
                            issues.push(Issue {
                                id: me.value.id,
                                message: type_mismatch(fv, &v),
                            });
                        }
                    }
                }
            }
        }
        _ => {}
    }
    for child in children(e) {
        homogeneous(child, c, issues);
    }
}

/// The direct subexpressions of `e`.
pub fn children(e: &IdedExpr) -> Vec<&IdedExpr> {
    match &e.expr {
        Expr::Call(c) => c.target.iter().map(|t| &**t).chain(c.args.iter()).collect(),
        Expr::Comprehension(c) => vec![
            &c.iter_range,
            &c.accu_init,
            &c.loop_cond,
            &c.loop_step,
            &c.result,
        ],
        Expr::List(l) => l.elements.iter().collect(),
        // A map's and a struct's entries hold the same kinds of subexpressions.
        Expr::Map(cel::common::ast::MapExpr { entries })
        | Expr::Struct(cel::common::ast::StructExpr { entries, .. }) => entries
            .iter()
            .flat_map(|e| match &e.expr {
                EntryExpr::MapEntry(me) => vec![&me.key, &me.value],
                EntryExpr::StructField(sf) => vec![&sf.value],
            })
            .collect(),
        Expr::Select(s) => vec![&*s.operand],
        _ => vec![],
    }
}
