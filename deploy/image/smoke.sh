#!/usr/bin/env bash
# Proves the image built by deploy/image/build.sh runs: starts it against PostgreSQL (PG_HOST/PG_PORT/PG_USER/
# PG_PASSWORD, default 127.0.0.1:5432 postgres/postgres; a database of its own, queen_smoke_<time>_<pid>_<random>,
# created for the run), waits for /health 200, pushes a message and pops it back, prints image size and start time.
# Whatever the outcome (an interrupt too) it leaves nothing behind: its containers, the image it loaded (unless that
# image was there before), its database and its work directory are removed.
#   deploy/image/smoke.sh [IMAGE.tar]     default target/queen-image.tar (built when missing)
# Runtime: podman (Debian's package, installed when missing) with --network=host. Where podman cannot run a
# container (seen on VMs without the needed privileges: crun failing on setrlimit or cgroups) it says so and runs
# the same image in a chroot instead: layers unpacked in order, the image's own entrypoint, env, user and working
# directory; QUEEN_SMOKE_RUNTIME=podman|chroot forces one.
set -euo pipefail
cd "$(dirname "$0")/../.."
tar_file="${1:-target/queen-image.tar}"
[ -s "$tar_file" ] || deploy/image/build.sh
tar_file=$(realpath "$tar_file")
pg_host="${PG_HOST:-127.0.0.1}" pg_port="${PG_PORT:-5432}" pg_user="${PG_USER:-postgres}" pg_password="${PG_PASSWORD:-postgres}"
# a name no one else uses: never another database on that server
db="queen_smoke_$(date +%s)_$$_${RANDOM}"
port="${QUEEN_SMOKE_PORT:-26632}"
runtime="${QUEEN_SMOKE_RUNTIME:-auto}"
work=$(mktemp -d)
pid="" container="" db_created="" loaded_image=""
containers=()
cleanup() {
  local c
  for c in ${containers[@]+"${containers[@]}"}; do podman rm -f "$c" >/dev/null 2>&1 || true; done
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  if [ -n "$loaded_image" ]; then podman rmi -f "$loaded_image" >/dev/null 2>&1 || true; fi
  if [ -n "$db_created" ]; then
    psql -h "$pg_host" -p "$pg_port" -U "$pg_user" -d postgres -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" \
      >/dev/null 2>&1 || echo "smoke: could not drop the database $db on $pg_host:$pg_port; drop it by hand" >&2
  fi
  if mountpoint -q "$work/root/proc" 2>/dev/null; then umount -l "$work/root/proc" || true; fi
  if mountpoint -q "$work/root/dev" 2>/dev/null; then umount -l "$work/root/dev" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

export PGPASSWORD="$pg_password"
psql -h "$pg_host" -p "$pg_port" -U "$pg_user" -d postgres -qc "CREATE DATABASE $db" >/dev/null
db_created=1

size_mb=$(du -m "$tar_file" | cut -f1)
env_args=(PORT="$port" PG_HOST="$pg_host" PG_PORT="$pg_port" PG_USER="$pg_user" PG_PASSWORD="$pg_password" PG_DATABASE="$db")

wait_healthy() {
  local i
  for i in $(seq 1 600); do
    if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/health" 2>/dev/null)" = 200 ]; then
      return 0
    fi
    sleep 0.1
  done
  return 1
}

start_podman() {
  command -v podman >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq podman >/dev/null; }
  # the default ulimits of containers.conf make crun raise RLIMIT_NOFILE, which an unprivileged VM refuses:
  # keep the host's limits instead
  cat >"$work/containers.conf" <<CONF
[containers]
default_ulimits = []
CONF
  export CONTAINERS_CONF="$work/containers.conf"
  local image before id
  before=$(podman images -q --no-trunc 2>/dev/null || true)
  image=$(podman load -q -i "$tar_file" | sed -n 's/^Loaded image[^:]*: //p' | tail -n1)
  [ -n "$image" ] || return 1
  id=$(podman image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
  # removed at exit unless it was there before this run
  if [ -n "$id" ] && ! grep -q "$id" <<<"$before"; then loaded_image="$id"; fi
  echo "smoke: podman run $image (user, entrypoint and env from the image)"
  t_start=$(date +%s%N)
  local env_flags=() e
  for e in "${env_args[@]}"; do env_flags+=(-e "$e"); done
  # crun (podman's default) refuses hosts with hybrid cgroups ("cgroups in hybrid mode not supported"); runc runs there
  local rt name
  for rt in crun runc; do
    [ "$rt" = runc ] && ! command -v runc >/dev/null 2>&1 && { apt-get install -y -qq runc >/dev/null || true; }
    # named, so that a run that failed after podman created the container is removed too
    name="queen-smoke-$$-$rt-$RANDOM"
    containers+=("$name")
    if container=$(podman --runtime "$rt" run -d --name "$name" --network=host --ulimit=host "${env_flags[@]}" \
        "$image" 2>"$work/podman.err"); then
      how="podman ($rt) --network=host"
      break
    fi
    echo "smoke: podman with $rt cannot run a container here: $(tail -n1 "$work/podman.err")"
    container=""
  done
  [ -n "$container" ] || return 1
  if ! wait_healthy; then
    echo "smoke: the container did not become healthy; its log:"; podman logs "$container" 2>&1 | tail -n 20
    return 1
  fi
  started_ms=$(( ($(date +%s%N) - t_start) / 1000000 ))
  rss="$(podman stats --no-stream --format '{{.MemUsage}}' "$container" 2>/dev/null || true)"
  quarkus_started="$(podman logs "$container" 2>&1 | grep -o 'started in [0-9.]*s' | head -n1 || true)"
}

