#!/usr/bin/env bash
# CPU flamegraphs of chosen benchmarks with async-profiler (bundled in the benchmarks jar, event=cpu).
#
#   allocator-bench/flamegraph.sh [--plain] BENCHMARK_REGEX [JMH args...]
#   e.g. allocator-bench/flamegraph.sh FixedSize -p allocator=MAGALLOC,ADAPTIVE -p size=256 -p direct=true
#
# Workers run as event-loop threads unless --plain. Pin params with -p: without them JMH runs every
# combination. Writes HTML under allocator-bench/target/flamegraphs/<time>/<benchmark-and-params>/.
set -euo pipefail
bench_dir="$(cd "$(dirname "$0")" && pwd)"
cd "$bench_dir/.."

workers=EVENT_LOOP
if [ "${1:-}" = "--plain" ]; then
  workers=PLAIN
  shift
fi
if [ $# -lt 1 ]; then
  sed -n '2,9p' "$0"
  exit 2
fi
regex="$1"
shift

mvn -B -q ${MVN_ARGS:-} -pl allocator-bench -am package -DskipTests

case "$(uname -m)" in
  x86_64|amd64) platform=linux-x64 ;;
  aarch64|arm64) platform=linux-arm64 ;;
  *) echo "no bundled async-profiler for $(uname -m)" >&2; exit 1 ;;
esac
jar_file="$bench_dir/target/benchmarks.jar"
lib_dir="$bench_dir/target/async-profiler"
mkdir -p "$lib_dir"
# The tools.profiler:async-profiler dependency is shaded into the jar with its native libraries.
(cd "$lib_dir" && unzip -o -q "$jar_file" "$platform/libasyncProfiler.so" 2>/dev/null \
  || "${JAVA_HOME:+$JAVA_HOME/bin/}jar" xf "$jar_file" "$platform/libasyncProfiler.so")
lib="$lib_dir/$platform/libasyncProfiler.so"
[ -f "$lib" ] || { echo "could not extract $platform/libasyncProfiler.so from $jar_file" >&2; exit 1; }

out="$bench_dir/target/flamegraphs/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
jvm_args="$("$java" -cp "$jar_file" io.github.magalloc.bench.BenchJvm "$workers")"

# ignoreLock: on a shared machine another JMH run may hold /tmp/jmh.lock; profiles still show where time goes.
"$java" -Djmh.ignoreLock=true -jar "$jar_file" "$regex" -p threads="$workers" -jvmArgsAppend "$jvm_args" \
  -f 1 -wi 2 -w 1s -i 3 -r 2s \
  -prof "async:libPath=$lib;output=flamegraph;event=cpu;dir=$out" "$@"

echo
echo "Flamegraphs:"
find "$out" -name '*.html' | sort
