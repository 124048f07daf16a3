package io.github.magalloc.e2e;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** Minimal "--key value" / "--flag" command-line parsing that refuses unknown keys. */
final class Args {
    private final Map<String, String> values = new HashMap<>();
    private final Set<String> used = new HashSet<>();

    Args(String[] args) {
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --key, got " + args[i]);
            }
            String key = args[i].substring(2);
            int eq = key.indexOf('=');
            if (eq >= 0) {
                values.put(key.substring(0, eq), key.substring(eq + 1));
            } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
                values.put(key, args[++i]);
            } else {
                values.put(key, "true");
            }
        }
    }

    String get(String key, String def) {
        used.add(key);
        return values.getOrDefault(key, def);
    }

    int getInt(String key, int def) {
        return Integer.parseInt(get(key, Integer.toString(def)));
    }

    boolean flag(String key) {
        return Boolean.parseBoolean(get(key, "false"));
    }

    void rejectUnknown() {
        for (String key : values.keySet()) {
            if (!used.contains(key)) {
                throw new IllegalArgumentException("unknown option --" + key);
            }
        }
    }
}
