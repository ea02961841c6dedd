#!/usr/bin/env bash
# repositories-from-inventory.sh INVENTORY GIT [NAMESPACE]
#
# Writes to stdout one Repository (config.porch.kpt.dev/v1alpha1) per cluster of the inventory
# file INVENTORY, the targets a PackageVariantSet's repositorySelector chooses from:
#   clusters:
#   - name: edge-east                        # a Kubernetes name: the Repository's name
#     labels: {wave: "2", region: us-east}   # the Repository's labels (strings)
# Each is a deployment repository (spec.deployment: true) whose packages live in the git
# repository GIT (the one the team's GitOps tool reads), under the directory named after the
# cluster (spec.git.directory). NAMESPACE is the set's (default: default). A name or label
# that Kubernetes would refuse, or a name given twice, is refused with nothing written.
# Needs yq, the jq wrapper for YAML (apt-get install yq). Example:
#   scripts/repositories-from-inventory.sh clusters.yaml https://git.example.com/deployments.git > fleet/repositories.yaml
set -euo pipefail
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 INVENTORY GIT [NAMESPACE]" >&2
  exit 2
fi
inventory=$1 git=$2 namespace=${3:-default}
[ -f "$inventory" ] || { echo "$0: $inventory is not a file" >&2; exit 2; }
case $(yq --help 2>&1) in
  *"jq wrapper"*) ;;
  *) echo "$0: needs yq, the jq wrapper for YAML (apt-get install yq or pip install yq) on PATH" >&2; exit 2 ;;
esac
# Checked first, so that nothing is written for an inventory with a mistake in it.
yq -e --arg ns "$namespace" '
  def name_ok: type == "string" and test("^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$");
  def key_ok: type == "string"
    and test("^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$");
  def value_ok: type == "string" and test("^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$");
  if ($ns | name_ok | not) then error("namespace \($ns | tojson) is not a Kubernetes name")
  elif (.clusters | type) != "array" then error("the inventory has no list `clusters`")
  else .clusters | to_entries[] | .key as $i | .value
    | if (type != "object") then error("clusters[\($i)] is not a mapping")
      elif (keys - ["name", "labels"] | length) > 0 then error("clusters[\($i)]: unknown field \(keys - ["name", "labels"] | .[0] | tojson) (write name and labels)")
      elif (.name | name_ok | not) then error("clusters[\($i)].name \(.name | tojson) is not a Kubernetes name (lower case letters, digits, \"-\")")
      elif ((.labels // {}) | type) != "object" then error("clusters[\($i)].labels is not a mapping")
      else (.labels // {}) | to_entries[]
        | if (.key | key_ok | not) then error("clusters[\($i)].labels: \(.key | tojson) is not a label key")
          elif (.value | value_ok | not) then error("clusters[\($i)].labels[\(.key)]: \(.value | tojson) is not a label value (a string: quote a number, \"2\")")
          else empty end
      end
  end, ([.clusters[].name] | if length != (unique | length) then error("a cluster name is given twice") else true end)' "$inventory" > /dev/null ||
  { echo "$0: $inventory: nothing written" >&2; exit 1; }
yq -y --arg ns "$namespace" --arg git "$git" '.clusters[] | {
    apiVersion: "config.porch.kpt.dev/v1alpha1", kind: "Repository",
    metadata: ({name: .name, namespace: $ns} + (if (.labels // {}) == {} then {} else {labels: .labels} end)),
    spec: {type: "git", deployment: true, git: {repo: $git, directory: .name}}
  }' "$inventory"
