//! What a required injection point left unfilled means for the run: Porch's warning (the
//! default: the readiness gate stays False and the run succeeds), or, with the annotation
//! `package-variant.fn.kpt.dev/unfilled: error` on the PackageVariant, an error that stops
//! the run with nothing changed.
//!
//! Why: a misspelt injector name is only a warning in Porch, so a CI job that runs the variant
//! passes while the package waits forever on its gate. The annotation keeps Porch's schema as
//! it is and lets CI fail instead.

use crate::api::annotations::UNFILLED;
use crate::krm::object::ObjectMeta;
use crate::krm::results::{ResultItem, Severity};

/// The annotation on the PackageVariant (either apiVersion) that says how an unfilled required
/// injection point is reported.
pub const UNFILLED_ANNOTATION: &str = UNFILLED.key;

/// Field path of [`UNFILLED_ANNOTATION`], for results about it.
pub const UNFILLED_FIELD: &str = "metadata.annotations[package-variant.fn.kpt.dev/unfilled]";

/// How an unfilled required injection point is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unfilled {
    /// A warning, the run succeeds (Porch's behaviour).
    #[default]
    Warning,
    /// An error: the run stops and nothing changes.
    Error,
}

impl Unfilled {
    /// Reads the annotation from the PackageVariant's metadata ([`Unfilled::Warning`] when
    /// absent). Any other value is an error that lists the accepted ones.
    pub fn from_meta(meta: ObjectMeta<'_>) -> Result<Unfilled, Box<ResultItem>> {
        match meta.annotation(UNFILLED.key).map(|v| UNFILLED.one_of(v)) {
            None | Some(Ok("warning")) => Ok(Unfilled::Warning),
            Some(Ok(_)) => Ok(Unfilled::Error),
            Some(Err(mut message)) => {
                message.push_str(
                    " Write \"error\" (a required injection point left unfilled stops the run, \
                     nothing changed, exit 1) or \"warning\" (Porch's behaviour, the default: \
                     the run succeeds and the point's readiness gate stays False), or leave the \
                     annotation out",
                );
                Err(Box::new(
                    ResultItem::error(message).field(UNFILLED_FIELD).on_config(),
                ))
            }
        }
    }

    /// Turns the warning about an unfilled required point into an error under
    /// [`Unfilled::Error`], saying which annotation made it one.
    pub fn apply(self, mut result: ResultItem) -> ResultItem {
        if self == Unfilled::Error && result.severity == Severity::Warning {
            result.severity = Severity::Error;
            result.message.push_str(&format!(
                " (an error because the PackageVariant has {UNFILLED_ANNOTATION}: error; \
                 nothing was changed)"
            ));
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::krm::object::MetaRecord;

    fn meta(value: &str) -> MetaRecord {
        MetaRecord::new("", "", "", None, &[], &[(UNFILLED_ANNOTATION, value)])
    }

    #[test]
    fn values_are_read_and_others_refused_with_the_fix() {
        assert_eq!(
            Unfilled::from_meta(ObjectMeta::default()),
            Ok(Unfilled::Warning)
        );
        assert_eq!(
            Unfilled::from_meta(meta("warning").view()),
            Ok(Unfilled::Warning)
        );
        assert_eq!(
            Unfilled::from_meta(meta("error").view()),
            Ok(Unfilled::Error)
        );
        let e = Unfilled::from_meta(meta("erorr").view()).unwrap_err();
        assert!(e.is_error());
        assert!(
            e.message.contains("did you mean \"error\"?"),
            "{}",
            e.message
        );
        assert_eq!(e.field_path.as_deref(), Some(UNFILLED_FIELD));
    }

    #[test]
    fn only_a_warning_becomes_an_error() {
        let w = Unfilled::Error.apply(ResultItem::warning("w"));
        assert!(w.is_error());
        let i = Unfilled::Error.apply(ResultItem::info("i"));
        assert_eq!(i.severity, Severity::Info);
        let kept = Unfilled::Warning.apply(ResultItem::warning("w"));
        assert_eq!(kept.severity, Severity::Warning);
    }
}
