use super::*;

#[test]
fn a_revision_is_a_number_from_one_with_an_optional_bang() {
    assert_eq!(
        revision("3"),
        Some(Activated {
            revision: 3,
            downgrade: false
        })
    );
    assert_eq!(
        revision("2!"),
        Some(Activated {
            revision: 2,
            downgrade: true
        })
    );
    for bad in [
        "",
        "0",
        "-1",
        "+3",
        "3 ",
        " 3",
        "3!!",
        "!",
        "three",
        "v3",
        "99999999999999999999",
    ] {
        assert_eq!(revision(bad), None, "{bad:?}");
    }
}
