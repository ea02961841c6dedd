//! CEL types and their unification, as cel-go's checker (`checker/types.go`) defines them, so
//! that an expression is accepted or refused exactly where Porch's `env.Compile` would.
//!
//! Type variables get their bindings in a [`Mapping`] with an undo trail: cel-go copies its
//! mapping for every assignability attempt; rolling back a trail gives the same result without
//! the copies, so checking stays linear in the size of the expression.

use std::fmt;

/// A CEL type as the checker sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    Bool,
    Bytes,
    Double,
    Int,
    Null,
    String,
    Uint,
    Timestamp,
    Duration,
    Dyn,
    /// cel-go's `*error*`: assignable to and from everything, so one mistake is reported once.
    Error,
    List(Box<Ty>),
    Map(Box<Ty>, Box<Ty>),
    /// `type`, or `type(T)`.
    Type(Option<Box<Ty>>),
    /// `optional_type(T)`: only in kpt's environment (`cel.OptionalTypes()`), never Porch's.
    Optional(Box<Ty>),
    /// A type variable (cel-go's `_varN`), or an overload's parameter `A`/`B` before it is
    /// instantiated ([`PARAM_A`], [`PARAM_B`]).
    Var(u32),
}

/// The overload parameters `A` and `B` of the standard library's declarations.
pub const PARAM_A: u32 = u32::MAX;
pub const PARAM_B: u32 = u32::MAX - 1;

impl Ty {
    pub fn list(elem: Ty) -> Ty {
        Ty::List(Box::new(elem))
    }

    pub fn map(key: Ty, value: Ty) -> Ty {
        Ty::Map(Box::new(key), Box::new(value))
    }

    pub fn type_of(t: Ty) -> Ty {
        Ty::Type(Some(Box::new(t)))
    }

    pub fn optional(t: Ty) -> Ty {
        Ty::Optional(Box::new(t))
    }

    fn is_dyn(&self) -> bool {
        matches!(self, Ty::Dyn)
    }

    fn is_dyn_or_error(&self) -> bool {
        matches!(self, Ty::Dyn | Ty::Error)
    }

    fn params(&self) -> Vec<&Ty> {
        match self {
            Ty::List(e) => vec![e],
            Ty::Map(k, v) => vec![k, v],
            Ty::Type(Some(t)) | Ty::Optional(t) => vec![t],
            _ => vec![],
        }
    }

    fn same_kind(&self, other: &Ty) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }

    /// cel-go's `IsEquivalentType`: same kind and equivalent parameters (`dyn` is not `string`).
    pub fn is_equivalent(&self, other: &Ty) -> bool {
        if let (Ty::Var(a), Ty::Var(b)) = (self, other) {
            return a == b;
        }
        let (p, q) = (self.params(), other.params());
        self.same_kind(other)
            && p.len() == q.len()
            && p.iter().zip(q.iter()).all(|(a, b)| a.is_equivalent(b))
    }
}

impl fmt::Display for Ty {
    /// cel-go's `FormatCELType`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Bool => f.write_str("bool"),
            Ty::Bytes => f.write_str("bytes"),
            Ty::Double => f.write_str("double"),
            Ty::Int => f.write_str("int"),
            Ty::Null => f.write_str("null_type"),
            Ty::String => f.write_str("string"),
            Ty::Uint => f.write_str("uint"),
            Ty::Timestamp => f.write_str("google.protobuf.Timestamp"),
            Ty::Duration => f.write_str("google.protobuf.Duration"),
            Ty::Dyn => f.write_str("dyn"),
            Ty::Error => f.write_str("*error*"),
            Ty::List(e) => write!(f, "list({e})"),
            Ty::Map(k, v) => write!(f, "map({k}, {v})"),
            Ty::Type(None) => f.write_str("type"),
            Ty::Type(Some(t)) => write!(f, "type({t})"),
            Ty::Optional(t) => write!(f, "optional_type({t})"),
            Ty::Var(PARAM_A) => f.write_str("A"),
            Ty::Var(PARAM_B) => f.write_str("B"),
            Ty::Var(n) => write!(f, "_var{n}"),
        }
    }
}

