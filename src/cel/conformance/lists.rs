//! cel-spec `tests/simple/testdata/lists.textproto`, restated. Index errors are cel-go's
//! (its interpreter checks a list's bounds while qualifying: `index out of bounds: 3`).

use super::V::*;
use super::{fails, no, ok, yes, Source};

#[rustfmt::skip]
pub const SOURCE: Source = Source {
    title: "cel-spec lists",
    cases: &[
        yes("concatentation/list_append", "[0, 1, 2] + [3, 4, 5] == [0, 1, 2, 3, 4, 5]"),
        no("concatentation/list_not_commutative", "[0, 1, 2] + [3, 4, 5] == [3, 4, 5, 0, 1, 2]"),
        ok("concatentation/list_repeat", "[2] + [2]", List(&[Int(2), Int(2)])),
        ok("concatentation/empty_empty", "[] + []", List(&[])),
        ok("concatentation/left_unit", "[] + [3, 4]", List(&[Int(3), Int(4)])),
        ok("concatentation/right_unit", "[1, 2] + []", List(&[Int(1), Int(2)])),
        ok("index/zero_based", "[7, 8, 9][0]", Int(7)),
        ok("index/zero_based_double", "[7, 8, 9][dyn(0.0)]", Int(7)),
        fails("index/zero_based_double_error", "[7, 8, 9][dyn(0.1)]", "unsupported index value 0.1 in list"),
        ok("index/zero_based_uint", "[7, 8, 9][dyn(0u)]", Int(7)),
        ok("index/singleton", "['foo'][0]", Str("foo")),
        ok("index/middle", "[0, 1, 1, 2, 3, 5, 8, 13][4]", Int(3)),
        ok("index/last", "['George', 'John', 'Paul', 'Ringo'][3]", Str("Ringo")),
        fails("index/range", "[1, 2, 3][3]", "index out of bounds: 3"),
        no("in/empty", "7 in []"),
        yes("in/singleton", "4u in [4u]"),
        yes("in/first", "'alpha' in ['alpha', 'beta', 'gamma']"),
        yes("in/middle", "3 in [5, 4, 3, 2, 1]"),
        yes("in/last", "20u in [4u, 6u, 8u, 12u, 20u]"),
        yes("in/double_in_ints", "dyn(3.0) in [5, 4, 3, 2, 1]"),
        yes("in/uint_in_ints", "dyn(3u) in [5, 4, 3, 2, 1]"),
        yes("in/int_in_doubles", "dyn(3) in [5.0, 4.0, 3.0, 2.0, 1.0]"),
        yes("in/uint_in_doubles", "dyn(3u) in [5.0, 4.0, 3.0, 2.0, 1.0]"),
        yes("in/int_in_uints", "dyn(3) in [5u, 4u, 3u, 2u, 1u]"),
        yes("in/double_in_uints", "dyn(3.0) in [5u, 4u, 3u, 2u, 1u]"),
        no("in/missing", "'hawaiian' in ['meat', 'veggie', 'margarita', 'cheese']"),
        ok("size/list_empty", "size([])", Int(0)),
        ok("size/list", "size([1, 2, 3])", Int(3)),
        ok("size/map_empty", "size({})", Int(0)),
        ok("size/map", "size({1: 'one', 2: 'two', 3: 'three'})", Int(3)),
    ],
    skipped: &[],
};
