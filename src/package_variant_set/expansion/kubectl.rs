//! The kubectl commands a message offers for the input it misses (`kubectl get <resource> -n
//! <namespace> -o yaml`), every word safe to paste. Inputs, targets, tags and activation all
//! name one.

/// `word` as one word of a shell command a message suggests: as it is when it holds nothing a
/// shell reads specially, else single-quoted (a `'` inside as `'\''`), so that pasting the
/// command never runs anything the input wrote.
pub fn shell_word(word: &str) -> std::borrow::Cow<'_, str> {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=,@%+".contains(&b));
    if plain {
        word.into()
    } else {
        format!("'{}'", word.replace('\'', "'\\''")).into()
    }
}

/// `kubectl get <resource> -n <namespace> -o yaml`, each word safe to paste
/// ([`shell_word`]).
pub fn kubectl_get(api_version: &str, kind: &str, namespace: &str) -> String {
    format!(
        "kubectl get {} -n {} -o yaml",
        shell_word(&resource_name(api_version, kind)),
        shell_word(namespace)
    )
}

/// kubectl's name for a kind's objects: `workloadclusters.infra.nephio.org`, `configmaps`
/// (apimachinery's guess of the plural: `-s`, `-es` after `s`, `-ies` for a final `y`).
pub fn resource_name(api_version: &str, kind: &str) -> String {
    let singular = kind.to_lowercase();
    let plural = if singular.ends_with("endpoints") {
        singular
    } else if singular.ends_with('s') {
        format!("{singular}es")
    } else if let Some(stem) = singular.strip_suffix('y') {
        format!("{stem}ies")
    } else {
        format!("{singular}s")
    };
    match api_version.rsplit_once('/') {
        Some((group, _)) if !group.is_empty() => format!("{plural}.{group}"),
        _ => plural,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::package_variant_set::expansion::targets::{REPOSITORY_API_VERSION, REPOSITORY_KIND};

    #[test]
    fn kubectl_resource_names() {
        assert_eq!(resource_name("v1", "Endpoints"), "endpoints");
        assert_eq!(
            resource_name("networking.k8s.io/v1", "Ingress"),
            "ingresses.networking.k8s.io"
        );
        assert_eq!(resource_name("x.io/v1", "Policy"), "policies.x.io");
        assert_eq!(
            resource_name(REPOSITORY_API_VERSION, REPOSITORY_KIND),
            "repositories.config.porch.kpt.dev"
        );
    }
}