/// Bindings of type variables, with an undo trail for failed attempts.
#[derive(Default)]
pub struct Mapping {
    subs: Vec<Option<Ty>>,
    trail: Vec<(u32, Option<Ty>)>,
}

impl Mapping {
    /// A fresh, unbound type variable.
    pub fn fresh(&mut self) -> Ty {
        let n = u32::try_from(self.subs.len()).unwrap_or(u32::MAX - 2);
        self.subs.push(None);
        Ty::Var(n)
    }

    fn find(&self, t: &Ty) -> Option<&Ty> {
        match t {
            Ty::Var(n) => self.subs.get(*n as usize).and_then(Option::as_ref),
            _ => None,
        }
    }

    fn add(&mut self, var: &Ty, to: Ty) {
        if let Ty::Var(n) = var {
            if let Some(slot) = self.subs.get_mut(*n as usize) {
                let old = slot.replace(to);
                self.trail.push((*n, old));
            }
        }
    }

    fn undo_to(&mut self, mark: usize) {
        while self.trail.len() > mark {
            if let Some((n, old)) = self.trail.pop() {
                if let Some(slot) = self.subs.get_mut(n as usize) {
                    *slot = old;
                }
            }
        }
    }

    /// cel-go's `isAssignable`: binds variables only when `t1` is assignable to `t2`.
    pub fn assignable(&mut self, t1: &Ty, t2: &Ty) -> bool {
        let mark = self.trail.len();
        let ok = self.internal_assignable(t1, t2);
        if !ok {
            self.undo_to(mark);
        }
        ok
    }

    /// cel-go's `isAssignableList`.
    pub fn assignable_list(&mut self, l1: &[Ty], l2: &[Ty]) -> bool {
        let mark = self.trail.len();
        let ok = l1.len() == l2.len()
            && l1
                .iter()
                .zip(l2.iter())
                .all(|(a, b)| self.internal_assignable(a, b));
        if !ok {
            self.undo_to(mark);
        }
        ok
    }

    fn internal_assignable(&mut self, t1: &Ty, t2: &Ty) -> bool {
        if matches!(t2, Ty::Var(_)) {
            let (valid, has_sub) = self.valid_substitution(t1, t2);
            if valid {
                return true;
            }
            if has_sub {
                return false;
            }
        }
        if matches!(t1, Ty::Var(_)) {
            return self.valid_substitution(t2, t1).0;
        }
        if t1.is_dyn_or_error() || t2.is_dyn_or_error() {
            return true;
        }
        if matches!(t1, Ty::Null) {
            return nullable(t2);
        }
        if matches!(t2, Ty::Null) {
            return nullable(t1);
        }
        match (t1, t2) {
            (Ty::Type(_), _) => matches!(t2, Ty::Type(_)),
            (Ty::List(a), Ty::List(b)) | (Ty::Optional(a), Ty::Optional(b)) => {
                self.internal_assignable(a, b)
            }
            (Ty::Map(k1, v1), Ty::Map(k2, v2)) => {
                self.internal_assignable(k1, k2) && self.internal_assignable(v1, v2)
            }
            (Ty::List(_) | Ty::Map(..) | Ty::Optional(_), _) => false,
            _ => t1 == t2,
        }
    }

    /// cel-go's `isValidTypeSubstitution`: (valid, t2 already had a substitution).
    fn valid_substitution(&mut self, t1: &Ty, t2: &Ty) -> (bool, bool) {
        if t1 == t2 {
            return (true, true);
        }
        if let Some(sub) = self.find(t2).cloned() {
            if *t1 == sub {
                return (true, true);
            }
            if self.internal_assignable(t1, &sub) {
                let general = most_general(t1, &sub);
                if self.not_referenced_in(t2, &general) {
                    self.add(t2, general);
                }
                return (true, true);
            }
            return (false, true);
        }
        if self.not_referenced_in(t2, t1) {
            self.add(t2, t1.clone());
            return (true, false);
        }
        (false, false)
    }

