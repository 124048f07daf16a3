package io.github.magalloc.e2e;

import java.util.HashMap;
import java.util.Map;

/**
 * One snapshot of the server process, served as text by GET /stats so that a load generator in another JVM can take
 * the difference over its measured window.
 *
 * @param requests           HTTP requests served (echo and generated; /stats itself not counted)
 * @param allocatedBytes     sum of ThreadMXBean#getThreadAllocatedBytes over the server's event-loop threads
 * @param gcCount            collections of all GarbageCollectorMXBeans
 * @param gcMillis           their accumulated time
 * @param rssBytes           VmRSS of the process from /proc/self/status, -1 where there is none
 * @param allocatorUsedBytes heap + direct used memory from the allocator's metric
 * @param openConnections    server-side channels open (HTTP and proxy front end)
 * @param proxyCrossThread   proxied buffers released on another event loop than the one that read them
 * @param proxySameThread    proxied buffers released on the event loop that read them (expected 0)
 * @param buffersChecked     inbound buffers checked for their allocator on the server's channels
 *                           ({@link AllocatorCheck})
 * @param buffersForeign     of those, buffers not from the server's allocator (expected 0)
 */
public record ServerStats(long requests, long allocatedBytes, long gcCount, long gcMillis, long rssBytes,
                          long allocatorUsedBytes, long openConnections, long proxyCrossThread,
                          long proxySameThread, long buffersChecked, long buffersForeign) {

    public String toText() {
        return "requests=" + requests + "\n"
                + "allocatedBytes=" + allocatedBytes + "\n"
                + "gcCount=" + gcCount + "\n"
                + "gcMillis=" + gcMillis + "\n"
                + "rssBytes=" + rssBytes + "\n"
                + "allocatorUsedBytes=" + allocatorUsedBytes + "\n"
                + "openConnections=" + openConnections + "\n"
                + "proxyCrossThread=" + proxyCrossThread + "\n"
                + "proxySameThread=" + proxySameThread + "\n"
                + "buffersChecked=" + buffersChecked + "\n"
                + "buffersForeign=" + buffersForeign + "\n";
    }

    public static ServerStats parse(String text) {
        Map<String, Long> m = new HashMap<>();
        for (String line : text.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                m.put(line.substring(0, eq).trim(), Long.parseLong(line.substring(eq + 1).trim()));
            }
        }
        return new ServerStats(get(m, "requests"), get(m, "allocatedBytes"), get(m, "gcCount"), get(m, "gcMillis"),
                get(m, "rssBytes"), get(m, "allocatorUsedBytes"), get(m, "openConnections"),
                get(m, "proxyCrossThread"), get(m, "proxySameThread"), get(m, "buffersChecked"),
                get(m, "buffersForeign"));
    }

    private static long get(Map<String, Long> m, String key) {
        Long v = m.get(key);
        if (v == null) {
            throw new IllegalArgumentException("stats lack " + key);
        }
        return v;
    }
}
