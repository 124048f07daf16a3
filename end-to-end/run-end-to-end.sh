#!/usr/bin/env bash
# End-to-end allocator comparison (docs/end-to-end.md): builds the reactor from the repository root (package only,
# never install), then runs io.github.magalloc.e2e.EndToEndRunner, which starts one server JVM per allocator, drives it
# with the built-in load generator in this JVM or with h2load, and prints the table.
#
#   end-to-end/run-end-to-end.sh                      # ~2 min: 10 s client warm-up, 4 allocators x (5 s + 20 s)
#   end-to-end/run-end-to-end.sh --long               # 3 rounds x 4 allocators x (20 s warm-up + 60 s), ~17 min
#   end-to-end/run-end-to-end.sh --mode proxy --out /tmp/e2e.md
#   end-to-end/run-end-to-end.sh --protocol http2 --tls openssl --client h2load --rounds 3 \
#       --allocators magalloc,adaptive,pooled --json /tmp/e2e.json
#
# Other options: --allocators magalloc,adaptive,pooled,unpooled (also pooled_all_threads) --protocol http1|http2
# --tls none|jdk|openssl --client builtin|h2load --transport nio|epoll --connections 8 --pipeline 4
# --client-warmup-seconds 10 --seconds N --warmup-seconds N --rounds N --server-threads 1 --server-heap 512m
# --server-java-opts "JVM OPTIONS" --max-requests N --seed 42 --h2load-echo-size 16384 --json FILE.
# MVN_OFFLINE=1 builds with -o; JAVA_HOME selects the JDK (the server JVMs use the same one).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
if [[ " $* " == *" --client h2load "* || " $* " == *" --client=h2load "* ]] && ! command -v h2load >/dev/null; then
  echo "h2load not found. Install it (Debian, Ubuntu): sudo apt-get install -y nghttp2-client" >&2
  exit 2
fi
mvn -B -q ${MVN_OFFLINE:+-o} -pl end-to-end -am package dependency:build-classpath -DskipTests \
    -Dmdep.outputFile=target/e2e.classpath -DincludeScope=runtime
cp="end-to-end/target/classes:$(cat end-to-end/target/e2e.classpath)"
exec "${JAVA_HOME:+$JAVA_HOME/bin/}java" ${E2E_JAVA_OPTS:-} -cp "$cp" io.github.magalloc.e2e.EndToEndRunner "$@"