    /// The occurs check.
    fn not_referenced_in(&self, t: &Ty, within: &Ty) -> bool {
        if t == within {
            return false;
        }
        match within {
            Ty::Var(_) => match self.find(within) {
                Some(sub) => self.not_referenced_in(t, sub),
                None => true,
            },
            Ty::List(_) | Ty::Map(..) | Ty::Optional(_) => within
                .params()
                .into_iter()
                .all(|p| self.not_referenced_in(t, p)),
            _ => true,
        }
    }

    /// cel-go's `substitute`: replaces bound variables; unbound ones become `dyn` if asked.
    pub fn substitute(&self, t: &Ty, to_dyn: bool) -> Ty {
        if let Some(sub) = self.find(t) {
            return self.substitute(sub, to_dyn);
        }
        match t {
            Ty::Var(_) if to_dyn => Ty::Dyn,
            Ty::List(e) => Ty::list(self.substitute(e, to_dyn)),
            Ty::Map(k, v) => Ty::map(self.substitute(k, to_dyn), self.substitute(v, to_dyn)),
            Ty::Type(Some(p)) => Ty::type_of(self.substitute(p, to_dyn)),
            Ty::Optional(p) => Ty::optional(self.substitute(p, to_dyn)),
            other => other.clone(),
        }
    }
}

/// Timestamps and durations (legacy message types) accept `null`, as in cel-go.
fn nullable(t: &Ty) -> bool {
    matches!(t, Ty::Null | Ty::Timestamp | Ty::Duration)
}

/// cel-go's `mostGeneral`.
pub fn most_general(t1: &Ty, t2: &Ty) -> Ty {
    if equal_or_less_specific(t1, t2) {
        t1.clone()
    } else {
        t2.clone()
    }
}

fn equal_or_less_specific(t1: &Ty, t2: &Ty) -> bool {
    if t1.is_dyn() || matches!(t1, Ty::Var(_)) {
        return true;
    }
    if t2.is_dyn() || matches!(t2, Ty::Var(_)) {
        return false;
    }
    match (t1, t2) {
        (Ty::List(a), Ty::List(b)) | (Ty::Optional(a), Ty::Optional(b)) => {
            equal_or_less_specific(a, b)
        }
        (Ty::Map(k1, v1), Ty::Map(k2, v2)) => {
            equal_or_less_specific(k1, k2) && equal_or_less_specific(v1, v2)
        }
        (Ty::Type(_), Ty::Type(_)) => true,
        _ => t1 == t2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_bind_and_roll_back() {
        let mut m = Mapping::default();
        let a = m.fresh();
        assert!(!m.assignable_list(&[Ty::Int, Ty::String], &[a.clone(), a.clone()]));
        assert_eq!(
            m.substitute(&a, true),
            Ty::Dyn,
            "a failed attempt binds nothing"
        );
        assert!(m.assignable_list(&[Ty::Int, Ty::Int], &[a.clone(), a.clone()]));
        assert_eq!(m.substitute(&a, true), Ty::Int);
        assert!(
            m.assignable(&Ty::Dyn, &a),
            "dyn is assignable to a bound variable"
        );
        assert_eq!(m.substitute(&a, false), Ty::Dyn, "and generalises it");
    }

    #[test]
    fn null_and_dyn() {
        let mut m = Mapping::default();
        assert!(!m.assignable(&Ty::Null, &Ty::String));
        assert!(m.assignable(&Ty::Null, &Ty::Timestamp));
        assert!(m.assignable(&Ty::Dyn, &Ty::list(Ty::Int)));
        assert!(!m.assignable(&Ty::list(Ty::Int), &Ty::list(Ty::String)));
        assert!(m.assignable(&Ty::type_of(Ty::Int), &Ty::type_of(Ty::String)));
    }

    #[test]
    fn occurs_check() {
        let mut m = Mapping::default();
        let a = m.fresh();
        assert!(!m.assignable(&Ty::list(a.clone()), &a));
    }

    #[test]
    fn formats_as_cel_go() {
        assert_eq!(
            Ty::map(Ty::String, Ty::list(Ty::Timestamp)).to_string(),
            "map(string, list(google.protobuf.Timestamp))"
        );
        assert_eq!(Ty::type_of(Ty::Null).to_string(), "type(null_type)");
        assert_eq!(Ty::Error.to_string(), "*error*");
    }
}
