#!/usr/bin/env bash
# Side-by-side allocator benchmarks: magalloc vs Netty adaptive, pooled and unpooled, one table.
#
#   allocator-bench/run-benchmarks.sh            quick selection, a few minutes, results in allocator-bench/target/bench-quick
#   allocator-bench/run-benchmarks.sh --full     everything, 2 forks (hours), results in allocator-bench/results/<time>
#   allocator-bench/run-benchmarks.sh --report   the quick selection with 2 forks (CrossThread 6), 3+5 iterations (~14 min, ~6.5 more for the after-a-peak table): docs/benchmarks.md
#   options: --only REGEX (runs named like AllocPattern-EVENT_LOOP, or Footprint: the footprint and after-a-peak tables), --forks N
#
# Needs only a JDK (17+, JAVA_HOME or java on PATH) and Maven. MVN_ARGS=-o builds offline.
set -euo pipefail
bench_dir="$(cd "$(dirname "$0")" && pwd)"
cd "$bench_dir/.."

mvn -B -q ${MVN_ARGS:-} -pl allocator-bench -am package -DskipTests

out="$bench_dir/target/bench-quick"
for arg in "$@"; do
  if [ "$arg" = "--full" ] || [ "$arg" = "--report" ]; then
    out="$bench_dir/results/$(date +%Y%m%d-%H%M%S)"
  fi
done

java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
exec "$java" -cp "$bench_dir/target/benchmarks.jar" io.github.magalloc.bench.runner.SideBySide --out "$out" "$@"
