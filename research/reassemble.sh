#!/usr/bin/env bash
# Re-assembles a finished ensemble run with the current han, without retraining its HAN
# members: copies the run folder, drops its model.han, and lets `han train --resume` keep
# every finished member and redo what follows them (the linear member, its weight, the
# calibration, the dev and test scores). For a change in that last step (model.linear_weight)
# measured on runs that took hours to train. The members are the ones the original run
# trained (by the han of that day): the result is that run's, finished by today's han.
#
# Usage: research/reassemble.sh RUN_DIR OUT_DIR RESULT_JSON [LOG_TSV NAME CORPUS SEED]
#   RUN_DIR      a finished ensemble run (config.json, members/<k>/model.han)
#   OUT_DIR      where the copy goes (must not exist)
#   RESULT_JSON  the summary line, with "wall_seconds" (this step's) and "reassembled_from"
#   LOG_TSV ...  also append a line to an accuracy.sh log (NAME: the config named there)
# Env: HAN (default build/han).
set -euo pipefail
[ $# -eq 3 ] || [ $# -eq 7 ] || { sed -n 2,14p "$0" >&2; exit 2; }
run=$1 dest=$2 result=$3
han=${HAN:-build/han}
py=/usr/bin/python3
[ -f "$run/config.json" ] && [ -d "$run/members" ] || { echo "reassemble: $run is not an ensemble run folder" >&2; exit 2; }
[ -e "$dest" ] && { echo "reassemble: $dest exists" >&2; exit 2; }
mkdir -p "$(dirname "$dest")"
cp -r "$run" "$dest"
rm -f "$dest/model.han"
touch "$dest/checkpoint.han"  # marks the run as resumable; an ensemble reads its members' checkpoints only
trap 'rm -f "$dest/checkpoint.han" "$result.tmp"' EXIT
start=$SECONDS
"$han" train --resume "$dest" --quiet > "$result.tmp"
$py -c 'import json,sys; s=json.load(open(sys.argv[1])); s["wall_seconds"]=int(sys.argv[2]); s["reassembled_from"]=sys.argv[3]; print(json.dumps(s))' \
  "$result.tmp" $((SECONDS - start)) "$run" > "$result"
rm -f "$result.tmp"
[ $# -eq 7 ] || exit 0
$py - "$result" "$5" "$6" "$7" >> "$4" <<'EOF'
import json, sys, time
result, config, corpus, seed = sys.argv[1:]
s = json.load(open(result))
if not isinstance(s.get("test"), dict) or "accuracy" not in s["test"]:
    sys.exit("reassemble: the log line needs a single-label run with a test set")
members = s["members"]
print("\t".join([time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), config, corpus, "seed=" + seed, "-",
                 "best_epoch=" + ",".join(str(m["best_epoch"]) for m in members), "dev=%.4f" % s["dev_accuracy"],
                 "test=%.4f" % s["test"]["accuracy"], "seconds=%d" % s["wall_seconds"],
                 "members_test=" + ",".join("%.4f" % m["test"]["accuracy"] for m in members),
                 "linear_weight=%g" % s["linear_member"]["weight"],
                 "note=reassembled from " + s["reassembled_from"] + " (members kept; seconds are this step's)"]))
EOF
