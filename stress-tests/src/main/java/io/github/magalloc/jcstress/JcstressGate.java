package io.github.magalloc.jcstress;

import org.openjdk.jcstress.JCStress;
import org.openjdk.jcstress.Main;
import org.openjdk.jcstress.Options;

import java.util.SortedSet;

/**
 * Runs jcstress ({@link Main}, same arguments), but first refuses a run in which the test filter ({@code -t})
 * matches no test: jcstress itself then reports nothing and exits 0, so a renamed test or a mistyped filter would
 * pass CI while testing nothing. Exits 2 in that case; otherwise jcstress' own exit code (1 on a forbidden
 * outcome).
 */
public final class JcstressGate {
    private JcstressGate() {
    }

    public static void main(String[] args) throws Exception {
        Options options = new Options(args);
        if (options.parse()) {
            SortedSet<String> tests = new JCStress(options).getTests();
            if (tests.isEmpty()) {
                System.err.println("jcstress: no test matches -t " + options.getTestFilter() + "; refusing to pass");
                System.exit(2);
            }
            System.out.println("jcstress: " + tests.size() + " tests match -t " + options.getTestFilter());
        }
        Main.main(args);
    }
}
