#!/usr/bin/env bash
# npm run docker:check — where Docker runs (an operator's machine; not this project's CI, which has no daemon): builds
# the image and runs docs/deploy.md's commands in it, as test/integration/image.test.ts does without Docker:
#   db migrate and start (the embedded database in a volume), web and worker (PostgreSQL), each until it is up
#   (/healthz and /readyz answer 200; the worker logs "worker: taking jobs"), then stopped with docker stop.
# Redis and PostgreSQL are throwaway containers on a network of their own; everything but the built image (the tag
# docs/deploy.md builds, print-bridge, or $IMAGE) is removed at the end, whatever happened.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v docker >/dev/null 2>&1; then
  echo "docker:check: docker is not installed here, so nothing was checked (test/integration/image.test.ts checks the build without it)."
  exit 1
fi
if ! docker info >/dev/null 2>&1; then
  echo "docker:check: docker cannot reach a daemon here (docker info fails), so nothing was checked."
  exit 1
fi

IMAGE="${IMAGE:-print-bridge}"
run_id="pb-check-$$"
net="$run_id"
vol="$run_id-data"
work="$(mktemp -d)"
containers=()

cleanup() {
  for c in "${containers[@]}"; do docker rm -f "$c" >/dev/null 2>&1 || true; done
  docker network rm "$net" >/dev/null 2>&1 || true
  docker volume rm "$vol" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "docker:check: FAILED: $*" >&2
  exit 1
}

# Waits (up to 90 s) until "$2" succeeds, giving up at once when container $1 has stopped.
wait_until() {
  local container="$1" probe="$2" what="$3"
  for _ in $(seq 1 180); do
    if eval "$probe" >/dev/null 2>&1; then return 0; fi
    if [ "$(docker inspect -f '{{.State.Running}}' "$container")" != true ]; then
      docker logs "$container" >&2 || true
      fail "$container stopped before $what"
    fi
    sleep 0.5
  done
  docker logs "$container" >&2 || true
  fail "no $what from $container after 90 s"
}

# GET http://127.0.0.1:<published port of $1>$2 answers 200 (node asks: curl may not be installed).
http_ok() {
  local port
  port="$(docker port "$1" 3000/tcp | head -1 | sed 's/.*://')"
  node -e "fetch('http://127.0.0.1:$port$2').then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))"
}

# Stops like an orchestrator (SIGTERM, 30 s) and wants exit code 0: running jobs finished, nothing killed.
stop_clean() {
  docker stop -t 30 "$1" >/dev/null
  local code
  code="$(docker inspect -f '{{.State.ExitCode}}' "$1")"
  [ "$code" = 0 ] || { docker logs "$1" >&2 || true; fail "$1 exited with $code after docker stop"; }
}

echo "== docker build -t $IMAGE ."
docker build -t "$IMAGE" .

echo "== Redis and PostgreSQL (throwaway containers on network $net)"
docker network create "$net" >/dev/null
docker volume create "$vol" >/dev/null
containers+=("$run_id-redis" "$run_id-postgres")
docker run -d --name "$run_id-redis" --network "$net" redis:7 redis-server --appendonly yes --maxmemory-policy noeviction >/dev/null
docker run -d --name "$run_id-postgres" --network "$net" -e POSTGRES_HOST_AUTH_METHOD=trust postgres:16 >/dev/null
wait_until "$run_id-redis" "docker exec $run_id-redis redis-cli ping | grep -q PONG" "a Redis PONG"
wait_until "$run_id-postgres" "docker exec $run_id-postgres pg_isready -U postgres -h 127.0.0.1" "PostgreSQL ready"

# The .env docs/deploy.md's commands take ("What it needs"): made-up credentials, a print service that is not there.
cat >"$work/.env" <<EOF
APP_URL=https://print-bridge.example.com
REDIS_URL=redis://$run_id-redis:6379
SHOPIFY_API_KEY=docker-check-key
SHOPIFY_API_SECRET=docker-check-secret
ENCRYPTION_KEY=$(node -e "process.stdout.write(require('crypto').randomBytes(32).toString('base64'))")
POSTBACK_TOKEN=$(node -e "process.stdout.write(require('crypto').randomBytes(24).toString('hex'))")
PRINT_API_BASE_URL=http://127.0.0.1:9
PRINT_API_TOKEN=t
PRINT_API_SECRET=s
PRINT_SOURCE_ACCOUNT=docker-check
EOF
# web and worker scale apart only with PostgreSQL (docs/deploy.md): their .env names it.
cp "$work/.env" "$work/.env.postgres"
echo "DATABASE_URL=postgres://postgres@$run_id-postgres:5432/postgres" >>"$work/.env.postgres"

echo "== docker run --rm --env-file .env -v print-bridge-data:/app/data $IMAGE db migrate"
out="$(docker run --rm --env-file "$work/.env" --network "$net" -v "$vol:/app/data" "$IMAGE" db migrate)" || fail "db migrate: $out"
echo "$out"
echo "$out" | grep -Eq '[1-9][0-9]* migration\(s\) applied' || fail "db migrate applied no migration"

echo "== docker run -d --env-file .env -v print-bridge-data:/app/data -p 3000:3000 $IMAGE   (start)"
c="$(docker run -d --env-file "$work/.env" --network "$net" -v "$vol:/app/data" -p 127.0.0.1::3000 "$IMAGE")"
containers+=("$c")
wait_until "$c" "http_ok $c /healthz" "/healthz 200"
wait_until "$c" "http_ok $c /readyz" "/readyz 200"
stop_clean "$c"

echo "== docker run -d --env-file .env -p 3000:3000 $IMAGE web"
c="$(docker run -d --env-file "$work/.env.postgres" --network "$net" -p 127.0.0.1::3000 "$IMAGE" web)"
containers+=("$c")
wait_until "$c" "http_ok $c /healthz" "/healthz 200"
wait_until "$c" "http_ok $c /readyz" "/readyz 200"
stop_clean "$c"

echo "== docker run -d --env-file .env $IMAGE worker"
c="$(docker run -d --env-file "$work/.env.postgres" --network "$net" "$IMAGE" worker)"
containers+=("$c")
wait_until "$c" "docker logs $c 2>&1 | grep -q 'worker: taking jobs'" "\"worker: taking jobs\""
stop_clean "$c"

echo "docker:check: OK: $IMAGE builds; db migrate, start, web and worker run and stop cleanly."
