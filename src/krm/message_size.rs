//! Porch's message size: Porch moves each ResourceList to and from the function runner as one
//! gRPC message, 6 MiB by default. An output past that works under kpt but fails in Porch
//! with gRPC's "received message larger than max", a message that names neither the package
//! nor the fix; so the output itself says so, in a warning (kpt runs are fine: not an error).

use super::results::ResultItem;

/// The default limit of Porch's function runner and wrapper-server (`--max-request-body-size`,
/// 6 MiB), for the whole gRPC message.
pub const PORCH_GRPC_MESSAGE_LIMIT: usize = 6 * 1024 * 1024;

/// Room kept in the message for what travels beside the ResourceList (the function's log and
/// the message's framing).
const ROOM_FOR_THE_REST: usize = 1024;

/// True when an output of `size` bytes does not fit in Porch's default message.
pub fn over_porch_limit(size: usize) -> bool {
    size > PORCH_GRPC_MESSAGE_LIMIT - ROOM_FOR_THE_REST
}

/// The warning for an output of about `size` bytes (before the warning itself).
pub fn warning(size: usize) -> ResultItem {
    ResultItem::warning(format!(
        "the output ResourceList is {size} bytes ({:.1} MiB), more than Porch moves in one gRPC \
         message by default ({PORCH_GRPC_MESSAGE_LIMIT} bytes, 6 MiB, with {ROOM_FOR_THE_REST} \
         bytes kept for the function's log): kpt runs are not limited, but in Porch this \
         package fails with \"received message larger than max\". Raise the limit with the \
         function runner's --max-request-body-size (and porch-server's matching argument, kept \
         in sync), or split the package into smaller ones",
        size as f64 / (1024.0 * 1024.0)
    ))
}
