//! Property tests of the rollout as one plan (issue 48), through the binary, over generated
//! fleets (2 to 6 sites in int waves 1 to 3, site 0 the canary in wave 1, some sites added
//! later) and SEQUENCES of runs: the fleet is made at revision 1, then the set names revision
//! 2 and each run's output is fed back with a controller's status (Ready True or False on the
//! variants; a v1alpha2 downstream PackageRevision's `Rendered`/`Ready`; a v1alpha1
//! PackageRevisionResources' Kptfile `Rendered`; or nothing, when the controller lags) and a
//! person's edits between runs (narrow or widen the selector, a typo in a label value of the
//! selector or of one Repository, retire the canary, add a site, approve a wave through
//! `approved-wave`, allow deletions, respell a variant's revision `revision: N` <->
//! `workspaceName: vN`, set a sync policy that forbids updates or deletions). Over every
//! run:
//!
//! - all or nothing: exit 0 or 1, and a refused run returns its items as they came;
//! - readiness: under `requireReady`, no variant is upgraded or created while an owned variant
//!   on the new upstream among the items is not Ready, whatever its intent (one being deleted
//!   counts) and whether or not upgrades remain;
//! - approval: under `pauseAfterWave`, while an upgrade is under way, nothing of any kind
//!   (create, upgrade, update, delete) changes in a wave above both the lowest wave of the
//!   fleet (wanted or owned) and the approved one;
//! - reverse deletions: under `deletionOrder: Reverse`, no variant is deleted while an unwanted
//!   variant of a higher wave stays;
//! - the deletion guard's verdict (whether the run is refused) is the same under `Reverse` and
//!   `AllAtOnce`;
//! - the plan is readable: the summary comes first with `tags.phase`, every entry (each owned
//!   variant and each wanted target) is named in the summary, and every entry the run creates,
//!   upgrades, holds, deletes or that blocks has exactly one per-target result (tagged
//!   `action`); one already on the new upstream (unchanged, or respelled) has none unless it
//!   blocks (the per-target results stay within the changes, for the size of a fleet's output);
//! - malformed state (doubled conditions, a mapping for a list, a string revision or
//!   observedGeneration, an empty Kptfile; on a variant, a v1alpha2 draft or a v1alpha1
//!   Kptfile) never makes a run move more than the same input with that state removed, nor
//!   more than with that state written well formed as the failure it may mean (a doubt never
//!   opens a gate); an unquoted integer wave annotation moves exactly as the quoted one.
//!
//! "Moves" are creations, upgrades (a change of revision) and deletions. Each test runs
//! `PROPTEST_CASES` cases (defaults below: about 20 s in all in debug on 2 busy cores when
//! every invariant holds); a step is 1 to 4 runs of the binary.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{is_variant, items_of, run_json};
use proptest::prelude::*;
use serde_json::{json, Value};

const EXT: &str = "fn.kpt.dev/v1alpha1";
const WAVE: &str = "package-variant.fn.kpt.dev/wave";
const APPROVED: &str = "package-variant.fn.kpt.dev/approved-wave";
const ALLOW: &str = "package-variant.fn.kpt.dev/allow-deletions";
const OWNER: &str = "config.porch.kpt.dev/packagevariantset";
const SYNC: &str = "package-variant.fn.kpt.dev/sync-policy";

/// How a site's downstream is doing, as the controller and Porch report it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Health {
    /// The variant reports Ready True; no downstream revision is given.
    Ready,
    /// The variant reports Ready False.
    VariantFalse,
    /// Ready True, but its v1alpha2 draft did not render.
    V2Failed,
    /// Ready True, but its v1alpha1 draft's Kptfile says the render failed.
    V1Failed,
    /// Ready True and a v1alpha2 draft rendered and Ready.
    V2Ok,
    /// Ready True and a v1alpha1 draft whose Kptfile says rendered.
    V1Ok,
}

impl Health {
    fn failed(self) -> bool {
        matches!(self, Health::V2Failed | Health::V1Failed)
    }
}

