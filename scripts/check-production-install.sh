#!/usr/bin/env bash
# The production install path, as an operator (or the Dockerfile) takes it: build with the dev
# dependencies, copy the tree, install it with `npm ci --omit=dev`, start the server from it, and
# check that it is ready and serves the account page. Run by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

npm run build >/dev/null
target=$(mktemp -d)
trap 'if [ -n "${server:-}" ]; then kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; fi; rm -rf "$target"' EXIT
git ls-files -z | tar --null -cf - -T - | tar -xf - -C "$target"
cp -R dist "$target/dist"
# The simulator package's build: serve's warm-up and demo import it at run time.
cp -R packages/simulator/dist "$target/packages/simulator/dist"
# The copy's sources must not look newer than its builds (tar restores their mtimes; make sure).
find "$target/dist" "$target/packages/simulator/dist" -exec touch {} +
(cd "$target" && npm ci --omit=dev --no-audit --no-fund >/dev/null)
test ! -e "$target/node_modules/typescript" || { echo "typescript was installed by --omit=dev" >&2; exit 1; }

port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
(cd "$target" && PORT=$port DATABASE_URL="sqlite:$target/data/switchyard.db" exec node bin/switchyard.js serve >"$target/serve.log" 2>&1) &
server=$!
for _ in $(seq 1 60); do curl -fs "http://127.0.0.1:$port/ready" >/dev/null 2>&1 && break; sleep 0.5; done
curl -fs "http://127.0.0.1:$port/ready" >/dev/null || { cat "$target/serve.log" >&2; exit 1; }
curl -fs "http://127.0.0.1:$port/" | grep -q '<div id="root"' || { echo "the page is not served" >&2; cat "$target/serve.log" >&2; exit 1; }
curl -fs "http://127.0.0.1:$port/v1/models" | grep -q '"data"'
echo "production install: built tree installed with --omit=dev serves /ready, / and /v1/models"
