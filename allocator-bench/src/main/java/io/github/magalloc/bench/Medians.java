package io.github.magalloc.bench;

import java.util.ArrayList;
import java.util.List;

/** The median of measured values, shared by the report's fork statistics and the diagnostics. */
public final class Medians {
    private Medians() {
    }

    /** The middle value (the mean of the two middle ones for an even count); NaN for none. */
    public static double of(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
