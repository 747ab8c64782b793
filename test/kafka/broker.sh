#!/bin/sh
# Start, stop or inspect a local single-node Kafka broker for tests and trials (see broker.ts).
# Runs on the project's Node 24 (the `node` devDependency), so it works where the system node is older.
set -e
here=$(cd "$(dirname "$0")" && pwd)
node="$here/../../node_modules/.bin/node"
[ -x "$node" ] || node=node
exec "$node" "$here/broker.ts" "$@"
