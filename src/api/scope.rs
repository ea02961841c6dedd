//! Which built-in kinds are cluster-scoped: their objects have no `metadata.namespace`.
//!
//! Why here: both functions decide by it (the set which items may lack a namespace, the
//! PackageVariant which in-cluster objects may be injected without one), so there is one list.

/// Built-in kinds whose objects have no namespace, by API group and kind (the ones a package
/// or a cluster copy may hold; the read-only review kinds are left out).
const CLUSTER_SCOPED: &[(&str, &str)] = &[
    ("", "Namespace"),
    ("", "Node"),
    ("", "PersistentVolume"),
    ("apiextensions.k8s.io", "CustomResourceDefinition"),
    ("rbac.authorization.k8s.io", "ClusterRole"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    ("storage.k8s.io", "StorageClass"),
    ("storage.k8s.io", "CSIDriver"),
    ("storage.k8s.io", "CSINode"),
    ("storage.k8s.io", "VolumeAttachment"),
    ("scheduling.k8s.io", "PriorityClass"),
    ("networking.k8s.io", "IngressClass"),
    ("node.k8s.io", "RuntimeClass"),
    (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
    ),
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
    ),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
    ),
    ("apiregistration.k8s.io", "APIService"),
    ("certificates.k8s.io", "CertificateSigningRequest"),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
];

/// The API group of an apiVersion (`""` for the core group).
pub fn group(api_version: &str) -> &str {
    api_version.split_once('/').map_or("", |(g, _)| g)
}

/// True for a built-in kind whose objects have no namespace.
pub fn is_cluster_scoped(api_version: &str, kind: &str) -> bool {
    let g = group(api_version);
    CLUSTER_SCOPED.iter().any(|&(cg, ck)| cg == g && ck == kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_cluster_scoped_kinds_by_group() {
        assert!(is_cluster_scoped("v1", "Namespace"));
        assert!(is_cluster_scoped("networking.k8s.io/v1", "IngressClass"));
        assert!(is_cluster_scoped(
            "rbac.authorization.k8s.io/v1",
            "ClusterRole"
        ));
        assert!(!is_cluster_scoped("v1", "ConfigMap"));
        // The kind in another group is not the built-in one.
        assert!(!is_cluster_scoped("example.com/v1", "StorageClass"));
    }
}
