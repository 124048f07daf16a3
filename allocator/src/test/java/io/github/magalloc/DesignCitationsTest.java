package io.github.magalloc;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The protocols of {@code docs/design.md} and the code's citations of them agree: every citation in the sources
 * and the other docs reads {@code protocol N (name)} with the number and name of a heading {@code Protocol N: name}
 * (design.md itself may cite a protocol by number alone, next to its headings), and every protocol heading is
 * cited by the code. A renamed, renumbered or removed protocol fails here.
 */
class DesignCitationsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern HEADING = Pattern.compile("(?m)^#{2,4} Protocol (\\d+[a-z]?): (.+?)\\s*$");
    /** A citation: the number, then the name in parentheses (group 2 is null when the name is missing). */
    private static final Pattern CITATION = Pattern.compile("[Pp]rotocol (\\d+[a-z]?)(?: \\(([^()]+)\\))?");

    @Test
    void everyCitationNamesAProtocolHeadingByItsNumberAndName() throws IOException {
        Map<String, String> protocols = headings();
        assertThat(protocols).as("protocol headings in docs/design.md").isNotEmpty();
        List<String> wrong = new ArrayList<>();
        TreeSet<String> citedFromCode = new TreeSet<>();
        Path design = ROOT.resolve("docs/design.md");
        for (Path file : sources()) {
            String text = flatten(Files.readString(file));
            Matcher m = CITATION.matcher(text);
            while (m.find()) {
                String number = m.group(1);
                String name = m.group(2);
                String heading = protocols.get(number);
                boolean numberAlone = name == null && file.equals(design);
                if (heading == null || !numberAlone && !heading.equals(name)) {
                    wrong.add(ROOT.relativize(file) + ": \"" + m.group() + "\" (heading: "
                        + (heading == null ? "none" : "Protocol " + number + ": " + heading) + ")");
                } else if (file.toString().endsWith(".java")) {
                    citedFromCode.add(number);
                }
            }
        }
        assertThat(wrong).as("citations that do not match a heading").isEmpty();
        assertThat(citedFromCode).as("protocols the code cites").containsExactlyInAnyOrderElementsOf(protocols.keySet());
    }

    /** Number -> name of every {@code Protocol N: name} heading, each number once. */
    private static Map<String, String> headings() throws IOException {
        String design = Files.readString(ROOT.resolve("docs/design.md"));
        Map<String, String> protocols = new LinkedHashMap<>();
        Matcher m = HEADING.matcher(design);
        while (m.find()) {
            assertThat(protocols.put(m.group(1), m.group(2))).as("protocol %s has two headings", m.group(1)).isNull();
        }
        return protocols;
    }

    /** Every Java source and Markdown page of the repository but design.md's headings themselves and build output. */
    private static List<Path> sources() throws IOException {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(Files::isRegularFile)
                .filter(p -> p.toString().endsWith(".java") || p.toString().endsWith(".md"))
                .filter(p -> !ROOT.relativize(p).toString().contains("target/"))
                .filter(p -> !ROOT.relativize(p).startsWith(".git"))
                .collect(Collectors.toList());
        }
    }

    /**
     * The text with line breaks and comment leaders ({@code *}, {@code //}) turned into single spaces, so that a
     * citation broken over two comment lines reads as one; headings are left out (they are not citations).
     */
    private static String flatten(String text) {
        String withoutHeadings = HEADING.matcher(text).replaceAll("");
        return withoutHeadings.replaceAll("\\s*\\R\\s*(?:\\*(?!/)|//)?\\s*", " ");
    }

    static {
        if (!Files.isDirectory(ROOT.resolve("docs"))) {
            throw new UncheckedIOException(new IOException("no docs/ under " + ROOT + ": run from the allocator module"));
        }
    }
}
