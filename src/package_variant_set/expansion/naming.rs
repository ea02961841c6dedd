//! Identifiers and names of the PackageVariants a PackageVariantSet owns.
//!
//! Porch keys variants by the identifier `<set>-<repo>-<package>` and names them after it, cut to
//! the 63-byte Kubernetes limit with a SHA-1 suffix. Names must match Porch byte for byte, or a
//! set reconciled by Porch and by this function would fight over different objects.

/// The longest name kept as is.
pub const MAX_NAME_LEN: usize = 63;
/// Bytes of the identifier kept before the hash suffix (54 + `-` + 8 hex = 63).
pub const PREFIX_LEN: usize = 54;

/// `<set name>-<downstream repo>-<downstream package>`. Not sanitised, as in Porch.
pub fn identifier(set_name: &str, repo: &str, package: &str) -> String {
    format!("{set_name}-{repo}-{package}")
}

/// Porch's `packageVariantName`: the identifier if it is at most 63 bytes, else its first 54
/// bytes, `-`, and the first 8 lowercase hex digits of the SHA-1 of the whole identifier.
///
/// Go slices bytes, so a multi-byte UTF-8 character straddling byte 54 would give Porch an
/// invalid-UTF-8 name (which the API server rejects). We cannot emit invalid UTF-8, so we keep
/// the longest prefix that ends on a character boundary (at most 54 bytes); the name is then
/// shorter than 63 bytes. Such names are not valid Kubernetes names anyway.
pub fn package_variant_name(identifier: &str) -> String {
    crate::api::names::cut_with_hash(identifier, MAX_NAME_LEN)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// T-S2 / §5 examples.
    #[test]
    fn porch_examples() {
        assert_eq!(
            package_variant_name(
                "my-pvs-dnrepo4-supersupersuperloooooooooooooooooooooooooooooooooooooooooooooooooongpkgname"
            ),
            "my-pvs-dnrepo4-supersupersuperlooooooooooooooooooooooo-bec36506"
        );
        assert_eq!(
            package_variant_name(
                "very-long-packagevariantset-name-very-long-repo-name-very-long-package-name"
            ),
            "very-long-packagevariantset-name-very-long-repo-name-v-967492f1"
        );
        assert_eq!(
            package_variant_name("my-pvs-dnrepo3-dnpkg3"),
            "my-pvs-dnrepo3-dnpkg3"
        );
    }

    /// D29: a 63-byte identifier is kept, a 64-byte one is hashed.
    #[test]
    fn d29_boundary() {
        let id63 = identifier(
            "example",
            "cluster-01",
            "foo-0123456789012345678901234567890123456789",
        );
        assert_eq!(id63.len(), 63);
        assert_eq!(package_variant_name(&id63), id63);
        let id64 = identifier(
            "example",
            "cluster-01",
            "foo-01234567890123456789012345678901234567890",
        );
        assert_eq!(id64.len(), 64);
        assert_eq!(
            package_variant_name(&id64),
            "example-cluster-01-foo-0123456789012345678901234567890-7d5c7697"
        );
    }

    #[test]
    fn multibyte_at_cut_does_not_panic() {
        // 53 ASCII bytes then a 2-byte char straddling byte 54.
        let id = format!("{}é{}", "a".repeat(53), "b".repeat(20));
        let name = package_variant_name(&id);
        assert!(name.starts_with(&"a".repeat(53)));
        assert_eq!(name.len(), 53 + 1 + 8);
        let id = "é".repeat(40);
        assert_eq!(package_variant_name(&id).len(), 54 + 1 + 8);
    }

    #[test]
    fn identifiers_can_collide_as_in_porch() {
        assert_eq!(identifier("s", "a-b", "c"), identifier("s", "a", "b-c"));
    }
}
