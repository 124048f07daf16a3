package io.github.magalloc.examples;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's claims keep their proof: each claim names a test or links a row of docs/benchmarks.md, and this test
 * fails when what it names is gone. It checks, in README.md and every docs/*.md: that each relative link leads to a
 * file that exists and, with an anchor, to a heading of that file; in README.md: that each test named in backticks
 * ({@code SomeTest} or {@code SomeTest.method}) is a test class of the repository (with that method), and that each
 * goal it cites (G1, G2, ...) is a row of the Goals table in docs/benchmarks.md.
 */
class DocsClaimsTest {
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern NAMED_TEST = Pattern.compile("`([A-Z][A-Za-z0-9]*Test)(?:\\.([a-zA-Z0-9_]+))?`");
    private static final Pattern GOAL = Pattern.compile("\\bG(\\d+)\\b");
    /**
     * Netty's contract suites, which README.md names as Netty's: they come from the netty-buffer test-jar that
     * allocator/pom.xml depends on, not from this repository's sources.
     */
    private static final Set<String> NETTY_SUITES = Set.of("AbstractByteBufTest", "AbstractByteBufAllocatorTest");

    private final Path root = repositoryRoot();

    @Test
    void everyRelativeLinkLeadsToAFileAndHeading() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path doc : documents()) {
            String text = Files.readString(doc);
            Matcher link = LINK.matcher(text);
            while (link.find()) {
                String target = link.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue; // http:, https:, mailto:
                }
                String problem = problemWith(doc, target);
                if (problem != null) {
                    broken.add(root.relativize(doc) + ": (" + target + ") " + problem);
                }
            }
        }
        assertThat(broken).as("links that lead nowhere").isEmpty();
    }

    @Test
    void everyTestTheReadmeNamesExists() throws IOException {
        String readme = Files.readString(root.resolve("README.md"));
        Matcher named = NAMED_TEST.matcher(readme);
        List<String> missing = new ArrayList<>();
        int count = 0;
        while (named.find()) {
            count++;
            if (NETTY_SUITES.contains(named.group(1))) {
                assertThat(Files.readString(root.resolve("allocator/pom.xml")))
                    .as("allocator/pom.xml depends on netty-buffer's test-jar, which has " + named.group(1))
                    .contains("<type>test-jar</type>");
                continue;
            }
            Path source = testSource(named.group(1));
            if (source == null) {
                missing.add(named.group(1) + ": no such test class");
            } else if (named.group(2) != null
                && !Files.readString(source).matches("(?s).*\\b" + named.group(2) + "\\s*\\(.*")) {
                missing.add(named.group(0) + ": no such method in " + root.relativize(source));
            }
        }
        assertThat(count).as("tests named in README.md").isPositive();
        assertThat(missing).as("tests README.md names that do not exist").isEmpty();
    }

    @Test
    void everyGoalTheReadmeCitesIsARowOfTheGoalsTable() throws IOException {
        String readme = Files.readString(root.resolve("README.md"));
        String goals = section(Files.readString(root.resolve("docs/benchmarks.md")), "## Goals");
        Set<String> rows = new HashSet<>();
        Matcher row = Pattern.compile("(?m)^\\| (G\\d+)\\b").matcher(goals);
        while (row.find()) {
            rows.add(row.group(1));
        }
        Set<String> cited = new HashSet<>();
        Matcher goal = GOAL.matcher(readme);
        while (goal.find()) {
            cited.add("G" + goal.group(1));
        }
        assertThat(cited).as("goals README.md cites").isNotEmpty();
        assertThat(rows).as("rows of docs/benchmarks.md's Goals table").containsAll(cited);
    }

    /** Null if {@code target}, linked from {@code doc}, is a file (and heading) that exists; else what is wrong. */
    private String problemWith(Path doc, String target) throws IOException {
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        Path linked = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
        if (!Files.exists(linked)) {
            return "no such file";
        }
        if (hash < 0 || Files.isDirectory(linked) || !linked.toString().endsWith(".md")) {
            return null;
        }
        String anchor = target.substring(hash + 1);
        return anchors(Files.readString(linked)).contains(anchor) ? null : "no heading with this anchor";
    }

    /** The anchors GitHub gives the headings of a Markdown text (duplicates get -1, -2, ...). */
    static Set<String> anchors(String markdown) {
        Set<String> anchors = new HashSet<>();
        boolean inCode = false;
        for (String line : markdown.split("\n")) {
            if (line.startsWith("```")) {
                inCode = !inCode;
            }
            if (inCode || !line.matches("^#{1,6} .*")) {
                continue;
            }
            String slug = line.replaceFirst("^#+ ", "").trim().toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
            String unique = slug;
            for (int n = 1; anchors.contains(unique); n++) {
                unique = slug + "-" + n;
            }
            anchors.add(unique);
        }
        return anchors;
    }

    private static String section(String markdown, String heading) {
        int start = markdown.indexOf("\n" + heading + "\n");
        assertThat(start).as("docs/benchmarks.md has a section " + heading).isNotNegative();
        int end = markdown.indexOf("\n## ", start + heading.length() + 1);
        return markdown.substring(start, end < 0 ? markdown.length() : end);
    }

    private Path testSource(String className) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(f -> f.toString().contains("/src/test/java/") && !f.toString().contains("/target/"))
                .filter(f -> f.getFileName().toString().equals(className + ".java"))
                .findFirst().orElse(null);
        }
    }

    private List<Path> documents() throws IOException {
        List<Path> documents = new ArrayList<>();
        documents.add(root.resolve("README.md"));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(f -> f.toString().endsWith(".md")).sorted().forEach(documents::add);
        }
        return documents;
    }

    /** The repository's root: the nearest directory above the working directory with README.md and docs/. */
    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !(Files.exists(dir.resolve("README.md")) && Files.isDirectory(dir.resolve("docs")))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("a directory above the working directory with README.md and docs/").isNotNull();
        return dir;
    }
}
