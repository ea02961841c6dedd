//! Evaluation errors and results worded as cel-go words them, so that a message matches
//! Porch's. Kept apart from evaluation: it is a table of wordings, not a step of the run.

use cel::common::types::{CelString, Kind};
use cel::common::value::Val;
use cel::{ExecutionError, Value};

use super::super::VARIABLES;

/// An evaluation error as cel-go words it.
pub(in crate::cel) fn execution_error(err: ExecutionError) -> String {
    match err {
        ExecutionError::NoSuchKey(k) => format!("no such key: {k}"),
        ExecutionError::UndeclaredReference(name) if VARIABLES.contains(&name.as_str()) => {
            format!("no such attribute(s): {name}")
        }
        ExecutionError::UndeclaredReference(name) => format!("undeclared reference to '{name}'"),
        // cel-go's conversion and function errors carry no function name.
        ExecutionError::FunctionError { message, .. } => message,
        // cel-go's messages (`common/types`: overflow.go and err.go).
        ExecutionError::DivisionByZero(_) => "division by zero".into(),
        ExecutionError::RemainderByZero(_) => "modulus by zero".into(),
        // A timestamp moved by a duration out of range is a timestamp overflow; durations
        // added, and timestamps subtracted, overflow as the int64 nanoseconds they are.
        ExecutionError::Overflow(_, left, right) => match (left, right) {
            (Value::UInt(_), _) => "unsigned integer overflow".into(),
            (Value::Timestamp(_), Value::Duration(_))
            | (Value::Duration(_), Value::Timestamp(_)) => "timestamp overflow".into(),
            _ => "integer overflow".into(),
        },
        // cel-go indexes through attribute qualification (`interpreter/attributes.go`), which
        // checks bounds itself; an index it cannot use is `types.IndexOrError`'s message.
        ExecutionError::IndexOutOfBounds(index) => match index {
            Value::Int(i) => format!("index out of bounds: {i}"),
            Value::UInt(i) => format!("index out of bounds: {i}"),
            Value::Float(f) => format!("index out of bounds: {f}"),
            other => format!("index out of bounds: {other:?}"),
        },
        ExecutionError::UnsupportedIndex(index, _) => match index {
            Value::Float(f) => format!("unsupported index value {f} in list"),
            other => format!("unsupported index type '{}' in list", other.type_of()),
        },
        // cel-go's operators on operands of the wrong run-time types: `no such overload`.
        ExecutionError::UnsupportedBinaryOperator(op, l, r) => format!(
            "no such overload: {op} applied to '({}, {})'",
            l.type_of(),
            r.type_of()
        ),
        ExecutionError::ValuesNotComparable(l, r) => format!(
            "no such overload: comparison applied to '({}, {})'",
            l.type_of(),
            r.type_of()
        ),
        // A field of a value that has none: cel-go qualifies it as an index
        // (`interpreter/attributes.go`): a list's `IndexOrError`, else a missing key, which
        // cel-go names and the interpreter's error does not carry.
        ExecutionError::NoSuchOverload(o) if o.function() == "_._" => {
            match o.argument_types().first().map(String::as_str) {
                Some("list") => "unsupported index type 'string' in list".into(),
                Some(t) => format!("no such key (a field of a value of type '{t}')"),
                None => "no such key".into(),
            }
        }
        // cel-go: `no such overload` (naming the function where its interpreter does).
        ExecutionError::NoSuchOverload(o) => {
            let types = o.argument_types();
            let signature = match (o.is_member_function(), types.split_first()) {
                (true, Some((receiver, rest))) => format!("{receiver}.({})", rest.join(", ")),
                _ => format!("({})", types.join(", ")),
            };
            format!(
                "no such overload: {} applied to '{signature}'",
                o.function()
            )
        }
        other => other.to_string(),
    }
}

/// cel-go's `ConvertToNative(string)`: only strings convert.
pub(super) fn to_string_result(value: &dyn Val) -> Result<String, String> {
    let message = match value.get_type().kind() {
        Kind::String => {
            return value
                .downcast_ref::<CelString>()
                .map(|s| s.inner().to_string())
                .ok_or_else(|| "expression returned non-string value".to_string())
        }
        Kind::Int => "unsupported type conversion from 'int' to string",
        Kind::UInt => "unsupported type conversion from 'uint' to string",
        Kind::Double => "type conversion error from Double to 'string'",
        Kind::Boolean => "type conversion error from bool to 'string'",
        Kind::NullType => "type conversion error from 'null_type' to 'string'",
        Kind::Bytes => "type conversion error from Bytes to 'string'",
        Kind::Map => "type conversion error from map to 'string'",
        Kind::List => "type conversion error from list to 'string'",
        Kind::Timestamp => "type conversion error from Timestamp to 'string'",
        Kind::Duration => "type conversion error from Duration to 'string'",
        Kind::Type => "type conversion not supported for 'type'",
        _ => {
            return Err(format!(
                "expression returned non-string value of type {}",
                value.get_type().name()
            ))
        }
    };
    Err(message.to_string())
}
