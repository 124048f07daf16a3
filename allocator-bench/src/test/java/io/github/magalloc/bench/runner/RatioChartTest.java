package io.github.magalloc.bench.runner;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.github.magalloc.bench.runner.JsonTest.metric;
import static io.github.magalloc.bench.runner.JsonTest.row;
import static org.assertj.core.api.Assertions.assertThat;

class RatioChartTest {
    private static List<BenchResult> parse(String... rows) {
        return ((List<?>) Json.parse("[" + String.join(",", rows) + "]")).stream()
                .map(o -> BenchResult.of((Map<?, ?>) o)).toList();
    }

    private static String fixed(String allocator, double ns) {
        return row("FixedSizeBenchmark.allocRelease", "avgt", allocator, ", \"size\" : \"256\"", ns, "ns/op", "");
    }

    private static String pattern(String allocator, double ns) {
        return row("AllocPatternBenchmark.allocRelease", "avgt", allocator,
                ", \"distribution\" : \"SOCKET_PROXY\", \"maxLive\" : \"8192\"", ns, "ns/op", "");
    }

    private static String crossThread(String allocator, double producerOpsPerUs) {
        return row("CrossThreadBenchmark.xthread", "thrpt", allocator, ", \"size\" : \"256\"", 99.0, "ops/us",
                metric("produce", producerOpsPerUs, "ops/us"));
    }

    /** Four bars in three rows; a configuration without magalloc gets no row. */
    private static final List<BenchResult> RESULTS = parse(
            fixed("MAGALLOC", 10), fixed("ADAPTIVE", 20), fixed("POOLED", 40),
            pattern("ADAPTIVE", 20), pattern("MAGALLOC", 30),
            crossThread("MAGALLOC", 10), crossThread("ADAPTIVE", 5),
            row("GrowthBenchmark.grow", "avgt", "ADAPTIVE", ", \"target\" : \"16384\"", 300, "ns/op", ""));

    private static Document xml(String svg) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        return factory.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    private static List<Element> elements(Document doc, String tag, String cssClass) {
        NodeList nodes = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", tag);
        List<Element> out = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            Element e = (Element) nodes.item(i);
            if (cssClass == null || cssClass.equals(e.getAttribute("class"))) {
                out.add(e);
            }
        }
        return out;
    }

    private static List<String> texts(Document doc) {
        return elements(doc, "text", null).stream().map(Element::getTextContent).toList();
    }

    @Test
    void oneBarPerRowAndNettyAllocatorInWellFormedSvg() throws Exception {
        Document doc = xml(RatioChart.render(RESULTS, "test run"));

        assertThat(doc.getDocumentElement().getLocalName()).isEqualTo("svg");
        assertThat(elements(doc, "rect", "bar")).extracting(e -> e.getAttribute("data-allocator"))
                .containsExactly("ADAPTIVE", "ADAPTIVE", "ADAPTIVE", "POOLED"); // AllocPattern, CrossThread, FixedSize
        List<String> texts = texts(doc);
        assertThat(texts).contains("test run", "vs ADAPTIVE", "vs POOLED")
                .doesNotContain("vs UNPOOLED", "vs POOLED_ALL_THREADS"); // legend: only what was measured
        assertThat(texts).anyMatch(t -> t.startsWith("FixedSize \u00b7 EVENT_LOOP \u00b7 direct=true size=256"))
                .anyMatch(t -> t.startsWith("CrossThread:produce \u00b7 EVENT_LOOP"))
                .anyMatch(t -> t.startsWith("AllocPattern \u00b7 EVENT_LOOP \u00b7 direct=true distribution=SOCKET_PROXY"))
                .noneMatch(t -> t.startsWith("Growth"));
    }

    @Test
    void barsShowMagallocsAdvantageWhicheverWayTheScoreGoes() throws Exception {
        Document doc = xml(RatioChart.render(RESULTS, "test run"));

        // ns/op: 20 / 10 and 40 / 10; AllocPattern 20 / 30; producer throughput 10 / 5.
        assertThat(elements(doc, "text", "value")).extracting(Element::getTextContent)
                .containsExactly("0.67x", "2.00x", "2.00x", "4.00x");
        double oneX = elements(doc, "line", null).stream()
                .filter(l -> l.getAttribute("stroke").equals("#000000"))
                .mapToDouble(l -> Double.parseDouble(l.getAttribute("x1"))).findFirst().orElseThrow();
        List<Element> bars = elements(doc, "rect", "bar");
        Element worse = bars.get(0);
        assertThat(x(worse) + width(worse)).as("a bar where magalloc is slower ends at 1x").isCloseTo(oneX, within());
        for (Element better : bars.subList(1, bars.size())) {
            assertThat(x(better)).as("a bar where magalloc is faster starts at 1x").isCloseTo(oneX, within());
        }
        // Log scale: 4x is twice as long as 2x.
        assertThat(width(bars.get(3))).isCloseTo(2 * width(bars.get(2)), within());
        assertThat(bars.get(2).getTextContent()).isEqualTo("ADAPTIVE 20.00 ns/op, magalloc 10.00 ns/op");
    }

    @Test
    void selfContainedAndEscaped() throws Exception {
        String svg = RatioChart.render(RESULTS, "a <b> & \"c\"");

        assertThat(svg).doesNotContain("<script", "href", "@import", "url(")
                .contains("a &lt;b&gt; &amp; &quot;c&quot;");
        assertThat(svg.replace("xmlns=\"http://www.w3.org/2000/svg\"", "")).doesNotContain("http");
        xml(svg); // still well formed
    }

    @Test
    void noComparableRowsStillGivesAValidChart() throws Exception {
        Document doc = xml(RatioChart.render(parse(fixed("ADAPTIVE", 20)), "empty"));

        assertThat(elements(doc, "rect", "bar")).isEmpty();
        assertThat(texts(doc)).contains("No row has both a magalloc result and a Netty allocator's.");
    }

    @Test
    void writesTheFileFromSavedJson(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("FixedSize-EVENT_LOOP.json");
        Files.writeString(json, "[" + fixed("MAGALLOC", 10) + "," + fixed("ADAPTIVE", 15) + "]");
        Path svg = dir.resolve("ratios.svg");

        RatioChart.main(new String[] {svg.toString(), json.toString()});

        assertThat(elements(xml(Files.readString(svg)), "rect", "bar")).hasSize(1);
    }

    private static double x(Element e) {
        return Double.parseDouble(e.getAttribute("x"));
    }

    private static double width(Element e) {
        return Double.parseDouble(e.getAttribute("width"));
    }

    private static org.assertj.core.data.Offset<Double> within() {
        return org.assertj.core.data.Offset.offset(0.2);
    }
}