start_chroot() {
  local root="$work/root"
  mkdir -p "$root" "$work/image"
  tar -xf "$tar_file" -C "$work/image" 2>/dev/null
  python3 - "$work/image" "$root" >"$work/run.env" <<'PY'
import json, os, shlex, subprocess, sys
img, root = sys.argv[1], sys.argv[2]
m = json.load(open(os.path.join(img, "manifest.json")))[0]
for layer in m["Layers"]:
    subprocess.run(["tar", "--warning=no-unknown-keyword", "-xf", os.path.join(img, layer), "-C", root], check=True)
c = json.load(open(os.path.join(img, m["Config"])))["config"]
cmd = (c.get("Entrypoint") or []) + (c.get("Cmd") or [])
print("IMAGE_CMD=" + shlex.quote(shlex.join(cmd)))
print("IMAGE_ENV=" + shlex.quote(shlex.join(c.get("Env") or [])))
print("IMAGE_USER=" + shlex.quote(c.get("User") or "0"))
print("IMAGE_WORKDIR=" + shlex.quote(c.get("WorkingDir") or "/"))
PY
  # shellcheck disable=SC1091
  . "$work/run.env"
  echo "smoke: chroot $root as user $IMAGE_USER: $IMAGE_CMD"
  t_start=$(date +%s%N)
  # shellcheck disable=SC2086
  unshare -m --propagation private sh -c "mount -t proc proc '$root/proc' && mount --rbind /dev '$root/dev' && \
    exec chroot --userspec='$IMAGE_USER:$IMAGE_USER' '$root' env -i $IMAGE_ENV ${env_args[*]} HOME=/deployments \
      sh -c 'cd $IMAGE_WORKDIR && exec $IMAGE_CMD'" >"$work/broker.log" 2>&1 &
  pid=$!
  if ! wait_healthy; then
    echo "smoke: the broker in the chroot did not become healthy; its log:"; tail -n 20 "$work/broker.log"
    return 1
  fi
  started_ms=$(( ($(date +%s%N) - t_start) / 1000000 ))
  local jpid
  jpid=$(pgrep -P "$pid" -n java || pgrep -n -f "$root" || true)
  quarkus_started="$(grep -o 'started in [0-9.]*s' "$work/broker.log" | head -n1 || true)"
  rss=""
  if [ -n "$jpid" ]; then rss="$(awk '/VmRSS/ {print int($2/1024) " MB"}' "/proc/$jpid/status" 2>/dev/null || true)"; fi
  how="chroot (podman could not run the container here)"
  [ "$runtime" = chroot ] && how="chroot"
}

case "$runtime" in
  podman) start_podman ;;
  chroot) start_chroot ;;
  *) start_podman || { [ -n "$container" ] && podman rm -f "$container" >/dev/null 2>&1; container=""; start_chroot; } ;;
esac

curl -sf "http://127.0.0.1:$port/health" >/dev/null
pushed=$(curl -sf -X POST "http://127.0.0.1:$port/api/v1/push" -H 'Content-Type: application/json' \
  -d '{"items":[{"queue":"image-smoke","transactionId":"smoke-1","payload":{"hello":"image"}}]}')
echo "$pushed" | grep -q '"status":"queued"' || { echo "smoke: push failed: $pushed"; exit 1; }
popped=$(curl -sf "http://127.0.0.1:$port/api/v1/pop/queue/image-smoke?autoAck=true")
echo "$popped" | grep -q '"hello":"image"' || { echo "smoke: pop did not return the message: $popped"; exit 1; }
echo "smoke: OK ($how): image $size_mb MB (docker-save tarball), /health 200 after ${started_ms} ms from start" \
  "(Quarkus: ${quarkus_started:-?}, schema applied to a fresh database), push/pop round trip OK${rss:+, RSS $rss}"
