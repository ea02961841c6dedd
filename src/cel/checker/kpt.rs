//! What kpt's environment for a pipeline step's `when` adds to the checker (kptdev/kpt
//! `NewCELEnvironment`, kptdev/kpt#4469 at ef0fce17d): optional values (`[?x]`, `{?k: x}`,
//! `a.?b`), namespaced functions (`sets.contains`, `optional.of`), and the macros cel-go
//! expands before it checks (two-variable comprehensions, `sortBy`, `optMap`, `optFlatMap`),
//! typed here as the comprehensions they expand to. Porch's environment has none of them.

use cel::common::ast::{CallExpr, Expr, IdedExpr, LiteralValue};

use super::{qualified_name, type_mismatch, Checker};
use crate::cel::stdlib;
use crate::cel::types::Ty;

impl<'e> Checker<'e> {
    /// The type an optional element (`[?x]`, `{?k: x}`) gives its literal: `T` of its
    /// `optional_type(T)`.
    pub(super) fn optional_element(&mut self, el: &IdedExpr, t: Ty) -> Ty {
        let inner = self.mapping.fresh();
        let want = Ty::optional(inner.clone());
        if self.mapping.assignable(&want, &t) {
            self.mapping.substitute(&inner, false)
        } else {
            self.error(el.id, type_mismatch(&want, &t));
            Ty::Error
        }
    }

    /// What kpt's environment adds to a call (`None`: an ordinary call): its macros, which
    /// cel-go expands before checking (two-variable `all`, `exists`, `existsOne`,
    /// `transformList`, `transformMap`, `transformMapEntry`; `sortBy`; `optMap`,
    /// `optFlatMap`), checked here as the comprehensions they expand to; a namespaced
    /// function (`sets.contains(..)`, `optional.of(..)`); and `_?._`.
    pub(super) fn kpt_call(&mut self, e: &'e IdedExpr, call: &'e CallExpr) -> Option<Ty> {
        let name = call.func_name.as_str();
        let args = &call.args;
        if let Some(target) = call.target.as_deref() {
            let shape = match (name, args.len()) {
                ("all" | "exists" | "existsOne" | "exists_one", 3) => Some(2),
                ("transformList" | "transformMap" | "transformMapEntry", 3 | 4) => Some(2),
                ("sortBy" | "optMap" | "optFlatMap", 2) => Some(1),
                _ => None,
            };
            if let Some(vars) = shape {
                return Some(self.kpt_macro(e, name, target, &args[..vars], &args[vars..]));
            }
            if let Some(q) = qualified_name(target) {
                let full = format!("{q}.{name}");
                let root = q.split('.').next().unwrap_or("");
                let shadowed = self.scopes.iter().any(|(n, _)| *n == root)
                    || self.declarations.names().contains(&root);
                if !shadowed {
                    if let Some(overloads) = self.functions().get(full.as_str()) {
                        for a in args {
                            self.check(a);
                        }
                        return Some(self.resolve(e, &full, overloads, None, args));
                    }
                }
            }
        }
        if name == "_?._" && args.len() == 2 {
            self.check(&args[0]);
            let operand = self.mapping.substitute(&self.get(&args[0]), false);
            let operand = match operand {
                Ty::Optional(inner) => *inner,
                other => other,
            };
            let field = matches!(&args[1].expr, Expr::Literal(LiteralValue::String(_)));
            if !field {
                self.error(args[1].id, "unsupported optional field selection".into());
                return Some(Ty::Error);
            }
            let t = match &operand {
                Ty::Map(_, v) => (**v).clone(),
                Ty::Dyn | Ty::Error | Ty::Var(_) => Ty::Dyn,
                other => {
                    let msg = format!("type '{other}' does not support field selection");
                    self.error(e.id, msg);
                    Ty::Dyn
                }
            };
            return Some(Ty::optional(t));
        }
        None
    }

