use super::*;
use serde_json::{json, Value};

#[test]
fn max_upgrades_reads_counts_and_shares() {
    assert_eq!(max_upgrades(&json!(5)), Ok(MaxUpgrades::Count(5)));
    assert_eq!(max_upgrades(&json!("25%")), Ok(MaxUpgrades::Percent(25)));
    assert_eq!(max_upgrades(&json!("100%")), Ok(MaxUpgrades::Percent(100)));
    for bad in [
        json!(0),
        json!(-1),
        json!(1.5),
        json!("0"),
        json!("0%"),
        json!("150%"),
        json!("25 %"),
        json!(" 25%"),
        json!("-5%"),
        json!("%"),
        json!("5"),
        json!(true),
        json!([]),
    ] {
        assert!(max_upgrades(&bad).is_err(), "{bad}");
    }
    assert!(max_upgrades(&json!("5"))
        .unwrap_err()
        .contains("maxUpgrades: 5 without quotes"));
}

#[test]
fn shares_round_up() {
    assert_eq!(MaxUpgrades::Percent(25).limit(20), 5);
    assert_eq!(MaxUpgrades::Percent(25).limit(10), 3);
    assert_eq!(MaxUpgrades::Percent(1).limit(1), 1);
    assert_eq!(MaxUpgrades::Percent(100).limit(7), 7);
    assert_eq!(MaxUpgrades::Count(3).limit(1), 3);
}

#[test]
fn readiness_is_a_ready_true_condition_of_the_current_generation() {
    let ready = |status: Value| is_ready(&json!({"status": status}));
    assert!(ready(
        json!({"conditions": [{"type": "Ready", "status": "True"}]})
    ));
    assert!(!ready(
        json!({"conditions": [{"type": "Ready", "status": "False"}]})
    ));
    assert!(!ready(
        json!({"conditions": [{"type": "Stalled", "status": "True"}]})
    ));
    assert!(!ready(json!({})));
    let stale = json!({"metadata": {"generation": 3},
        "status": {"conditions": [{"type": "Ready", "status": "True", "observedGeneration": 2}]}});
    assert!(!is_ready(&stale));
    let current = json!({"metadata": {"generation": 3},
        "status": {"conditions": [{"type": "Ready", "status": "True", "observedGeneration": 3}]}});
    assert!(is_ready(&current));
    // One condition per type, as Kubernetes reads them; two of type Ready are a doubt.
    for twice in [["False", "True"], ["True", "False"], ["True", "True"]] {
        assert!(!ready(json!({"conditions": [
            {"type": "Ready", "status": twice[0]},
            {"type": "Ready", "status": twice[1]}]})));
    }
}