/// A person's edit (or the controller's lag) between two runs.
#[derive(Debug, Clone, Copy)]
enum Edit {
    Nothing,
    /// Narrow the selector: `site NotIn` gains the site (site 0: retire the canary).
    Exclude(usize),
    /// Widen it again.
    Include(usize),
    /// `matchLabels: {fleet: yse}`: selects nothing.
    SelectorTypo,
    FixTypo,
    /// The site's Repository is labelled `fleet: yse` (toggles).
    SiteTypo(usize),
    /// The site's Repository appears.
    AddSite(usize),
    Approve(u8),
    Unapprove,
    AllowDeletions(bool),
    /// The `sync-policy` annotation (`None`: the default, `sync`).
    SyncPolicy(Option<&'static str>),
    Health(usize, Health),
    /// The site's variant spelled `workspaceName: vN` instead of `revision: N`, or back.
    Respell(usize),
    /// The controller writes no status before the next run.
    ControllerLags,
}

/// State that is not well formed, put on one site for a side run.
#[derive(Debug, Clone, Copy)]
enum Malformed {
    /// The variant's conditions: `[Ready True, Ready False]`.
    ReadyTwice,
    /// The variant's `status.conditions` a mapping instead of a list.
    ConditionsMap,
    /// `observedGeneration: "1"`.
    StringObservedGeneration,
    /// The variant's wave annotation an unquoted integer.
    IntWaveAnnotation,
    /// A v1alpha2 draft with `[Rendered True, Rendered False]`.
    V2RenderedTwice,
    /// A v1alpha2 draft whose `status.conditions` is a mapping.
    V2ConditionsMap,
    /// A Kptfile with `[Rendered True, Rendered False]`.
    KptfileTwice,
    /// A Kptfile whose `status.conditions` is a mapping.
    KptfileMap,
    /// A Kptfile that is `""`.
    KptfileEmpty,
    /// A failed published revision whose PackageRevisionResources says `revision: "2"`.
    PrrStringRevision,
}

#[derive(Debug, Clone)]
struct Edits {
    edits: Vec<Edit>,
    malformed: (usize, Malformed),
}

#[derive(Debug, Clone)]
struct Case {
    waves: Vec<u8>,
    /// Sites whose Repository is not there at first.
    absent: Vec<bool>,
    require_ready: bool,
    pause: bool,
    reverse: bool,
    max_upgrades: Option<u8>,
    steps: Vec<Edits>,
}

fn health() -> impl Strategy<Value = Health> {
    prop_oneof![
        3 => Just(Health::Ready),
        2 => Just(Health::VariantFalse),
        1 => Just(Health::V2Failed),
        1 => Just(Health::V1Failed),
        1 => Just(Health::V2Ok),
        1 => Just(Health::V1Ok),
    ]
}

fn edit(n: usize) -> impl Strategy<Value = Edit> {
    prop_oneof![
        2 => Just(Edit::Nothing),
        2 => (0..n).prop_map(Edit::Exclude),
        2 => Just(Edit::Exclude(0)),
        1 => (0..n).prop_map(Edit::Include),
        1 => Just(Edit::SelectorTypo),
        1 => Just(Edit::FixTypo),
        1 => (0..n).prop_map(Edit::SiteTypo),
        3 => (0..n).prop_map(Edit::AddSite),
        2 => (1..=3u8).prop_map(Edit::Approve),
        1 => Just(Edit::Unapprove),
        1 => any::<bool>().prop_map(Edit::AllowDeletions),
        1 => prop_oneof![
            Just(None),
            Just(Some("create-delete")),
            Just(Some("create-only"))
        ]
        .prop_map(Edit::SyncPolicy),
        5 => (0..n, health()).prop_map(|(i, h)| Edit::Health(i, h)),
        // The canary fails, through either API: the case the gates exist for.
        3 => prop_oneof![
            Just(Health::VariantFalse),
            Just(Health::V2Failed),
            Just(Health::V1Failed)
        ]
        .prop_map(|h| Edit::Health(0, h)),
        2 => (0..n).prop_map(Edit::Respell),
        1 => Just(Edit::ControllerLags),
    ]
}

fn malformed() -> impl Strategy<Value = Malformed> {
    prop_oneof![
        Just(Malformed::ReadyTwice),
        Just(Malformed::ConditionsMap),
        Just(Malformed::StringObservedGeneration),
        Just(Malformed::IntWaveAnnotation),
        Just(Malformed::V2RenderedTwice),
        Just(Malformed::V2ConditionsMap),
        Just(Malformed::KptfileTwice),
        Just(Malformed::KptfileMap),
        Just(Malformed::KptfileEmpty),
        Just(Malformed::PrrStringRevision),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (2..=6usize).prop_flat_map(|n| {
        (
            prop::collection::vec(1..=3u8, n),
            prop::collection::vec(prop::bool::weighted(0.5), n),
            prop::bool::weighted(0.75),
            any::<bool>(),
            any::<bool>(),
            prop_oneof![3 => Just(None), 1 => Just(Some(1u8))],
            prop::collection::vec(
                (prop::collection::vec(edit(n), 1..=3), (0..n, malformed()))
                    .prop_map(|(edits, malformed)| Edits { edits, malformed }),
                2..=5,
            ),
        )
            .prop_map(
                |(mut waves, mut absent, require_ready, pause, reverse, max_upgrades, steps)| {
                    // Site 0 is the canary: wave 1, there from the start.
                    waves[0] = 1;
                    absent[0] = false;
                    Case {
                        waves,
                        absent,
                        require_ready,
                        pause,
                        reverse,
                        max_upgrades,
                        steps,
                    }
                },
            )
    })
}

/// What the user and the controller have made of the fleet so far.
#[derive(Debug, Clone)]
struct World {
    present: Vec<bool>,
    excluded: BTreeSet<usize>,
    typo: bool,
    site_typo: BTreeSet<usize>,
    approved: Option<u8>,
    allow: bool,
    sync_policy: Option<&'static str>,
    health: Vec<Health>,
    lag: bool,
    /// The PackageVariants as the last run left them.
    variants: Vec<Value>,
}

fn repo(i: usize) -> String {
    format!("site-{i}")
}

fn name(i: usize) -> String {
    format!("fleet-site-{i}-base")
}

fn site_of(v: &Value) -> Option<usize> {
    v["spec"]["downstream"]["repo"]
        .as_str()?
        .strip_prefix("site-")?
        .parse()
        .ok()
}

fn blueprint(r: i64) -> Value {
    json!({"apiVersion": "porch.kpt.dev/v1alpha1", "kind": "PackageRevision",
        "metadata": {"name": format!("blueprints.base.v{r}")},
        "spec": {"repository": "blueprints", "packageName": "base", "revision": r,
            "workspaceName": format!("v{r}"), "lifecycle": "Published"}})
}

/// The revision a variant is on: `revision`, else `workspaceName: vN`.
fn revision(v: &Value) -> Option<i64> {
    let u = &v["spec"]["upstream"];
    u["revision"]
        .as_i64()
        .or_else(|| u["workspaceName"].as_str()?.strip_prefix('v')?.parse().ok())
}

fn kptfile(conditions: &str) -> String {
    format!("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: base\nstatus:\n  conditions:\n{conditions}")
}

const KPT_TRUE: &str = "  - type: Rendered\n    status: \"True\"\n    reason: RenderSuccess\n";
const KPT_FALSE: &str =
    "  - type: Rendered\n    status: \"False\"\n    reason: RenderFailed\n    message: boom\n";

fn v1_revision(i: usize, workspace: &str, revision: i64, lifecycle: &str) -> Value {
    json!({"apiVersion": "porch.kpt.dev/v1alpha1", "kind": "PackageRevision",
        "metadata": {"name": format!("site-{i}.base.{workspace}")},
        "spec": {"repository": repo(i), "packageName": "base", "workspaceName": workspace,
            "revision": revision, "lifecycle": lifecycle}})
}

fn v1_resources(i: usize, workspace: &str, revision: Option<Value>, kptfile: &str) -> Value {
    let mut prr = json!({"apiVersion": "porch.kpt.dev/v1alpha1",
        "kind": "PackageRevisionResources",
        "metadata": {"name": format!("site-{i}.base.{workspace}")},
        "spec": {"repository": repo(i), "packageName": "base", "workspaceName": workspace,
            "resources": {"Kptfile": kptfile, "cm.yaml": "kind: ConfigMap\n"}}});
    if let Some(r) = revision {
        prr["spec"]["revision"] = r;
    }
    prr
}

fn v2_draft(i: usize, status: Option<Value>) -> Value {
    let mut pr = json!({"apiVersion": "porch.kpt.dev/v1alpha2", "kind": "PackageRevision",
        "metadata": {"name": format!("site-{i}.base.draft")},
        "spec": {"repository": repo(i), "packageName": "base", "workspaceName": "draft",
            "lifecycle": "Draft"}});
    if let Some(s) = status {
        pr["status"] = s;
    }
    pr
}

/// The downstream revisions Porch shows for a site in health `h`.
fn downstream(i: usize, h: Health) -> Vec<Value> {
    let cond = |t: &str, s: &str| json!({"type": t, "status": s});
    match h {
        Health::Ready | Health::VariantFalse => vec![],
        Health::V2Failed => vec![v2_draft(
            i,
            Some(json!({"conditions": [cond("Rendered", "False"), cond("Ready", "False")]})),
        )],
        Health::V2Ok => vec![v2_draft(
            i,
            Some(json!({"conditions": [cond("Rendered", "True"), cond("Ready", "True")]})),
        )],
        Health::V1Failed | Health::V1Ok => {
            let k = if h == Health::V1Failed {
                KPT_FALSE
            } else {
                KPT_TRUE
            };
            vec![
                v1_revision(i, "draft", 0, "Draft"),
                v1_resources(i, "draft", Some(json!(0)), &kptfile(k)),
            ]
        }
    }
}

impl World {
    fn new(case: &Case) -> World {
        World {
            present: case.absent.iter().map(|a| !a).collect(),
            excluded: BTreeSet::new(),
            typo: false,
            site_typo: BTreeSet::new(),
            approved: None,
            allow: false,
            sync_policy: None,
            health: vec![Health::Ready; case.waves.len()],
            lag: false,
            variants: vec![],
        }
    }

    fn apply(&mut self, case: &Case, edit: Edit) {
        match edit {
            Edit::Nothing => {}
            Edit::Exclude(i) => {
                self.excluded.insert(i);
            }
            Edit::Include(i) => {
                self.excluded.remove(&i);
            }
            Edit::SelectorTypo => self.typo = true,
            Edit::FixTypo => self.typo = false,
            Edit::SiteTypo(i) => {
                if !self.site_typo.remove(&i) {
                    self.site_typo.insert(i);
                }
            }
            Edit::AddSite(i) => self.present[i] = true,
            // approved-wave without pauseAfterWave is refused: only a paused set is approved.
            Edit::Approve(w) => self.approved = Some(w).filter(|_| case.pause),
            Edit::Unapprove => self.approved = None,
            Edit::AllowDeletions(a) => self.allow = a,
            Edit::SyncPolicy(p) => self.sync_policy = p,
            Edit::Health(i, h) => self.health[i] = h,
            Edit::Respell(i) => {
                for v in self.variants.iter_mut().filter(|v| site_of(v) == Some(i)) {
                    let u = &mut v["spec"]["upstream"];
                    if let Some(r) = u["revision"].as_i64() {
                        u.as_object_mut().unwrap().remove("revision");
                        u["workspaceName"] = json!(format!("v{r}"));
                    } else if let Some(r) = revision(v) {
                        let u = &mut v["spec"]["upstream"];
                        u.as_object_mut().unwrap().remove("workspaceName");
                        u["revision"] = json!(r);
                    }
                }
            }
            Edit::ControllerLags => self.lag = true,
        }
    }

    /// The controller reports each variant's Ready as its site's health says.
    fn reconcile(&mut self) {
        for v in self.variants.iter_mut() {
            let h = site_of(v).map_or(Health::Ready, |i| self.health[i]);
            let status = if h == Health::VariantFalse {
                "False"
            } else {
                "True"
            };
            v["status"] = json!({"conditions": [{"type": "Ready", "status": status}]});
        }
    }

    fn wanted(&self, i: usize) -> bool {
        self.present[i] && !self.excluded.contains(&i) && !self.typo && !self.site_typo.contains(&i)
    }

    /// The input of the next run: the blueprints, the Repositories, the variants, and the
    /// downstream revisions of each site with a variant.
    fn items(&self, case: &Case) -> Vec<Value> {
        let mut items = vec![blueprint(1), blueprint(2)];
        for i in 0..case.waves.len() {
            if self.present[i] {
                // Not the selector's typo ("yse"): with both, the site would be selected.
                let fleet = if self.site_typo.contains(&i) {
                    "yess"
                } else {
                    "yes"
                };
                items.push(json!({"apiVersion": "config.porch.kpt.dev/v1alpha1",
                    "kind": "Repository",
                    "metadata": {"name": repo(i), "labels": {"fleet": fleet,
                        "wave": case.waves[i].to_string(), "site": format!("s{i}")}},
                    "spec": {"type": "git"}}));
            }
        }
        items.extend(self.variants.iter().cloned());
        for v in &self.variants {
            if let Some(i) = site_of(v) {
                items.extend(downstream(i, self.health[i]));
            }
        }
        items
    }

    fn config(&self, case: &Case, revision: i64, reverse: bool) -> Value {
        let mut rollout = json!({"waveExpr": "int(target.labels['wave'])",
            "deletionOrder": if reverse { "Reverse" } else { "AllAtOnce" }});
        if case.require_ready {
            rollout["requireReady"] = json!(true);
        }
        if case.pause {
            rollout["pauseAfterWave"] = json!(true);
        }
        if let Some(m) = case.max_upgrades {
            rollout["maxUpgrades"] = json!(m);
        }
        let mut selector = json!({"matchLabels": {"fleet": if self.typo { "yse" } else { "yes" }}});
        if !self.excluded.is_empty() {
            let values: Vec<String> = self.excluded.iter().map(|i| format!("s{i}")).collect();
            selector["matchExpressions"] =
                json!([{"key": "site", "operator": "NotIn", "values": values}]);
        }
        let mut annotations = serde_json::Map::new();
        if let Some(w) = self.approved {
            annotations.insert(APPROVED.into(), json!(w.to_string()));
        }
        if self.allow {
            annotations.insert(ALLOW.into(), json!("all"));
        }
        if let Some(p) = self.sync_policy {
            annotations.insert(SYNC.into(), json!(p));
        }
        json!({"apiVersion": EXT, "kind": "PackageVariantSet",
            "metadata": {"name": "fleet", "annotations": annotations},
            "spec": {"upstream": {"repo": "blueprints", "package": "base", "revision": revision},
                "targets": [{"repositorySelector": selector}],
                "rollout": rollout}})
    }
}

/// One run: exit code, output items, results. A panic, a crash or an output that does not
/// parse fails the case.
fn run(items: &[Value], config: &Value) -> Result<(i32, Vec<Value>, Vec<Value>), TestCaseError> {
    let (out, parsed) = run_json(items, config);
    prop_assert!(
        (out.code == 0 || out.code == 1) && !parsed.is_null(),
        "exit {}: {}",
        out.code,
        out.stderr
    );
    let output = items_of(&parsed);
    if out.code == 1 {
        prop_assert_eq!(&output, &items.to_vec(), "a refused run changed its items");
    }
    let results = parsed["results"].as_array().cloned().unwrap_or_default();
    Ok((out.code, output, results))
}

/// The owned variants of `items`, by name.
fn variants(items: &[Value]) -> BTreeMap<String, Value> {
    items
        .iter()
        .filter(|v| is_variant(v) && v["metadata"]["labels"][OWNER] == "fleet")
        .map(|v| {
            (
                v["metadata"]["name"].as_str().unwrap_or("").to_string(),
                v.clone(),
            )
        })
        .collect()
}

/// What a run moved: (name, "create" | "upgrade" | "delete").
fn moved(before: &[Value], after: &[Value]) -> BTreeSet<(String, &'static str)> {
    let (b, a) = (variants(before), variants(after));
    let mut m = BTreeSet::new();
    for (n, v) in &a {
        match b.get(n) {
            None => {
                m.insert((n.clone(), "create"));
            }
            Some(old) if revision(old) != revision(v) => {
                m.insert((n.clone(), "upgrade"));
            }
            Some(_) => {}
        }
    }
    for n in b.keys().filter(|n| !a.contains_key(*n)) {
        m.insert((n.clone(), "delete"));
    }
    m
}

/// Whether a variant among `items` is Ready: one Ready condition, True, and no failed render
/// among its downstream revisions (the world's health says which).
fn ready(v: &Value, world: &World) -> bool {
    let conditions = v["status"]["conditions"].as_array();
    let readies: Vec<&Value> = conditions
        .into_iter()
        .flatten()
        .filter(|c| c["type"] == "Ready")
        .collect();
    let own = readies.len() == 1 && readies[0]["status"] == "True";
    own && site_of(v).is_none_or(|i| !world.health[i].failed())
}

/// The invariants of one run of the main sequence (input `items`, made by `world`).
fn gate_violations(
    case: &Case,
    world: &World,
    items: &[Value],
    code: i32,
    output: &[Value],
) -> Vec<String> {
    let mut found = Vec::new();
    let before = variants(items);
    let after = variants(output);
    let moves = moved(items, output);
    let wave = |n: &str| -> u8 {
        before
            .get(n)
            .or_else(|| after.get(n))
            .and_then(site_of)
            .map_or(0, |i| case.waves[i])
    };
    // Readiness.
    let not_ready: Vec<&String> = before
        .iter()
        .filter(|(_, v)| revision(v) == Some(2) && !ready(v, world))
        .map(|(n, _)| n)
        .collect();
    if case.require_ready && !not_ready.is_empty() {
        let moving: Vec<_> = moves.iter().filter(|(_, k)| *k != "delete").collect();
        if !moving.is_empty() {
            found.push(format!(
                "readiness: {moving:?} moved while {not_ready:?} on the new upstream is not Ready"
            ));
        }
    }
    // Approval.
    let n = case.waves.len();
    let under_way = (0..n)
        .filter(|&i| world.wanted(i))
        .any(|i| before.get(&name(i)).is_some_and(|v| revision(v) != Some(2)));
    if case.pause && under_way && code == 0 {
        let lowest = (0..n)
            .filter(|&i| world.wanted(i) || before.contains_key(&name(i)))
            .map(|i| case.waves[i])
            .min()
            .unwrap_or(1);
        let open = lowest.max(world.approved.unwrap_or(0));
        for i in (0..n).filter(|&i| case.waves[i] > open) {
            let (b, a) = (before.get(&name(i)), after.get(&name(i)));
            if b != a {
                found.push(format!(
                    "approval: {} (wave {}) changed in an unapproved wave (open up to {open})",
                    name(i),
                    case.waves[i]
                ));
            }
        }
    }
    // Reverse deletions.
    if case.reverse && code == 0 {
        let deleted: Vec<&String> = before.keys().filter(|n| !after.contains_key(*n)).collect();
        let staying: Vec<&String> = after
            .keys()
            .filter(|n| before.contains_key(*n))
            .filter(|n| {
                after
                    .get(*n)
                    .and_then(site_of)
                    .is_some_and(|i| !world.wanted(i))
            })
            .collect();
        for d in &deleted {
            for s in &staying {
                if wave(d) < wave(s) {
                    found.push(format!(
                        "reverse: {d} (wave {}) deleted while {s} (wave {}) waits",
                        wave(d),
                        wave(s)
                    ));
                }
            }
        }
    }
    found
}

/// The plan as results: summary first with a phase; every entry (each owned variant and
/// each wanted target) named in the summary; exactly one per-target result for each, but
/// for a wanted variant already on the new upstream: none, or one when it blocks.
fn report_violations(
    case: &Case,
    world: &World,
    items: &[Value],
    results: &[Value],
) -> Vec<String> {
    let mut found = Vec::new();
    let first = results.first().cloned().unwrap_or(Value::Null);
    if first["tags"]["phase"].as_str().is_none_or(str::is_empty) {
        found.push(format!(
            "the first result has no tags.phase: {}",
            first["message"]
        ));
    }
    let summary = first["message"].as_str().unwrap_or("");
    let mut entries: BTreeSet<String> = variants(items).into_keys().collect();
    entries.extend((0..case.waves.len()).filter(|&i| world.wanted(i)).map(name));
    // The wanted variants already on the new upstream: the plan leaves them as they are.
    let on_new: BTreeSet<String> = variants(items)
        .into_iter()
        .filter(|(_, v)| revision(v) == Some(2) && site_of(v).is_some_and(|i| world.wanted(i)))
        .map(|(n, _)| n)
        .collect();
    let mut per_target: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in results {
        if let Some(action) = r["tags"]["action"].as_str() {
            let n = r["resourceRef"]["name"].as_str().unwrap_or("").to_string();
            per_target.entry(n).or_default().push(action.to_string());
        }
    }
    for e in &entries {
        let actions = per_target.get(e).cloned().unwrap_or_default();
        let fits = if on_new.contains(e) {
            actions.is_empty() || actions == ["blocking"]
        } else {
            actions.len() == 1
        };
        if !fits {
            found.push(format!("{e} has per-target results {actions:?}"));
        }
        if !summary.contains(e.as_str()) {
            found.push(format!("{e} is in no group of the summary"));
        }
    }
    for n in per_target.keys().filter(|n| !entries.contains(*n)) {
        found.push(format!("a per-target result for {n}, which is no entry"));
    }
    found
}

/// One run of a sequence: what went in, and what came out.
struct Ran<'a> {
    world: &'a World,
    step: &'a Edits,
    config: &'a Value,
    items: &'a [Value],
    code: i32,
    output: &'a [Value],
    results: &'a [Value],
}

/// Runs `case`'s sequence, calling `check` on each run after the fleet is made; stops at the
/// first step with a violation.
fn sequence(
    case: &Case,
    mut check: impl FnMut(&Ran) -> Result<Vec<String>, TestCaseError>,
) -> Result<(), TestCaseError> {
    let mut world = World::new(case);
    let items = world.items(case);
    let (code, output, results) = run(&items, &world.config(case, 1, case.reverse))?;
    prop_assert_eq!(code, 0, "the fleet at revision 1: {:#?}", results);
    world.variants = variants(&output).into_values().collect();
    world.reconcile();
    for (k, step) in case.steps.iter().enumerate() {
        for e in &step.edits {
            world.apply(case, *e);
        }
        if !world.lag {
            world.reconcile();
        }
        world.lag = false;
        let items = world.items(case);
        let config = world.config(case, 2, case.reverse);
        let (code, output, results) = run(&items, &config)?;
        let found = check(&Ran {
            world: &world,
            step,
            config: &config,
            items: &items,
            code,
            output: &output,
            results: &results,
        })?;
        prop_assert!(
            found.is_empty(),
            "step {} ({:?}): {:#?}\nresults: {:#?}",
            k,
            step.edits,
            found,
            results
        );
        if code == 0 {
            world.variants = variants(&output).into_values().collect();
        }
    }
    Ok(())
}

/// What a malformed input is compared with: a name, the input, and whether the malformed
/// one may move only a subset of it (else exactly as much).
type Reference = (&'static str, Vec<Value>, bool);

/// `items` with the state `kind` on site `i`, and the inputs it is compared with: the same
/// input with that state removed, and the same state written well formed as the failure it
/// may mean (a doubt never opens a gate); for the wave annotation, the same value quoted.
/// `None` when site `i` has no variant.
fn malformed_inputs(
    items: &[Value],
    i: usize,
    kind: Malformed,
) -> Option<(Vec<Value>, Vec<Reference>)> {
    let at = items
        .iter()
        .position(|v| is_variant(v) && site_of(v) == Some(i))?;
    let mut bad = items.to_vec();
    let cond = |t: &str, s: &str| json!({"type": t, "status": s});
    match kind {
        Malformed::ReadyTwice | Malformed::ConditionsMap | Malformed::StringObservedGeneration => {
            let mut removed = items.to_vec();
            removed[at].as_object_mut().unwrap().remove("status");
            let mut strict = removed.clone();
            match kind {
                Malformed::ReadyTwice => {
                    bad[at]["status"] =
                        json!({"conditions": [cond("Ready", "True"), cond("Ready", "False")]});
                    strict[at]["status"] = json!({"conditions": [cond("Ready", "False")]});
                }
                Malformed::ConditionsMap => {
                    bad[at]["status"] = json!({"conditions": cond("Ready", "True")});
                }
                _ => {
                    for list in [&mut bad, &mut strict] {
                        list[at]["metadata"]["generation"] = json!(2);
                    }
                    bad[at]["status"] = json!({"conditions": [{"type": "Ready",
                        "status": "True", "observedGeneration": "1"}]});
                    strict[at]["status"] = json!({"conditions": [{"type": "Ready",
                        "status": "True", "observedGeneration": 1}]});
                }
            }
            return Some((
                bad,
                vec![("removed", removed, true), ("well formed", strict, true)],
            ));
        }
        Malformed::IntWaveAnnotation => {
            let w = bad[at]["metadata"]["annotations"][WAVE]
                .as_str()?
                .parse::<i64>()
                .ok()?;
            bad[at]["metadata"]["annotations"][WAVE] = json!(w);
            return Some((bad, vec![("quoted", items.to_vec(), false)]));
        }
        _ => {}
    }
    // The site's downstream revisions are replaced.
    let other = |v: &Value| {
        !(matches!(
            v["kind"].as_str(),
            Some("PackageRevision" | "PackageRevisionResources")
        ) && v["spec"]["repository"] == repo(i).as_str())
    };
    bad.retain(other);
    let mut removed = bad.clone();
    let mut strict = bad.clone();
    let failed_list = json!({"conditions": [cond("Rendered", "False")]});
    let bare = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: base\n";
    match kind {
        Malformed::V2RenderedTwice | Malformed::V2ConditionsMap => {
            let status = if matches!(kind, Malformed::V2RenderedTwice) {
                json!({"conditions": [cond("Rendered", "True"), cond("Rendered", "False")]})
            } else {
                json!({"conditions": cond("Rendered", "False")})
            };
            bad.push(v2_draft(i, Some(status)));
            removed.push(v2_draft(i, None));
            strict.push(v2_draft(i, Some(failed_list)));
        }
        Malformed::KptfileTwice | Malformed::KptfileMap | Malformed::KptfileEmpty => {
            let text = match kind {
                Malformed::KptfileTwice => kptfile(&format!("{KPT_TRUE}{KPT_FALSE}")),
                Malformed::KptfileMap => kptfile("    Rendered: \"False\"\n"),
                _ => String::new(),
            };
            for list in [&mut bad, &mut removed, &mut strict] {
                list.push(v1_revision(i, "draft", 0, "Draft"));
            }
            bad.push(v1_resources(i, "draft", Some(json!(0)), &text));
            removed.push(v1_resources(i, "draft", Some(json!(0)), bare));
            let failed = if matches!(kind, Malformed::KptfileEmpty) {
                bare.to_string()
            } else {
                kptfile(KPT_FALSE)
            };
            strict.push(v1_resources(i, "draft", Some(json!(0)), &failed));
        }
        _ => {
            // PrrStringRevision: revision 1 rendered, revision 2 failed, its number a string
            // (absent when removed, an integer when well formed).
            for list in [&mut bad, &mut removed, &mut strict] {
                list.push(v1_revision(i, "v1", 1, "Published"));
                list.push(v1_resources(i, "v1", Some(json!(1)), &kptfile(KPT_TRUE)));
                list.push(v1_revision(i, "v2", 2, "Published"));
            }
            let failed = kptfile(KPT_FALSE);
            bad.push(v1_resources(i, "v2", Some(json!("2")), &failed));
            removed.push(v1_resources(i, "v2", None, &failed));
            strict.push(v1_resources(i, "v2", Some(json!(2)), &failed));
        }
    }
    Some((
        bad,
        vec![("removed", removed, true), ("well formed", strict, true)],
    ))
}

/// Cases of each test unless `PROPTEST_CASES` says otherwise; shrinking is bounded, each try
/// being several runs of the binary.
fn config(default: u32) -> ProptestConfig {
    ProptestConfig {
        max_shrink_iters: 200,
        max_shrink_time: 30_000,
        ..common::proptest_config(default)
    }
}

proptest! {
    #![proptest_config(config(20))]

    /// Readiness, approval and reverse deletions hold over every run of a sequence, and the
    /// deletion guard's verdict does not depend on `deletionOrder`.
    #[test]
    fn sequences_hold_every_gate(c in case()) {
        sequence(&c, |r| {
            let mut found = gate_violations(&c, r.world, r.items, r.code, r.output);
            let flipped = r.world.config(&c, 2, !c.reverse);
            let (other, _, results) = run(r.items, &flipped)?;
            let code = r.code;
            if other != code {
                found.push(format!(
                    "the guard: exit {code} under {}, {other} under the other order: {results:#?}",
                    if c.reverse { "Reverse" } else { "AllAtOnce" }
                ));
            }
            Ok(found)
        })?;
    }
}

proptest! {
    #![proptest_config(config(16))]

    /// Every run's results are the plan: the summary first with its phase, one per-target
    /// result per entry.
    #[test]
    fn sequences_report_every_entry_once(c in case()) {
        sequence(&c, |r| {
            Ok(if r.code == 0 { report_violations(&c, r.world, r.items, r.results) } else { vec![] })
        })?;
    }
}

proptest! {
    #![proptest_config(config(16))]

    /// Malformed state on one site never makes a run move more than the same input with that
    /// state removed.
    #[test]
    fn malformed_state_never_moves_more(c in case()) {
        sequence(&c, |r| {
            let (i, kind) = r.step.malformed;
            let Some((bad, references)) = malformed_inputs(r.items, i, kind) else {
                return Ok(vec![]);
            };
            let (_, bad_out, bad_results) = run(&bad, r.config)?;
            let m_bad = moved(&bad, &bad_out);
            let mut found = Vec::new();
            for (what, reference, subset) in references {
                let (_, ref_out, _) = run(&reference, r.config)?;
                let m_ref = moved(&reference, &ref_out);
                let ok = if subset { m_bad.is_subset(&m_ref) } else { m_bad == m_ref };
                if !ok {
                    found.push(format!(
                        "{kind:?} on site {i} moved {m_bad:?}; {what}: {m_ref:?}: {bad_results:#?}"
                    ));
                }
            }
            Ok(found)
        })?;
    }
}