    /// A macro of kpt's environment over `target`, binding `vars` (simple names) in `body`.
    fn kpt_macro(
        &mut self,
        e: &'e IdedExpr,
        name: &str,
        target: &'e IdedExpr,
        vars: &'e [IdedExpr],
        body: &'e [IdedExpr],
    ) -> Ty {
        let mut names: Vec<&'e str> = Vec::new();
        for v in vars {
            match &v.expr {
                Expr::Ident(n) => names.push(n),
                _ => {
                    self.error(
                        v.id,
                        format!("{name}() variable name must be a simple identifier"),
                    );
                    return Ty::Error;
                }
            }
        }
        if names.len() == 2 && names[0] == names[1] {
            self.error(
                vars[1].id,
                format!(
                    "{name}() second variable name must be different from the first variable name"
                ),
            );
            return Ty::Error;
        }
        self.check(target);
        let range = self.mapping.substitute(&self.get(target), false);
        let bound: Vec<Ty> = match (name, &range) {
            ("optMap" | "optFlatMap", Ty::Optional(inner)) => vec![(**inner).clone()],
            ("optMap" | "optFlatMap", Ty::Dyn | Ty::Error | Ty::Var(_)) => vec![Ty::Dyn],
            ("optMap" | "optFlatMap", other) => {
                let msg = format!("found no matching overload for '{name}' applied to '{other}'");
                self.error(e.id, msg);
                return Ty::Error;
            }
            ("sortBy", Ty::List(elem)) => vec![(**elem).clone()],
            (_, Ty::List(elem)) => vec![Ty::Int, (**elem).clone()],
            (_, Ty::Map(k, v)) if name != "sortBy" => vec![(**k).clone(), (**v).clone()],
            (_, Ty::Dyn | Ty::Error | Ty::Var(_)) => vec![Ty::Dyn; names.len()],
            (_, other) => {
                let msg = format!(
                    "expression of type '{other}' cannot be range of a comprehension (must be list, map, or dynamic)"
                );
                self.error(target.id, msg);
                return Ty::Error;
            }
        };
        let outer = self.scopes.len();
        for (n, t) in names.iter().zip(bound.iter()) {
            self.scopes.push((n, t.clone()));
        }
        for b in body {
            self.check(b);
        }
        self.scopes.truncate(outer);
        let last = body
            .last()
            .map(|b| self.mapping.substitute(&self.get(b), false));
        let last = last.unwrap_or(Ty::Error);
        match name {
            "all" | "exists" | "existsOne" | "exists_one" => {
                self.assert_type(&body[0], &Ty::Bool);
                Ty::Bool
            }
            "transformList" | "transformMap" | "transformMapEntry" => {
                if body.len() == 2 {
                    self.assert_type(&body[0], &Ty::Bool);
                }
                match name {
                    "transformList" => Ty::list(last),
                    "transformMap" => {
                        let key = match &range {
                            Ty::List(_) => Ty::Int,
                            Ty::Map(k, _) => (**k).clone(),
                            _ => Ty::Dyn,
                        };
                        Ty::map(key, last)
                    }
                    _ => {
                        let (k, v) = (self.mapping.fresh(), self.mapping.fresh());
                        let want = Ty::map(k.clone(), v.clone());
                        if !self.mapping.assignable(&want, &last) {
                            self.error(body[body.len() - 1].id, type_mismatch(&want, &last));
                            return Ty::Error;
                        }
                        self.mapping.substitute(&want, false)
                    }
                }
            }
            "sortBy" => {
                let comparable = stdlib::COMPARABLE
                    .iter()
                    .any(|c| self.mapping.assignable(c, &last));
                if !comparable {
                    let msg = format!(
                        "found no matching overload for '@sortByAssociatedKeys' applied to '{range}.(list({last}))'"
                    );
                    self.error(e.id, msg);
                    return Ty::Error;
                }
                range
            }
            "optMap" => Ty::optional(last),
            _ => {
                let inner = self.mapping.fresh();
                let want = Ty::optional(inner);
                if !self.mapping.assignable(&want, &last) {
                    self.error(body[0].id, type_mismatch(&want, &last));
                    return Ty::Error;
                }
                self.mapping.substitute(&want, false)
            }
        }
    }
}
