#!/usr/bin/env bash
# Builds a release of the published artifacts (magalloc-parent, magalloc-allocator, magalloc-receive,
# magalloc-micrometer) at a version without -SNAPSHOT, ready for a Maven Central upload:
#   OUT/repository/    the Maven layout: each jar with its -sources and -javadoc jars, the poms (licence, SCM,
#                      developers inherited from magalloc-parent), and .md5/.sha1 checksums beside every file
#   OUT/central-bundle.zip   the same files as one bundle for the Central Portal's upload
# It builds the committed tree (git archive HEAD), not uncommitted changes, and runs no tests: release a commit
# that CI passed. The upload is not done here; Central also wants a signature (.asc) per file: with
# MAGALLOC_SIGN=1 each file is signed with gpg's default key before the bundle is made.
# Usage: release/build-release.sh VERSION [OUT]   e.g. release/build-release.sh 0.1.0 /tmp/magalloc-0.1.0
set -euo pipefail
cd "$(dirname "$0")/.."

version="${1:?usage: release/build-release.sh VERSION [OUT]}"
case "$version" in
  *-SNAPSHOT|"") echo "a release version has no -SNAPSHOT: $version" >&2; exit 2 ;;
esac
out="$(mkdir -p "${2:-target/release-$version}" && cd "${2:-target/release-$version}" && pwd)"
rm -rf "$out/repository" "$out/central-bundle.zip"
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT

current=$(sed -n 's|^  <version>\(.*\)</version>|\1|p' pom.xml | head -n 1)
git archive HEAD | tar -x -C "$src"
# The project's version appears as the parent's version in every module pom and as the root's own version.
find "$src" -name pom.xml -not -path "*/consumer-check/*" -exec sed -i "s|<version>$current</version>|<version>$version</version>|" {} +

(cd "$src" && mvn -B -q deploy -pl allocator,receive,micrometer -am -DskipTests \
  -DaltDeploymentRepository="staging::file://$out/repository")

# The bundle holds artifacts, poms, checksums (and signatures); the repository's metadata files are Central's own.
find "$out/repository" -name 'maven-metadata*' -delete
missing=0
for artifact in allocator receive micrometer; do
  dir="$out/repository/io/github/magalloc/magalloc-$artifact/$version"
  for file in ".jar" "-sources.jar" "-javadoc.jar" ".pom"; do
    for sum in "" ".md5" ".sha1"; do
      [ -f "$dir/magalloc-$artifact-$version$file$sum" ] || { echo "missing: $dir/magalloc-$artifact-$version$file$sum" >&2; missing=1; }
    done
  done
done
parent="$out/repository/io/github/magalloc/magalloc-parent/$version/magalloc-parent-$version.pom"
[ -f "$parent" ] && [ -f "$parent.sha1" ] || { echo "missing: $parent" >&2; missing=1; }
for element in "<licenses>" "<scm>" "<developers>" "<url>" "<description>"; do
  grep -q "$element" "$parent" || { echo "the parent pom names no $element" >&2; missing=1; }
done
[ "$missing" = 0 ] || exit 1

if [ "${MAGALLOC_SIGN:-0}" = 1 ]; then
  find "$out/repository" -type f \( -name '*.jar' -o -name '*.pom' \) -exec gpg --batch --yes --armor --detach-sign {} \;
fi
(cd "$out/repository" && zip -q -r ../central-bundle.zip io)
echo "release $version: $out/repository ($(find "$out/repository" -type f | wc -l) files), $out/central-bundle.zip"
