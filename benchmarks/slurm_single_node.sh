#!/bin/bash
# The job array of docs/cluster.md on a single-node Slurm, with the simulator (no API key, no cost).
#
# NOT a CI test: it installs nothing but configures and starts Slurm's daemons (munged, slurmctld,
# slurmd) on this machine, so run it as root in a throwaway container or VM with Debian's
# packages installed (apt-get install -y slurm-wlm munge). It stops the daemons it started.
#
#   benchmarks/slurm_single_node.sh [WORKDIR]
#
# What it checks, printing PASS/FAIL per line:
#  1. a 2-task array (--shard K/2) runs every session of a small matrix exactly once;
#  2. `scancel --signal=TERM JOB_K` does not reach the batch step (the task goes on), while
#     `scancel --batch --signal=TERM JOB_K` does: its sessions end `interrupted`, void_reason
#     "SIGTERM to run-all", and Slurm writes its CANCELLED line (plain `scancel` is the same
#     SIGTERM, then SIGKILL after KillWait);
#  3. `--rerun-voided` reruns those sessions.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${1:-$(mktemp -d /tmp/slurm-bench-XXXX)}"
mkdir -p "$WORK"/{spool,state,logs,run}
HOST="$(hostname -s)"
CPUS="$(nproc)"
PY="$(command -v python3)"
STARTED=()

cleanup() {
    for pid in "${STARTED[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

# --- a frozen copy of the project (as the tests' frozen_project fixture makes it) -----------------
PROJECT="$WORK/project"
[ -d "$PROJECT" ] || PYTHONPATH="$REPO" "$PY" -c \
    'import sys; sys.path.insert(0, sys.argv[1] + "/tests"); from pathlib import Path; from conftest import frozen_copy; frozen_copy(Path(sys.argv[2]))' \
    "$REPO" "$PROJECT"

# --- Slurm on this one node ------------------------------------------------------------------------
cat > "$WORK/slurm.conf" <<EOF
ClusterName=bench
SlurmctldHost=$HOST
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdSpoolDir=$WORK/spool
StateSaveLocation=$WORK/state
SlurmctldPidFile=$WORK/run/slurmctld.pid
SlurmdPidFile=$WORK/run/slurmd.pid
SlurmUser=root
ReturnToService=2
KillWait=30
MpiDefault=none
NodeName=$HOST CPUs=$CPUS State=UNKNOWN
PartitionName=main Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$WORK/slurm.conf"
if ! pgrep -x munged >/dev/null; then
    [ -f /etc/munge/munge.key ] || (mungekey --create 2>/dev/null || /usr/sbin/create-munge-key -f)
    mkdir -p /run/munge && chown munge:munge /run/munge 2>/dev/null || true
    runuser -u munge -- /usr/sbin/munged --force
    sleep 1
    STARTED+=("$(cat /run/munge/munged.pid)")   # stopped on exit, as the Slurm daemons
fi
slurmctld -D -f "$SLURM_CONF" > "$WORK/slurmctld.log" 2>&1 & STARTED+=($!)
slurmd -D -f "$SLURM_CONF" > "$WORK/slurmd.log" 2>&1 & STARTED+=($!)
for _ in $(seq 60); do sinfo -h -o %T 2>/dev/null | grep -q idle && break; sleep 1; done
sinfo

# --- the job array ---------------------------------------------------------------------------------
SESSIONS="$WORK/sessions"
cat > "$WORK/run-matrix.sbatch" <<EOF
#!/bin/bash
#SBATCH --job-name=sop-bench
#SBATCH --array=1-2
#SBATCH --cpus-per-task=1
#SBATCH --output=$WORK/logs/%x-%A_%a.out
set -euo pipefail
export STUDY_ROOT="$PROJECT" PYTHONPATH="$PROJECT"
exec "$PY" -m study.cli run-all --models sim:oracle --conditions Plain,Remind --seeds 2 --accounts \${ACCOUNTS:-3} \\
    --jobs 1 --shard "\${SLURM_ARRAY_TASK_ID}/\${SLURM_ARRAY_TASK_COUNT}" --sessions "$SESSIONS" \${EXTRA:-}
EOF
check() { if eval "$2"; then echo "PASS $1"; else echo "FAIL $1"; fi; }
wait_job() { while squeue -h -j "$1" 2>/dev/null | grep -q .; do sleep 2; done; }

job=$(sbatch --parsable "$WORK/run-matrix.sbatch")
wait_job "$job"
STUDY_ROOT="$PROJECT" PYTHONPATH="$PROJECT" "$PY" -m study.cli status --sessions "$SESSIONS" | tee "$WORK/status-1.txt"
check "1. the array ran each session once, completed" "grep -q '2 session(s): 2 completed' '$WORK/status-1.txt'"

# 2. stopping a task: --signal=TERM alone, then --batch
rm -rf "$SESSIONS"
job=$(ACCOUNTS=40 sbatch --parsable --export=ALL "$WORK/run-matrix.sbatch")
for _ in $(seq 120); do ls "$SESSIONS"/exploratory/sim-oracle/*/seed-2-first-40/events.jsonl >/dev/null 2>&1 && break; sleep 1; done
sleep 8
scancel --signal=TERM "${job}_1"; sleep 5
check "2a. scancel --signal=TERM did not stop task 1" "squeue -h -j '${job}_1' | grep -q ."
scancel --batch --signal=TERM "${job}_1" "${job}_2"
wait_job "$job"
cat "$WORK"/logs/sop-bench-"${job}"_*.out | tail -n 30
check "2b. scancel --batch --signal=TERM interrupted the sessions, recording SIGTERM" \
    "grep -h '\"void_reason\"' '$SESSIONS'/exploratory/sim-oracle/*/seed-2-first-40/meta.json | grep -q 'SIGTERM to run-all'"

# 3. rerun the voided ones
job=$(ACCOUNTS=40 EXTRA=--rerun-voided sbatch --parsable --export=ALL "$WORK/run-matrix.sbatch")
wait_job "$job"
STUDY_ROOT="$PROJECT" PYTHONPATH="$PROJECT" "$PY" -m study.cli status --sessions "$SESSIONS" | tee "$WORK/status-3.txt"
check "3. --rerun-voided reran them" "grep -q '2 session(s): 2 completed' '$WORK/status-3.txt'"
echo "work folder: $WORK"
