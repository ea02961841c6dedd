//! The functions the interpreter calls that CEL source cannot spell: the hidden `@arg`,
//! `@ordered` and `@matches` that [`instrument`](super::instrument) inserts (each
//! charging the meter), and `@utc`; with Go's `time.RFC3339Nano` layout they share with
//! `gotime`. Kept apart from the bindings, which only register them, and beside `runtime`
//! rather than in it: `gotime` and `conversions` build their functions with [`Function`] too.

use std::sync::Arc;

use cel::common::types::{CelBool, CelList, CelMap, CelMapKey, CelString, CelTimestamp};
use cel::common::value::{CowVal, Val};
use cel::{ExecutionError, FunctionContext};

use super::meter::{charge_for, Meter};

/// A function that takes its arguments as the interpreter holds them (no conversion to
/// [`Value`], which would copy strings and lists): the `cel` crate's own `Function` type.
pub(in crate::cel) type Function = Box<
    dyn for<'c, 'a> Fn(&mut FunctionContext<'c, 'a>) -> Result<CowVal<'c, 'a>, ExecutionError>
        + Send
        + Sync,
>;

pub(super) fn arg_function(meter: Arc<Meter>) -> Function {
    Box::new(move |ftx: &mut FunctionContext<'_, '_>| {
        let value = ftx
            .args
            .pop()
            .ok_or_else(|| ExecutionError::invalid_argument_count(1, 0))?;
        charge_for(&meter, value.as_ref())?;
        Ok(value)
    })
}

/// `@ordered(x)`: a map's keys as a list, sorted (the map's size charged as `@arg` does);
/// anything else unchanged.
pub(super) fn ordered_function(meter: Arc<Meter>) -> Function {
    Box::new(move |ftx: &mut FunctionContext<'_, '_>| {
        let value = ftx
            .args
            .pop()
            .ok_or_else(|| ExecutionError::invalid_argument_count(1, 0))?;
        let Some(map) = value.downcast_ref::<CelMap>() else {
            return Ok(value);
        };
        meter.charge(1 + map.inner().len() as u64 / 10)?;
        let mut keys: Vec<&CelMapKey> = map.inner().keys().collect();
        keys.sort();
        let list: Vec<Box<dyn Val>> = keys
            .into_iter()
            .map(|k| k.inner().clone_as_boxed())
            .collect();
        Ok(CowVal::owned(CelList::from(list)))
    })
}

pub(super) fn matches_function(meter: Arc<Meter>) -> Function {
    Box::new(move |ftx: &mut FunctionContext<'_, '_>| {
        let (Some(text), Some(pattern)) = (ftx.args.first(), ftx.args.get(1)) else {
            return Err(ExecutionError::invalid_argument_count(2, ftx.args.len()));
        };
        let (Some(text), Some(pattern)) = (
            text.downcast_ref::<CelString>(),
            pattern.downcast_ref::<CelString>(),
        ) else {
            return Err(ExecutionError::function_error(
                "matches",
                "no such overload: matches needs two strings",
            ));
        };
        // Kubernetes' cost of `matches`: string traversal times regex size.
        let text_cost: u64 = 1 + text.inner().len() as u64 / 10;
        let regex_cost = 1 + pattern.inner().len() as u64 / 4;
        meter.charge(text_cost.saturating_mul(regex_cost))?;
        let re = meter.regex(pattern.inner())?;
        Ok(CowVal::owned(CelBool::from(re.is_match(text.inner()))))
    })
}

/// Go's `time.RFC3339Nano` layout: fraction without trailing zeros, `Z` for UTC.
pub(in crate::cel) fn rfc3339_nano(t: &chrono::DateTime<chrono::FixedOffset>) -> String {
    use chrono::{Datelike, Timelike};
    let mut out = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        t.year(),
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    );
    let nanos = t.nanosecond() % 1_000_000_000;
    if nanos > 0 {
        let fraction = format!("{nanos:09}");
        out.push('.');
        out.push_str(fraction.trim_end_matches('0'));
    }
    let offset = t.offset().local_minus_utc();
    if offset == 0 {
        out.push('Z');
    } else {
        let sign = if offset < 0 { '-' } else { '+' };
        let abs = offset.unsigned_abs();
        out.push_str(&format!("{sign}{:02}:{:02}", abs / 3600, abs % 3600 / 60));
    }
    out
}

pub(super) fn utc_function() -> Function {
    Box::new(|ftx: &mut FunctionContext<'_, '_>| {
        let value = ftx
            .args
            .pop()
            .ok_or_else(|| ExecutionError::invalid_argument_count(1, 0))?;
        match value.downcast_ref::<CelTimestamp>() {
            Some(t) => {
                let utc = chrono::FixedOffset::east_opt(0).expect("a zero offset is valid");
                Ok(CowVal::owned(CelTimestamp::from(
                    t.inner().with_timezone(&utc),
                )))
            }
            None => Ok(value),
        }
    })
}
