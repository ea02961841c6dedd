#!/usr/bin/env bash
# apply-fleet.sh FLEET DEPLOYMENTS [OBJECTS_DIR]
#
# Turns every PackageVariant in the folder FLEET (a PackageVariantSet's output, beside the
# Repositories and PackageRevisions it read) into its downstream package in DEPLOYMENTS, a git
# checkout of the repository the team's GitOps tool reads; what Porch's PackageVariant
# controller does, with kpt and git:
#   - the package goes to DEPLOYMENTS/<dir>/<downstream package>, <dir> the downstream
#     Repository's spec.git.directory (its name without one);
#   - the upstream is the upstream Repository's spec.git.repo (a path or URL ending in .git, as
#     kpt reads it) at the tag <upstream package>/v<revision>;
#   - a package not there yet is cloned (kpt pkg get --for-deployment); one on another tag is
#     updated to it (kpt pkg update --strategy resource-merge: the variant's earlier edits are
#     kept, so DEPLOYMENTS must be committed before); then the variant is applied to it with
#     scripts/apply-variant.sh, with OBJECTS_DIR/<downstream repo>.yaml as its cluster objects
#     when that file exists.
# Running it again changes nothing. It does not commit, and it never deletes a package whose
# variant is gone: both are the team's reviewed commits. Every name and directory is checked
# before anything is written; a variant that cannot be applied stops the run (the packages
# before it are applied, the one that failed is as it was).
# Needs bash, git, kpt, yq (the jq wrapper for YAML) and package-variant on PATH. Example:
#   scripts/apply-fleet.sh fleet ../deployments
set -euo pipefail
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 FLEET DEPLOYMENTS [OBJECTS_DIR]" >&2
  exit 2
fi
fleet=$1 deployments=$2 objects=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
[ -d "$fleet" ] || { echo "$0: $fleet is not a directory" >&2; exit 2; }
git -C "$deployments" rev-parse --show-toplevel > /dev/null 2>&1 ||
  { echo "$0: $deployments is not a git checkout (kpt pkg update merges with what git has)" >&2; exit 2; }
case $(yq --help 2>&1) in
  *"jq wrapper"*) ;;
  *) echo "$0: needs yq, the jq wrapper for YAML (apt-get install yq or pip install yq) on PATH" >&2; exit 2 ;;
esac
deployments=$(cd "$deployments" && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kpt fn source "$fleet" > "$work/fleet.yaml"
# One line per PackageVariant, tab separated: file, name, upstream URL, tag, directory,
# downstream package, upstream package, downstream repo (the checks below refuse a control
# character in the paths).
yq -r '
  def path_of: .metadata.annotations["internal.config.kubernetes.io/path"];
  (.items | map(select(.kind == "Repository")) | map({key: .metadata.name, value: .}) | from_entries) as $repos
  | (.items | map(path_of) | group_by(.) | map(select(length > 1) | .[0])) as $shared
  | .items[] | select(.kind == "PackageVariant") | .metadata.name as $pv
  | if (path_of | IN($shared[])) then error("\(path_of): PackageVariant \($pv) shares its file with another item; apply-variant.sh reads one variant per file") else . end
  | .spec.upstream as $u | .spec.downstream as $d
  | if ($u.revision | type) != "number" or $u.revision < 1 or ($u.revision | floor) != $u.revision then error("PackageVariant \($pv): spec.upstream.revision \($u.revision | tojson) is not a revision from 1") else . end
  | ($repos[$u.repo] // error("PackageVariant \($pv): no Repository \($u.repo | tojson) among the fleet'"'"'s items")) as $ur
  | ($repos[$d.repo] // error("PackageVariant \($pv): no Repository \($d.repo | tojson) among the fleet'"'"'s items")) as $dr
  | [path_of, $pv, ($ur.spec.git.repo // error("Repository \($u.repo): no spec.git.repo")),
     "\($u.package)/v\($u.revision)", ($dr.spec.git.directory // $d.repo), $d.package, $u.package, $d.repo]
  | map(tostring)
  | if any(.[]; test("[[:cntrl:]]")) then error("PackageVariant \($pv): a control character in \(map(select(test("[[:cntrl:]]"))) | .[0] | tojson)") else . end
  | join("\t")' "$work/fleet.yaml" > "$work/variants" ||
  { echo "$0: nothing was applied" >&2; exit 1; }

# A relative path of plain names: no "..", no leading "/", no control character.
safe() {
  [[ -n $1 && $1 != /* && $1 != *$'\n'* && ! $1 =~ [[:cntrl:]] ]] || return 1
  local part parts
  IFS=/ read -ra parts <<< "$1"
  for part in "${parts[@]}"; do [[ -n $part && $part != .. && $part != . ]] || return 1; done
}
while IFS=$'\t' read -r file pv url ref dir package upstream_package downstream_repo; do
  for v in "$file" "$dir" "$package" "$upstream_package" "$downstream_repo"; do
    safe "$v" || { echo "$0: PackageVariant $pv: '$v' is not a relative path inside the package; nothing was applied" >&2; exit 1; }
  done
  [[ $url == *.git ]] || { echo "$0: PackageVariant $pv: the upstream '$url' does not end in .git (kpt reads REPO.git/PACKAGE@REF); nothing was applied" >&2; exit 1; }
done < "$work/variants"

while IFS=$'\t' read -r file pv url ref dir package upstream_package downstream_repo; do
  rel=$dir/$package
  if [ ! -e "$deployments/$rel/Kptfile" ]; then
    echo "$pv: $rel: kpt pkg get $upstream_package@$ref" >&2
    mkdir -p "$deployments/$dir"
    kpt pkg get "$url/$upstream_package@$ref" "$deployments/$rel" --for-deployment > "$work/log" 2>&1 ||
      { cat "$work/log" >&2; exit 1; }
  else
    on=$(yq -r '.upstream.git.ref // ""' "$deployments/$rel/Kptfile")
    if [ "$on" != "$ref" ]; then
      echo "$pv: $rel: kpt pkg update $on -> $ref" >&2
      (cd "$deployments" && kpt pkg update "$rel@$ref" --strategy resource-merge) > "$work/log" 2>&1 ||
        { cat "$work/log" >&2; exit 1; }
    fi
  fi
  set -- "$fleet/$file" "$deployments/$rel"
  if [ -n "$objects" ] && [ -f "$objects/$downstream_repo.yaml" ]; then
    set -- "$@" "$objects/$downstream_repo.yaml"
  fi
  echo "$pv: $rel: scripts/apply-variant.sh" >&2
  "$here/apply-variant.sh" "$@"
done < "$work/variants"
