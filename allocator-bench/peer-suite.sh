#!/usr/bin/env bash
# The field's own benchmark: the mimalloc-based peer's ByteBufAllocatorAllocPatternBenchmark (neoionet/netty-allocator
# at a fixed commit), as it publishes it (its JMH settings, its FastThreadLocalThread harness executor, direct
# allocation), with magalloc added as one more allocatorType. The peer's code is fetched into target/, never committed.
#
#   allocator-bench/peer-suite.sh [--threads N] [--runs N]       default: 1 thread, 1 run (about 10 minutes a run)
#   JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 allocator-bench/peer-suite.sh --runs 3
#
# Every allocator runs on Netty 4.2.20.Final (magalloc's), the peer's build at release 17 (magalloc's class files).
# Prints each run's JMH output to target/peer-suite/run-N.log and the table of ratios (PeerSuiteTable): with several
# runs, the median of the runs' ratios per cell, against the goal (<= 0.80x the peer and <= 0.70x adaptive).
# Needs a JDK 17+, Maven, git and network access to github.com (or PEER_REPO=a local clone of the peer's repository).
# MVN_ARGS=-o builds magalloc offline.
set -euo pipefail
threads=1
runs=1
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    *) echo "unknown option $1 (--threads N, --runs N)" >&2; exit 2 ;;
  esac
done
peer_commit=57ca1d4
bench_dir="$(cd "$(dirname "$0")" && pwd)"
root="$bench_dir/.."
work="$bench_dir/target/peer-suite"
peer="$work/netty-allocator"
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"

cd "$root"
mvn -B -q ${MVN_ARGS:-} -pl allocator,allocator-bench -am install -DskipTests -Dmaven.javadoc.skip=true \
  -Dmaven.source.skip=true
# The project's version: the first <version> of the parent pom (its own; it has no parent).
version="$(sed -n 's|^  <version>\(.*\)</version>|\1|p' pom.xml | head -1)"

mkdir -p "$work"
if [ ! -d "$peer/.git" ]; then
  git clone -q "${PEER_REPO:-https://github.com/neoionet/netty-allocator.git}" "$peer"
fi
cd "$peer"
git checkout -q -f "$peer_commit"
# magalloc as one more allocatorType, on the same Netty, compiled for magalloc's release.
sed -i 's|<maven.compiler.release>8</maven.compiler.release>|<maven.compiler.release>17</maven.compiler.release>|;
        s|<netty.version>[^<]*</netty.version>|<netty.version>4.2.20.Final</netty.version>|' pom.xml
sed -i "0,/<dependencies>/s|<dependencies>|<dependencies>\n        <dependency><groupId>io.github.magalloc</groupId><artifactId>magalloc-allocator</artifactId><version>$version</version></dependency>|" \
  benchmark/pom.xml
sed -i 's|        MIMALLOC(MiByteBufAllocator::new),|        MIMALLOC(MiByteBufAllocator::new),\n        MAGALLOC(io.github.magalloc.MagazineByteBufAllocator::new),|' \
  benchmark/src/main/java/io/github/neoionet/netty/microbenchmark/ByteBufAllocatorAllocPatternBenchmark.java
mvn -B -q ${MVN_ARGS:-} package -DskipTests
jar="$peer/benchmark/target/benchmarks.jar"

results=()
for run in $(seq 1 "$runs"); do
  "$java" -jar "$jar" 'ByteBufAllocatorAllocPatternBenchmark.directAllocation' \
    -p allocatorType=MAGALLOC,MIMALLOC,ADAPTIVE,POOLED -p sizePattern=SOCKET_PROXY,API_GATEWAY \
    -p MAX_LIVE_BUFFERS=1024,8192,65536 -p enableReadWrite=false,true -t "$threads" \
    -rf json -rff "$work/run-$run.json" > "$work/run-$run.log" 2>&1
  results+=("$work/run-$run.json")
done
"$java" -cp "$bench_dir/target/benchmarks.jar" io.github.magalloc.bench.runner.PeerSuiteTable "${results[@]}"
