//! Where a render's expressions get their values: CEL for a live render (which may record
//! them), or the values an earlier render recorded, for a replay. Kept apart from the render
//! body, which is the same for both.

use cel::common::types::CelMap;

use super::{RenderError, RepositoryIndex};
use crate::cel::{Activation, ProgramCache};
use crate::package_variant_set::expansion::inputs::Item;
use crate::package_variant_set::expansion::record::Records;

/// Where the expressions of a render get their values: CEL ([`Live`]), or the values an
/// earlier render recorded ([`Replayed`]). One render body serves both, so a replay builds
/// exactly the spec the live render built.
pub(super) trait Values {
    /// The value of expression `source`; `field` names it in an error.
    fn eval(&mut self, source: &str, field: &dyn Fn() -> String) -> Result<String, RenderError>;
    /// Looks the downstream repository up and binds it as `repository` (after `repoExpr`).
    fn repository(&mut self, repo: &str) -> Result<(), RenderError>;
    /// Whether the spec is wanted beyond its downstream: a recording render only evaluates
    /// (every expression, in the same order) and leaves the rest to the replay.
    fn builds(&self) -> bool {
        true
    }
}

/// Evaluates with CEL, prefixing errors with their template field, and records each value
/// when asked to.
pub(super) struct Live<'r, 'v, 'a, 'i> {
    pub(super) programs: &'r mut ProgramCache,
    pub(super) activation: Activation<'v>,
    pub(super) repositories: &'v RepositoryIndex<'i>,
    /// The selected object and CEL's view of it (`target`).
    pub(super) object: Option<(Item<'a>, &'v CelMap<'a>)>,
    /// Whether an expression of the template reads `repository`: if none does, it is not
    /// bound (nor built).
    pub(super) reads_repository: bool,
    pub(super) record: Option<&'r mut Records>,
    /// The downstream defaults: a `repositories` target's repository and package.
    pub(super) defaults: (&'v str, &'v str),
}

impl Live<'_, '_, '_, '_> {
    /// The target an evaluation error happened for, as a message names it.
    fn target_name(&self) -> String {
        match self.object {
            Some((object, _)) if object.namespace().is_empty() => {
                format!("{} {}", object.kind(), object.name())
            }
            Some((object, _)) => {
                format!("{} {}/{}", object.kind(), object.namespace(), object.name())
            }
            None => format!(
                "repository {}, package {}",
                self.defaults.0, self.defaults.1
            ),
        }
    }
}

impl Values for Live<'_, '_, '_, '_> {
    fn builds(&self) -> bool {
        self.record.is_none()
    }

    fn eval(&mut self, source: &str, field: &dyn Fn() -> String) -> Result<String, RenderError> {
        let fail = |e: String| {
            let field = field();
            RenderError {
                message: format!("{field}: {e}"),
                field,
            }
        };
        let program = self.programs.compile(source).map_err(fail)?;
        // A target of a selector may be any of many: the error names it.
        let value = self.activation.evaluate(&program).map_err(|e| {
            fail(format!(
                "{e} (evaluated for the target {})",
                self.target_name()
            ))
        })?;
        if let Some(record) = self.record.as_mut() {
            record.push(&value).map_err(|_| {
                fail("the values of the set's expressions are too large to hold".to_string())
            })?;
        }
        Ok(value)
    }

    fn repository(&mut self, repo: &str) -> Result<(), RenderError> {
        // Any template forces the lookup, whether or not an expression uses `repository`.
        let repository = self.repositories.get(repo).ok_or_else(|| RenderError {
            field: "template.downstream.repo".to_string(),
            message: format!("repository {repo:?} could not be loaded"),
        })?;
        match self.object {
            // The selected object is that repository: `target` is `repository`.
            Some((object, target)) if object.same(&repository) => {
                self.activation.bind_repository(target);
            }
            _ if self.reads_repository => {
                if let Some(val) = self.repositories.val(repo) {
                    self.activation.bind_repository(val);
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// The values of one recorded render, in evaluation order.
pub(super) struct Replayed<'a> {
    pub(super) record: &'a Records,
    pub(super) next: usize,
}

impl Values for Replayed<'_> {
    fn eval(&mut self, _: &str, field: &dyn Fn() -> String) -> Result<String, RenderError> {
        // Only a bug can leave a replay short of values: say so rather than write a wrong spec.
        if self.next >= self.record.len() {
            return Err(RenderError {
                field: field(),
                message: format!("internal error: no recorded value for {}", field()),
            });
        }
        self.next += 1;
        Ok(self.record.get(self.next - 1).to_string())
    }

    fn repository(&mut self, _: &str) -> Result<(), RenderError> {
        Ok(())
    }
}
