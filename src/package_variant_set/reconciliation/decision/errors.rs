//! The expansion's errors on the set's own fields: a template's, a decode problem's.

use super::templates::RenderError;
use crate::api::DecodeError;
use crate::krm::results::ResultItem;

/// A compile or render error of target `t`'s template as an error result on its field. Porch's
/// message starts with the template field; here that is the field path, said once.
pub(super) fn template_error(t: usize, e: RenderError) -> ResultItem {
    let message = e
        .message
        .strip_prefix(&format!("{}: ", e.field))
        .unwrap_or(&e.message)
        .to_string();
    ResultItem::error(message)
        .field(format!("spec.targets[{t}].{}", e.field))
        .on_config()
}

/// A decode problem of the set as an error result on its field.
pub(super) fn config_error(e: DecodeError) -> ResultItem {
    let r = ResultItem::error(e.message).on_config();
    if e.path.is_empty() {
        r
    } else {
        r.field(e.path)
    }
}
